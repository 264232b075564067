// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Testing
import TactusArithmetic
import TactusMusic
import TactusTimeline
import MIDIWire

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

    /// With a port taking the clock, a start from stopped puts bar 0 on the running clock's
    /// second tick and Start after the first: the clock runs on evenly through Start (a Tactus
    /// following this one stays locked through it; the leader used to re-time its clock,
    /// 7.7-9.6 ms late downbeats), and the follower knows a clock ahead where bar 0 falls.
    @Test func aStartWithAPortWaitsForTheRunningClocksNextTick() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        engine.midiClock.startsOnRunningClock = true
        engine.start()
        var take = Take()
        render(engine, frames: 10_500, block: 500, into: &take)
        engine.stop()
        render(engine, frames: 5_000, block: 500, into: &take)
        engine.start()
        render(engine, frames: 27_000, block: 500, into: &take)
        let messages = take.midi.map { "\($0.message.hex)@\($0.sample)" }
        // Bar 0 on the running clock's second tick after the press (17000), Start right after
        // the tick before it: a follower gets a clock's warning, and the first clock after
        // Start is still the downbeat.
        #expect(Array(messages[13...21]) == ["F8@11000", "F8@12000", "F8@13000", "F8@14000", "F8@15000",
                                              "F8@16000", "FA@16000", "F8@17000", "F8@18000"])
        #expect(take.midi[18].clock == -1 && take.midi[20].clock == 0)
        // Bar 0's downbeat on that tick, beat 1 24 clocks later.
        #expect(take.onsets.map(\.sample).filter { $0 >= 10_500 } == [17_000, 41_000])
        // Clock intervals through Start: 1000 samples each.
        let clockSamples = take.clocks.map(\.sample)
        #expect(zip(clockSamples.dropFirst(), clockSamples).allSatisfy { $0 - $1 == 1000 })
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

    /// Round half up of an exact sample position, written here from the words.
    func roundHalfUp(_ n: Int128, _ d: Int128) -> Int64 {
        let q = (2 * n + d) / (2 * d)
        return Int64((2 * n + d) % (2 * d) < 0 ? q - 1 : q)
    }

    @Test func clockKAt137IsRoundHalfUpOfK120000Over137IncludingTheCountIn() throws {
        // A song at a constant 137 with a one-bar count-in: bar 0's downbeat is 4 beats in,
        // 4 x 60 x 48000 / 137 samples after the song's start; clock k (k from -96) lies at
        // (96 + k) x 120000 / 137 from the start (24 a quarter: 120000 / 137 samples each).
        let song = Song(name: "c", countIn: .bars(1), sections: [SongSection(label: "a", bars: 4, tempo: .constant(137))])
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096)
        try engine.load(songs: [song], seed: 1)
        engine.start()
        var take = Take()
        render(engine, frames: 48000 * 9, block: 333, into: &take)
        // The song's own clocks (then the clock goes on at its last tempo, from its last clock).
        let clocks = take.clocks.filter { $0.clock < 384 }
        #expect(clocks.first?.clock == -96)
        #expect(clocks.count == 96 * 5)
        #expect(take.clocks.count > 96 * 5)
        for c in clocks { #expect(c.sample == roundHalfUp(Int128(96 + c.clock) * 120_000, 137), "clock \(c.clock)") }
        // Start just before bar 0's clock, the count-in's clocks before it.
        let start = try #require(take.midi.firstIndex { $0.message == .start })
        #expect(take.midi[start + 1].clock == 0 && take.midi[start].sample == take.midi[start + 1].sample)
        #expect(take.midi[..<start].allSatisfy { $0.message == .clock && $0.clock < 0 })
        // The one timeline says the same: BeatGrid.sample(tick:) on the song's piece.
        let grid = BeatGrid(.song(SongGrid(beats: try #require(engine.song).beats, origin: 0, sampleRate: 48000)))
        for k in [-96, -95, -1, 0, 1, 95, 96, 383] as [Int64] {
            #expect(grid.sample(tick: k, perWhole: 96, near: 0) == roundHalfUp(Int128(96 + k) * 120_000, 137))
        }
    }

    @Test func startAtCountInPutsStartBeforeTheFirstCountInClock() throws {
        let song = Song(name: "c", countIn: .bars(1), sections: [SongSection(label: "a", bars: 1, tempo: .constant(120))])
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096)
        engine.midiClock.startAtCountIn = true
        try engine.load(songs: [song], seed: 1)
        engine.start()
        var take = Take()
        render(engine, frames: 10_000, block: 128, into: &take)
        #expect(Array(take.midi.prefix(3).map(\.message.hex)) == ["FA", "F8", "F8"])
        #expect(take.midi[1].clock == -96 && take.midi[0].sample == 0)
    }

    @Test func songFromALaterSectionSendsSongPositionThenContinue() throws {
        let song = Song(name: "c", sections: [SongSection(label: "b", bars: 2, tempo: .constant(120))])
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096)
        // 1100 bars of 4/4 before it: 17600 16ths, saturated at 16383.
        engine.midiClock.songPosition = 17_600
        try engine.load(songs: [song], seed: 1)
        engine.start()
        var take = Take()
        render(engine, frames: 3_000, block: 128, into: &take)
        #expect(Array(take.midi.prefix(4).map(\.message.hex)) == ["F2 7F 7F", "FB", "F8", "F8"])
        engine.midiClock.songPosition = 32
        try engine.load(songs: [song], seed: 1)
        engine.stop()
        take = Take()
        render(engine, frames: 1_000, block: 128, into: &take)
        engine.start()
        render(engine, frames: 3_000, block: 128, into: &take)
        let from = try #require(take.midi.firstIndex { $0.message.hex == "F2 20 00" })
        #expect(take.midi[from + 1].message == .continue && take.midi[from + 2].message == .clock)
        #expect(take.midi[from].sample == take.midi[from + 2].sample)
    }

    @Test func songClocksThroughARampAThreeFourSectionAndATrainerStep() throws {
        // Computed here from the sections' tempo rules: constant sections and steps add
        // exact bar lengths; a ramp linear in time from a to b over B beats lasts
        // T = 2B / (a + b) minutes, and position x beats into it is at the t with
        // a t + (b - a) t^2 / (2T) = x.
        let song = Song(name: "m", sections: [
            SongSection(label: "three", bars: 2, meter: try Meter(3, 4), tempo: .constant(137)),
            SongSection(label: "ramp", bars: 2, tempo: .rampTime(from: 100, to: 140)),
            SongSection(label: "trainer", bars: 3, tempo: .stepped(start: 90, step: 7, every: 1, unit: .bars, limit: nil)),
        ])
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096)
        try engine.load(songs: [song], seed: 1)
        engine.start()
        var take = Take()
        render(engine, frames: 48000 * 16, block: 500, into: &take)
        let bySample = Dictionary(uniqueKeysWithValues: take.clocks.map { ($0.clock, $0.sample) })
        // 3/4 at 137: 6 beats, 144 clocks, each 120000 / 137 samples.
        for k in 0..<144 as Range<Int64> { #expect(bySample[k] == roundHalfUp(Int128(k) * 120_000, 137), "3/4 clock \(k)") }
        let rampStart = Rational(6 * 60 * 48000, 137)
        // The ramp: 8 beats from 100 to 140 BPM (192 clocks): within one sample of the model.
        let minutes = 2.0 * 8 / 240
        for j in 0..<192 as Range<Int64> {
            let x = Double(j) / 24
            let t = (-100 + (100 * 100 + 2 * 40 / minutes * x).squareRoot()) / (40 / minutes)
            let expected = rampStart.doubleValue + t * 60 * 48000
            let got = try #require(bySample[144 + j])
            #expect(abs(Double(got) - expected) <= 1, "ramp clock \(j): \(got) vs \(expected)")
        }
        // The trainer: bars at 90, 97, 104 BPM, exact.
        // The ramp ends exactly T minutes after it starts.
        var barStart = rampStart + Rational(8 * 60 * 48000 * 2, 240)
        for (bar, bpm) in [90, 97, 104].enumerated() {
            for j in 0..<96 as Range<Int64> {
                let k = 144 + 192 + Int64(bar) * 96 + j
                let at = barStart + Rational(j * 60 * 48000, Int64(24 * bpm))
                #expect(bySample[k] == at.rounded, "trainer bar \(bar) clock \(j)")
            }
            barStart = barStart + Rational(4 * 60 * 48000, Int64(bpm))
        }
    }

    @Test func aStartPlacedJustBehindTheRendererStillSendsStartAndBarZerosClock() {
        // Following a clock, bar 0 can land a little before the render position (the 5 ms
        // the onsets allow): Start and clock 0 go out late, with the downbeat, then the grid.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        engine.midiClock.whenStopped = false
        var take = Take()
        render(engine, frames: 1024, block: 128, into: &take)
        engine.start(atTwice: 2 * 900)
        render(engine, frames: 3000, block: 128, into: &take)
        #expect(Array(take.midi.prefix(4).map { "\($0.message.hex)@\($0.sample)" }) == ["FA@1024", "F8@1024", "F8@1900", "F8@2900"])
        #expect(take.onsets.first?.sample == 900 || take.onsets.first?.sample == 1024)
    }

    /// Link moves a playing box's phase (an alignment that shifts the bars against the clock
    /// count): the clock follows the new grid at once, and at the next bar's downbeat SPP and
    /// Continue say where the box is, so gear chained after it follows; from there clock k is
    /// again k / 96 of a whole note from bar 0.
    @Test func aPhaseMoveSendsSongPositionAndContinueAtTheNextBar() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"))
        engine.start()
        var take = Take()
        render(engine, frames: 30_000, block: 128, into: &take)  // clocks 0..29 (1000 samples each)
        // From sample 30000, bar 0 is 3/8 whole notes in (1.5 beats): beat 2 at 42000, bar 1 at 90000.
        engine.align(atTwice: 60_000, bar: 0, position: Rational(3, 8), relocatesClock: true)
        render(engine, frames: 120_000, block: 128, into: &take)
        let messages = take.midi.map { "\($0.message.hex)@\($0.sample)" }
        // The clock is on the new grid at once (ticks every 1000 samples from 90000 - 96000).
        let clocks = take.clocks
        #expect(Set(clocks.map(\.sample)).count == clocks.count, "never two clocks on one sample")
        #expect(clocks.filter { $0.sample >= 31_000 }.allSatisfy { ($0.sample - 90_000) % 1000 == 0 }, "\(messages)")
        // At bar 1's downbeat: SPP 16 (bar 1 = 16 sixteenths), Continue, then clock 96 there.
        let at = take.midi.firstIndex { $0.message == .songPosition(sixteenths: 16) }
        #expect(at != nil, "\(messages)")
        if let at {
            #expect(Array(messages[at...].prefix(3)) == ["F2 10 00@90000", "FB@90000", "F8@90000"])
            #expect(take.midi[at + 2].clock == 96)
            for c in take.midi[(at + 2)...] where c.message == .clock {
                #expect(c.sample == 90_000 + (c.clock - 96) * 1000)
            }
        }
        #expect(take.midi.filter { $0.message == .continue }.count == 1)
        #expect(!take.midi.contains { $0.message == .start && $0.sample > 0 })
        // Clicks and clocks agree: every beat after the move on clock 24 n.
        let bySample = Dictionary(uniqueKeysWithValues: clocks.filter { $0.sample >= 90_000 }.map { ($0.clock, $0.sample) })
        for onset in take.onsets where onset.sample >= 90_000 {
            let k: Int64 = 96 * Int64(onset.bar) + 24 * Int64(onset.beat)
            #expect(bySample[k] == onset.sample)
        }
    }
}
