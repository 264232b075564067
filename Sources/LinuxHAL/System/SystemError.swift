// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A failed system call on a file, with the errno kept so the message can say what to do.
/// The one error type of the syscall layer (`Syscalls`), `AtomicFile` and `BoundedFile`.
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

/// The name the settings code used before the syscall layer; the same type.
public typealias StorageError = SystemError
