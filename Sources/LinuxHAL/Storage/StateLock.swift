// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// One process per state folder: an exclusive flock on `FOLDER/tactus.lock`, held until
/// the process exits (the kernel drops it even on SIGKILL). The file holds the owner's PID
/// so a second instance can say which process is in the way.
public final class StateLock: Sendable {
    public let path: String
    private let fd: Int32

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another process holds the lock; its PID when the file names one.
        case held(path: String, pid: Int32?)
        case system(SystemError)

        public var description: String {
            switch self {
            case .held(let path, let pid):
                "the state folder is in use by another tactus (\(pid.map { "process \($0)" } ?? "another process") holds \(path)); stop it first or give another --state folder"
            case .system(let error): "cannot lock the state folder: \(error)"
            }
        }
    }

    /// Takes the lock on `folder`, or says who holds it.
    public init(folder: String, system: Syscalls = .live) throws(Failure) {
        path = (folder.hasSuffix("/") ? folder : folder + "/") + "tactus.lock"
        let fd: Int32
        do { fd = try system.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o644) } catch { throw .system(error) }
        let locked: Bool
        do { locked = try system.tryLock(fd, path: path) } catch {
            _ = close(fd)
            throw .system(error)
        }
        guard locked else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            _ = close(fd)
            let text = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
            throw .held(path: path, pid: Int32(text.split(separator: "\n").first ?? ""))
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = fd
    }

    deinit { _ = close(fd) }
}
