// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Testing
import TactusArithmetic
import TactusMusic
import TactusTimeline
import MIDIWire

/// Issue 30's reproducers for clock out: a live change in a song moves the clock at once
/// (each clock at its exact sample, never a burst), a meter change that cuts a bar keeps
/// clock k at k/96 of a whole note along the played timeline, and the end of a render.
@Suite struct MIDIClockChangeTests {
    struct Take {
        var onsets: [OnsetEvent] = []
        var midi: [MIDIOutEvent] = []
        var frames: Int64 = 0
        var clocks: [MIDIOutEvent] { midi.filter { $0.message == .clock } }
    }

    func offline(_ engine: ClickEngine, changes: [TimedChange], end: RenderEnd) throws -> Take {
        var take = Take()
        try OfflineRender.run(engine: engine, changes: changes, end: end, output: { block in
            take.frames += Int64(block.count)
        }, onEvent: { take.onsets.append($0) }, onMIDI: { take.midi.append($0) })
        return take
    }

    /// Clocks strictly later one after another, k counting 0, 1, 2, ... from the first.
    func expectOrderedAndCounted(_ clocks: [MIDIOutEvent], sourceLocation: SourceLocation = #_sourceLocation) {
        for (a, b) in zip(clocks, clocks.dropFirst()) {
            #expect(b.sample > a.sample, "clock \(b.clock) at \(b.sample) after \(a.sample)", sourceLocation: sourceLocation)
            #expect(b.clock == a.clock + 1, sourceLocation: sourceLocation)
        }
    }

