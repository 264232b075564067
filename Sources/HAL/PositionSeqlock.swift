// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization
import TactusBase

/// Frames rendered, output delay and the time of measurement, published together by the
/// render thread without locks and read consistently by any thread (a sequence lock); the
/// coach's capture thread reads the box's output clock the same way.
public final class PositionSeqlock: Sendable {
    private let sequence = Atomic<UInt64>(0)
    private let frames = Atomic<Int64>(0)
    private let delay = Atomic<Int>(0)
    private let time = Atomic<Int64>(0)

    /// The device's frame period as Double bits, 0 for the nominal one.
    private let period = Atomic<UInt64>(0)

    public init() {}

    /// Single writer: the render thread (for the coach's listener, the box's thread).
    public func publish(frames newFrames: Int64, delay newDelay: Int, at instant: MonotonicTime, nanosecondsPerFrame: Double?) {
        let start = sequence.load(ordering: .relaxed)
        sequence.store(start &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        frames.store(newFrames, ordering: .relaxed)
        delay.store(newDelay, ordering: .relaxed)
        time.store(instant.nanoseconds, ordering: .relaxed)
        period.store(nanosecondsPerFrame?.bitPattern ?? 0, ordering: .relaxed)
        sequence.store(start &+ 2, ordering: .releasing)
    }

    public func read() -> AudioOutputPosition {
        while true {
            let before = sequence.load(ordering: .acquiring)
            let bits = period.load(ordering: .relaxed)
            let snapshot = AudioOutputPosition(framesRendered: frames.load(ordering: .relaxed),
                                               delayFrames: delay.load(ordering: .relaxed),
                                               timestamp: MonotonicTime(nanoseconds: time.load(ordering: .relaxed)),
                                               nanosecondsPerFrame: bits == 0 ? nil : Double(bitPattern: bits))
            atomicMemoryFence(ordering: .acquiring)
            if before & 1 == 0 && sequence.load(ordering: .relaxed) == before { return snapshot }
        }
    }
}
