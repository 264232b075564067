// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TactusCore
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
