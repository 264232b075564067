// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// A bounded single-producer single-consumer ring of plain values. Push and pop are
/// wait-free and never allocate, so the render thread can use either end. When full, a
/// push is refused and counted: the producer is never blocked.
public final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Element>
    public let capacity: Int
    private let mask: Int
    /// Next slot the producer writes; only the producer stores it.
    private let head = Atomic<Int>(0)
    /// Next slot the consumer reads; only the consumer stores it.
    private let tail = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)

    public init(minimumCapacity: Int) {
        var size = 1
        while size < max(minimumCapacity, 2) { size <<= 1 }
        capacity = size
        mask = size - 1
        storage = UnsafeMutablePointer<Element>.allocate(capacity: size)
    }

    deinit { storage.deallocate() }

    /// Producer side. Returns false (and counts it) when the ring is full.
    @discardableResult
    public func push(_ element: Element) -> Bool {
        let h = head.load(ordering: .relaxed)
        if h - tail.load(ordering: .acquiring) == capacity {
            refused.add(1, ordering: .relaxed)
            return false
        }
        (storage + (h & mask)).initialize(to: element)
        head.store(h + 1, ordering: .releasing)
        return true
    }

    /// Consumer side.
    public func pop() -> Element? {
        let t = tail.load(ordering: .relaxed)
        guard t != head.load(ordering: .acquiring) else { return nil }
        let element = storage[t & mask]
        tail.store(t + 1, ordering: .releasing)
        return element
    }

    /// Pushes refused because the ring was full.
    public var refusedCount: Int { refused.load(ordering: .relaxed) }
}
