// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// The last `capacity` samples of a stream, by their absolute index: one writer (the render
/// thread, after each block), readers on other threads (the capture thread reads what the
/// box played to take its click out of the microphone). Wait-free both ways, never
/// allocates; a reader learns when what it read was overwritten meanwhile.
public final class SampleHistory: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Float>
    public let capacity: Int
    private let mask: Int
    /// Samples before this index are written.
    private let end = Atomic<Int64>(0)
    /// The largest block the writer writes at once: a reader keeps clear of the slots the
    /// next block is overwriting.
    private let largestBlock: Int

    public init(minimumCapacity: Int, largestBlock: Int = 8192) {
        var size = 1
        while size < minimumCapacity + largestBlock { size <<= 1 }
        capacity = size
        mask = size - 1
        self.largestBlock = largestBlock
        storage = .allocate(capacity: size)
        storage.initialize(repeating: 0, count: size)
    }

    deinit { storage.deallocate() }

    /// The writer: `count` samples, every `stride`-th float of `source` (a block's first
    /// channel), as samples `start..<start + count`. A gap since the last block reads as silence.
    public func write(_ source: UnsafePointer<Float>, stride: Int, count: Int, at start: Int64) {
        precondition(count <= largestBlock, "a block larger than the history was prepared for")
        var index = end.load(ordering: .relaxed)
        if start > index {
            // Silence for the gap, at most a whole ring of it.
            index = max(index, start - Int64(capacity - largestBlock))
            while index < start {
                storage[Int(index) & mask] = 0
                index += 1
            }
        }
        for i in 0..<count { storage[Int(start + Int64(i)) & mask] = source[i * stride] }
        end.store(start + Int64(count), ordering: .releasing)
    }

    /// Samples written so far (the index after the last).
    public var written: Int64 { end.load(ordering: .acquiring) }

    /// A reader: copies samples `start..<start + count` into `destination`; false when they
    /// are not written yet or no longer held. Samples before 0 read as silence.
    public func read(from start: Int64, count: Int, into destination: UnsafeMutablePointer<Float>) -> Bool {
        guard held(start, count, written) else { return false }
        for i in 0..<count {
            let index = start + Int64(i)
            destination[i] = index < 0 ? 0 : storage[Int(index) & mask]
        }
        // The writer may have come round meanwhile.
        return held(start, count, written)
    }

    private func held(_ start: Int64, _ count: Int, _ written: Int64) -> Bool {
        start + Int64(count) <= written && start >= written + Int64(largestBlock) - Int64(capacity)
    }
}
