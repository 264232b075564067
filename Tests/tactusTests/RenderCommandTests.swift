// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Foundation
import Testing
import TactusBase

/// Runs the built `tactus` executable.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// The built `tactus` executable, beside the test bundle.
func tactusExecutable() -> URL {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("tactus").path) && folder.path != "/" {
        folder.deleteLastPathComponent()
    }
    return folder.appendingPathComponent("tactus")
}

func tactus(_ arguments: [String], in directory: URL? = nil) throws -> Run {
    try runProcess(tactusExecutable(), arguments, in: directory)
}

/// Runs a program to its end: its status and what it wrote.
func runProcess(_ executable: URL, _ arguments: [String], in directory: URL? = nil) throws -> Run {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
               stderr: String(decoding: errData, as: UTF8.self))
}

func scratchFolder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-test-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func onsets(_ path: URL) throws -> [(sample: Int64, kind: String, bar: Int, beat: Int)] {
    let text = try String(contentsOf: path, encoding: .utf8)
    return try text.split(separator: "\n").filter { !$0.contains("\"type\":\"midi\"") }.map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        return ((object["sample"] as! NSNumber).int64Value, object["kind"] as! String,
                (object["bar"] as! NSNumber).intValue, (object["beat"] as! NSNumber).intValue)
    }
}

@Suite struct RenderCommandTests {
    /// A meter change counts in 1/denominator (7/8: seven clicks a bar) unless the same
    /// change names a beat unit; that unit then stays through later changes of other things.
    @Test func meterChangesFollowTheMeterRule() throws {
        let dir = scratchFolder()
        let script = dir.appendingPathComponent("changes.txt")
        // 120 BPM 4/4: quarters 24000 samples apart, bar 1 at 2 s. There 7/8 counts eighths at
        // 120 BPM (24000 apart), seven a bar; at 5.5 s 6/8 in dotted quarters, two a bar;
        // at 6.5 s 60 BPM keeps the dotted quarter.
        try "2 set meter=7/8\n5.5 set meter=6/8 beat-unit=1/4.\n6.5 set bpm=60\n".write(to: script, atomically: true, encoding: .utf8)
        let events = dir.appendingPathComponent("e.jsonl")
        let run = try tactus(["render", "--bpm", "120", "--changes", script.path, "--seconds", "9.9", "--events", events.path,
                              "-o", dir.appendingPathComponent("o.wav").path])
        #expect(run.status == 0, "\(run.stderr)")
        let found = try onsets(events)
        func bar(_ n: Int) -> [Int64] { found.filter { $0.bar == n }.map(\.sample) }
        #expect(bar(0) == [0, 24000, 48000, 72000])
        #expect(bar(1) == (0..<7).map { 96000 + Int64($0) * 24000 })
        #expect(found.filter { $0.bar == 1 }.map(\.kind) == ["accent"] + Array(repeating: "beat", count: 6))
        // From 5.5 s two clicks a bar (where bar 2 starts is the engine's phase rule), and
        // after the tempo change still two, 48000 apart: the dotted quarter at 60 BPM.
        #expect(bar(2).count == 2 && bar(2)[1] - bar(2)[0] == 24000)
        #expect(bar(3).count == 2 && bar(3)[1] - bar(3)[0] == 48000)
    }

