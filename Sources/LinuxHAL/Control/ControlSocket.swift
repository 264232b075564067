// SPDX-License-Identifier: GPL-3.0-or-later
import CLinuxShim
import Glibc
import Synchronization

/// The box's local control socket (`/run/tactus/control.sock`): a Unix stream socket that
/// takes JSON lines and answers with JSON lines. One thread polls the listening socket, the
/// clients and a wake pipe; replies are queued by any thread (`send`) and written by this
/// thread, so a slow client never blocks the box's control thread. Bounded: 32 clients, a
/// request line of at most 4 MiB, at most 8 MiB waiting for a client (else it is dropped).
public final class ControlSocketServer: @unchecked Sendable {
    public typealias Client = Int32
    public static let maximumClients = 32
    public static let maximumLine = 4 << 20
    public static let maximumQueued = 8 << 20

    public let path: String
    private let listener: Int32
    private let reader: ReaderThread
    private struct Outbox { var bytes: [UInt8] = []; var closeAfter = false }
    private let outboxes = Mutex<[Client: Outbox]>([:])

    /// Binds the socket (an old socket file left by a crash is replaced) with this mode:
    /// 0660, so only the box's user and its group (the companion's user) can connect.
    public init(path: String, mode: mode_t = 0o660) throws(SystemError) {
        self.path = path
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw SystemError("bind", path, errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", path, errno: errno) }
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw SystemError("bind", path, errno: code)
        }
        chmod(path, mode)
        guard listen(fd, 16) == 0 else {
            let code = errno
            close(fd)
            throw SystemError("listen", path, errno: code)
        }
        do {
            reader = try ReaderThread(name: "tactus-control-socket")
        } catch {
            close(fd)
            throw error
        }
        listener = fd
    }

    deinit {
        reader.stop()
        Syscalls.closeIgnoringErrors(listener)
    }

    /// Starts the socket's thread. `line` gets each request line (without its newline);
    /// `closed` is told when a client goes (so its subscriptions end).
    public func start(line: @escaping @Sendable (Client, String) -> Void, closed: @escaping @Sendable (Client) -> Void) {
        _ = reader.start { [self] in run(line: line, closed: closed) }
    }

    /// Queues a line (a newline is added) for a client, from any thread; `thenClose` hangs up after it.
    public func send(_ text: String, to client: Client, thenClose: Bool = false) {
        let queued = outboxes.withLock { boxes -> Bool in
            guard var box = boxes[client] else { return false }
            if box.bytes.count + text.utf8.count + 1 > ControlSocketServer.maximumQueued {
                // A client that does not read (a stuck live view) is dropped, never waited for.
                box.bytes = []
                box.closeAfter = true
            } else {
                box.bytes.append(contentsOf: text.utf8)
                box.bytes.append(0x0A)
                box.closeAfter = box.closeAfter || thenClose
            }
            boxes[client] = box
            return true
        }
        if queued { wake() }
    }

    private func wake() { reader.wake() }

    /// Ends the thread, closes every client and removes the socket file.
    public func stop() {
        reader.stop()
        unlink(path)
    }

    private func run(line: @escaping @Sendable (Client, String) -> Void, closed: @escaping @Sendable (Client) -> Void) {
        var inputs: [Client: [UInt8]] = [:]
        var buffer = [UInt8](repeating: 0, count: 65536)
        func drop(_ client: Client) {
            Syscalls.closeIgnoringErrors(client)
            inputs[client] = nil
            outboxes.withLock { _ = $0.removeValue(forKey: client) }
            closed(client)
        }
        while !reader.isStopping {
            let pending = outboxes.withLock { boxes in boxes.filter { !$0.value.bytes.isEmpty || $0.value.closeAfter }.map(\.key) }
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), reader.wakeEntry]
            for client in inputs.keys.sorted() {
                fds.append(pollfd(fd: client, events: Int16(POLLIN) | (pending.contains(client) ? Int16(POLLOUT) : 0), revents: 0))
            }
            guard (try? Syscalls.poll(&fds, timeoutMilliseconds: 1000)) != nil else { break }
            _ = reader.consumeWake(fds[1])
            if fds[0].revents & Int16(POLLIN) != 0 {
                while true {
                    let client = Syscalls.retryingEINTR { accept(listener, nil, nil) }
                    guard client >= 0 else { break }
                    setFlags(client)
                    if inputs.count >= ControlSocketServer.maximumClients {
                        Syscalls.closeIgnoringErrors(client)
                        continue
                    }
                    inputs[client] = []
                    outboxes.withLock { $0[client] = Outbox() }
                }
            }
            for entry in fds.dropFirst(2) where entry.revents != 0 {
                let client = entry.fd
                if entry.revents & Int16(POLLOUT) != 0 {
                    var failed = false
                    var closeNow = false
                    outboxes.withLock { boxes in
                        guard var box = boxes[client] else { return }
                        if !box.bytes.isEmpty {
                            let n = box.bytes.withUnsafeBytes { bytes in
                                Syscalls.retryingEINTR { Glibc.send(client, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
                            }
                            if n > 0 { box.bytes.removeFirst(n) } else if n < 0 && errno != EAGAIN { failed = true }
                        }
                        closeNow = box.bytes.isEmpty && box.closeAfter
                        boxes[client] = box
                    }
                    if failed || closeNow { drop(client); continue }
                }
                if entry.revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    let n = Syscalls.retryingEINTR { recv(client, &buffer, buffer.count, 0) }
                    if n == 0 || (n < 0 && errno != EAGAIN) { drop(client); continue }
                    guard n > 0 else { continue }
                    var input = inputs[client] ?? []
                    input.append(contentsOf: buffer[0..<n])
                    while let newline = input.firstIndex(of: 0x0A) {
                        let text = String(decoding: input[0..<newline], as: UTF8.self)
                        input.removeSubrange(0...newline)
                        if !text.isEmpty { line(client, text) }
                    }
                    if input.count > ControlSocketServer.maximumLine {
                        send("{\"ok\":false,\"status\":413,\"error\":\"request line longer than 4 MiB\"}", to: client, thenClose: true)
                        input = []
                    }
                    inputs[client] = input
                }
            }
        }
        for client in Array(inputs.keys) { drop(client) }
    }
}

/// Non-blocking and closed on exec (pipe2 and accept4 are not imported without _GNU_SOURCE).
private func setFlags(_ fd: Int32) {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
}
