// SPDX-License-Identifier: GPL-3.0-or-later
import BoardFiles
import HAL
import TactusBase
import LinuxHAL

/// Reads a board file (`--board PATH`, or a name such as `pi4b` looked up in the boards
/// folders) and turns every problem into one line that names the file.
enum BoardLoader {
    // /usr/local: `make install`; /usr: the Debian package (`make deb`).
    static let searchFolders = ["/etc/tactus/boards", "/usr/local/share/tactus/boards", "/usr/share/tactus/boards", "boards"]

    static func path(for argument: String) -> String {
        if argument.contains("/") || argument.hasSuffix(".toml") { return argument }
        for folder in searchFolders {
            let candidate = "\(folder)/\(argument).toml"
            if FileSystem.exists(candidate) { return candidate }
        }
        return argument
    }

    /// A board name found in no folder: where names are looked up, which names work from
    /// where, and what to give instead.
    static func unknownName(_ name: String) -> String {
        let here = FileSystem.currentDirectory ?? "."
        let folders = searchFolders.map { $0.hasPrefix("/") ? $0 : "\($0) (in the current folder, \(here))" }
        var found: [String] = []
        for folder in searchFolders {
            let names = (FileSystem.entries(of: folder) ?? []).filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted()
            if !names.isEmpty { found.append("\(names.joined(separator: ", ")) from \(folder)") }
        }
        let known = found.isEmpty
            ? "no board files are installed (`make install` or the Debian package puts them in /usr/local/share/tactus/boards or /usr/share/tactus/boards; the repository's boards/ is found only from its top folder)"
            : "the names that work here are \(found.joined(separator: "; "))"
        return "no board file \(name).toml in \(folders.joined(separator: ", ")); \(known); allowed such a name or a board file path (path/to/board.toml)"
    }

    /// `origin` says where the name came from in messages: `--board`, or the
    /// configuration file and line (`/etc/tactus/config.toml:3: board`).
    static func load(_ argument: String, origin: String = "--board") throws -> BoardDefinition {
        let file = path(for: argument)
        let text: String
        do { text = try BoundedFile.text(file) } catch {
            if file != argument || argument.contains("/") || argument.hasSuffix(".toml") {
                throw ExitError("\(origin) \(Escaped.quoted(argument)) is invalid: \(Escaped.quoted(file)) cannot be read (\(error)); allowed a board file path")
            }
            throw ExitError("\(origin) \(Escaped.quoted(argument)) is invalid: " + unknownName(argument))
        }
        let identifier = FileSystem.stem(of: file)
        do {
            return try BoardFile.parse(text, file: file, identifier: identifier)
        } catch {
            throw ExitError(error.description)
        }
    }
}
