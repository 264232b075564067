import Foundation
import HAL

/// Reads a board file (`--board PATH`, or a name such as `pi4b` looked up in the boards
/// folders) and turns every problem into one line that names the file.
enum BoardLoader {
    // /usr/local: `make install`; /usr: the Debian package (`make deb`).
    static let searchFolders = ["/etc/tactus/boards", "/usr/local/share/tactus/boards", "/usr/share/tactus/boards", "boards"]

    static func path(for argument: String) -> String {
        if argument.contains("/") || argument.hasSuffix(".toml") { return argument }
        for folder in searchFolders {
            let candidate = "\(folder)/\(argument).toml"
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return argument
    }

    static func load(_ argument: String) throws -> BoardDefinition {
        let file = path(for: argument)
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            let known = searchFolders.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? [] }
                .filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted()
            throw ExitError("--board '\(argument)' cannot be read (\(file)): give a board file path"
                            + (known.isEmpty ? "" : " or one of \(known.joined(separator: ", "))"))
        }
        let identifier = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        do {
            return try BoardFile.parse(text, file: file, identifier: identifier)
        } catch {
            throw ExitError(error.description)
        }
    }
}
