// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// Why a file could not be read; `description` is the part after the file's name.
public enum FileReadError: Error, Sendable, Hashable, CustomStringConvertible {
    case missing
    /// A FIFO, device, folder or socket: reading one could hang or never end.
    case notRegular(FileKind)
    case tooLarge(bytes: Int64, limit: Int)
    /// Not valid UTF-8; `line` is where the first bad byte is.
    case notUTF8(line: Int, byte: UInt8)
    case system(SystemError)

    public var description: String {
        switch self {
        case .missing: "no such file"
        case .notRegular(let kind): "is \(kind.name); allowed only a regular file"
        case .tooLarge(let bytes, let limit): "is \(bytes) bytes; allowed at most \(limit)"
        case .notUTF8(let line, let byte):
            "line \(line): not UTF-8 text (invalid byte 0x\(String(byte, radix: 16, uppercase: true)))"
        case .system(let error):
            switch error.errno {
            case EACCES, EPERM: "permission denied (check the file's owner and mode)"
            default: String(cString: strerror(error.errno))
            }
        }
    }
}

/// Whole-file reads with bounds: only regular files (a FIFO or /dev/zero never hangs nor
/// fills memory), at most `limit` bytes (checked on the open file before reading, and
/// again while reading in case it grows).
public enum BoundedFile {
    /// Config, board, settings, scripts: 1 MiB, the TOML reader's own bound.
    public static let textLimit = 1 << 20

    /// The file's bytes, or `.missing`, `.notRegular`, `.tooLarge`, `.system`.
    public static func read(_ path: String, limit: Int = textLimit, system: Syscalls = .live) throws(FileReadError) -> [UInt8] {
        try read(path, limit: limit, system: system) { _, _ in limit }
    }

    /// Reads the first bytes, then asks `bytesNeeded(prefix, fileSize)` how many bytes in
    /// all it needs (a WAV's header says how long its audio is) and reads only those, at
    /// most `limit`. With `refuseLargerFiles` a file over `limit` is refused unread.
    public static func read(_ path: String, limit: Int, prefix: Int = 65536, refuseLargerFiles: Bool = true,
                            system: Syscalls = .live,
                            bytesNeeded: ([UInt8], Int) throws(FileReadError) -> Int) throws(FileReadError) -> [UInt8] {
        let fd: Int32
        // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
        do { fd = try system.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY) } catch {
            throw error.errno == ENOENT ? .missing : .system(error)
        }
        defer { _ = close(fd) }
        let info: stat
        do { info = try system.fstat(fd, path: path) } catch { throw .system(error) }
        let kind = FileKind(mode: info.st_mode)
        guard kind == .regular else { throw .notRegular(kind) }
        guard !refuseLargerFiles || info.st_size <= Int64(limit) else { throw .tooLarge(bytes: Int64(info.st_size), limit: limit) }
        var bytes = try readUpTo(fd, min(prefix, limit), path: path, system: system)
        guard bytes.count == min(prefix, limit) else { return bytes }
        let needed = min(try bytesNeeded(bytes, Int(info.st_size)), limit)
        if needed > bytes.count {
            bytes += try readUpTo(fd, needed - bytes.count, path: path, system: system)
        }
        if refuseLargerFiles, needed == limit, bytes.count == limit {
            // Grown since fstat: one more byte would be over the limit.
            if try readUpTo(fd, 1, path: path, system: system).count > 0 { throw .tooLarge(bytes: Int64(limit + 1), limit: limit) }
        }
        return bytes
    }

    private static func readUpTo(_ fd: Int32, _ count: Int, path: String, system: Syscalls) throws(FileReadError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            var result: Result<Int, SystemError> = .success(0)
            bytes.withUnsafeMutableBytes { buffer in
                result = Result { () throws(SystemError) in
                    try system.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), path: path)
                }
            }
            let n: Int
            switch result {
            case .success(let count): n = count
            case .failure(let error): throw .system(error)
            }
            if n == 0 { break }
            filled += n
        }
        bytes.removeLast(count - filled)
        return bytes
    }

    /// The file as UTF-8 text (a byte order mark is kept for the TOML reader to skip).
    public static func text(_ path: String, limit: Int = textLimit, system: Syscalls = .live) throws(FileReadError) -> String {
        let bytes = try read(path, limit: limit, system: system)
        return try text(bytes)
    }

    /// `bytes` as UTF-8, or `.notUTF8` with the line of the first bad byte.
    public static func text(_ bytes: [UInt8]) throws(FileReadError) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        // Find the first sequence that does not decode, for the message.
        var i = 0
        var line = 1
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 {
                if b == 0x0A { line += 1 }
                i += 1
                continue
            }
            let length = switch b {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
            guard length > 0, i + length <= bytes.count,
                  String(validating: bytes[i..<i + length], as: UTF8.self) != nil
            else { throw .notUTF8(line: line, byte: b) }
            i += length
        }
        throw .notUTF8(line: line, byte: 0)
    }
}
