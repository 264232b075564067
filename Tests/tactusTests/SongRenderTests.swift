// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TestSupport
import TactusMusic
import TactusTimeline
import TactusInstrument
import TactusBase

/// Onsets of a 16-bit WAV: the first non-zero sample after at least `gap` silent ones.
func wavOnsets(_ url: URL, gap: Int = 2000) throws -> [Int64] {
    let data = try Data(contentsOf: url)
    var offset = 12
    var channels = 1, bits = 16
    var found: [Int64] = []
    while offset + 8 <= data.count {
        let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
        let size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
        if id == "fmt " {
            channels = Int(data[offset + 10]) | Int(data[offset + 11]) << 8
            bits = Int(data[offset + 22]) | Int(data[offset + 23]) << 8
        } else if id == "data" {
            precondition(bits == 16)
            let frames = min(size, data.count - offset - 8) / (2 * channels)
            var last = -1_000_000_000
            data.withUnsafeBytes { raw in
                let base = raw.baseAddress! + offset + 8
                for i in 0..<frames {
                    let v = base.loadUnaligned(fromByteOffset: 2 * channels * i, as: Int16.self)
                    if v != 0 {
                        if i - last > gap { found.append(Int64(i)) }
                        last = i
                    }
                }
            }
            return found
        }
        offset += 8 + size + (size & 1)
    }
    return found
}

/// Frames in a mono 16-bit WAV's data chunk.
func wavFrames(_ url: URL) throws -> Int {
    let data = try Data(contentsOf: url)
    var offset = 12
    while offset + 8 <= data.count {
        let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
        let size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
        if id == "data" { return size / 2 }
        offset += 8 + size + (size & 1)
    }
    return -1
}

func eventObjects(_ url: URL) throws -> [[String: Any]] {
    // The onsets only (render also writes the MIDI messages it sends).
    try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.contains("\"type\":\"midi\"") }.map {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
}

@Suite struct SongRenderTests {
    static let klickInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/klick")

    /// `klick -f MAP -W WAV`: klick's own rendering of a tempo map, which must succeed.
    func runKlick(map: URL, to wav: URL) throws {
        let klick = Process()
        klick.executableURL = URL(fileURLWithPath: "/usr/bin/klick")
        klick.arguments = ["-f", map.path, "-W", wav.path]
        klick.standardOutput = FileHandle.nullDevice
        klick.standardError = FileHandle.nullDevice
        try klick.run()
        klick.waitUntilExit()
        #expect(klick.terminationStatus == 0)
    }

