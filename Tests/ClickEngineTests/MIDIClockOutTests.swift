// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Testing
import TactusCore

/// MIDI clock out: every clock at its exact sample on the same grid as the clicks.
@Suite struct MIDIClockOutTests {
    struct Take {
        var onsets: [OnsetEvent] = []
        var midi: [MIDIOutEvent] = []
        var clocks: [MIDIOutEvent] { midi.filter { $0.message == .clock } }
    }

    func render(_ engine: ClickEngine, frames: Int, block: Int = 128, into take: inout Take) {
        var buffer = [Float](repeating: 0, count: block * engine.renderer.channels)
        var remaining = frames
        while remaining > 0 {
            let n = min(block, remaining)
            buffer.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: n) }
            while let e = engine.nextEvent() { take.onsets.append(e) }
            while let m = engine.nextMIDIEvent() { take.midi.append(m) }
            remaining -= n
        }
    }

    @Test func clockAt137BPMIsRoundHalfUpOfK120000Over137() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "137"))
        engine.start()
        var take = Take()
        render(engine, frames: 48000 * 10, block: 100, into: &take)
        #expect(take.midi.first?.message == .start && take.midi.first?.sample == 0)
        #expect(take.midi[1].message == .clock && take.midi[1].clock == 0)
        let clocks = take.clocks
        #expect(clocks.prefix(5).map(\.sample) == [0, 876, 1752, 2628, 3504])
        for c in clocks {
            #expect(c.sample == (Rational(c.clock * 120_000, 137)).rounded)
        }
        #expect(clocks.map(\.clock) == Array(0..<Int64(clocks.count)))
        // Every beat is on clock 24 n, the very same sample.
        let bySample = Dictionary(uniqueKeysWithValues: clocks.map { ($0.clock, $0.sample) })
        for (n, onset) in take.onsets.enumerated() { #expect(bySample[Int64(24 * n)] == onset.sample) }
    }

    @Test func clockAt120BPMEveryThousandSamples() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        engine.start()
        var take = Take()
        render(engine, frames: 48000 * 3, block: 4096, into: &take)
        #expect(take.clocks.map(\.sample) == (0..<144).map { Int64($0) * 1000 })
    }

    @Test func sevenEightAt274EighthsHas84ClocksPerBar() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "274", meter: "7/8", beatUnit: "1/8"))
        engine.start()
        var take = Take()
        render(engine, frames: 48000 * 8, block: 77, into: &take)
        let bySample = Dictionary(uniqueKeysWithValues: take.clocks.map { ($0.clock, $0.sample) })
        let downbeats = take.onsets.filter { $0.beat == 0 }
        #expect(downbeats.count >= 5)
        for d in downbeats { #expect(bySample[84 * d.bar] == d.sample) }
        // Eighths: every 12 clocks.
        for (n, onset) in take.onsets.enumerated() { #expect(bySample[Int64(12 * n)] == onset.sample) }
    }

    @Test func tempoChangeKeepsClocksOnTheBeats() throws {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "100"))
        engine.start()
        var take = Take()
        render(engine, frames: 40_000, block: 128, into: &take)
        try engine.apply(settings(bpm: "173.5"))
        render(engine, frames: 100_000, block: 128, into: &take)
        try engine.apply(settings(bpm: "61"))
        render(engine, frames: 100_000, block: 50, into: &take)
        let bySample = Dictionary(uniqueKeysWithValues: take.clocks.map { ($0.clock, $0.sample) })
        for (n, onset) in take.onsets.enumerated() { #expect(bySample[Int64(24 * n)] == onset.sample, "beat \(n)") }
        #expect(take.clocks.map(\.clock) == Array(0..<Int64(take.clocks.count)))
        // Intervals follow the tempo: 60 x 48000 / (24 x 173.5) = 691.6 samples.
        let gaps = zip(take.clocks.dropFirst(), take.clocks).map { $0.sample - $1.sample }
        #expect(gaps.contains(691) && gaps.contains(692) && gaps.contains(1200) && gaps.contains(1967))
    }

    @Test func stopSendsStopClocksGoOnStartRealigns() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        engine.start()
        var take = Take()
        render(engine, frames: 10_500, block: 500, into: &take)
        engine.stop()
        render(engine, frames: 5_000, block: 500, into: &take)
        engine.start()
        render(engine, frames: 3_000, block: 500, into: &take)
        let messages = take.midi.map { "\($0.message.hex)@\($0.sample)" }
        // Stop at the stop sample (10500), clocks at 11000 ... on the same grid while stopped,
        // then Start and clock 0 at the start sample (15500).
        #expect(Array(messages.prefix(12)) == ["FA@0"] + (0...10).map { "F8@\($0 * 1000)" })
        #expect(messages[12] == "FC@10500")
        #expect(Array(messages[13...17]) == ["F8@11000", "F8@12000", "F8@13000", "F8@14000", "F8@15000"])
        #expect(Array(messages[18...21]) == ["FA@15500", "F8@15500", "F8@16500", "F8@17500"])
        #expect(take.midi[19].clock == 0)
    }

    @Test func noClockWhenStoppedIfSwitchedOff() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        engine.midiClock = MIDIClockOptions(enabled: true, whenStopped: false)
        var take = Take()
        render(engine, frames: 5_000, into: &take)
        #expect(take.midi.isEmpty)
        engine.start()
        render(engine, frames: 2_500, block: 500, into: &take)
        engine.stop()
        render(engine, frames: 5_000, into: &take)
        #expect(take.midi.map(\.message.hex) == ["FA", "F8", "F8", "F8", "FC"])
    }

    @Test func songClocksFollowTheRampAndCountIn() throws {
        let song = Song(name: "b", countIn: .bars(1), sections: [
            SongSection(label: "ramp", bars: 2, tempo: .rampTime(from: 100, to: 140)),
            SongSection(label: "klick", bars: 1, meter: try Meter(3, 4), tempo: .rampBeats(from: 140, to: 80)),
            SongSection(label: "steps", bars: 2, tempo: try TempoSegment(parsing: "90+7/1b..120")),
        ])
        var takes: [Take] = []
        for block in [1, 4096] {
            let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096)
            try engine.load(songs: [song], seed: 3)
            engine.start()
            var take = Take()
            render(engine, frames: 560_000, block: block, into: &take)
            takes.append(take)
        }
        #expect(takes[0].midi == takes[1].midi)
        let take = takes[0]
        // Count-in: four clocks' worth of beats before bar 0, k from -96.
        #expect(take.clocks.first?.clock == -96)
        let start = take.midi.firstIndex { $0.message == .start }!
        #expect(take.midi[start + 1].message == .clock && take.midi[start + 1].clock == 0)
        #expect(take.midi[start].sample == take.midi[start + 1].sample)
        // Every beat of the song (quarters from bar 0, count-in too) is on clock 24 n.
        let bySample = Dictionary(uniqueKeysWithValues: take.clocks.map { ($0.clock, $0.sample) })
        var quarter: Int64 = -4
        for onset in take.onsets where onset.kind.isBeat {
            #expect(bySample[24 * quarter] == onset.sample, "quarter \(quarter) bar \(onset.bar) beat \(onset.beat) section \(onset.section)")
            quarter += 1
        }
        #expect(quarter == 18) // all but the last of the 23 quarters fit in 560 000 samples
        #expect(take.clocks.map(\.clock) == Array(-96..<(-96 + Int64(take.clocks.count))))
    }
}
