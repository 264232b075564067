// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// Issue 29's newcomer's list: what got in the way of a first try, each held here.
@Suite struct NewcomerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func shell(_ arguments: [String], in folder: URL = root) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func makeRunKeepsItsStateInAGitIgnoredFolder() throws {
        let plain = try shell(["make", "-n", "run"])
        #expect(plain.output.contains("simulate --board boards/pi4b.toml --state '.state'"), "\(plain.output)")
        let picked = try shell(["make", "-n", "run", "STATE=/tmp/my box"])
        #expect(picked.output.contains("--state '/tmp/my box'"), "\(picked.output)")
        #expect(try shell(["git", "check-ignore", "-q", ".state/settings.toml"]).status == 0)
    }

    @Test func simulateHelpNamesTheRealControlDefault() throws {
        let help = try tactus(["simulate", "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        #expect(help.contains("/run/tactus/control.sock"), "\(help)")
        #expect(help.contains("/tmp/tactus-UID/control.sock"), "\(help)")
    }

    /// Every subcommand `tactus --help` lists is in the man page, and so is --sync.
    @Test func theManPageNamesEveryCommand() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("packaging/deb/tactus.1"), encoding: .utf8)
        let help = try tactus(["--help"]).stdout
        // The SUBCOMMANDS block, up to its blank line; continuation lines are indented deeper.
        let commands = help.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("SUBCOMMANDS") }.dropFirst()
            .prefix { !$0.isEmpty }
            .compactMap { $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? $0.split(separator: " ").first.map(String.init) : nil }
            .filter { $0 != "help" }
        #expect(commands.contains("coach") && commands.contains("import-klick") && commands.contains("wiring"))
        for command in commands {
            #expect(page.contains(".B tactus \(command.replacingOccurrences(of: "-", with: "\\-"))"), "man page lacks tactus \(command)")
        }
        for flag in ["sync", "control", "state", "board", "web", "headless"] {
            #expect(page.contains("\\-\\-\(flag)"), "man page lacks --\(flag)")
        }
    }

    /// A binary installed under a prefix finds PREFIX/share/tactus/voices from any folder.
    @Test func voicesAreFoundBesideTheInstalledBinary() throws {
        let prefix = scratchFolder()
        let bin = prefix.appendingPathComponent("bin")
        let voice = prefix.appendingPathComponent("share/tactus/voices/voice-zz")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: voice, withIntermediateDirectories: true)
        try "language = \"zz\"\n".write(to: voice.appendingPathComponent("voice.toml"), atomically: true, encoding: .utf8)
        let installed = bin.appendingPathComponent("tactus")
        // A hard link where the file system allows (the binary is large), else a copy;
        // a symbolic link would not do: /proc/self/exe names its target.
        if (try? FileManager.default.linkItem(at: tactusExecutable(), to: installed)) == nil {
            try FileManager.default.copyItem(at: tactusExecutable(), to: installed)
        }
        defer { try? FileManager.default.removeItem(at: prefix) }
        let process = Process()
        process.executableURL = installed
        process.arguments = ["render", "--list-sounds"]
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let listed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(listed.split(separator: "\n").contains("voice-zz"), "\(listed)")
    }

    @Test func importKlickSaysWhatItWrote() throws {
        let dir = scratchFolder()
        let map = dir.appendingPathComponent("tune.map")
        try "4 4/4 120\n2 3/4 90\n".write(to: map, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("tune.toml")
        let run = try tactus(["import-klick", map.path, "-o", out.path])
        let bytes = try Data(contentsOf: out).count
        #expect(run.status == 0)
        #expect(run.stdout == "wrote \(out.path): song 'tune', 2 sections, \(bytes) bytes\n", "\(run.stdout)")
    }

    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/etc/tactus/board.toml")))
    func runWithoutABoardSaysWhereItLooked() throws {
        let dir = scratchFolder()
        let config = dir.appendingPathComponent("config.toml")
        try "# no board\n".write(to: config, atomically: true, encoding: .utf8)
        let run = try tactus(["run", "--config", config.path])
        #expect(run.status == 2)
        #expect(run.stderr.replacingOccurrences(of: "tactus: error: ", with: "").hasPrefix("no board file: no --board flag, no board in \(config.path), and the default board file /etc/tactus/board.toml does not exist"),
                "\(run.stderr)")
        #expect(!run.stderr.contains("--board '"))
    }

    @Test func wiringWritesTheCommittedPicture() throws {
        let dir = scratchFolder()
        let out = dir.appendingPathComponent("w.svg")
        let run = try tactus(["wiring", "--board", "pi4b", "-o", out.path], in: Self.root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "wrote \(out.path): the wiring of Raspberry Pi 4 Model B (boards/pi4b.toml)\n")
        #expect(try Data(contentsOf: out) == Data(contentsOf: Self.root.appendingPathComponent("docs/wiring/pi4b-wiring.svg")))
        let bad = try tactus(["wiring", "--board", "nosuch"], in: dir)
        #expect(bad.status == 2 && bad.stderr.contains("--board 'nosuch' is invalid"), "\(bad.stderr)")
    }
}
