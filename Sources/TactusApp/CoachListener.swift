// SPDX-License-Identifier: GPL-3.0-or-later
import Coach
import HAL
import Synchronization
import TactusBase

/// The live coach's ears on the capture thread: the same `OnsetDetector` as `tactus coach`,
/// each hit stamped with the CLOCK_MONOTONIC time of its first sample and put in a
/// lock-free ring; `drain` (the capture's supervisor, every 5 ms) takes the hits out for
/// the control loop, which judges them on the one timeline (`Box.coachHit(at:)`).
///
/// `capture` never allocates, locks or logs: the detector and the ring are allocated here.
public final class CoachListener: CaptureConsumer, @unchecked Sendable {
    public let sampleRate: Int
    private let detector: OnsetDetector
    // Single producer (capture thread), single consumer (drain): the capture thread owns
    // `write`, the drainer `read`; the slot is published by the release store.
    private let ring: UnsafeMutablePointer<Int64>
    private let mask: Int
    private let written = Atomic<Int>(0)
    private let read = Atomic<Int>(0)
    /// Hits dropped because the ring was full (nobody drained for 256 hits).
    public let dropped = Atomic<Int>(0)
    // Capture thread only: the input sample index and time of the block being processed.
    private var blockStart: Int64 = 0
    private var blockTime: Int64 = 0

    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
        detector = OnsetDetector(.init(sampleRate: sampleRate))
        mask = 255
        ring = .allocate(capacity: mask + 1)
        ring.initialize(repeating: 0, count: mask + 1)
    }

    deinit { ring.deallocate() }

    public func capture(_ samples: UnsafeBufferPointer<Float>, firstSampleAt nanoseconds: Int64) {
        blockStart = detector.position
        blockTime = nanoseconds
        detector.process(samples) { sample, _ in
            // The onset may lie in an earlier block: its time counts back from this one's.
            let time = blockTime + (sample - blockStart) * 1_000_000_000 / Int64(sampleRate)
            let w = written.load(ordering: .relaxed)
            guard w - read.load(ordering: .acquiring) <= mask else {
                dropped.add(1, ordering: .relaxed)
                return
            }
            ring[w & mask] = time
            written.store(w + 1, ordering: .releasing)
        }
    }

    /// The hits found since the last call (their times), oldest first.
    public func drain() -> [MonotonicTime] {
        let end = written.load(ordering: .acquiring)
        var r = read.load(ordering: .relaxed)
        var hits: [MonotonicTime] = []
        while r < end {
            hits.append(MonotonicTime(nanoseconds: ring[r & mask]))
            r += 1
        }
        read.store(r, ordering: .releasing)
        return hits
    }
}
