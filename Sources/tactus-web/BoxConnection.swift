// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization
import TactusWire

struct BoxUnavailable: Error, CustomStringConvertible {
    var description: String
}

/// The box did not answer within `BoxConnection.answerTimeout` (HTTP 504).
struct BoxTimeout: Error, CustomStringConvertible {
    var description: String { "the box did not answer within 5 s" }
}

/// A request line longer than the box reads (HTTP 413): never sent.
struct RequestTooLarge: Error, CustomStringConvertible {
    var bytes: Int
    var description: String { "the request for the box is \(bytes) bytes: at most 4 MiB" }
}

/// One connection to the box's control socket (JSON lines). Requests carry an `id` and
/// may overlap; lines without an `id` (a subscription's beats and states) go to `onEvent`.
/// A plain pthread reads; the web's event loops never block on the socket.
final class BoxConnection: @unchecked Sendable {
    /// Every request is answered, or fails with `BoxTimeout`, within this.
    static let answerTimeout: Duration = .seconds(5)
    /// The box's own limit on a request line (`ControlHub.maximumRequestBytes`).
    static let maximumRequestBytes = 4 << 20
    /// An answer line read at most (the songs of the largest allowed settings, quoted).
    static let maximumAnswerBytes = 32 << 20
    let path: String
    private let fd: Int32
    private struct Pending {
        var nextID = 1
        var waiting: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var closed = false
    }
    private let pending = Mutex(Pending())
    private let writing = Mutex(())
    private let onEvent: @Sendable (JSONValue) -> Void
    private let onClose: @Sendable () -> Void

    init(path: String, onEvent: @escaping @Sendable (JSONValue) -> Void = { _ in }, onClose: @escaping @Sendable () -> Void = {}) throws {
        self.path = path
        self.onEvent = onEvent
        self.onClose = onClose
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BoxUnavailable(description: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { close(fd); throw BoxUnavailable(description: "\(path): name too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw BoxUnavailable(description: "cannot connect to the box at \(path): \(message)")
        }
        startReader()
    }

    deinit { close(fd) }

    private func startReader() {
        final class Context {
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Context { [self] in readLoop() }).toOpaque()
        if pthread_create(&thread, nil, entry, context) == 0 { pthread_detach(thread) }
    }

    private func readLoop() {
        var input: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            input.append(contentsOf: buffer[0..<n])
            var start = 0
            while let newline = input[start...].firstIndex(of: 0x0A) {
                let text = String(decoding: input[start..<newline], as: UTF8.self)
                start = newline + 1
                guard let value = try? JSONValue.parse(text, limit: BoxConnection.maximumAnswerBytes) else {
                    // An answer that cannot be read still ends its request (502), never left waiting.
                    if let id = JSONValue.leadingAnswerID(text) {
                        pending.withLock { $0.waiting.removeValue(forKey: id) }?
                            .resume(returning: .object([("ok", .bool(false)), ("status", .number("502")), ("error", .string("the box's answer could not be read"))]))
                    }
                    continue
                }
                if let id = value[WireField.id.name]?.intValue {
                    let continuation = pending.withLock { $0.waiting.removeValue(forKey: id) }
                    continuation?.resume(returning: value)
                } else {
                    onEvent(value)
                }
            }
            input.removeFirst(start)
            // A line longer than any answer: the box is not speaking this protocol.
            if input.count > BoxConnection.maximumAnswerBytes { break }
        }
        let waiting = pending.withLock { state -> [CheckedContinuation<JSONValue, any Error>] in
            state.closed = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(throwing: BoxUnavailable(description: "the box closed \(path)")) }
        onClose()
    }

    var isClosed: Bool { pending.withLock { $0.closed } }

    /// Sends `{"id":N,"cmd":C,<members>}` and returns the box's answer; `BoxTimeout` after 5 s.
    func request(_ command: WireCommand, _ members: JSONObject = JSONObject()) async throws -> JSONValue {
        let request = command.request(members)
        guard request.members.utf8.count + 32 <= BoxConnection.maximumRequestBytes else { throw RequestTooLarge(bytes: request.members.utf8.count + 32) }
        let ids = Mutex<Int?>(nil)
        let timer = Task { [self] in
            try await Task.sleep(for: BoxConnection.answerTimeout)
            guard let id = ids.withLock({ $0 }) else { return }
            pending.withLock { $0.waiting.removeValue(forKey: id) }?.resume(throwing: BoxTimeout())
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let id = pending.withLock { state -> Int? in
                guard !state.closed else { return nil }
                let id = state.nextID
                state.nextID += 1
                state.waiting[id] = continuation
                return id
            }
            guard let id else { return continuation.resume(throwing: BoxUnavailable(description: "the box is not reachable")) }
            ids.withLock { $0 = id }
            // The id first: an answer to a line too large to parse still finds its request.
            var line = JSONObject()
            line.add(.id, id)
            line.append(request)
            if !send(line.text) {
                pending.withLock { $0.waiting.removeValue(forKey: id) }?.resume(throwing: BoxUnavailable(description: "writing to \(path) failed"))
            }
        }
    }

    /// Writes one line; false when the socket is gone.
    @discardableResult
    func send(_ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        return writing.withLock { _ in
            var sent = 0
            while sent < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                sent += n
            }
            return true
        }
    }

    /// Ends the reader (the box sees the client go).
    func shutdown() { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
}
