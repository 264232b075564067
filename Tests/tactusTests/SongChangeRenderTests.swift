// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// `tactus render --changes` with a song: the change keeps the position, overrides the
/// current section only, `bpm=hold` ends a ramp at the tempo it reached; a meter change
/// is refused with one line naming the script's line.
@Suite struct SongChangeRenderTests {
    func samples(_ e: [[String: Any]], label: String) -> [Int64] {
        e.filter { $0["label"] as? String == label }.map { ($0["sample"] as! NSNumber).int64Value }
    }

    @Test func changesDuringASongKeepThePositionAndTheNextSection() throws {
        let dir = scratchFolder()
        let songs = dir.appendingPathComponent("songs.toml")
        try """
        [[song]]
        name = "ab"
          [[song.section]]
          label = "A"
          bars = 2
          tempo = "100-140"
          [[song.section]]
          label = "B"
          bars = 1
          meter = "3/4"
          tempo = "90"
        """.write(to: songs, atomically: true, encoding: .utf8)
        let script = dir.appendingPathComponent("changes.txt")
        try "2 set bpm=hold\n".write(to: script, atomically: true, encoding: .utf8)
        let events = dir.appendingPathComponent("e.jsonl")
        let wav = dir.appendingPathComponent("o.wav")
        var run = try tactus(["render", "--song", songs.path, "--changes", script.path, "--events", events.path, "-o", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        var e = try eventObjects(events)
        // The ramp (100 -> 140 over 8 beats) reached exactly 120 at 2 s, 11/3 beats in.
        #expect(samples(e, label: "A") == [0, 27984, 54505, 79771, 104000, 128000, 152000, 176000])
        #expect(e.filter { $0["label"] as? String == "A" }.dropFirst(4).allSatisfy { ($0["bpm"] as! NSNumber).doubleValue == 120 })
        #expect(samples(e, label: "B") == [200000, 232000, 264000])

        try "0.5 set bpm=60 volume=beat=50\n".write(to: script, atomically: true, encoding: .utf8)
        run = try tactus(["render", "--song", songs.path, "--changes", script.path, "--events", events.path, "-o", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        e = try eventObjects(events)
        // At 0.5 s (tau = 1/120 min) the ramp is 100 tau + 300 tau^2 = 41/48 beat in: beat 1
        // follows 7/48 beat later at 60 BPM (7000 samples), then every 48000; B from A's end.
        #expect(samples(e, label: "A") == [0, 31000, 79000, 127000, 175000, 223000, 271000, 319000])
        #expect(samples(e, label: "B") == [367000, 399000, 431000])
    }

    @Test func meterChangeDuringASongIsRefused() throws {
        let dir = scratchFolder()
        let script = dir.appendingPathComponent("changes.txt")
        try "1 set bpm=100\n2 set meter=3/4\n".write(to: script, atomically: true, encoding: .utf8)
        let wav = dir.appendingPathComponent("o.wav")
        let run = try tactus(["render", "--bpm", "100-140", "--bars", "2", "--changes", script.path, "-o", wav.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("changes.txt:2: meter '3/4' cannot change during a song"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: wav.path))
    }
}
