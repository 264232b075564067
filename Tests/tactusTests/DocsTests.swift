// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// The front door and the pages behind it stay true: README.md is short and every link in
/// the documentation reaches a file (and a heading, where it names one). (The layout block of
/// docs/dev/CONTRIBUTING.md is held to Package.swift by PackageRulesTests' LayoutDocTests.)
@Suite struct DocsTests {
    struct Page {
        let path: String
        let text: String
    }

    static var root: URL {
        var root = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) && root.path != "/" {
            root.deleteLastPathComponent()
        }
        return root
    }

    /// README.md, then every Markdown page under docs/, sorted by path.
    static func documentation() throws -> [Page] {
        let root = Self.root
        var paths = ["README.md"]
        let docs = root.appendingPathComponent("docs")
        if let walker = FileManager.default.enumerator(atPath: docs.path) {
            paths += walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        }
        return try paths.map { Page(path: $0, text: try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func readmeIsAFrontDoorOfAtMost300Lines() throws {
        let readme = try #require(try Self.documentation().first)
        let lines = readme.text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        #expect(lines <= 300, "README.md has \(lines) lines: the rest belongs in docs/")
        for needed in ["## Quick start", "## Parts", "## Wiring", "make run", "make test", "STATE=DIR"] {
            #expect(readme.text.contains(needed), "README.md lacks \(needed)")
        }
    }

    /// GitHub's anchor of a heading: lower case, punctuation other than - and _ dropped,
    /// spaces made dashes.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
        })
    }

    static func headings(_ text: String) -> Set<String> {
        var inFence = false
        var found = Set<String>()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence, line.hasPrefix("#"), let space = line.firstIndex(of: " ") else { continue }
            found.insert(anchor(String(line[line.index(after: space)...])))
        }
        return found
    }

    @Test func everyLinkInTheDocumentationReachesAFileAndHeading() throws {
        let pages = try Self.documentation()
        let root = Self.root
        let link = /\]\(([^)\s]+)\)/
        var broken: [String] = []
        for page in pages {
            let folder = (page.path as NSString).deletingLastPathComponent
            for match in page.text.matches(of: link) {
                let target = String(match.1)
                guard !target.contains("://"), !target.hasPrefix("mailto:") else { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? page.path : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                let url = root.appendingPathComponent(file)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    broken.append("\(page.path): \(target) (no file \(file))")
                    continue
                }
                if parts.count == 2, file.hasSuffix(".md") {
                    let text = try String(contentsOf: url, encoding: .utf8)
                    if !Self.headings(text).contains(parts[1]) { broken.append("\(page.path): \(target) (no heading)") }
                }
            }
        }
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
    }
}
