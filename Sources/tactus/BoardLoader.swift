// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusCore
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

    /// `origin` says where the name came from in messages: `--board`, or the
    /// configuration file and line (`/etc/tactus/config.toml:3: board`).
    static func load(_ argument: String, origin: String = "--board") throws -> BoardDefinition {
        let file = path(for: argument)
        let text: String
        do { text = try BoundedFile.text(file) } catch {
            let known = searchFolders.flatMap { FileSystem.entries(of: $0) ?? [] }
                .filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted()
            throw ExitError("\(origin) \(Escaped.quoted(argument)) is invalid: \(Escaped.quoted(file)) cannot be read (\(error)); allowed a board file path"
                            + (known.isEmpty ? "" : " or one of \(known.joined(separator: ", "))"))
        }
        let identifier = FileSystem.stem(of: file)
        do {
            return try BoardFile.parse(text, file: file, identifier: identifier)
        } catch {
            throw ExitError(error.description)
        }
    }
}
