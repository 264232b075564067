// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TactusInstrument
import TactusBase
@testable import TactusApp

/// The box with swing, a grouping and a poly layer from its settings: the events say so.
@Suite struct RhythmBoxTests {
    @Test func simulateReportsPolyOnsetsAndTheRhythmSettings() throws {
        var saved = SavedState()
        try saved.settings.assign(all: [("meter", "7/8"), ("beat-unit", "1/8"), ("accents", "3+2+2"), ("swing", "2:1"),
                                        ("poly", "2")])
        let (output, _, _) = try simulate("0 press start\n2.2 end\n", saved: saved)
        let state = try #require(output.states.last)
        #expect(state["swing"] as? String == "2:1")
        #expect(state["groove"] is NSNull || state["groove"] == nil)
        #expect(state["poly"] as? String == "2")
        #expect(state["accents"] as? String == "3+2+2")
        let onsets = output.events("onset")
        // 7/8 at 120 counted in eighths (0.5 s each): swung pairs at 2/3 of each beat, the
        // soft accent on beat 3 (3+2+2), and "2 over the bar" halfway, at 3.5 beats.
        #expect(onsets.filter { ["accent", "soft", "beat"].contains($0["kind"] as? String) }.prefix(5).map { $0["kind"] as! String }
                == ["accent", "beat", "beat", "soft", "beat"])
        #expect(onsets.filter { $0["kind"] as? String == "sub" }.prefix(3).map { $0["sample"] as! Int } == [16000, 40000, 64000])
        let poly = onsets.filter { $0["kind"] as? String == "poly" }
        #expect(poly.map { $0["sample"] as! Int } == [84000])
        #expect(poly.map { $0["layer"] as! Int } == [1])
        #expect(poly.map { $0["index"] as! Int } == [1])
    }
}

/// The box's rhythm fields while playing: a scripted slow turn on the swing field steps
/// through the tempered positions, and every change reaches the engine at once.
@Suite struct RhythmBoxTurnTests {
    /// Subdivisions mode (three short pushes), then one push-and-turn of nine detents to the
    /// swing field (after the set of layers and layers 2-9), then a slow turn of four detents.
    static let swingScript = """
        0 press start
        0.2 press wheel short
        1.2 press wheel short
        2.2 press wheel short
        3.0 turn +9 over 0.9 pushed
        4.5 turn +4 over 4
        11 end
        """

    @Test func aSlowTurnStepsSwingStraightToDottedLiveAndSavesIt() throws {
        let (output, persistence, _) = try simulate(Self.swingScript)
        var swings: [String] = []
        for state in output.states {
            let swing = state["swing"] as? String ?? "straight"
            if swings.last != swing { swings.append(swing) }
        }
        #expect(swings == ["straight", "septuplet", "quintuplet", "triplet", "dotted"])
        #expect(output.states.last?["mode"] as? String == "subdivisions")
        #expect(output.states.last?["field"] as? String == "swing")
        // Each beat (24000 samples at 120) has exactly one swung 8th once swing is on, at
        // 4/7, 3/5, 2/3 or 3/4 of the beat: 13714, 14400, 16000, 18000.
        let onsets = output.events("onset")
        let beats = onsets.filter { ["accent", "beat"].contains($0["kind"] as? String) }.map { $0["sample"] as! Int }
        #expect(beats == (0..<beats.count).map { $0 * 24000 })
        let subs = onsets.filter { $0["kind"] as? String == "sub" }.map { $0["sample"] as! Int }
        let offsets = subs.map { $0 % 24000 }
        let firstSwungBeat = subs.first! / 24000
        #expect(subs.map { $0 / 24000 } == Array(firstSwungBeat..<(firstSwungBeat + subs.count)), "one swung note per beat, none twice")
        #expect(offsets == offsets.sorted())
        #expect(Array(Set(offsets)).sorted() == [13714, 14400, 16000, 18000])
        #expect(persistence.saves.last?.settings.swing?.description == "dotted")
    }

    @Test func eachPolyOrEuclidChangeReachesTheEngineWhilePlaying() throws {
        // Accents mode, back two fields to the Euclidean onsets: E(2,4) then E(3,4); then the
        // subdivisions mode's last field, poly layer 1: 3 over the bar.
        let (output, _, _) = try simulate("""
            0 press start
            0.2 press wheel short
            1.0 turn -2 over 0.2 pushed
            1.5 turn +1 over 0.1
            2.1 turn +1 over 0.1
            2.6 press wheel short
            3.6 press wheel short
            4.4 turn -1 over 0.1 pushed
            5.0 turn +3 over 0.9
            8.0 end
            """)
        let states = output.states
        #expect(states.contains { $0["accents"] as? String == "E(2,4)" })
        #expect(states.last?["accents"] as? String == "E(3,4)")
        #expect(states.last?["poly"] as? String == "3")
        let onsets = output.events("onset")
        // From bar 2 (96000) E(3,4) = x x x . accents beats 1-3, and 3 over the bar sounds
        // from the first bar after the turn: 0, 32000, 64000 into the bar (the downbeat's
        // coincident onset plays once, as the accent).
        let bar3 = onsets.filter { ($0["sample"] as! Int) >= 288_000 && ($0["sample"] as! Int) < 384_000 }
        #expect(bar3.map { $0["kind"] as! String } == ["accent", "accent", "poly", "accent", "poly", "beat"])
        #expect(bar3.map { ($0["sample"] as! Int) - 288_000 } == [0, 24000, 32000, 48000, 64000, 72000])
    }
}
