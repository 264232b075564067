#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
private let systemRead = Glibc.read
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
private let systemRead = Darwin.read
#endif

/// A failed file operation, with the errno kept so the message can say what to do.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: String
    public let path: String
    public let errno: Int32

    public init(_ operation: String, _ path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        let reason = String(cString: strerror(errno))
        let hint = switch errno {
        case EACCES, EPERM: " (check the folder's owner and permissions for the tactus user)"
        case ENOENT: " (does the folder exist?)"
        case ENOSPC: " (the disk is full)"
        case EROFS: " (the file system is mounted read-only)"
        default: ""
        }
        return "cannot \(operation) \(path): \(reason)\(hint)"
    }
}

/// Whole-file reads and crash-safe replacement.
public enum AtomicFile {
    /// Replaces `path` with `bytes` so that a power cut at any instant leaves either the old
    /// or the new file: write a temporary file in the same folder, fsync it, rename it over
    /// the old one (atomic within a file system), then fsync the folder so the rename
    /// itself is on disk.
    public static func write(_ bytes: [UInt8], to path: String) throws(StorageError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError("create", temporary, errno: errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                systemWrite(fd, buffer.baseAddress! + written, buffer.count - written)
            }
            if n < 0 {
                if errno == EINTR { continue }
                let error = errno
                close(fd)
                unlink(temporary)
                throw StorageError("write", temporary, errno: error)
            }
            written += n
        }
        if fsync(fd) != 0 {
            let error = errno
            close(fd)
            unlink(temporary)
            throw StorageError("fsync", temporary, errno: error)
        }
        if close(fd) != 0 { throw StorageError("close", temporary, errno: errno) }
        if rename(temporary, path) != 0 {
            let error = errno
            unlink(temporary)
            throw StorageError("rename \(temporary) to", path, errno: error)
        }
        try syncFolder(of: path)
    }

    /// fsync of the folder holding `path`, which makes a rename or a new name durable.
    public static func syncFolder(of path: String) throws(StorageError) {
        let folder = folderName(of: path)
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError("open folder", folder, errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw StorageError("fsync folder", folder, errno: errno) }
    }

    static func folderName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The whole file, or nil when it does not exist.
    public static func read(_ path: String) throws(StorageError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw StorageError("open", path, errno: errno)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StorageError("read", path, errno: errno)
            }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
        }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Renames `path` to the first free `<stem>.corrupt-N<ext>` next to it and returns the
    /// new path: a bad file is never deleted, and never overwrites an earlier bad one.
    public static func keepAside(_ path: String) throws(StorageError) -> String {
        let (stem, ext) = splitExtension(path)
        var n = 1
        while exists("\(stem).corrupt-\(n)\(ext)") { n += 1 }
        let aside = "\(stem).corrupt-\(n)\(ext)"
        if rename(path, aside) != 0 { throw StorageError("rename \(path) to", aside, errno: errno) }
        try syncFolder(of: path)
        return aside
    }

    static func splitExtension(_ path: String) -> (String, String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (path, "") }
        let ext = String(name[dot...])
        return (String(path.dropLast(ext.count)), ext)
    }
}
