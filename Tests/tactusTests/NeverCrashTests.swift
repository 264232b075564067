// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// Issue 19's reproducers through the real executable: each ends in one clear line and
/// exit 2 (or plays), never a trap, never a hang, and no input is ever overwritten.
@Suite struct NeverCrashTests {
    func expectOneLine(_ run: Run, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 2, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.hasPrefix("tactus: error: "), "\(run.stderr)",
                sourceLocation: sourceLocation)
        #expect(run.stderr.contains(expected), "\(run.stderr)", sourceLocation: sourceLocation)
    }

    @Test func overflowingFlagValuesAreOneLine() throws {
        let out = scratchFolder().appendingPathComponent("o.wav").path
        let cases: [([String], String)] = [
            (["--swing", "9223372036854775807:1"], "--swing '9223372036854775807:1' is invalid: each side of A:B must be more than 0 and at most 10000"),
            (["--swing", "1:9223372036854775807"], "--swing '1:9223372036854775807' is invalid: each side of A:B must be more than 0 and at most 10000"),
            (["--groove", "3,2,2,3*9223372036854775807/1"], "the amount after * must be 0 to 150 %"),
            (["--bpm", "36-47.43800282", "--bars", "1"], "--bpm '36-47.43800282' is invalid: each tempo must be greater than 0 and at most 9999 BPM, with at most 3 decimals"),
            (["--bpm", "100.123456789-140.987654321", "--bars", "8"], "with at most 3 decimals"),
            (["--gap", "%"], "--gap '%' is invalid"),
            (["--gap", "2:1,2:1"], "--gap '2:1,2:1' is invalid"),
            (["--gap", "25%,25%"], "--gap '25%,25%' is invalid"),
            (["--groove", "3,2,2,3*"], "--groove '3,2,2,3*' is invalid"),
            (["--subdivisions", ""], "--subdivisions '' is invalid"),
            (["--song-name", "x"], "--song-name needs --song FILE"),
            (["--bpm", "1", "--bars", "400000"], "--bars '400000' is invalid: allowed 1 to 360 (24 hours at 1 BPM in 4/4)"),
        ]
        for (flags, expected) in cases {
            expectOneLine(try tactus(["render", "--rate", "8000"] + flags + ["-o", out]), expected)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// The hang: 0.01 BPM to 999 over one bar is half a second of audio.
    @Test func steepRampsRenderInTimeProportionalToTheirOutput() throws {
        let dir = scratchFolder()
        for (bpm, bars) in [("0.01-999", "1"), ("0.001-999", "8"), ("999-0.001", "2")] {
            let started = Date()
            let run = try tactus(["render", "--rate", "8000", "--bpm", bpm, "--bars", bars, "-o", dir.appendingPathComponent("r.wav").path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Date().timeIntervalSince(started) < 20, "\(bpm) over \(bars) bars")
        }
        // 0.01-999 over 4 beats lasts 2 L / (T0 + T1) = 8 / 999.01 minutes: 3844 frames at 8 kHz.
        let run = try tactus(["render", "--rate", "8000", "--channels", "1", "--bpm", "0.01-999", "--bars", "1",
                              "--events", dir.appendingPathComponent("e.jsonl").path, "-o", dir.appendingPathComponent("r.wav").path])
        let samples = try onsets(dir.appendingPathComponent("e.jsonl")).map(\.sample)
        #expect(run.status == 0)
        #expect(samples.first == 0 && samples == samples.sorted() && Set(samples).count == samples.count, "\(samples)")
    }

    @Test func songsWithOrdinaryNumbersPlayAndOverlongDecimalsAreRefused() throws {
        let dir = scratchFolder()
        let song = dir.appendingPathComponent("s.toml")
        let out = dir.appendingPathComponent("o.wav").path
        try "[[song]]\nname = \"a\"\npractice_tempo = \"85.43%\"\n[[song.section]]\nbars = 16\ntempo = \"248-193.083\"\n"
            .write(to: song, atomically: true, encoding: .utf8)
        let played = try tactus(["render", "--rate", "8000", "--song", song.path, "-o", out])
        #expect(played.status == 0, "\(played.stderr)")
        try "[[song]]\nname = \"a\"\npractice_tempo = \"99.999999997%\"\n[[song.section]]\ntempo = \"123.456789011\"\n"
            .write(to: song, atomically: true, encoding: .utf8)
        expectOneLine(try tactus(["render", "--song", song.path, "-o", out]), "practice_tempo = \"99.999999997%\" is invalid: expected a percentage from 1 to 1000 such as \"80%\", with at most 3 decimals")
        try "[[song]]\nname = \"a\"\n[[song.section]]\ngain = \"\"\n".write(to: song, atomically: true, encoding: .utf8)
        expectOneLine(try tactus(["render", "--song", song.path, "-o", out]), "gain = \"\" is invalid")
        try "[[song]]\nname = \"a\"\n[[song.section]]\nrandom_mute = \"%\"\n".write(to: song, atomically: true, encoding: .utf8)
        expectOneLine(try tactus(["render", "--song", song.path, "-o", out]), "random_mute = \"%\" is invalid")
    }

    @Test func klickMapsWithHugeNumbersAreOneLine() throws {
        let dir = scratchFolder()
        let map = dir.appendingPathComponent("m.txt")
        let cases = [("99999999999999999999 120,121\n", "number of tempo values doesn't match number of beats"),
                     ("1 4/16 99999999999999999\n", "is beyond Tactus's 9999"),
                     ("1 4/4 120 99999999999999999\n", "is beyond Tactus's 0 to 4 (a gain of 0 to 400 %)"),
                     ("1 4/4 120 4.1\n", "volume 4.1 is beyond Tactus's 0 to 4 (a gain of 0 to 400 %)"),
                     ("# nothing\n", "has no entries")]
        for (text, expected) in cases {
            try text.write(to: map, atomically: true, encoding: .utf8)
            let render = try tactus(["render", "--tempo-map", map.path, "-o", dir.appendingPathComponent("o.wav").path])
            #expect(render.status == 2 && render.stderr.contains(expected), "\(render.stderr)")
            let imported = try tactus(["import-klick", map.path, "-o", dir.appendingPathComponent("o.toml").path])
            #expect(imported.status == 2 && imported.stderr.contains(expected), "\(imported.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o.toml").path))
    }

    @Test func turnOfIntMinIsOneLine() throws {
        let dir = scratchFolder()
        let script = dir.appendingPathComponent("s.txt")
        try "0 turn -9223372036854775808 over 1\n1 end\n".write(to: script, atomically: true, encoding: .utf8)
        expectOneLine(try tactus(["simulate", "--headless", "--script", script.path, "--out", dir.appendingPathComponent("o").path]),
                      "detents '-9223372036854775808' is invalid")
    }

    @Test func anOutputThatIsAnInputIsRefused() throws {
        let dir = scratchFolder()
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let song = "[[song]]\nname = \"a\"\n[[song.section]]\nbars = 1\n"
        try song.write(toFile: path("s.toml"), atomically: true, encoding: .utf8)
        try "1 4/4 120\n".write(toFile: path("m.txt"), atomically: true, encoding: .utf8)
        try "0.5 set bpm=100\n".write(toFile: path("c.txt"), atomically: true, encoding: .utf8)
        let cases: [[String]] = [
            ["render", "--song", path("s.toml"), "-o", path("s.toml")],
            ["render", "--tempo-map", path("m.txt"), "-o", dir.path + "/./m.txt"],
            ["render", "--changes", path("c.txt"), "-o", path("c.txt")],
            ["render", "--changes", path("c.txt"), "--events", path("c.txt"), "-o", path("o.wav")],
            ["import-klick", path("m.txt"), "-o", path("m.txt")],
        ]
        for arguments in cases {
            let run = try tactus(arguments)
            expectOneLine(run, "writing it would destroy it, give the output its own file")
        }
        #expect(try String(contentsOfFile: path("s.toml"), encoding: .utf8) == song)
        #expect(try String(contentsOfFile: path("m.txt"), encoding: .utf8) == "1 4/4 120\n")
        #expect(try String(contentsOfFile: path("c.txt"), encoding: .utf8) == "0.5 set bpm=100\n")
        #expect(!FileManager.default.fileExists(atPath: path("o.wav")))
    }

    @Test func aBadFlagTouchesNothingInTheStateFolder() throws {
        let dir = scratchFolder()
        let state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let bad = "schema = 1\n[current]\nswing = \"9223372036854775807:1\"\n"
        try bad.write(to: state.appendingPathComponent("settings.toml"), atomically: true, encoding: .utf8)
        let run = try tactus(["simulate", "--headless", "--out", dir.appendingPathComponent("o").path, "--state", state.path])
        expectOneLine(run, "--headless needs --script FILE")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path) == ["settings.toml"])

        // With a good script the invalid file is kept aside and the box starts with defaults.
        let script = dir.appendingPathComponent("s.txt")
        try "1 end\n".write(to: script, atomically: true, encoding: .utf8)
        try ".practice.toml.partial-1234".write(to: state.appendingPathComponent(".practice.toml.partial-1234"), atomically: false, encoding: .utf8)
        let ok = try tactus(["simulate", "--headless", "--script", script.path, "--out", dir.appendingPathComponent("o").path, "--state", state.path])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stderr.contains("each side of A:B must be more than 0 and at most 10000"), "\(ok.stderr)")
        // The bad file is kept aside as it was; the box saved its (default) settings at `end`,
        // as `run` does at shutdown (issue 32: headless simulate saves at end).
        let left = try FileManager.default.contentsOfDirectory(atPath: state.path).sorted()
        #expect(left == ["settings.corrupt-1.toml", "settings.toml", "tactus.lock"], "\(left)")
        #expect(try String(contentsOf: state.appendingPathComponent("settings.corrupt-1.toml"), encoding: .utf8) == bad)
    }

    /// A lock that cannot be created (here tactus.lock is a folder; a root-owned lock or a
    /// read-only folder fail the same way): the box plays anyway, saves nothing, says so.
    @Test func anUncreatableLockPlaysWithoutSaving() throws {
        let dir = scratchFolder()
        let state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state.appendingPathComponent("tactus.lock"), withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("s.txt")
        try "0 turn +3 over 0.5\n4 end\n".write(to: script, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("o")
        let run = try tactus(["simulate", "--headless", "--script", script.path, "--out", out.path, "--state", state.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("playing without saving settings"), "\(run.stderr)")
        let events = try String(contentsOf: out.appendingPathComponent("events.jsonl"), encoding: .utf8)
        #expect(events.contains("\"notice\":\"State folder not writable: playing, changes not saved\""))
        #expect(events.contains("\"bpm\":123"), "the turn played")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path) == ["tactus.lock"])
    }
}
