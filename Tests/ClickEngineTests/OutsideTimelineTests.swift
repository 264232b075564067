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
}
