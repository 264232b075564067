// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// docs/dev/CONTRIBUTING.md's layout block is Package.swift's targets in Sources and exactly
/// what each depends on inside the package (a line a target, in any order); its folder list
/// describes every folder in Sources.
@Suite struct LayoutDocTests {
    @Test func theLayoutBlockIsPackageSwift() throws {
        let root = PackageGraph.repository
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let expected = PackageGraph.targetCalls(in: manifest)
            .filter { $0.kind != "testTarget" && PackageGraph.stringArgument("path", in: $0.body) == nil }
            .map { call -> String in
                let dependencies = PackageGraph.dependencies(in: call.body).filter { !$0.hasPrefix("product:") }
                return "\(call.name) -> \(dependencies.isEmpty ? "(nothing)" : dependencies.joined(separator: ", "))"
            }
        let guide = try String(contentsOf: root.appendingPathComponent("docs/dev/CONTRIBUTING.md"), encoding: .utf8)
        let marker = try #require(guide.range(of: "tested against Package.swift"))
        let open = try #require(guide.range(of: "```text\n", range: marker.upperBound..<guide.endIndex))
        let close = try #require(guide.range(of: "```", range: open.upperBound..<guide.endIndex))
        let written = guide[open.upperBound..<close.lowerBound].split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        #expect(written.sorted() == expected.sorted(), "docs/dev/CONTRIBUTING.md's layout differs from Package.swift; it should read:\n\(expected.joined(separator: "\n"))")
        let sources = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
        for folder in sources where !guide.contains("Sources/\(folder) ") && !guide.contains("Sources/\(folder)\n") {
            Issue.record("docs/dev/CONTRIBUTING.md does not describe Sources/\(folder)")
        }
    }
}