    @Test(.enabled(if: klickInstalled, "klick is not installed (apt-get install -y klick)"))
    func klickManualMapMatchesKlickAndTheExactModel() throws {
        let dir = scratchFolder()
        let map = dir.appendingPathComponent("example.map")
        try klickManualMap.write(to: map, atomically: true, encoding: .utf8)
        let klickWav = dir.appendingPathComponent("klick.wav")
        try runKlick(map: map, to: klickWav)
        let wav = dir.appendingPathComponent("tactus.wav")
        let events = dir.appendingPathComponent("tactus.jsonl")
        let run = try tactus(["render", "--tempo-map", map.path, "--channels", "1", "--events", events.path, "-o", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        let ours = try onsets(events).map(\.sample)
        let theirs = try wavOnsets(klickWav)
        #expect(ours.count == 320 && theirs.count == 320)
        var histogram: [Int64: Int] = [:]
        for (a, b) in zip(ours, theirs) { histogram[a - b, default: 0] += 1 }
        #expect(Set(histogram.keys).isSubset(of: [0, 1]), "\(histogram)")
        // And every onset is the exact model's.
        let song = try KlickTempoMap(parsing: klickManualMap).song(name: "example")
        #expect(ours == SongTimeline(song: song, sampleRate: 48000).map(\.sample))
        // The file ends where klick's does: the map's end, 7756341.
        #expect(try wavFrames(wav) == 7_756_341)
        #expect(try wavFrames(klickWav) == 7_756_341)
    }

    /// README's rule for where the file ends: Tactus rounds the map's exact end, klick
    /// truncates it; equal below half a frame, one frame more above.
    @Test(.enabled(if: klickInstalled, "klick is not installed (apt-get install -y klick)"),
          arguments: [("1 4/4 137\n", 84088, 84087), ("1 4/4 120\n", 96000, 96000)])
    func theFileEndsAtTheMapsEndRoundedWhereKlickTruncates(map text: String, ours: Int, klicks: Int) throws {
        let dir = scratchFolder()
        let map = dir.appendingPathComponent("one.map")
        try text.write(to: map, atomically: true, encoding: .utf8)
        let klickWav = dir.appendingPathComponent("klick.wav")
        try runKlick(map: map, to: klickWav)
        let wav = dir.appendingPathComponent("tactus.wav")
        let run = try tactus(["render", "--tempo-map", map.path, "--channels", "1", "-o", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try wavFrames(wav) == ours)
        #expect(try wavFrames(klickWav) == klicks)
    }

    @Test(arguments: [
        ("8 120\n\n4 120 Y\n", "malformed tempo map entry:\nline 3: 4 120 Y"),
        ("# c\n8 120 Xx.\n", "pattern length doesn't match number of beats:\nline 2: 8 120 Xx."),
        ("1 2/4 120,121,122\n", "number of tempo values doesn't match number of beats:\nline 1: 1 2/4 120,121,122"),
        ("8 120\n4 0\n", "tempo must be greater than zero:\nline 2: 4 0"),
        ("0 120\n", "number of bars must be greater than zero:\nline 1: 0 120"),
        ("4 0/4 120\n", "invalid time signature:\nline 1: 4 0/4 120"),
    ])
    func klickErrorsWithTheirLine(map: String, message: String) throws {
        let dir = scratchFolder()
        let file = dir.appendingPathComponent("bad.map")
        try map.write(to: file, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.wav")
        let run = try tactus(["render", "--tempo-map", file.path, "-o", out.path])
        #expect(run.status == 2)
        // klick's two lines, on one line: the newline is shown as \n (messages never hold control characters).
        let shown = message.replacingOccurrences(of: "\n", with: "\\n")
        #expect(run.stderr == "tactus: error: \(shown)\n")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let missing = try tactus(["render", "--tempo-map", dir.appendingPathComponent("none.map").path, "-o", out.path])
        #expect(missing.status == 2 && missing.stderr.contains("can't open tempo map file '"))
        let imported = try tactus(["import-klick", file.path])
        #expect(imported.status == 2 && imported.stderr == "tactus: error: \(shown)\n")
    }

    @Test func rampsStepsCountInAndGapFromTheCommandLine() throws {
        let dir = scratchFolder()
        let events = dir.appendingPathComponent("e.jsonl")
        let wav = dir.appendingPathComponent("o.wav")
        func samples(_ args: [String]) throws -> [[String: Any]] {
            let run = try tactus(["render"] + args + ["--events", events.path, "-o", wav.path])
            #expect(run.status == 0, "\(run.stderr)")
            return try eventObjects(events)
        }
        var e = try samples(["--bpm", "100-140", "--bars", "2"])
        #expect(e.map { ($0["sample"] as! NSNumber).int64Value } == [0, 27984, 54505, 79771, 103945, 127157, 149514, 171104])
        e = try samples(["--bpm", "100~140", "--bars", "2"])
        #expect(e.prefix(3).map { ($0["sample"] as! NSNumber).int64Value } == [0, 28103, 54899])
        e = try samples(["--bpm", "100+5/1b", "--bars", "2"])
        #expect(e.map { ($0["sample"] as! NSNumber).int64Value } == [0, 28800, 56229, 82410, 107454, 131454, 154494, 176648])
        e = try samples(["--bpm", "120", "--count-in", "1", "--bars", "1"])
        #expect(e.map { ($0["sample"] as! NSNumber).int64Value } == [0, 24000, 48000, 72000, 96000, 120000, 144000, 168000])
        #expect(e.map { $0["kind"] as! String } == ["count", "count", "count", "count", "accent", "beat", "beat", "beat"])
        #expect(e.map { ($0["bar"] as! NSNumber).intValue } == [-1, -1, -1, -1, 0, 0, 0, 0])
        // gap 2:1 at 120: bars 2 and 5 are silent but reported as muted.
        e = try samples(["--bpm", "120", "--gap", "2:1", "--bars", "6", "--channels", "1"])
        let muted = e.filter { $0["muted"] as! Bool }.map { ($0["sample"] as! NSNumber).int64Value }
        #expect(muted == [192000, 216000, 240000, 264000, 480000, 504000, 528000, 552000])
        let audible = try wavOnsets(wav, gap: 1000)
        #expect(!audible.contains { (192000..<288000).contains($0) || (480000..<576000).contains($0) })
        #expect(audible.count == 16)
        // Random mute: the seed is in the events, and the same seed mutes the same beats.
        e = try samples(["--bpm", "120", "--gap", "50%", "--seed", "1", "--bars", "4"])
        #expect(e.enumerated().filter { $0.element["muted"] as! Bool }.map(\.offset) == [2, 3, 4, 6, 7, 8, 9, 11, 12])
        #expect(e.allSatisfy { ($0["seed"] as! NSNumber).intValue == 1 })
        // Rhythm flags play with a tempo segment or a gap as they do without: swung eighths
        // at 2/3 of the beat, 3 over the bar, a groove's sixteenths at 0, 3/10, 1/2, 7/10.
        for args in [["--bpm", "120"], ["--bpm", "120-120"], ["--bpm", "120", "--gap", "1:1"]] {
            e = try samples(args + ["--bars", "1", "--subdivisions", "2", "--swing", "2:1", "--poly", "3"])
            #expect(e.filter { $0["kind"] as! String == "sub" }.map { ($0["sample"] as! NSNumber).int64Value } == [16000, 40000, 64000, 88000], "\(args)")
            #expect(e.filter { $0["kind"] as! String == "poly" }.map { ($0["sample"] as! NSNumber).int64Value } == [32000], "\(args)")
            e = try samples(args + ["--bars", "1", "--subdivisions", "4", "--groove", "3,2,2,3@4"])
            #expect(e.filter { $0["kind"] as! String == "sub" }.prefix(3).map { ($0["sample"] as! NSNumber).int64Value } == [7200, 12000, 16800], "\(args)")
        }
        for bad in [["--bpm", "100-140"], ["--bpm", "100-", "--bars", "2"], ["--count-in", "5"], ["--gap", "0:1"], ["--seed", "x"]] {
            let run = try tactus(["render"] + bad + ["-o", wav.path])
            #expect(run.status == 2 && run.stderr.hasPrefix("tactus: error: --") && run.stderr.split(separator: "\n").count == 1, "\(bad): \(run.stderr)")
        }
    }

    @Test func songFileSetlistAutoAndImportKlick() throws {
        let dir = scratchFolder()
        let songs = dir.appendingPathComponent("songs.toml")
        try """
        [[song]]
        name = "one"
        count_in = 1
          [[song.section]]
          label = "A"
          bars = 2
          tempo = "120"
          [[song.section]]
          label = "B"
          bars = 1
          meter = "3/4"
          tempo = "90"
        [[song]]
        name = "two"
          [[song.section]]
          label = "C"
          bars = 2
          tempo = "100-140"
        [setlist]
        songs = ["one", "two"]
        advance = "auto"
        """.write(to: songs, atomically: true, encoding: .utf8)
        let events = dir.appendingPathComponent("e.jsonl")
        let wav = dir.appendingPathComponent("o.wav")
        var run = try tactus(["render", "--song", songs.path, "--events", events.path, "-o", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        var e = try eventObjects(events)
        let b = e.filter { $0["label"] as? String == "B" }.map { ($0["sample"] as! NSNumber).int64Value }
        #expect(b == [288000, 320000, 352000])
        // Song two's bar 0 is song one's end (96000 + 192000 + 96000), no count-in, no doubled downbeat.
        let c = e.filter { $0["label"] as? String == "C" }.map { ($0["sample"] as! NSNumber).int64Value }
        let ramp: [Int64] = [0, 27984, 54505, 79771, 103945, 127157, 149514, 171104]
        let expectedC = ramp.map { 384000 + $0 }
        #expect(c == expectedC)
        #expect(e.filter { ($0["sample"] as! NSNumber).int64Value == 384000 }.count == 1)
        run = try tactus(["render", "--song", songs.path, "--song-name", "two", "--events", events.path, "-o", wav.path])
        e = try eventObjects(events)
        #expect(e.map { ($0["sample"] as! NSNumber).int64Value } == ramp)
        run = try tactus(["render", "--song", songs.path, "--song-name", "three", "-o", wav.path])
        #expect(run.status == 2 && run.stderr.contains("'one', 'two'"))

        let map = dir.appendingPathComponent("example.map")
        try klickManualMap.write(to: map, atomically: true, encoding: .utf8)
        let toml = dir.appendingPathComponent("example.toml")
        run = try tactus(["import-klick", map.path, "-o", toml.path])
        #expect(run.status == 0, "\(run.stderr)")
        let library = try SongFile.decode(String(contentsOf: toml, encoding: .utf8), file: "example.toml")
        #expect(library.songs.map(\.name) == ["example"])
        #expect(library.songs[0] == (try KlickTempoMap(parsing: klickManualMap).song(name: "example")))
        // The TOML renders the same clicks as the map.
        let fromMap = dir.appendingPathComponent("m.jsonl")
        _ = try tactus(["render", "--tempo-map", map.path, "--rate", "8000", "--channels", "1", "--events", fromMap.path, "-o", wav.path])
        _ = try tactus(["render", "--song", toml.path, "--rate", "8000", "--channels", "1", "--events", events.path, "-o", wav.path])
        #expect(try onsets(fromMap).map(\.sample) == (try onsets(events).map(\.sample)))
    }

    /// Presets are one-section songs wherever songs are read: a settings.toml of presets
    /// alone, or the box's own file with a setlist naming presets, renders with --song.
    @Test func presetsOfASettingsFileRenderAsSongs() throws {
        let dir = scratchFolder()
        let events = dir.appendingPathComponent("e.jsonl")
        let wav = dir.appendingPathComponent("o.wav")
        let presetsOnly = dir.appendingPathComponent("settings.toml")
        try """
        [[preset]]
        name = "Ballad"
        bpm = 96
        meter = "3/4"

        [[preset]]
        name = "Fast"
        bpm = 200
        """.write(to: presetsOnly, atomically: true, encoding: .utf8)
        func samples(_ file: URL, _ args: [String]) throws -> [[String: Any]] {
            let run = try tactus(["render", "--song", file.path] + args + ["--events", events.path, "-o", wav.path])
            #expect(run.status == 0, "\(run.stderr)")
            return try eventObjects(events)
        }
        // Ballad: 3/4 at 96, until stopped: --bars 2 plays 6 beats of 30000 samples.
        var e = try samples(presetsOnly, ["--song-name", "Ballad", "--bars", "2"])
        #expect(e.map { ($0["sample"] as! NSNumber).int64Value } == [0, 30000, 60000, 90000, 120000, 150000])
        #expect(e.map { $0["kind"] as! String } == ["accent", "beat", "beat", "accent", "beat", "beat"])
        #expect(e.allSatisfy { $0["label"] as? String == "Ballad" })
        // No --song-name and no setlist: the first song, here the first preset.
        e = try samples(presetsOnly, ["--bars", "1"])
        #expect(e.map { ($0["sample"] as! NSNumber).int64Value } == [0, 30000, 60000])
        let missing = try tactus(["render", "--song", presetsOnly.path, "--song-name", "Slow", "-o", wav.path])
        #expect(missing.status == 2 && missing.stderr.contains("has the songs 'Ballad', 'Fast'"), "\(missing.stderr)")

        // The box's own file: settings, preferences, presets and a setlist that names them.
        var saved = SavedState(presets: [
            Preset(name: "Ballad", settings: MetronomeSettings(tempo: Tempo(clampingWholeBPM: 96), meter: try Meter(3, 4))),
            Preset(name: "Fast", settings: MetronomeSettings(tempo: Tempo(clampingWholeBPM: 200))),
        ])
        saved.library.setlist = Setlist(songs: ["Fast", "Ballad"])
        let boxFile = dir.appendingPathComponent("box-settings.toml")
        try SettingsFile.encode(saved).write(to: boxFile, atomically: true, encoding: .utf8)
        #expect(try SettingsFile.decode(String(contentsOf: boxFile, encoding: .utf8), file: "box-settings.toml") == saved)
        // The setlist's first (advance "wait"): Fast, 4/4 at 200.
        e = try samples(boxFile, ["--bars", "1"])
        #expect(e.map { ($0["sample"] as! NSNumber).int64Value } == [0, 14400, 28800, 43200])
        e = try samples(boxFile, ["--song-name", "Ballad", "--bars", "1"])
        #expect(e.map { ($0["sample"] as! NSNumber).int64Value } == [0, 30000, 60000])
        // Nothing to play is still an error.
        let empty = dir.appendingPathComponent("empty.toml")
        try "schema = 1\n".write(to: empty, atomically: true, encoding: .utf8)
        let none = try tactus(["render", "--song", empty.path, "-o", wav.path])
        #expect(none.status == 2 && none.stderr.contains("has no [[song]] or [[preset]]"), "\(none.stderr)")
    }
}
