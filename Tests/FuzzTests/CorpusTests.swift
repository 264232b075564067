// SPDX-License-Identifier: GPL-3.0-or-later
import FuzzTargets
import Foundation
import Testing

/// Every input the coverage-guided fuzzers kept (Fuzz/corpus/TARGET) and every crash they
/// found (Fuzz/crashes/TARGET), replayed through the same target functions as ordinary
/// tests: a crash that comes back, or an accepted input that stops rendering, fails here.
@Suite struct FuzzCorpus {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func files(_ kind: String, _ target: String) -> [URL] {
        let folder = root.appendingPathComponent(kind).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { folder.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTargets.all.map(\.name))
    func replays(target name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let corpus = Self.files("corpus", name)
        #expect(!corpus.isEmpty, "Fuzz/corpus/\(name) holds the seeds of the target")
        for file in corpus + Self.files("crashes", name) {
            target.replay([UInt8](try Data(contentsOf: file)))
        }
    }

    /// A target per folder and a folder per target: a new reader cannot be left unfuzzed.
    @Test func everyCorpusFolderIsATarget() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("corpus").path)
        #expect(Set(folders) == Set(FuzzTargets.all.map(\.name)))
    }
}
