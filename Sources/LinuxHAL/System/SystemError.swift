// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import HAL
import TactusBase

/// A failed system call, with the errno kept so the message can say what to do: the one
/// errno error type of LinuxHAL (`Syscalls`, files, pipes, poll, device nodes). Hardware
/// code turns it into a `HALError` that names the part and the fix (`HALError(_:_:_:)`).
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    public let operation: String
    public let path: String
    public let errno: Int32

    public init(_ operation: String, _ path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// A failed call that is not about a file (pthread_create, pipe).
    public init(_ code: Int32, _ call: String) {
        self.init(call, "", errno: code)
    }

    public var code: Int32 { errno }

    public var description: String {
        if path.isEmpty { return "\(operation): \(errnoDescription(errno))" }
        let reason = String(cString: strerror(errno))
        let hint = switch errno {
        case EACCES, EPERM: " (check the file's and folder's owner and permissions for the tactus user)"
        case ENOENT: " (does the folder exist?)"
        case ENOSPC: " (the disk is full)"
        case EROFS: " (the file system is mounted read-only)"
        default: ""
        }
        return "cannot \(operation) \(path): \(reason)\(hint)"
    }
}

extension HALError {
    /// A hardware error caused by a failed system call: `kind` and `message` say what it means
    /// for the part; the errno stays the call's.
    public init(_ kind: Kind, _ cause: SystemError, _ message: String) {
        self.init(kind, errno: cause.errno, message)
    }
}
