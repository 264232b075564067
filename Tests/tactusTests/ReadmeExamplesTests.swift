// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// The documentation's examples come from the program: each is run here and its output must
/// be in README.md or a page under docs/ as written, so an example cannot go stale again.
@Suite struct ReadmeExamplesTests {
    /// README.md and every page under docs/, with every run of white space (line breaks
    /// included) made one space.
    static func readme() throws -> String {
        var root = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) && root.path != "/" {
            root.deleteLastPathComponent()
        }
        let text = try DocsTests.documentation().map(\.text).joined(separator: "\n")
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    static func repositoryFile(_ path: String) -> URL {
        var root = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) && root.path != "/" {
            root.deleteLastPathComponent()
        }
        return root.appendingPathComponent(path)
    }

    /// `--events`: the beat and poly lines README shows, from `render --bpm 137 --poly 3`.
    @Test func theEventsExampleIsWhatRenderWrites() throws {
        let dir = scratchFolder()
        let events = dir.appendingPathComponent("e.jsonl")
        let run = try tactus(["render", "--bpm", "137", "--poly", "3", "--bars", "1", "--events", events.path,
                              "-o", dir.appendingPathComponent("x.wav").path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").map(String.init)
        let beat = try #require(lines.first { $0.contains("\"sample\":21022,\"kind\":\"beat\"") })
        let poly = try #require(lines.first { $0.contains("\"kind\":\"poly\"") && $0.contains("\"index\":1") })
        let readme = try Self.readme()
        let (beatShown, polyShown) = (readme.contains("`\(beat)`"), readme.contains("`\(poly)`"))
        #expect(beatShown, "the documentation's beat line is not \(beat)")
        #expect(polyShown, "the documentation's poly line is not \(poly)")
    }

    /// `1.65 set meter=4/5` at 120 BPM 4/4: the samples README names for beat 3 and bar 1.
    @Test func theMeterChangeExampleIsWhatRenderPlays() throws {
        let dir = scratchFolder()
        let changes = dir.appendingPathComponent("c.txt")
        try "1.65 set meter=4/5\n".write(to: changes, atomically: true, encoding: .utf8)
        let events = dir.appendingPathComponent("e.jsonl")
        let run = try tactus(["render", "--bpm", "120", "--bars", "3", "--changes", changes.path, "--events", events.path,
                              "-o", dir.appendingPathComponent("x.wav").path])
        #expect(run.status == 0, "\(run.stderr)")
        let beats = try onsets(events).filter { $0.kind == "accent" || $0.kind == "beat" }
        let beat3 = try #require(beats.first { $0.bar == 0 && $0.beat == 3 }).sample
        let bar1 = try #require(beats.first { $0.bar == 1 && $0.beat == 0 }).sample
        #expect(beats.filter { $0.bar == 0 && $0.beat == 3 }.count == 1)
        let readme = try Self.readme()
        let once = readme.contains("plays bar 0 beat 3 at \(beat3) once, and bar 1 at \(bar1)")
        let plain = readme.contains("plays bar 0 beat 3 at \(beat3) and bar 1 at \(bar1).")
        #expect(once && plain, "the documentation does not say bar 0 beat 3 at \(beat3) and bar 1 at \(bar1)")
    }

    /// The board file error README quotes: pi4b.toml with the display at address 80.
    @Test func theBoardErrorExampleIsWhatTactusSays() throws {
        let dir = scratchFolder()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("boards"), withIntermediateDirectories: true)
        let original = try String(contentsOf: Self.repositoryFile("boards/pi4b.toml"), encoding: .utf8)
        let broken = original.replacingOccurrences(of: "\naddress = 0x3C", with: "\naddress = 80")
        #expect(broken != original)
        try broken.write(to: dir.appendingPathComponent("boards/pi4b.toml"), atomically: true, encoding: .utf8)
        let run = try tactus(["check", "--board", "boards/pi4b.toml"], in: dir)
        #expect(run.status == 2)
        let message = run.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "tactus: error: ", with: "")
        #expect(message.hasPrefix("boards/pi4b.toml:"))
        let quoted = try Self.readme().contains(" \(message) ")
        #expect(quoted, "the documentation's board error is not: \(message)")
    }
}

/// `--board NAME` found nowhere: the folders looked in, the names that work from here.
@Suite struct BoardNameTests {
    @Test func anUnknownBoardNameSaysWhereNamesAreLookedUpAndWhichWork() throws {
        let dir = scratchFolder()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("boards"), withIntermediateDirectories: true)
        try "x".write(to: dir.appendingPathComponent("boards/mine.toml"), atomically: true, encoding: .utf8)
        let run = try tactus(["check", "--board", "nosuchboard"], in: dir)
        #expect(run.status == 2)
        #expect(run.stderr.contains("--board 'nosuchboard' is invalid: no board file nosuchboard.toml in /etc/tactus/boards, "
            + "/usr/local/share/tactus/boards, /usr/share/tactus/boards, boards (in the current folder, "))
        #expect(run.stderr.contains("mine from boards"))
        #expect(run.stderr.contains("allowed such a name or a board file path"))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }
}
