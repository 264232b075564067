// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import Testing

/// Hostile and mistaken input through the real executable: one clear line and a non-zero
/// exit each, never a crash, and nothing the user made is replaced.
@Suite struct NumberOverflowTests {
    static let values = ["10000000000.000000001", "9223372036854775807.9", "1/-9223372036854775808"]

    /// 3 values x 6 places (`--bpm`, `--seconds`, script times, turn durations, `--changes`
    /// times and `--changes` values) = 18 cases.
    @Test(arguments: values)
    func everyPlaceGivesOneClearLine(value: String) throws {
        let dir = scratchFolder()
        let out = dir.appendingPathComponent("o.wav").path
        func check(_ run: Run, _ expected: String) {
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("tactus: error: "), "\(run.stderr)")
            #expect(run.stderr.contains(expected), "\(run.stderr)")
        }
        check(try tactus(["render", "--bpm", value, "-o", out]), "--bpm '\(value)' is invalid: expected a number from 1 to 999")
        check(try tactus(["render", "--seconds", value, "-o", out]), "--seconds '\(value)' is invalid: allowed more than 0 up to 86400")

        let changes = dir.appendingPathComponent("changes.txt")
        try "\(value) stop\n".write(to: changes, atomically: true, encoding: .utf8)
        check(try tactus(["render", "--changes", changes.path, "-o", out]), "changes.txt:1: time '\(value)' is invalid")
        try "1 set bpm=\(value)\n".write(to: changes, atomically: true, encoding: .utf8)
        check(try tactus(["render", "--changes", changes.path, "-o", out]), "changes.txt:1: bpm '\(value)' is invalid")

        let script = dir.appendingPathComponent("script.txt")
        let folder = dir.appendingPathComponent("sim").path
        try "\(value) press start\n9 end\n".write(to: script, atomically: true, encoding: .utf8)
        check(try tactus(["simulate", "--headless", "--script", script.path, "--out", folder]), "script.txt:1: time '\(value)' is invalid")
        try "0 turn +3 over \(value)\n9 end\n".write(to: script, atomically: true, encoding: .utf8)
        check(try tactus(["simulate", "--headless", "--script", script.path, "--out", folder]), "script.txt:1: turn time '\(value)' is invalid: allowed more than 0 up to 3600 seconds")
        try "0 turn \(value) over 1\n9 end\n".write(to: script, atomically: true, encoding: .utf8)
        check(try tactus(["simulate", "--headless", "--script", script.path, "--out", folder]), "script.txt:1: detents '\(value)' is invalid")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func negativeNumbersAreValuesNotFlags() throws {
        let out = scratchFolder().appendingPathComponent("o.wav").path
        let run = try tactus(["render", "--bpm", "-1", "-o", out])
        #expect(run.status == 2)
        #expect(run.stderr == "tactus: error: --bpm '-1' is invalid: allowed 1 to 999, at most 3 decimals\n")
        let seconds = try tactus(["render", "--seconds", "-5", "-o", out])
        #expect(seconds.stderr.contains("--seconds '-5' is invalid"), "\(seconds.stderr)")
    }

    @Test func controlCharactersInValuesAreShownEscaped() throws {
        let out = scratchFolder().appendingPathComponent("o.wav").path
        let run = try tactus(["render", "--meter", "4/4\n\u{1B}[2Jx", "-o", out])
        #expect(run.status == 2)
        #expect(run.stderr == "tactus: error: --meter '4/4\\n\\u{1B}[2Jx' is invalid: expected N/D, e.g. 7/8\n"
                || run.stderr.contains("'4/4\\n\\u{1B}[2Jx'"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }
}

@Suite struct RenderOutputSafetyTests {
    func render(_ extra: [String]) throws -> Run {
        try tactus(["render", "--bars", "1", "--rate", "8000"] + extra)
    }

