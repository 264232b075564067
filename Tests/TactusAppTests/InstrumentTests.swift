// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
@testable import TactusApp
import TactusMusic
import TactusInstrument
import TactusScreen
import TactusBase

/// Issue 11 through `tactus simulate --headless`: GPIO edges in, events out.
@Suite struct InstrumentTests {
    func lastBPM(_ output: MemoryOutput) -> Double { output.states.last!["bpm"] as! Double }

    @Test(arguments: [("0.5 turn +2 over 0.05\n3 end\n", 122.0), ("0.5 turn +3 over 0.03\n3 end\n", 123.0),
                      ("0.5 turn -3 over 0.02\n3 end\n", 117.0), ("0.5 turn +10 over 2.5\n4 end\n", 130.0)])
    func wheelReproducersFrom120(script: String, lands: Double) throws {
        let (output, _, _) = try simulate(script)
        #expect(lastBPM(output) == lands)
    }

    @Test func aTwentyDetentFlickDownFromThreeHundredDoesNotGlideToOne() throws {
        var saved = SavedState()
        saved.settings.tempo = Tempo(clampingWholeBPM: 300)
        let (output, _, _) = try simulate("0.5 turn -20 over 0.2\n3 end\n", saved: saved)
        #expect(lastBPM(output) == 139)
        // Ticks are buzzer pulses at least 12 ms apart, and never fewer than one per 10 BPM.
        let ticks = output.events("buzzer").filter { $0["kind"] as? String == "tick" }.map { $0["t"] as! Double }
        #expect(zip(ticks.dropFirst(), ticks).allSatisfy { $0 - $1 >= 0.012 - 1e-6 })
        #expect(ticks.count >= 16)
    }

    /// Turns whose glides send merged ticks: each tick sounds when the box handles it, and
    /// the next is still 12 ms or more after it (`turn +20 over 0.5` from 120 had 11.15 ms).
    @Test(arguments: ["0.5 turn +20 over 0.5\n4 end\n", "0.5 turn -30 over 0.4\n4 end\n", "0.5 turn +40 over 0.3\n4 end\n",
                      "0.5 turn +12 over 0.2\n4 end\n", "0.5 turn -25 over 0.8\n4 end\n"])
    func glideTicksStayTwelveMillisecondsApart(script: String) throws {
        let (output, _, _) = try simulate(script)
        let ticks = output.events("buzzer").filter { $0["kind"] as? String == "tick" }.map { $0["t"] as! Double }
        #expect(ticks.count >= 2)
        let closest = zip(ticks.dropFirst(), ticks).map { $0 - $1 }.min() ?? 1
        #expect(closest >= 0.012 - 1e-6, "closest ticks \(closest * 1000) ms apart")
    }

    @Test func theFirstDetentFromAFractionalPresetTempoPlaysTheNextWholeBPM() throws {
        var saved = SavedState()
        saved.settings.tempo = try Tempo(parsing: "92.5")
        var (output, _, _) = try simulate("0.5 turn +1 over 0.3\n3 end\n", saved: saved)
        #expect(lastBPM(output) == 93)
        (output, _, _) = try simulate("0.5 turn -1 over 0.3\n3 end\n", saved: saved)
        #expect(lastBPM(output) == 92)
        (output, _, _) = try simulate("0.5 turn +2 over 1\n3 end\n", saved: saved)
        #expect(lastBPM(output) == 94)
        // 92.5 -> 93 crosses no half step; 93 -> 94 crosses 93.5.
        #expect(output.events("buzzer").filter { $0["kind"] as? String == "tick" }.count == 1)
    }

    @Test func slowTurnsTickOncePerHalfStepAtTheDetent() throws {
        // Five detents over 2.5 s: detents complete at 1.0, 1.5, 2.0, 2.5, 3.0 s.
        let (output, _, _) = try simulate("0.5 turn +5 over 2.5\n4 end\n")
        let ticks = output.events("buzzer").filter { $0["kind"] as? String == "tick" }.map { $0["t"] as! Double }
        #expect(ticks == [1.0, 1.5, 2.0, 2.5, 3.0])
    }

