// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import ClickEngine
import TactusApp
import TactusMusic
import TactusInstrument
import TactusBase

/// The song mode on the whole simulated box: pushes to the mode, a turn chooses the song,
/// START plays it with its count-in at exact samples; the footswitch jumps to the next
/// section; the state lines follow section, bar and tempo; dark gap rests the LEDs.
@Suite struct SongBoxTests {
    static func saved(darkGap: Bool = false) -> SavedState {
        var saved = SavedState(library: SongLibrary(songs: [
            Song(name: "Blue", countIn: .bars(1), sections: [
                SongSection(label: "intro", bars: 1, tempo: .constant(120)),
                SongSection(label: "head", bars: 2, meter: try! Meter(3, 4), tempo: .constant(90), gap: GapPattern(play: 1, mute: 1)),
            ]),
        ]))
        saved.preferences.darkGap = darkGap
        return saved
    }

    /// Menu > Songs reaches the song mode (1 ... 5 s), a turn chooses Blue, START at 8 s.
    static let script = "1 press wheel long\n3 turn +2 over 0.6\n5 press wheel\n7 turn +1 over 0.1\n8 press start\n"

    @Test func startPlaysTheChosenSongWithItsCountInAndTheScreenFollows() throws {
        let (output, _, _) = try simulate(Self.script + "16 end\n", saved: Self.saved())
        let onsets = output.events("onset")
        let start = try #require(onsets.first?["sample"] as? Int)
        // Count-in 4 beats at 120, intro 4 beats at 120, head 2 bars of 3/4 at 90; the gap
        // 1:1 counts from the song's bar 0, so bar 1 (head's first) is muted.
        let expected = [0, 24000, 48000, 72000, 96000, 120000, 144000, 168000, 192000, 224000, 256000, 288000, 320000, 352000]
        #expect(onsets.map { ($0["sample"] as! Int) - start } == expected)
        #expect(onsets.indices.filter { onsets[$0]["muted"] as? Bool == true } == [8, 9, 10])
        let songs = output.states.compactMap { $0["song"] as? [String: Any] }
        #expect(songs.contains { $0["section"] as? String == "head" && $0["bar"] as? String == "2/2" && $0["bpm"] as? String == "90" })
        #expect(songs.contains { $0["section"] as? String == "intro" && $0["bar"] as? String == "1/1" && $0["bpm"] as? String == "120" })
        #expect(output.states.last?["mode"] as? String == "song")
    }

    @Test func darkGapRestsTheLEDsInTheMutedBar() throws {
        for dark in [false, true] {
            let (output, _, _) = try simulate(Self.script + "16 end\n", saved: Self.saved(darkGap: dark))
            let onsets = output.events("onset")
            let muted = Set(onsets.filter { $0["muted"] as? Bool == true }.map { $0["t"] as! Double })
            #expect(muted.count == 3)
            let lit = output.events("led").filter { $0["on"] as? Bool == true }.map { $0["t"] as! Double }
            // Visual only: the LEDs keep counting through the gap; dark gap: none lights in it.
            #expect(muted.allSatisfy { t in lit.contains { abs($0 - t) < 0.001 } } == !dark)
            #expect(muted.allSatisfy { t in !lit.contains { abs($0 - t) < 0.001 } } == dark)
        }
    }

    @Test func footswitchJumpsToTheNextSection() throws {
        let (output, _, _) = try simulate(Self.script + "9 press footswitch\n12 end\n", saved: Self.saved())
        let onsets = output.events("onset")
        // From 9 s the song plays again from "head": 3/4 at 90, no count-in.
        let jump = try #require(onsets.firstIndex { ($0["t"] as! Double) >= 9 })
        let after = onsets[jump...].map { $0["sample"] as! Int }
        #expect(zip(after.dropFirst(), after).prefix(5).allSatisfy { $0 - $1 == 32000 })
        #expect(output.states.compactMap { $0["song"] as? [String: Any] }.last?["section"] as? String == "head")
    }
}

/// One writer of onset events: simulate's onset lines carry render's fields (the count-in's
/// kind is `count`, section -1, label, bpm, muted), after `t` and `type`.
@Suite struct OnsetEventsTests {
    @Test func simulateWritesTheCountInAsCountWithRendersFields() throws {
        let (output, _, _) = try simulate(SongBoxTests.script + "13 end\n", saved: SongBoxTests.saved())
        let onsets = output.events("onset")
        #expect(onsets.prefix(5).map { $0["kind"] as? String } == ["count", "count", "count", "count", "accent"])
        #expect(onsets.prefix(5).map { $0["section"] as? Int } == [-1, -1, -1, -1, 0])
        #expect(onsets.prefix(5).map { $0["label"] as? String } == ["count-in", "count-in", "count-in", "count-in", "intro"])
        #expect(onsets.prefix(5).allSatisfy { $0["bpm"] as? Double == 120 && $0["muted"] as? Bool == false })
        #expect(onsets.prefix(5).map { $0["bar"] as? Int } == [-1, -1, -1, -1, 0])
    }

    @Test func bothWritersShareEveryFieldOfASongOnset() throws {
        let song = SongBoxTests.saved().songLibrary.songs[0]
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128)
        try engine.load(songs: [song])
        engine.start()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        var events: [OnsetEvent] = []
        while events.count < 10 {
            engine.renderer.render(into: buffer, frameCount: 128)
            while let event = engine.nextEvent() { events.append(event) }
        }
        #expect(OnsetEventJSON.fields(events[0], schedule: engine.song)
            == #""sample":0,"kind":"count","layer":0,"bar":-1,"beat":0,"section":-1,"label":"count-in","bpm":120.000,"muted":false"#)
        #expect(OnsetEventJSON.fields(events[4], schedule: engine.song)
            == #""sample":96000,"kind":"accent","layer":0,"bar":0,"beat":0,"section":0,"label":"intro","bpm":120.000,"muted":false"#)
        #expect(OnsetEventJSON.fields(events[9], schedule: engine.song)
            == #""sample":224000,"kind":"beat","layer":0,"bar":1,"beat":1,"section":1,"label":"head","bpm":90.000,"muted":true"#)
        // Without a song: the plain fields only.
        #expect(OnsetEventJSON.fields(OnsetEvent(sample: 21022, bar: 0, beat: 1, layer: 0, kind: .beat), schedule: nil)
            == #""sample":21022,"kind":"beat","layer":0,"bar":0,"beat":1"#)
    }
}
