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

    /// No clock on or past the file's end; Stop the last message; nothing after it but clocks.
    func expectEndOfRender(_ take: Take, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(take.midi.allSatisfy { $0.sample < take.frames }, "past the end (\(take.frames) frames)", sourceLocation: sourceLocation)
        #expect(take.midi.last?.message == .stop, sourceLocation: sourceLocation)
    }
}
