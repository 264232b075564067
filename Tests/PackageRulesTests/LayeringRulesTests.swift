// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// The layering rules of issue 29, checked on Package.swift and on every `import` of every
/// target (an import the manifest does not declare is an edge too).
@Suite struct LayeringRulesTests {
    enum Allowed {
        /// Edges only to these targets.
        case only(Set<String>)
        /// Any edge but to these.
        case never(Set<String>)

        func forbids(_ target: String) -> Bool {
            switch self {
            case .only(let allowed): !allowed.contains(target)
            case .never(let forbidden): forbidden.contains(target)
            }
        }
    }

    static let domain: Set<String> = ["TactusArithmetic", "TactusMusic", "TactusTimeline", "TactusInstrument", "ClickEngine"]
    static let hardware: Set<String> = ["HAL", "Devices", "LinuxHAL", "SimHAL", "BoardFiles", "CALSA", "CGPIOD", "CI2C", "CLinuxShim", "CLink"]

    /// The rules: which target may have an edge to which. Every target named here must exist.
    static let rules: [(from: String, allowed: Allowed, why: String)] = [
        ("TactusBase", .only([]), "the base of both floors imports nothing of ours"),
        ("TactusArithmetic", .only([]), "exact arithmetic stands alone"),
        ("TOMLReader", .only([]), "the TOML reader stands alone"),
        ("Coach", .only([]), "the coach's ears are pure Swift"),
        ("HAL", .only(["TactusBase"]), "HAL imports only TactusBase (no core, no file format: board files are BoardFiles')"),
        ("Devices", .only(["TactusBase", "HAL"]), "drivers are written against HAL alone"),
        ("SimHAL", .only(["TactusBase", "HAL"]), "the simulated parts implement HAL alone"),
        ("MIDIWire", .only([]), "MIDI on the wire is pure Swift and stands alone"),
        ("LinuxHAL", .only(["TactusBase", "HAL", "Devices", "MIDIWire", "CALSA", "CGPIOD", "CI2C", "CLinuxShim", "CLink"]),
         "the OS layer sits below the domain: HAL, Devices, TactusBase, the C modules and the pure MIDI wire target"),
        ("ClickEngine", .never(hardware.union(["TOMLReader", "TactusInstrument", "TactusScreen", "TactusApp"])),
         "no file format (TOMLReader) and no hardware in the engine"),
        ("tactus-web", .never(["TactusInstrument", "TactusScreen", "TactusApp", "ClickEngine", "Coach", "LinuxHAL"]),
         "the companion does not link the instrument"),
    ] + ["TactusMusic", "TactusTimeline", "TactusInstrument", "TactusScreen"].map {
        ($0, Allowed.never(hardware.union(["TactusApp", "TactusSimulation"])), "the domain is pure Swift with no hardware and no C")
    }

    /// Edges that break a rule today and are being removed in this session (issue 29, item 3:
    /// LinuxHAL's codecs and MIDI move above it; item 4: tactus-web's types). Printed loudly on
    /// every run; delete an entry when its edge is gone (the test fails while a stale entry stays).
    static let knownToRemove: Set<String> = []

    /// Test targets named otherwise than `<Target>Tests`, and library targets that are test
    /// helpers or C code rather than code under test.
    static let testTargetNames = ["TactusScreen": "ScreenTests", "FuzzTargets": "FuzzTests"]
    static let notUnderTest: Set<String> = ["RealtimeAudit", "TestSupport", "CLinuxShim", "CLink"]

    let graph: PackageGraph

    init() throws { graph = try PackageGraph() }

    @Test func theManifestIsReadWhole() throws {
        // A parser that found nothing would pass every rule below.
        #expect(graph.targets.count >= 40)
        #expect(graph.targets["TactusApp"]?.dependencies.contains("product:ServiceLifecycle") == true)
        #expect(graph.targets["tactus-bench"]?.path == "Benchmarks/RenderBench")
        #expect(graph.targets["HAL"]?.imports["TactusBase"] == "Sources/HAL/Audio.swift")
        #expect(PackageGraph.importedModule("@testable import TactusMusic") == "TactusMusic")
        #expect(PackageGraph.importedModule("public import struct TactusBase.Bitmap") == "TactusBase")
        #expect(PackageGraph.importedModule("/// import Foundation, as a comment") == nil)
        for rule in Self.rules { #expect(graph.targets[rule.from] != nil, "rule for a target that does not exist: \(rule.from)") }
    }

    @Test func noTargetHasAForbiddenEdge() {
        var broken: [String] = []
        var known: Set<String> = []
        for rule in Self.rules {
            for (to, source) in graph.edges(of: rule.from).sorted(by: { $0.key < $1.key }) where rule.allowed.forbids(to) {
                let edge = "\(rule.from) -> \(to)"
                if Self.knownToRemove.contains(edge) { known.insert(edge); continue }
                broken.append("\(edge) (\(source)): \(rule.why)")
            }
        }
        if !known.isEmpty {
            print("""
                ************************************************************************
                LAYERING: \(known.count) KNOWN FORBIDDEN EDGE(S), TO BE REMOVED (issue 29):
                \(known.sorted().map { "  \($0)" }.joined(separator: "\n"))
                (Tests/PackageRulesTests/LayeringRulesTests.swift, knownToRemove)
                ************************************************************************
                """)
        }
        #expect(broken.isEmpty, "forbidden edges:\n\(broken.joined(separator: "\n"))")
        let stale = Self.knownToRemove.subtracting(known)
        #expect(stale.isEmpty, "these edges are gone: delete them from knownToRemove: \(stale.sorted())")
    }

    /// What `--explicit-target-dependency-import-check error` enforces, without a build: an
    /// import of one of our targets is declared in Package.swift.
    @Test func everyImportOfATargetIsDeclared() {
        var undeclared: [String] = []
        for (name, target) in graph.targets.sorted(by: { $0.key < $1.key }) {
            for (module, file) in target.imports.sorted(by: { $0.key < $1.key })
            where module != name && graph.targets[module] != nil && !target.dependencies.contains(module) {
                undeclared.append("\(file): import \(module), not in \(name)'s dependencies")
            }
        }
        #expect(undeclared.isEmpty, "\(undeclared.joined(separator: "\n"))")
    }

    /// The box binary links no Foundation (nor its parts): only the companion and the tools do.
    @Test func theBoxLinksNoFoundation() {
        var found: [String] = []
        for name in graph.closure(of: "tactus").sorted() {
            for module in ["Foundation", "FoundationEssentials", "FoundationNetworking"] {
                if let file = graph.targets[name]?.imports[module] { found.append("\(file): import \(module)") }
            }
        }
        #expect(found.isEmpty, "linked into tactus: \(found)")
    }

    @Test func everyLibraryTargetHasItsTestTarget() {
        let libraries = graph.targets.values.filter { $0.kind == "target" && $0.hasSwiftSources && !Self.notUnderTest.contains($0.name) }
        let missing = libraries.map(\.name).filter { name in
            let tests = Self.testTargetNames[name] ?? "\(name)Tests"
            return graph.targets[tests]?.kind != "testTarget"
        }
        #expect(missing.sorted() == [], "library targets without a <Target>Tests test target")
    }
}