    @Test func shortPushesCycleTheModesOnePushEach() throws {
        let pushes = (0..<6).map { "\(1 + $0) press wheel\n" }.joined()
        // Then Menu > Songs (long push, two detents, push), and a push back to tempo.
        let (output, _, _) = try simulate(pushes + "7 press wheel long\n9 turn +2 over 0.6\n11 press wheel\n12 press wheel\n13 end\n")
        var modes: [String] = []
        for state in output.states where modes.last != state["mode"] as? String { modes.append(state["mode"] as! String) }
        #expect(modes == ["tempo", "accents", "meter", "subdivisions", "sound", "volumes", "tempo", "song", "tempo"])
    }

    @Test func aPushedTurnReachesALayerVolumeInTwoActions() throws {
        var saved = SavedState()
        saved.settings.subdivisions = try Subdivisions([2, 3])
        // Five pushes to volumes, then one pushed turn back round the ring: sub3.
        let pushes = (0..<5).map { "\(1 + $0) press wheel\n" }.joined()
        let (output, _, _) = try simulate(pushes + "7 turn -1 over 0.1 pushed\n8 turn +2 over 1\n10 end\n", saved: saved)
        let last = output.states.last!
        #expect(last["mode"] as? String == "volumes")
        #expect(last["field"] as? String == "volume-sub3")
        #expect((last["volume"] as! [String: Any])["sub3"] as? Int == 70)
    }

    @Test func sevenEightOnTheBoxPlaysSevenClicksABar() throws {
        // Meter mode (two pushes), denominator (a pushed turn), 4/4 -> 4/8, numerator, 4/8 -> 7/8, play.
        let script = """
        1 press wheel
        2 press wheel
        3 turn +1 over 0.1 pushed
        4 turn +4 over 1.6
        6 turn -1 over 0.1 pushed
        7 turn +3 over 1.2
        9 press start
        13 end
        """
        let (output, _, _) = try simulate(script + "\n")
        let last = output.states.last!
        #expect(last["meter"] as? String == "7/8")
        #expect(last["beat_unit"] as? String == "1/8")
        let onsets = output.events("onset")
        #expect(onsets.filter { $0["bar"] as? Int == 0 }.count == 7)
        #expect(onsets.filter { $0["bar"] as? Int == 0 }.map { $0["kind"] as! String } == ["accent"] + Array(repeating: "beat", count: 6))
    }

    @Test func presetSavedNoticeIsDrawnForThreeSeconds() throws {
        // Menu (long push), Presets (turn 1, push), Save current (push).
        let (output, _, _) = try simulate("1 press wheel long\n3 turn +1 over 0.3\n4 press wheel\n5 press wheel\n12 end\n")
        let noticed = output.states.filter { $0["notice"] as? String == "Saved as Preset 1" }.map { $0["t"] as! Double }
        let cleared = output.states.filter { $0["notice"] is NSNull }.map { $0["t"] as! Double }
        let shown = try #require(noticed.first)
        #expect(cleared.contains { abs($0 - (shown + 3)) < 1e-6 })
        // The frames between show it: the notice box's text is drawn over the menu.
        let frames = output.frames.filter { Double($0.0) / 1000 >= shown && Double($0.0) / 1000 < shown + 3 }
        #expect(!frames.isEmpty)
        let expected = ScreenRenderer.render(ScreenModel(page: .menu(ScreenChoice(title: "", entries: [], position: 0)),
                                                         notice: Notice("Saved as Preset 1", kind: .info, at: .zero)))
        let box = Rect(x: 21, y: 47, width: 106, height: 16)
        for (_, frame) in frames.prefix(1) {
            for y in box.y..<box.maxY { for x in box.x..<box.maxX { #expect(frame[x, y] == expected[x, y]) } }
        }
    }
}
