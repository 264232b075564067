// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import LinuxHAL
import TOMLReader

/// The files a command will write, all checked before the first byte is written: each
/// must be a new name or an existing regular file (never a folder, FIFO, device or
/// symbolic link), in an existing writable folder, and no two flags may name the same file.
struct OutputPaths {
    private var claimed: [(flag: String, path: String, key: String)] = []
    /// The files the command reads: an output may never be one of them (it would be
    /// destroyed before, or while, it is read).
    private var inputs: [(flag: String, path: String, keys: [String])] = []

    /// Records an input file (`-`, standard input, is none): by device and inode when it
    /// exists, and by its folder's identity and name (for a file a folder may hold, such
    /// as a sound folder's optional poly.wav, that does not exist yet).
    mutating func input(_ path: String, flag: String) {
        guard !path.isEmpty, path != "-" else { return }
        var keys: [String] = []
        var info = stat()
        if stat(path, &info) == 0 { keys.append("file \(info.st_dev):\(info.st_ino)") }
        if let key = OutputPaths.nameKey(path) { keys.append(key) }
        inputs.append((flag, path, keys))
    }

    /// "name DEV:INO/NAME" of a path's folder and last component, or nil without a folder.
    private static func nameKey(_ path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var info = stat()
        guard !name.isEmpty, stat(folder.isEmpty ? "/" : folder, &info) == 0 else { return nil }
        return "name \(info.st_dev):\(info.st_ino)/\(name)"
    }

    /// Checks `path` for `flag`; throws one line naming the flag, the path and what is allowed.
    mutating func claim(_ path: String, flag: String) throws(ExitError) {
        let shown = Escaped.quoted(path)
        func invalid(_ why: String) -> ExitError { ExitError("\(flag) \(shown) is invalid: \(why)") }
        guard !path.isEmpty else { throw invalid("empty; give a file name such as out.wav") }
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        if path.hasSuffix("/") || name == "." || name == ".." {
            throw invalid("it names a folder; give a file name such as \(path.hasSuffix("/") ? path : path + "/")out.wav")
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            let kind = FileKind(mode: info.st_mode)
            guard kind == .regular else {
                throw invalid("it is \(kind.name); allowed a new file name or an existing regular file")
            }
        } else if errno != ENOENT {
            throw invalid(String(cString: strerror(errno)))
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let dir = folder.isEmpty ? "/" : folder
        var folderInfo = stat()
        guard stat(dir, &folderInfo) == 0, FileKind(mode: folderInfo.st_mode) == .directory else {
            throw invalid("the folder \(Escaped.quoted(dir)) does not exist")
        }
        guard access(dir, W_OK) == 0 else { throw invalid("the folder \(Escaped.quoted(dir)) is not writable") }
        // The same file under two spellings (x.wav, ./x.wav, a hard link): compare the
        // folder's identity and the name, and the file's identity when it exists.
        let key = lstat(path, &info) == 0
            ? "file \(info.st_dev):\(info.st_ino)"
            : "name \(folderInfo.st_dev):\(folderInfo.st_ino)/\(name)"
        if let input = inputs.first(where: { $0.keys.contains(key) }) {
            throw invalid("it is the input \(input.flag) \(Escaped.quoted(input.path)); writing it would destroy it, give the output its own file")
        }
        if let other = claimed.first(where: { $0.key == key }) {
            throw invalid("it is the same file as \(other.flag) \(Escaped.quoted(other.path)); give each output its own file")
        }
        claimed.append((flag, path, key))
    }
}

/// Values shown in messages: quoted, with newlines, control characters and escape
/// sequences written as escapes so a hostile value cannot rewrite the terminal.
enum Escaped {
    static func quoted(_ value: String) -> String { "'" + escaped(value) + "'" }

    /// Only control characters escaped: for whole messages, which quote values themselves.
    static func controlCharacters(_ message: String) -> String { oneLine(message) }

    static func escaped(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return oneLine(out)
    }
}
