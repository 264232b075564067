// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Testing
import TactusArithmetic

/// An outside timeline (Link) places the start and moves the grid through the engine.
@Suite struct OutsideTimelineTests {
    @Test func aPlacedStartPutsBarZerosDownbeatOnItsSample() {
        let engine = ClickEngine.testEngine()
        engine.start(atTwice: 2 * 10_000 + 1) // 10000.5: halves round up
        var recording = Recording()
        engine.record(48_000, into: &recording)
        // 120 BPM: 24000 samples a beat from 10000.5.
        #expect(recording.events.map(\.sample) == [10_001, 34_001])
        #expect(recording.events.map(\.beat) == [0, 1])
    }

    /// A start the render thread takes up after its bar 0 (a followed MIDI Start, late under
    /// load): with `playsLateFrom` the downbeat sounds from the render clock and the grid goes on
    /// from there; without it (Link) the past onsets are passed over, beat 1 first.
    @Test func aStartFoundInThePastPlaysItsDownbeatLateOnlyWhenAsked() {
        for playsLate in [true, false] {
            let engine = ClickEngine.testEngine()
            var recording = Recording()
            engine.record(30_000, into: &recording)
            engine.start(atTwice: 2 * 10_000, playsLateFrom: playsLate ? 2 * 10_000 : nil)
            engine.record(60_000, into: &recording)
            let expected: [Int64] = playsLate ? [30_000, 54_000, 78_000] : [34_000, 58_000, 82_000]
            #expect(recording.events.map(\.sample) == expected, "playsLate \(playsLate)")
            #expect(recording.events.map(\.beat) == (playsLate ? [0, 1, 2] : [1, 2, 3]), "playsLate \(playsLate)")
        }
        // Within the 5 ms rule the start keeps its sample: the downbeat now, beat 1 on its grid.
        let engine = ClickEngine.testEngine()
        var recording = Recording()
        engine.record(30_000, into: &recording)
        engine.start(atTwice: 2 * 29_900, playsLateFrom: 2 * 29_900)
        engine.record(30_000, into: &recording)
        #expect(recording.events.map(\.sample) == [30_000, 53_900])
        // A Continue from an SPP: bar 0 lies before the position that plays first (beat 1,
        // due at 10000); that position sounds from the render clock, the grid moved with it.
        let continued = ClickEngine.testEngine()
        var fromSPP = Recording()
        continued.record(30_000, into: &fromSPP)
        continued.start(atTwice: 2 * -14_000, playsLateFrom: 2 * 10_000)
        continued.record(30_000, into: &fromSPP)
        #expect(fromSPP.events.map(\.sample) == [30_000, 54_000])
        #expect(fromSPP.events.map(\.beat) == [1, 2])
    }

    @Test func anAlignmentMovesLaterOnsetsAndPlaysNoneTwice() {
        let engine = ClickEngine.testEngine()
        engine.start()
        var recording = Recording()
        engine.record(30_000, into: &recording) // beats at 0 and 24000 played
        // From sample 30000 on, bar 0 is 3/8 whole notes (1.5 beats) in: beat 2 at 42000.
        engine.align(atTwice: 60_000, bar: 0, position: Rational(3, 8))
        engine.record(48_000, into: &recording)
        #expect(recording.events.map(\.sample) == [0, 24_000, 42_000, 66_000])
        // Back by half a bar: beats 2 and 3 of bar 0 would come again; they are not played
        // twice: bar 1 waits for its downbeat on the new grid (78000 + 2.5 beats).
        engine.align(atTwice: 2 * 78_000, bar: 0, position: Rational(3, 8))
        engine.record(72_000, into: &recording)
        #expect(recording.events.map(\.sample) == [0, 24_000, 42_000, 66_000, 138_000])
        // Ahead by half a bar: bar 1 beat 1 is now due 0.25 s ago: passed over, not played
        // late; beat 2 comes on the new grid.
        engine.align(atTwice: 2 * 150_000, bar: 1, position: Rational(3, 8))
        engine.record(48_000, into: &recording)
        #expect(recording.events.map(\.sample) == [0, 24_000, 42_000, 66_000, 138_000, 162_000, 186_000])
        #expect(recording.events.map { "\($0.bar):\($0.beat)" } == ["0:0", "0:1", "0:2", "0:3", "1:0", "1:2", "1:3"])
    }

    /// Link re-maps a start that waits for the quantum by moving the grid with an anchor
    /// before bar 0 (bar -1, part-way in). A tempo change while it still waits must keep the
    /// start pending where the grid put it: nothing of bar -1 plays (it did: bar -1's last beat).
    @Test func aTempoChangeWhileAStartWaitsAfterAnAlignmentPlaysNothingBeforeTheDownbeat() throws {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        engine.start(atTwice: 2 * 100_000)
        var recording = Recording()
        engine.record(30_000, into: &recording)
        // The session moved: bar -1 is half a bar in at 40000, so bar 0's downbeat is 88000.
        engine.align(atTwice: 2 * 40_000, bar: -1, position: Rational(1, 2))
        engine.record(20_000, into: &recording)
        #expect(recording.events.isEmpty)
        // 60 BPM from sample 50000, before the downbeat: the start stays at 88000.
        try engine.apply(settings(bpm: "60"))
        engine.record(100_000, into: &recording)
        #expect(recording.events.map(\.sample) == [88_000, 136_000])
        #expect(recording.events.map { "\($0.bar):\($0.beat)" } == ["0:0", "0:1"])
    }

