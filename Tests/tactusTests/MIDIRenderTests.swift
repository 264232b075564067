// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// `tactus render --events` shows every MIDI message the box would send.
@Suite struct MIDIRenderTests {
    @Test func clockLinesAt137BPMAndTypedOnsets() throws {
        let dir = scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = dir.appendingPathComponent("e.jsonl")
        let run = try tactus(["render", "--bpm", "137", "--bars", "2", "--events", events.path, "-o", dir.appendingPathComponent("o.wav").path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").map(String.init)
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects.allSatisfy { $0["type"] as? String == "onset" || $0["type"] as? String == "midi" })
        let midi = objects.filter { $0["type"] as? String == "midi" }
        #expect(midi.allSatisfy { $0["dir"] as? String == "out" })
        #expect(lines.first == #"{"t":0.000000,"type":"midi","dir":"out","bytes":"FA","sample":0}"#)
        #expect(lines[1] == #"{"t":0.000000,"type":"midi","dir":"out","bytes":"F8","sample":0}"#)
        let clocks = midi.filter { $0["bytes"] as? String == "F8" }.map { ($0["sample"] as! NSNumber).int64Value }
        // Two bars = 192 clocks before the end; round-half-up(k x 120000 / 137).
        #expect(clocks.count >= 192)
        for (k, sample) in clocks.enumerated() { #expect(sample == (2 * Int64(k) * 120_000 + 137) / (2 * 137)) }
        #expect(clocks[1...4] == [876, 1752, 2628, 3504])
        // Stop at the end sample, then the clock goes on while the last click rings.
        let stop = midi.firstIndex { $0["bytes"] as? String == "FC" }
        #expect(stop != nil)
        let onsets = objects.filter { $0["type"] as? String == "onset" }
        #expect(onsets.count == 8)
        #expect(onsets.allSatisfy { $0["kind"] != nil && $0["bar"] != nil && $0["t"] != nil })
        // Time order throughout.
        let samples = objects.map { ($0["sample"] as! NSNumber).int64Value }
        #expect(samples == samples.sorted())
    }
    /// A spoken count's words begin up to their lead before their beat: their onset lines
    /// once came when the clip began, ahead of the clocks due sooner. Every line in sample
    /// order, a render in 2048-frame periods or not.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "voices/voice-en/voice.toml")
                   || ProcessInfo.processInfo.environment["TACTUS_REQUIRE_VOICES"] == "1",
                   "SKIPPED: no voices/voice-en (run `make voices`)"))
    func aSpokenCountsLinesAreInSampleOrder() throws {
        let dir = scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = dir.appendingPathComponent("e.jsonl")
        let run = try tactus(["render", "--sound", "voice-en", "--bpm", "120", "--subdivisions", "2", "--bars", "4",
                              "--events", events.path, "-o", dir.appendingPathComponent("o.wav").path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
        let samples = try lines.map { ((try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["sample"] as! NSNumber).int64Value }
        #expect(samples.count > 16 * 2 + 4 * 96)
        #expect(samples == samples.sorted())
    }
}