    @Test func rendersExactBeatsAndTheSameSamplesAsTheLiveEngine() throws {
        let dir = scratchFolder()
        let wav = dir.appendingPathComponent("click.wav")
        let events = dir.appendingPathComponent("click.jsonl")
        let run = try tactus(["render", "--bpm", "120", "--meter", "4/4", "--rate", "44100", "--format", "f32",
                              "--channels", "1", "--bars", "2", "--events", events.path, "-o", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(wav.path))
        let found = try onsets(events)
        #expect(found.map(\.sample) == [0, 22050, 44100, 66150, 88200, 110250, 132300, 154350])
        #expect(found.map(\.kind) == ["accent", "beat", "beat", "beat", "accent", "beat", "beat", "beat"])

        // Sample for sample what the live renderer plays with the same settings.
        let decoded = try WAVDecoder.decode([UInt8](Data(contentsOf: wav)))
        #expect(decoded.sampleRate == 44100)
        let engine = try ClickEngine(sampleRate: 44100, channels: 1, maxFrameCount: 128)
        var live: [Float] = []
        try OfflineRender.run(engine: engine, changes: [], end: .bars(2), output: { live += $0 }, onEvent: { _ in })
        #expect(decoded.frames == live)
        #expect(live.count == 176400) // the last click has ended before the end of bar 2
    }

    @Test func changesApplyAtTheirExactSample() throws {
        let dir = scratchFolder()
        let script = dir.appendingPathComponent("changes.txt")
        try "# tempo up after two beats\n1.0 set bpm=240 meter=3/4\n2.0 stop\n2.5 start\n".write(to: script, atomically: true, encoding: .utf8)
        let events = dir.appendingPathComponent("e.jsonl")
        let run = try tactus(["render", "--bpm", "120", "--accents", "Xxxx", "--seconds", "3", "--changes", script.path,
                              "--events", events.path, "-o", dir.appendingPathComponent("o.wav").path])
        #expect(run.status == 0, "\(run.stderr)")
        let found = try onsets(events)
        // 0, 0.5 at 120; from 1.0 beats every 0.25 s in phase (beat 3 of the bar falls right on 1.0);
        // the stop at 2.0 silences the beat due there; the restart at 2.5 is a new bar 0; the end at 3.0 is exclusive.
        #expect(found.map(\.sample) == [0, 24000, 48000, 60000, 72000, 84000, 120000, 132000])
        #expect(found.map(\.bar) == [0, 0, 0, 1, 1, 1, 0, 0])
        #expect(found.map(\.beat) == [0, 1, 2, 0, 1, 2, 0, 1])
    }

    @Test(arguments: [
        (["--bpm", "0"], "--bpm '0' is invalid: allowed 1 to 999"),
        (["--bpm", "fast"], "--bpm 'fast' is invalid"),
        (["--meter", "100/4"], "--meter '100/4' is invalid: numerator and denominator must each be 1 to 99"),
        (["--beat-unit", "2/4"], "--beat-unit '2/4' is invalid"),
        (["--accents", "Xq"], "--accents 'Xq' is invalid: one character per beat"),
        (["--subdivisions", "1,2"], "--subdivisions '1,2' is invalid: each layer must be 2 to 9"),
        (["--volume", "master=101"], "--volume master '101' is invalid: allowed 0 to 100"),
        (["--rate", "4000"], "--rate '4000' is invalid: allowed 8000 to 192000"),
        (["--format", "s8"], "--format 's8' is invalid: allowed s16, s24 or f32"),
        (["--bars", "0"], "--bars '0' is invalid"),
        (["--bars", "9223372036854775808"], "--bars '9223372036854775808' is invalid: allowed 1 to 1000000"),
        (["--bars", "1.5"], "--bars '1.5' is invalid: allowed 1 to 1000000"),
        (["--rate", "99999999999999999999"], "--rate '99999999999999999999' is invalid: allowed 8000 to 192000"),
        (["--channels", "3"], "--channels '3' is invalid: allowed 1 or 2"),
        (["--channels", "99999999999999999999"], "--channels '99999999999999999999' is invalid: allowed 1 or 2"),
        (["--bars", "2", "--seconds", "1"], "--bars and --seconds are exclusive"),
        (["--sound", "/nonexistent"], "--sound '/nonexistent' is invalid: not a built-in sound"),
        (["--changes", "/nonexistent"], "--changes '/nonexistent' cannot be read: no such file"),
        (["--frobnicate"], "Unknown option '--frobnicate'"),
    ])
    func badInputIsOneLineExitTwoAndNoFile(arguments: [String], message: String) throws {
        let dir = scratchFolder()
        let out = dir.appendingPathComponent("out.wav")
        try Data("keep me".utf8).write(to: out)
        let run = try tactus(["render"] + arguments + ["-o", out.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(try String(contentsOf: out, encoding: .utf8) == "keep me")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.wav"])
    }

    @Test func badChangeScriptNamesTheLine() throws {
        let dir = scratchFolder()
        let script = dir.appendingPathComponent("changes.txt")
        try "1 set bpm=100\n\n2 set meter=7/0\n".write(to: script, atomically: true, encoding: .utf8)
        let run = try tactus(["render", "--changes", script.path, "-o", dir.appendingPathComponent("o.wav").path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("changes.txt:3: meter '7/0' is invalid"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o.wav").path))
    }

    @Test func userSoundFolderIsLoadedResampledAndPlayed() throws {
        let dir = scratchFolder()
        let sounds = dir.appendingPathComponent("sounds")
        try FileManager.default.createDirectory(at: sounds, withIntermediateDirectories: true)
        let encoder = WAVEncoder(sampleRate: 44100, channels: 2, format: .s24)
        for (file, level) in [("accent.wav", 0.8), ("beat.wav", 0.5), ("sub.wav", 0.25)] {
            let frames = (0..<441).flatMap { i -> [Float] in
                let value = Float(level * sin(Double(i) * 2 * .pi * 1000 / 44100))
                return [value, value]
            }
            try Data(encoder.encodeFile(frames)).write(to: sounds.appendingPathComponent(file))
        }
        let wav = dir.appendingPathComponent("o.wav")
        let run = try tactus(["render", "--sound", sounds.path, "--bars", "1", "--format", "f32", "--channels", "1",
                              "--volume", "master=100,accent=100,beat=100", "-o", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        let decoded = try WAVDecoder.decode([UInt8](Data(contentsOf: wav)))
        let accentPeak = decoded.frames[0..<480].map(abs).max()!
        let beatPeak = decoded.frames[24000..<24480].map(abs).max()!
        #expect(abs(accentPeak - 0.8) < 0.01)
        #expect(abs(beatPeak - 0.5) < 0.01)

        try Data("not a wav".utf8).write(to: sounds.appendingPathComponent("sub.wav"))
        let bad = try tactus(["render", "--sound", sounds.path, "-o", dir.appendingPathComponent("p.wav").path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("sub.wav"), "\(bad.stderr)")
        #expect(bad.stderr.split(separator: "\n").count == 1)
    }

    @Test func listsTheBuiltInSounds() throws {
        let run = try tactus(["render", "--list-sounds"])
        #expect(run.status == 0)
        // The built-in sets, then the voice sets found (`make voices` in ./voices, installed ones).
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(BuiltInSounds.names.count)) == BuiltInSounds.names)
        #expect(lines.dropFirst(BuiltInSounds.names.count).allSatisfy { $0.hasPrefix("voice-") })
        if FileManager.default.fileExists(atPath: "voices/voice-en/voice.toml") { #expect(lines.contains("voice-en")) }
        #expect(BuiltInSounds.names.contains("woodblock"))
    }

    @Test func rendersTheReferenceToneAloneWithItsExactFrequency() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-tone-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("tone.wav")
        let run = try tactus(["render", "--tone", "A4@442", "--volume", "master=0", "--seconds", "10", "--format", "f32",
                              "--channels", "1", "-o", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        let x = try WAVDecoder.decode([UInt8](Data(contentsOf: wav))).frames
        var crossings: [Double] = []
        for k in 1..<x.count where x[k - 1] < 0 && x[k] >= 0 {
            crossings.append(Double(k - 1) + Double(-x[k - 1]) / Double(x[k] - x[k - 1]))
        }
        let hz = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / 48000)
        #expect(abs(hz - 442) < 0.01, "\(hz) Hz")
        // Ramps in and out (5 ms), peak at the default 50 % (-12 dBFS), no click anywhere.
        #expect(x.first == 0 && x.last == 0)
        #expect(abs(x.map { abs($0) }.max()! - 0.25) < 0.001)
        var step: Float = 0
        for k in 1..<x.count { step = max(step, abs(x[k] - x[k - 1])) }
        #expect(Double(step) <= 0.25 * 2 * Double.pi * 442 / 48000 + 0.25 / 240 + 1e-6)
    }

    @Test func badToneFlagsAreOneLineAndExitTwo() throws {
        for (arguments, message) in [(["--tone", "H4"], "--tone 'H4' is invalid"), (["--tone", "A4@500"], "--tone 'A4@500' is invalid"),
                                     (["--tone-volume", "50"], "need --tone"), (["--tone", "A4", "--tone-timbre", "flute"], "allowed sine or organ"),
                                     (["--tone", "A4", "--tone-volume", "101"], "--tone-volume '101' is invalid")] {
            let run = try tactus(["render"] + arguments + ["-o", "/tmp/tactus-never-\(getpid()).wav"])
            #expect(run.status == 2)
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
    }
}
