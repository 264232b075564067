// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// Fans the box's live lines (beats and states) out to every WebSocket. Each socket has
/// its own bounded buffer: a stuck browser loses its oldest lines, never the box's time.
final class LiveHub: Sendable {
    private let clients = Mutex<[Int: AsyncStream<String>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)
    /// The last state line, for a socket that opens between changes.
    private let lastState = Mutex<String?>(nil)

    func subscribe() -> (id: Int, stream: AsyncStream<String>) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        if let state = lastState.withLock({ $0 }) { continuation.yield(state) }
        clients.withLock { $0[id] = continuation }
        return (id, stream)
    }

    func unsubscribe(_ id: Int) {
        clients.withLock { $0.removeValue(forKey: id) }?.finish()
    }

    func publish(_ line: String, isState: Bool) {
        if isState { lastState.withLock { $0 = line } }
        for continuation in clients.withLock({ Array($0.values) }) { continuation.yield(line) }
    }

    var count: Int { clients.withLock { $0.count } }

    func finishAll() {
        for continuation in clients.withLock({ c -> [AsyncStream<String>.Continuation] in defer { c = [:] }; return Array(c.values) }) {
            continuation.finish()
        }
    }
}
