// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TactusApp
import TactusMusic
import TactusInstrument
import TactusBase

/// The setlist on the whole simulated box: auto advance plays the next song from the last
/// one's exact end sample, wait advance stops and selects the next; the random mute's seed
/// is new at each START, in the events, and decides the muted beats.
@Suite struct SetlistBoxTests {
    /// A: count-in 1, one bar 4/4 at 120 (192000 samples in all); B: one bar 3/4 at 90
    /// (3 x 32000); Other: not in the setlist. The setlist lists B after A.
    static func saved(_ advance: Setlist.Advance) -> SavedState {
        SavedState(library: SongLibrary(songs: [
            Song(name: "Other", sections: [SongSection(label: "o", bars: 1, tempo: .constant(60))]),
            Song(name: "B", sections: [SongSection(label: "b", bars: 1, meter: try! Meter(3, 4), tempo: .constant(90))]),
            Song(name: "A", countIn: .bars(1), sections: [SongSection(label: "a", bars: 1, tempo: .constant(120))]),
        ], setlist: Setlist(songs: ["A", "B"], advance: advance)))
    }

    /// Menu > Songs reaches the song mode (1 ... 5 s); a turn chooses the setlist's first, A.
    static let toFirstSong = toSongMode + "7 turn +1 over 0.1\n"
    static let toSongMode = "1 press wheel long\n3 turn +2 over 0.6\n5 press wheel\n"

    static func sample(_ e: [String: Any]) -> Int { e["sample"] as! Int }

    @Test func autoAdvanceStartsTheNextSongAtTheLastOnesEndSample() throws {
        let (output, _, _) = try simulate(Self.toFirstSong + "8 press start\n16 end\n", saved: Self.saved(.auto))
        let onsets = output.events("onset")
        let start = try #require(onsets.first.map(Self.sample))
        // Count-in and A at 120, then B's bar 0 exactly at A's end (96000 + 96000): one
        // downbeat there, no second count-in, no gap.
        #expect(onsets.map { Self.sample($0) - start }
            == [0, 24000, 48000, 72000, 96000, 120000, 144000, 168000, 192000, 224000, 256000])
        #expect(onsets.filter { Self.sample($0) == start + 192000 }.count == 1)
        #expect(onsets.map { $0["song"] as? Int } == Array(repeating: 0, count: 8) + [1, 1, 1])
        #expect(onsets.suffix(3).allSatisfy { $0["song_name"] as? String == "B" && $0["kind"] as? String != "count" })
        // The song page follows: A, then B while it plays; the box stops at B's end with B shown.
        let playing = output.states.filter { $0["playing"] as? Bool == true }.compactMap { $0["song"] as? [String: Any] }
        #expect(playing.contains { $0["name"] as? String == "A" && $0["bar"] as? String == "1/1" })
        #expect(playing.contains { $0["name"] as? String == "B" && $0["section"] as? String == "b" && $0["bar"] as? String == "1/1" })
        let last = try #require(output.states.last)
        #expect(last["playing"] as? Bool == false && (last["song"] as? [String: Any])?["name"] as? String == "B")
        // It stopped once B's end (start + 288000, 6 s) was heard, not before.
        let stopped = try #require(output.states.first { $0["playing"] as? Bool == false && ($0["t"] as! Double) > 8 })
        let t = stopped["t"] as! Double
        #expect(t >= 8 + 6 && t < 8 + 6 + 0.2, "\(t)")
    }

    @Test func waitAdvanceStopsAtTheEndAndSelectsTheNextReadyForStart() throws {
        let (output, _, _) = try simulate(Self.toFirstSong + "8 press start\n13 press start\n16 end\n", saved: Self.saved(.wait))
        let onsets = output.events("onset")
        let first = onsets.filter { ($0["t"] as! Double) < 13 }
        let second = onsets.filter { ($0["t"] as! Double) >= 13 }
        // A alone: its count-in and bar, then nothing until START.
        let a = try #require(first.first.map(Self.sample))
        #expect(first.map { Self.sample($0) - a } == [0, 24000, 48000, 72000, 96000, 120000, 144000, 168000])
        #expect(first.allSatisfy { $0["song"] == nil })
        // At A's end the box stopped with B chosen.
        let stop = try #require(output.states.first { $0["playing"] as? Bool == false && ($0["t"] as! Double) > 8 })
        #expect((stop["t"] as! Double) >= 12 && (stop["t"] as! Double) < 12.2)
        #expect((stop["song"] as? [String: Any])?["name"] as? String == "B")
        #expect((stop["song"] as? [String: Any])?["playing"] as? Bool == false)
        // START plays B (no count-in), which stops at its end too; B stays chosen (the last).
        let b = try #require(second.first.map(Self.sample))
        #expect(second.map { Self.sample($0) - b } == [0, 32000, 64000])
        let last = try #require(output.states.last)
        #expect(last["playing"] as? Bool == false && (last["song"] as? [String: Any])?["name"] as? String == "B")
    }

    /// "As set" (120, 4/4, no count-in) with the gap field at 25 %, START at 9 s, STOP at 13 s,
    /// START again at 14 s.
    static let randomMute = toSongMode
        + "7 turn -2 over 0.2 pushed\n8 turn +8 over 0.4\n9 press start\n13 press start\n14 press start\n18 end\n"

    @Test func aNewSeedEachStartInTheEventsDecidesTheMutedBeats() throws {
        let (output, _, _) = try simulate(Self.randomMute)
        let states = output.states.filter { $0["seed"] != nil }
        #expect(states.allSatisfy { ($0["song"] as? [String: Any])?["program"] as? String == "gap 25%" })
        let seeds = states.map { ($0["seed"] as! NSNumber).uint64Value }
        let distinct = seeds.reduce(into: [UInt64]()) { if $0.last != $1 { $0.append($1) } }
        #expect(distinct.count == 2 && distinct[0] != distinct[1])
        let onsets = output.events("onset")
        #expect(onsets.allSatisfy { $0["seed"] != nil })
        for (run, seed) in zip([onsets.filter { ($0["t"] as! Double) < 13 }, onsets.filter { ($0["t"] as! Double) >= 14 }], distinct) {
            #expect(run.count == 8 && run.allSatisfy { ($0["seed"] as! NSNumber).uint64Value == seed })
            // Beat b from bar 0 is muted exactly when SplitMix64(seed ^ b) says so (as render --seed).
            let mute = RandomMute(percent: 25, seed: seed)
            #expect(run.map { $0["muted"] as? Bool == true }
                == run.map { mute.isMuted(beat: Int64($0["bar"] as! Int) * 4 + Int64($0["beat"] as! Int)) })
        }
        // The same input replays the same seeds and so the same mutes.
        let (again, _, _) = try simulate(Self.randomMute)
        #expect(again.events("onset").map { $0["muted"] as? Bool == true } == onsets.map { $0["muted"] as? Bool == true })
        #expect(again.events("onset").map { ($0["seed"] as! NSNumber).uint64Value } == onsets.map { ($0["seed"] as! NSNumber).uint64Value })
    }
}
