// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization
import Testing
@testable import LinuxHAL

/// The box's control socket: lines in (split and joined across reads), lines out (queued from
/// any thread), clients counted and told when they go, the socket file's mode and removal.
@Suite struct ControlSocketTests {
    func connectClient(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in Array(path.utf8).enumerated() { raw[i] = b } }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(ok == 0)
        return fd
    }

    func readLines(_ fd: Int32, count: Int) -> [String] {
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while text.filter({ $0 == "\n" }).count < count, poll(&entry, 1, 5000) > 0 {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        return text.split(separator: "\n").map(String.init)
    }

    @Test func linesInAndOutAndClientsGo() throws {
        var template = Array("/tmp/tactus-control-test-XXXXXX".utf8CString)
        let folder = String(cString: mkdtemp(&template)!)
        defer { rmdir(folder) }
        let path = "\(folder)/control.sock"
        let server = try ControlSocketServer(path: path)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o660)
        let received = Mutex<[String]>([])
        let closed = Atomic<Int>(0)
        server.start(line: { client, line in
            received.withLock { $0.append(line) }
            server.send("echo \(line)", to: client)
        }, closed: { _ in closed.add(1, ordering: .relaxed) })

        let client = connectClient(path)
        // Two lines in one write, a third split over two writes, an empty line ignored.
        for part in ["{\"cmd\":\"a\"}\n{\"cmd\":\"b\"}\n\n{\"cmd\"", ":\"c\"}\n"] {
            _ = Array(part.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
            usleep(20_000)
        }
        #expect(readLines(client, count: 3) == ["echo {\"cmd\":\"a\"}", "echo {\"cmd\":\"b\"}", "echo {\"cmd\":\"c\"}"])
        #expect(received.withLock { $0 } == ["{\"cmd\":\"a\"}", "{\"cmd\":\"b\"}", "{\"cmd\":\"c\"}"])
        close(client)
        for _ in 0..<200 where closed.load(ordering: .relaxed) == 0 { usleep(5_000) }
        #expect(closed.load(ordering: .relaxed) == 1)
        server.stop()
        #expect(access(path, F_OK) != 0) // the socket file is gone
    }
}