    /// The box re-maps a waiting start on Link's beat timeline with bar 0's downbeat itself:
    /// the start moves there, later or earlier, and nothing plays before it.
    @Test func aWaitingStartFollowsAnAlignmentOfItsDownbeat() throws {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        engine.start(atTwice: 2 * 100_000)
        var recording = Recording()
        engine.record(30_000, into: &recording)
        try engine.apply(settings(bpm: "60"))
        engine.align(atTwice: 2 * 150_000, bar: 0, position: .zero)
        engine.record(40_000, into: &recording)
        engine.align(atTwice: 2 * 120_000, bar: 0, position: .zero)
        engine.record(100_000, into: &recording)
        #expect(recording.events.map(\.sample) == [120_000, 168_000])
        #expect(recording.events.map { "\($0.bar):\($0.beat)" } == ["0:0", "0:1"])
    }

    /// A followed clock re-places the grid from a tick 60 ms ahead. Pinned there, the next
    /// tempo change before that time cut the bar at the alignment's own position and passed
    /// over the beat between (beat 1 of a 250 BPM lock, one beat behind for good): the
    /// alignment is pinned at the render clock instead, so beat 1 plays, once.
    @Test func aTempoChangeBeforeAnAlignmentsOwnTimePassesOverNothing() throws {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        engine.start()
        var recording = Recording()
        engine.record(20_000, into: &recording)
        // Beat 1 moved 100 samples later (24100): at 30000 the bar is 1/4 + 5900/96000 in.
        engine.align(atTwice: 2 * 30_000, bar: 0, position: Rational(1, 4) + Rational(59, 960))
        engine.record(1_000, into: &recording)
        try engine.apply(settings(bpm: "121"))
        engine.record(40_000, into: &recording)
        // From 21000, the 3100 samples left at 120 BPM take 3100 x 120/121 = 3074.4 at 121.
        #expect(recording.events.map(\.sample) == [0, 24_074, 47_876])
        #expect(recording.events.map { "\($0.bar):\($0.beat)" } == ["0:0", "0:1", "0:2"])
    }

    /// A correction that puts a beat in the past plays it at once when it is within the
    /// window the caller gives (a followed clock: half a beat), and passes it over otherwise
    /// (5 ms, a jump); of several late onsets only the latest plays.
    @Test func lateOnsetsOfAnAlignmentPlayWithinTheWindowGiven() {
        for window in [nil, Int64(12_000)] as [Int64?] {
            let engine = ClickEngine.testEngine(settings: settings(bpm: "120", subdivisions: "4"))
            engine.start()
            var recording = Recording()
            engine.record(20_000, into: &recording) // 16ths every 6000: 0 ... 18000 played
            // Ahead by 5000 samples: the 16th at 24000 is now due at 19000, 1000 samples
            // (20.8 ms) ago; the next one at 25000.
            engine.align(atTwice: 2 * 20_000, bar: 0, position: Rational(25_000, 96_000), lateWithin: window)
            engine.record(10_000, into: &recording)
            let after = recording.events.map(\.sample).filter { $0 >= 20_000 }
            #expect(after == (window == nil ? [25_000] : [20_000, 25_000]), "window \(String(describing: window))")
        }
        // Ahead by 15000: the 16ths at 24000 and 30000 are both due in the past; one plays.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", subdivisions: "4"))
        engine.start()
        var recording = Recording()
        engine.record(20_000, into: &recording)
        engine.align(atTwice: 2 * 20_000, bar: 0, position: Rational(35_000, 96_000), lateWithin: 12_000)
        engine.record(10_000, into: &recording)
        #expect(recording.events.map(\.sample).filter { $0 >= 20_000 } == [20_000, 21_000, 27_000])
    }
    /// Joining a Link session while playing: the move puts the next beat 238 ms after the
    /// one just played (under half a beat at 120 BPM). The beat played stands for it: it is
    /// passed over, and the beat after it comes on the new grid. A move that leaves more
    /// than half the spacing plays the next onset as before; so do subdivisions, judged by
    /// their own spacing.
    @Test func aMoveThatBringsTheNextOnsetWithinHalfItsSpacingPassesItOver() {
        let engine = ClickEngine.testEngine()
        engine.start()
        var recording = Recording()
        engine.record(30_000, into: &recording) // beats at 0 and 24000 played
        // From 30000 on the grid is 0.7 beats ahead: beat 2 due at 24000 + 11424 = 35424.
        engine.align(atTwice: 2 * 30_000, bar: 0, position: Rational(48_000 - 5_424, 96_000))
        engine.record(60_000, into: &recording)
        #expect(recording.events.map(\.sample) == [0, 24_000, 59_424, 83_424])
        #expect(recording.events.map(\.beat) == [0, 1, 3, 0])

        let eighths = ClickEngine.testEngine(settings: settings(bpm: "120", subdivisions: "2"))
        eighths.start()
        var halves = Recording()
        eighths.record(30_000, into: &halves) // 0, 12000, 24000 played
        // The next eighth (36000) moved to 30000: 6000 after the last, half its spacing: it plays.
        eighths.align(atTwice: 2 * 30_000, bar: 0, position: Rational(36_000, 96_000))
        eighths.record(20_000, into: &halves)
        #expect(halves.events.map(\.sample) == [0, 12_000, 24_000, 30_000, 42_000])
    }
}
