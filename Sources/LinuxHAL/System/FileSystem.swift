// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// The few file system and standard stream calls the commands need, straight on glibc: the
/// `tactus` executable does not link Foundation (with ICU it was most of a short render's
/// start-up time and of the binary's size).
public enum FileSystem {
    /// What `path` is (following symbolic links), or nil when it does not exist.
    public static func kind(of path: String) -> FileKind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileKind(mode: info.st_mode)
    }

    public static func exists(_ path: String) -> Bool { kind(of: path) != nil }

    public static func isDirectory(_ path: String) -> Bool { kind(of: path) == .directory }

    /// The current folder (getcwd), or nil when it cannot be had (removed, too long).
    public static var currentDirectory: String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer in
            getcwd(buffer.baseAddress!, buffer.count) == nil ? nil : String(cString: buffer.baseAddress!)
        }
    }

    /// The names in a folder (without "." and ".."), unsorted; nil when it cannot be read.
    public static func entries(of folder: String) -> [String]? {
        guard let stream = opendir(folder) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Creates `path` and every missing folder above it (mkdir -p); an existing folder is fine.
    public static func createFolders(_ path: String) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if Glibc.mkdir(prefix, 0o755) != 0 && errno != EEXIST { throw SystemError("create folder", prefix, errno: errno) }
            prefix += "/"
        }
        guard isDirectory(path) else { throw SystemError("create folder", path, errno: ENOTDIR) }
    }

    /// The last path component without its extension: "songs/take 1.map" -> "take 1".
    public static func stem(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// Writes `text` whole to standard error (messages: best effort, never throws).
    public static func writeStandardError(_ text: String) { writeAll(2, text) }

    /// Writes `text` whole to standard output, unbuffered (the terminal simulator's frames).
    public static func writeStandardOutput(_ text: String) { writeAll(1, text) }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            try? Syscalls.live.write(fd, UnsafeRawBufferPointer(raw), path: fd == 1 ? "standard output" : "standard error")
        }
    }

    /// All of standard input, up to `limit` bytes.
    public static func readStandardInput(limit: Int = BoundedFile.textLimit) throws(FileReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n: Result<Int, SystemError> = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try Syscalls.live.read(0, into: raw, path: "standard input") }
            }
            guard case .success(let n) = n else { if case .failure(let error) = n { throw .system(error) }; return bytes }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            if bytes.count > limit { throw .tooLarge(bytes: Int64(bytes.count), limit: limit) }
        }
    }
}

/// A plain output file written in order, with a final rewrite of its start (a WAV header):
/// the simulator's audio.wav and events.jsonl. Not atomic: `AtomicFile` is for files that
/// replace something.
public final class OutputFile {
    public let path: String
    private var fd: Int32
    private let system: Syscalls

    public init(creating path: String, system: Syscalls = .live) throws(SystemError) {
        self.path = path
        self.system = system
        fd = try system.open(path, O_WRONLY | O_CREAT | O_TRUNC)
    }

    deinit { if fd >= 0 { _ = Glibc.close(fd) } }

    public func write(_ bytes: [UInt8]) throws(SystemError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try system.write(fd, raw, path: path) } }.get()
    }

    public func rewrite(at offset: Int64, _ bytes: [UInt8]) throws(SystemError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try system.write(fd, raw, at: offset, path: path) } }.get()
    }

    public func close() throws(SystemError) {
        let descriptor = fd
        fd = -1
        try system.close(descriptor, path: path)
    }
}