    @Test func samePathTwiceIsRefusedBeforeWriting() throws {
        let dir = scratchFolder()
        let x = dir.appendingPathComponent("x.wav").path
        let run = try render(["-o", x, "--events", dir.path + "/./x.wav"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("it is the same file as -o"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func aFolderAsEventsLeavesTheWAVAlone() throws {
        let dir = scratchFolder()
        let keep = dir.appendingPathComponent("keep.wav")
        try Data("keep me".utf8).write(to: keep)
        let folder = dir.appendingPathComponent("SOME_FOLDER")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = try render(["-o", keep.path, "--events", folder.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--events '\(folder.path)' is invalid: it is a folder"), "\(run.stderr)")
        #expect(try String(contentsOf: keep, encoding: .utf8) == "keep me")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["SOME_FOLDER", "keep.wav"])
    }

    @Test(arguments: [".", "./", "..", "/tmp/", NSHomeDirectory(), "", "/nonexistent-folder/x.wav"])
    func foldersAndMissingFoldersAreClearErrors(output: String) throws {
        let run = try render(["-o", output])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("tactus: error: -o '"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func devicesFIFOsAndSymlinksAreRefused() throws {
        let dir = scratchFolder()
        let fifo = dir.appendingPathComponent("fifo.wav").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let link = dir.appendingPathComponent("stdout.wav").path
        #expect(symlink("/proc/self/fd/1", link) == 0)
        for (path, kind) in [(fifo, "a FIFO (named pipe)"), ("/dev/null", "a character device"), (link, "a symbolic link")] {
            let run = try render(["-o", path])
            #expect(run.status == 2)
            #expect(run.stderr.contains("-o '\(path)' is invalid: it is \(kind); allowed a new file name or an existing regular file"), "\(run.stderr)")
        }
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }

    @Test func replacingKeepsThePermissions() throws {
        let dir = scratchFolder()
        let out = dir.appendingPathComponent("o.wav").path
        #expect(FileManager.default.createFile(atPath: out, contents: Data("old".utf8)))
        #expect(chmod(out, 0o600) == 0)
        let run = try render(["-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        var info = stat()
        #expect(stat(out, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o600)
        #expect(info.st_size > 44)
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func interruptedRendersLeaveNoPartialFile(signal: Int32) throws {
        let dir = scratchFolder()
        let out = dir.appendingPathComponent("long.wav").path
        let process = Process()
        process.executableURL = tactusExecutable()
        process.arguments = ["render", "--seconds", "86400", "--rate", "8000", "--channels", "1", "-o", out]
        try process.run()
        // Wait until the partial file exists, then interrupt.
        let partial = dir.appendingPathComponent(".long.wav.partial-\(process.processIdentifier)").path
        var waited = 0
        while !FileManager.default.fileExists(atPath: partial) && waited < 600 { usleep(50_000); waited += 1 }
        #expect(FileManager.default.fileExists(atPath: partial))
        kill(process.processIdentifier, signal)
        // Never leave a day-long render running if the signal was not handled.
        var left = 200
        while process.isRunning && left > 0 { usleep(50_000); left -= 1 }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("signal \(signal) did not end the render")
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}

@Suite struct SimulateInputTests {
    func script(_ dir: URL) throws -> String {
        let path = dir.appendingPathComponent("s.txt")
        try "0 press start\n0.5 end\n".write(to: path, atomically: true, encoding: .utf8)
        return path.path
    }

    @Test func emptyOutAndBadStateAreRefused() throws {
        let dir = scratchFolder()
        let s = try script(dir)
        let empty = try tactus(["simulate", "--headless", "--script", s, "--out", ""])
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("--out '' is invalid"), "\(empty.stderr)")
        let missing = try tactus(["simulate", "--headless", "--script", s, "--out", dir.path + "/o", "--state", dir.path + "/nope"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--state '\(dir.path)/nope' is invalid: no such folder"), "\(missing.stderr)")
        let file = try tactus(["simulate", "--headless", "--script", s, "--out", dir.path + "/o", "--state", s])
        #expect(file.status == 2)
        #expect(file.stderr.contains("is invalid: it is a regular file; allowed an existing folder"), "\(file.stderr)")
    }

    @Test func aBadBoardInTheConfigNamesTheConfigLine() throws {
        let dir = scratchFolder()
        let config = dir.appendingPathComponent("config.toml")
        try "# mine\nboard = \"no-such-board\"\n".write(to: config, atomically: true, encoding: .utf8)
        let run = try tactus(["simulate", "--headless", "--script", try script(dir), "--out", dir.path + "/o", "--config", config.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(config.path):2: board 'no-such-board' is invalid"), "\(run.stderr)")
        #expect(!run.stderr.contains("--board"), "\(run.stderr)")
    }

    @Test(arguments: [3, 4, 8])
    func wavHeaderHasTheBoardsChannelCount(channels: Int) throws {
        let dir = scratchFolder()
        let board = try String(contentsOfFile: "boards/pi4b.toml", encoding: .utf8)
            .replacingOccurrences(of: "channels = 2", with: "channels = \(channels)")
        let file = dir.appendingPathComponent("b.toml")
        try board.write(to: file, atomically: true, encoding: .utf8)
        let run = try tactus(["simulate", "--headless", "--script", try script(dir), "--out", dir.path + "/o", "--board", file.path])
        #expect(run.status == 0, "\(run.stderr)")
        // The channel count sits 10 bytes into the "fmt " chunk (RIFF or RF64 alike).
        let header = [UInt8](try Data(contentsOf: dir.appendingPathComponent("o/audio.wav")).prefix(256))
        let fmt = try #require((0..<header.count - 4).first { header[$0..<$0 + 4] == Array("fmt ".utf8)[...] })
        #expect(Int(header[fmt + 10]) | Int(header[fmt + 11]) << 8 == channels)
    }

    @Test func boardsWithoutTheWheelAreRefused() throws {
        let dir = scratchFolder()
        let board = try String(contentsOfFile: "boards/pi4b.toml", encoding: .utf8)
            .replacingOccurrences(of: "[inputs.encoder_b]\nline = 27", with: "")
        let file = dir.appendingPathComponent("nob.toml")
        try board.write(to: file, atomically: true, encoding: .utf8)
        let run = try tactus(["simulate", "--headless", "--script", try script(dir), "--out", dir.path + "/o", "--board", file.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("board 'nob' cannot be simulated: it has no [inputs.encoder_b]"), "\(run.stderr)")
    }

    @Test func secondInstanceOnOneStateFolderSaysWhoHoldsIt() throws {
        let dir = scratchFolder()
        let state = dir.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        // Hold the lock from another process (flock(1) keeps it while sleep runs).
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-x", state + "/tactus.lock", "-c", "echo $$ > \(state)/tactus.lock; sleep 30"]
        try holder.run()
        defer { holder.terminate() }
        var waited = 0
        while (try? String(contentsOfFile: state + "/tactus.lock", encoding: .utf8))?.isEmpty ?? true, waited < 100 { usleep(50_000); waited += 1 }
        let pid = try String(contentsOfFile: state + "/tactus.lock", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try tactus(["simulate", "--headless", "--script", try script(dir), "--out", dir.path + "/o", "--state", state])
        #expect(run.status == 1)
        #expect(run.stderr.contains("in use by another tactus (process \(pid) holds \(state)/tactus.lock)"), "\(run.stderr)")
    }

    @Test func aFIFOAsSettingsDoesNotHang() throws {
        let dir = scratchFolder()
        let state = dir.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        #expect(mkfifo(state + "/settings.toml", 0o644) == 0)
        let run = try tactus(["simulate", "--headless", "--script", try script(dir), "--out", dir.path + "/o", "--state", state])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: state + "/settings.corrupt-1.toml"))
        // The screen says it in words that fit; the log has the whole reason.
        let events = try String(contentsOfFile: dir.path + "/o/events.jsonl", encoding: .utf8)
        #expect(events.contains("\"notice\":\"Bad settings file kept aside (corrupt-1), using defaults\""), "\(events.prefix(600))")
    }
}
