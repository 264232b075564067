// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// The last ~2.7 s (2^17 frames at 48 kHz) of what the renderer handed to the output, mono
/// (after the limiter: clicks, clips and the reference tone, as the speaker plays them),
/// indexed by engine sample: what the coach's microphone hears of the box itself, to be
/// subtracted on the capture thread. Single producer (the render thread), any number of
/// readers; neither side allocates, locks or waits.
public final class OutputHistory: @unchecked Sendable {
    public let sampleRate: Int
    /// Frames kept (a power of two, at least 2 s).
    public let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Float>
    /// Engine samples written so far: [written - capacity, written) is held.
    private let written = Atomic<Int64>(0)

    public init(sampleRate: Int) {
        var size = 1
        while size < 2 * sampleRate { size <<= 1 }
        self.sampleRate = sampleRate
        capacity = size
        mask = size - 1
        storage = .allocate(capacity: size)
        storage.initialize(repeating: 0, count: size)
    }

    deinit { storage.deallocate() }

    /// Render thread: the block starting at engine sample `first` (nil: silence).
    func append(_ samples: UnsafePointer<Float>?, count: Int, first: Int64) {
        let start = Int(first & Int64(mask))
        let head = min(count, capacity - start)
        if let samples {
            (storage + start).update(from: samples, count: head)
            storage.update(from: samples + head, count: count - head)
        } else {
            (storage + start).update(repeating: 0, count: head)
            storage.update(repeating: 0, count: count - head)
        }
        written.store(first + Int64(count), ordering: .releasing)
    }

    /// Engine samples written so far.
    public var end: Int64 { written.load(ordering: .acquiring) }

    /// Output sample `sample`, valid only where `holds` says so: a reader checks before
    /// reading and again after, to know the values were not overwritten while it read.
    @inline(__always)
    public subscript(sample: Int64) -> Float {
        storage[Int(sample & Int64(mask))]
    }

    /// Whether `[from, upTo)` is held now: rendered, and not yet overwritten (a margin of a
    /// quarter of the ring for the writer's next blocks).
    @inline(__always)
    public func holds(from: Int64, upTo: Int64) -> Bool {
        let end = written.load(ordering: .acquiring)
        return from >= 0 && upTo <= end && from >= end - Int64(capacity - capacity / 4)
    }
}