    @Test func songChangedFrom60To240At0Point1sMovesTheClockAtOnce() throws {
        // Issue 30: a 60 BPM song changed to 240 at 0.1 s wrote 277 clocks on sample 189,888.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "60"))
        try engine.load(songs: [Song(name: "s", sections: [SongSection(label: "A", bars: 4, tempo: .constant(60))])], seed: 1)
        let take = try offline(engine, changes: [TimedChange(sample: 4800, action: .changeSong(settings(bpm: "240"), tempo: .to(240), pattern: false))],
                               end: .sample(Int64.max / 4))
        let clocks = take.clocks
        expectOrderedAndCounted(clocks)
        // Before the change: every 2000 samples (60 BPM). At 0.1 s the position is 2.4 clocks;
        // clock 3 is 0.6 clock later at 240 BPM (500 samples a clock): 4800 + 300, then every 500.
        #expect(clocks.prefix(3).map(\.sample) == [0, 2000, 4000])
        for c in clocks where c.clock >= 3 && c.clock <= 384 { #expect(c.sample == 3600 + 500 * c.clock, "clock \(c.clock)") }
        // Every beat's click on its clock (24 n), the very same sample.
        let bySample = Dictionary(uniqueKeysWithValues: clocks.map { ($0.clock, $0.sample) })
        for (n, onset) in take.onsets.enumerated() { #expect(bySample[Int64(24 * n)] == onset.sample, "beat \(n)") }
        #expect(take.onsets.count == 16)
        expectEndOfRender(take)
    }

    /// No clock on or past the file's end (Stop at the end's own sample at the latest);
    /// Stop the last message.
    func expectEndOfRender(_ take: Take, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(take.clocks.allSatisfy { $0.sample < take.frames }, "past the end (\(take.frames) frames)", sourceLocation: sourceLocation)
        #expect(take.midi.allSatisfy { $0.sample <= take.frames }, sourceLocation: sourceLocation)
        #expect(take.midi.last?.message == .stop, sourceLocation: sourceLocation)
        #expect(take.midi.filter { $0.message == .stop }.last?.sample == take.midi.last?.sample, sourceLocation: sourceLocation)
    }
}

extension MIDIClockChangeTests {
    /// Round half up of n / d (d > 0).
    static func roundHalfUp(_ value: Rational) -> Int64 { Rational.floorDivide(2 * value.numerator + value.denominator, 2 * value.denominator) }

    @Test(arguments: [("4/5", "1/5"), ("3/5", "1/5"), ("7/12", "1/12")])
    func meterChangeThatCutsTheBarKeepsTheClockOnThePlayedTimeline(meter: String, unit: String) throws {
        // Issue 30: 120 BPM 4/4, at 1.65 s (3.3 beats into bar 0, 79.2 clocks) into a meter the
        // bar is already past: one extra clock 4.2 ms after the one before, then every clock
        // 20.8 ms early. Clock k is at k/96 of a whole note along the played timeline: 1000
        // samples a clock before, then from 79200 at the new tempo (120 of the new unit).
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        let take = try offline(engine, changes: [TimedChange(sample: 79200, action: .apply(settings(bpm: "120", meter: meter, beatUnit: unit)))],
                               end: .bars(4))
        let clocks = take.clocks
        expectOrderedAndCounted(clocks)
        let beatUnit = try #require(Rational(parsing: String(unit.dropFirst(2))))
        let period = Rational(48000 * 60, 120) / Rational(96) * beatUnit // samples a clock after the change
        for c in clocks {
            let expected = c.clock < 80 ? c.clock * 1000 : Self.roundHalfUp(Rational(79200) + (Rational(c.clock) - Rational(396, 5)) * period)
            #expect(c.sample == expected, "clock \(c.clock)")
        }
        #expect(clocks.count > 100)
        // The next bar's downbeat (the old beat's end, clock 96) is on its clock's sample.
        let downbeat = try #require(take.onsets.first { $0.bar == 1 && $0.beat == 0 })
        #expect(clocks.first { $0.clock == 96 }?.sample == downbeat.sample)
        expectEndOfRender(take)
    }

    @Test func renderEndsWithStopAndNoClockOnOrPastItsLastSample() throws {
        // 120 BPM, 2 bars: the end is bar 2's downbeat (192000), where Stop goes; no clock of
        // the ring-out after it, none on or past the file's end.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        let take = try offline(engine, changes: [], end: .bars(2))
        #expect(take.clocks.map(\.sample) == (0..<192).map { Int64($0) * 1000 })
        #expect(take.midi.last == MIDIOutEvent(sample: 192_000, message: .stop))
        expectEndOfRender(take)
    }

    @Test func clocksWhileStoppedStayOnTheirExactTimes() throws {
        // 137 BPM (876 samples and a bit a clock): stopped at 100000 and started again at
        // 150000. While stopped the clock goes on on the same exact line, rounded half up
        // (clock k at round(k x 120000 / 137)), not re-pinned to the last rounded sample.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "137"))
        let take = try offline(engine, changes: [TimedChange(sample: 100_000, action: .stop), TimedChange(sample: 150_000, action: .start)],
                               end: .bars(5))
        let stopped = take.clocks.filter { $0.sample >= 100_000 && $0.sample < 150_000 }
        #expect(stopped.count > 50)
        for c in stopped { #expect(c.sample == Self.roundHalfUp(Rational(c.clock * 120_000, 137)), "clock \(c.clock)") }
        expectEndOfRender(take)
    }
}

extension MIDIClockChangeTests {
    @Test func aFourBarCountInSendsNoClockAfterStop() throws {
        // Issue 30: a song with a 4-bar count-in (60 BPM, 4 bars) ended with FC then one F8 on
        // the same sample, the one past the file's end (1,536,000).
        let engine = ClickEngine.testEngine(settings: settings(bpm: "60"))
        let song = Song(name: "s", countIn: .bars(4), sections: [SongSection(label: "A", bars: 4, tempo: .constant(60))])
        try engine.load(songs: [song], seed: 1)
        let take = try offline(engine, changes: [], end: .sample(Int64.max / 4))
        #expect(take.clocks.count == 768)
        #expect(take.clocks.first?.clock == -384 && take.clocks.first?.sample == 0)
        #expect(take.clocks.last?.clock == 383 && take.clocks.last?.sample == 1_534_000)
        #expect(take.midi.last == MIDIOutEvent(sample: 1_536_000, message: .stop))
        expectEndOfRender(take)
    }
}
