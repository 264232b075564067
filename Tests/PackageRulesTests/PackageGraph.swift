// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// The package's targets as Package.swift declares them and as their sources import them,
/// read from the text (no `swift package dump-package`: running SwiftPM inside `swift test`
/// would wait on the build folder's lock).
struct PackageGraph {
    struct Target {
        var name: String
        /// target, executableTarget, testTarget or systemLibrary.
        var kind: String
        /// Targets and products (products as `product:NAME`) named in `dependencies:`.
        var dependencies: [String]
        var path: String
        /// Every module named by an `import` in the target's Swift files, with the first file
        /// that imports it.
        var imports: [String: String]
        var hasSwiftSources: Bool
    }

    let root: URL
    var targets: [String: Target] = [:]

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    init(root: URL = repository) throws {
        self.root = root
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for call in Self.targetCalls(in: manifest) {
            var target = Target(name: call.name, kind: call.kind, dependencies: Self.dependencies(in: call.body),
                                path: Self.stringArgument("path", in: call.body)
                                    ?? (call.kind == "testTarget" ? "Tests/\(call.name)" : "Sources/\(call.name)"),
                                imports: [:], hasSwiftSources: false)
            (target.imports, target.hasSwiftSources) = try Self.imports(under: root.appendingPathComponent(target.path), root: root)
            targets[call.name] = target
        }
    }

    /// The package-internal edges of `name`: declared dependencies and imported modules that
    /// are targets of this package, each with where it comes from.
    func edges(of name: String) -> [String: String] {
        guard let target = targets[name] else { return [:] }
        var edges: [String: String] = [:]
        for dependency in target.dependencies where targets[dependency] != nil {
            edges[dependency] = "Package.swift: \(name) depends on \(dependency)"
        }
        for (module, file) in target.imports where targets[module] != nil && module != name {
            edges[module] = "\(file): import \(module)"
        }
        return edges
    }

    /// Every target `name` links, itself included (declared dependencies, transitively).
    func closure(of name: String) -> Set<String> {
        var seen: Set<String> = []
        var stack = [name]
        while let next = stack.popLast() {
            guard seen.insert(next).inserted, let target = targets[next] else { continue }
            stack += target.dependencies.filter { targets[$0] != nil }
        }
        return seen
    }

    // MARK: reading the manifest

    /// `.target(name: "X", ...)` and its kin, each with the text between its parentheses.
    static func targetCalls(in manifest: String) -> [(kind: String, name: String, body: String)] {
        let text = Array(manifest.unicodeScalars)
        var calls: [(kind: String, name: String, body: String)] = []
        for kind in ["target", "executableTarget", "testTarget", "systemLibrary"] {
            var searchFrom = manifest.startIndex
            while let found = manifest.range(of: ".\(kind)(", range: searchFrom..<manifest.endIndex) {
                searchFrom = found.upperBound
                let open = manifest.unicodeScalars.distance(from: manifest.unicodeScalars.startIndex, to: found.upperBound) - 1
                guard let close = matching(text, open: open) else { continue }
                let body = String(String.UnicodeScalarView(text[(open + 1)..<close]))
                guard let name = stringArgument("name", in: body) else { continue }
                calls.append((kind, name, body))
            }
        }
        return calls
    }

    /// The index of the bracket closing the one at `open` (round and square brackets nest;
    /// brackets inside string literals are skipped).
    static func matching(_ text: [Unicode.Scalar], open: Int) -> Int? {
        var depth = 0
        var inString = false
        var index = open
        while index < text.count {
            let c = text[index]
            if inString {
                if c == "\\" { index += 1 } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            } else if c == "(" || c == "[" {
                depth += 1
            } else if c == ")" || c == "]" {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return nil
    }

    /// The string value of `label: "..."` at the call's own level (not inside a nested call,
    /// so `.product(name:)` is not taken for the target's name).
    static func stringArgument(_ label: String, in body: String) -> String? {
        let scalars = Array(body.unicodeScalars)
        var depth = 0
        var index = 0
        let key = Array("\(label):".unicodeScalars)
        while index < scalars.count {
            let c = scalars[index]
            if c == "(" || c == "[" { depth += 1 } else if c == ")" || c == "]" { depth -= 1 }
            if depth == 0, index + key.count <= scalars.count, Array(scalars[index..<(index + key.count)]) == key,
               index == 0 || !(scalars[index - 1].properties.isAlphabetic) {
                let rest = String(String.UnicodeScalarView(scalars[(index + key.count)...])).drop { $0 == " " }
                guard rest.first == "\"", let end = rest.dropFirst().firstIndex(of: "\"") else { return nil }
                return String(rest[rest.index(after: rest.startIndex)..<end])
            }
            index += 1
        }
        return nil
    }

    static func dependencies(in body: String) -> [String] {
        guard let start = body.range(of: "dependencies:") else { return [] }
        let scalars = Array(body.unicodeScalars)
        var open = body.unicodeScalars.distance(from: body.unicodeScalars.startIndex, to: start.upperBound)
        while open < scalars.count, scalars[open] != "[" { open += 1 }
        guard let close = matching(scalars, open: open) else { return [] }
        var list = String(String.UnicodeScalarView(scalars[(open + 1)..<close]))
        // `.product(name: "Logging", package: "swift-log")` -> "product:Logging"
        while let product = list.range(of: ".product(") {
            let tail = String(list[product.lowerBound...])
            let name = stringArgument("name", in: String(tail.dropFirst(".product(".count))) ?? "?"
            let end = tail.firstIndex(of: ")").map { list.index(product.lowerBound, offsetBy: tail.distance(from: tail.startIndex, to: $0) + 1) }
                ?? list.endIndex
            list.replaceSubrange(product.lowerBound..<end, with: "\"product:\(name)\"")
        }
        return list.split(separator: "\"", omittingEmptySubsequences: false).enumerated().compactMap { $0.offset % 2 == 1 ? String($0.element) : nil }
    }

    // MARK: reading the sources

    /// `import X`, `@testable import X`, `public import X`, `import struct X.Y`, ... in every
    /// Swift file under `folder`.
    static func imports(under folder: URL, root: URL) throws -> ([String: String], Bool) {
        var found: [String: String] = [:]
        var hasSwift = false
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return ([:], false) }
        let files = walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
        for file in files {
            hasSwift = true
            let relative = String(file.path.dropFirst(root.path.count + 1))
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                if let module = importedModule(line), found[module] == nil { found[module] = relative }
            }
        }
        return (found, hasSwift)
    }

    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(separator: " ").map(String.init)
        while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal", "private", "fileprivate"].contains(first) {
            words.removeFirst()
        }
        guard words.first == "import", words.count >= 2 else { return nil }
        var module = words[1]
        if ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"].contains(module), words.count >= 3 {
            module = words[2]
        }
        let name = module.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }
}
