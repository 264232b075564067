// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Testing
import TactusArithmetic
import TactusBase

@Suite struct TimingTests {
    @Test func beatsAt120BPMIn44100() {
        let engine = ClickEngine.testEngine(sampleRate: 44100, settings: settings(bpm: "120", accents: "Xxxx"))
        engine.start()
        var recording = Recording()
        engine.record(88200 * 2, into: &recording)
        #expect(recording.events.map(\.sample) == [0, 22050, 44100, 66150, 88200, 110250, 132300, 154350])
        #expect(recording.events.map(\.kind) == [.accent, .beat, .beat, .beat, .accent, .beat, .beat, .beat])
        #expect(recording.events.map(\.beat) == [0, 1, 2, 3, 0, 1, 2, 3])
        #expect(recording.events.map(\.bar) == [0, 0, 0, 0, 1, 1, 1, 1])
        // The clip really starts at those samples and nowhere else.
        #expect(recording.samples[22049] == 0)
        #expect(recording.samples[22050] == 0.002)
        #expect(recording.samples[22149] == 0.002)
        #expect(recording.samples[22150] == 0)
    }

    @Test(arguments: [1, 7, 128, 1000, 4096])
    func beatsAt137BPMIn48000AreRoundedExactPositions(block: Int) {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "137", accents: "Xxxx"))
        engine.start()
        var recording = Recording()
        engine.record(48000 * 30, block: block, into: &recording)
        let expected = (0..<recording.events.count).map { k in
            Rational(Int64(k) * 2_880_000, 137).rounded
        }
        #expect(recording.events.count == 69)
        #expect(recording.events.map(\.sample) == expected)
    }

    @Test func twentyFourHoursWithoutDrift() {
        // Computed, not rendered: beat k of a fresh start, far into the day.
        for (bpm, rate, meter, unit) in [("137", 48000, "7/8", "1/8"), ("92.5", 44100, "4/4", "1/4"),
                                         ("999", 192000, "4/5", "1/5"), ("1", 8000, "3/4", "1/4"),
                                         ("60.001", 96000, "6/8", "1/4.")] {
            let s = settings(bpm: bpm, meter: meter, beatUnit: unit)
            let program = EngineProgram(settings: s, sounds: .constant(frames: 1, level: 0, sampleRate: rate),
                                        sampleRate: rate, playing: true, transportEpoch: 1)
            let tempo = s.tempo.bpm
            let lastBeat = (Rational(86_400) * tempo / Rational(60)).floor
            for k in stride(from: lastBeat, to: lastBeat - 5000, by: -1) {
                let grid = Int128(k) * Int128(program.beatGrid)
                let actual = program.sample(fromStart: grid)
                #expect(actual == idealSample(beats: Rational(k), bpm: tempo, sampleRate: rate), "k=\(k) \(bpm) \(rate)")
            }
            #expect(Double(program.sample(fromStart: Int128(lastBeat) * Int128(program.beatGrid)))
                    / Double(rate) <= 86_400)
        }
    }

    @Test func irrationalMeterWithItsOwnBeatUnit() {
        // 4/5 counted in quintuplet quarters: 4 beats of 1/5 per bar.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "150", meter: "4/5", beatUnit: "1/5", accents: "Xxxx"))
        engine.start()
        var recording = Recording()
        engine.record(48000 * 4, into: &recording)
        #expect(recording.events.prefix(9).map(\.sample) == (0..<9).map { Int64($0) * 19200 })
        #expect(recording.events.prefix(9).map(\.beat) == [0, 1, 2, 3, 0, 1, 2, 3, 0])
    }

    @Test func irrationalMeterCountedInQuarters() {
        // 4/5 in quarter-note beats is 3.2 beats: beats 0-3, then the next downbeat at 3.2.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", meter: "4/5", beatUnit: "1/4", accents: "Xxxx"))
        engine.start()
        var recording = Recording()
        engine.record(48000 * 4, into: &recording)
        let beats: [Rational] = [0, 1, 2, 3, Rational(16, 5), Rational(21, 5), Rational(26, 5), Rational(31, 5), Rational(32, 5)]
            .map { $0 as Rational }
        #expect(recording.events.prefix(9).map(\.sample) == beats.map { idealSample(beats: $0, bpm: Rational(120), sampleRate: 48000) })
        #expect(recording.events.prefix(9).map(\.bar) == [0, 0, 0, 0, 1, 1, 1, 1, 2])
    }

    @Test func dottedBeatUnitWithTriplets() {
        // 6/8 counted in dotted quarters at 60: two beats of 48000 samples, eighths every 16000.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "60", meter: "6/8", beatUnit: "1/4.", accents: "Xx", subdivisions: "3"))
        engine.start()
        var recording = Recording()
        engine.record(96000, into: &recording)
        #expect(recording.events.map(\.sample) == (0..<6).map { Int64($0) * 16000 })
        #expect(recording.events.map(\.kind) == [.accent, .subdivision, .subdivision, .beat, .subdivision, .subdivision])
    }

    @Test func quintupletBeatUnit() {
        // BPM counts quintuplet quarters (1/5): at 100 BPM a beat is 28800 samples; 3/4 holds 3.75 of them.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "100", meter: "3/4", beatUnit: "1/5"))
        engine.start()
        var recording = Recording()
        engine.record(28800 * 8, into: &recording)
        let positions: [Rational] = [0, 1, 2, 3, Rational(15, 4), Rational(19, 4), Rational(23, 4), Rational(27, 4), Rational(30, 4)]
        #expect(recording.events.map(\.sample) == positions.map { idealSample(beats: $0, bpm: Rational(100), sampleRate: 48000) })
    }

    @Test func coincidingSubdivisionsPlayOnceByTheLowestLayer() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "60", meter: "1/4", subdivisions: "2,3,4,6"))
        engine.start()
        var recording = Recording()
        engine.record(48000, into: &recording)
        // Distinct positions in one beat: 0, 1/6, 1/4, 1/3, 1/2, 2/3, 3/4, 5/6.
        let expected: [(Int64, UInt8)] = [(0, 0), (8000, 6), (12000, 4), (16000, 3), (24000, 2), (32000, 3), (36000, 4), (40000, 6)]
        #expect(recording.events.map(\.sample) == expected.map(\.0))
        #expect(recording.events.map(\.layer) == expected.map(\.1))
        #expect(Set(recording.events.map(\.sample)).count == recording.events.count)
    }

    @Test func mutedBeatKeepsItsSubdivisions() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "60", meter: "2/4", accents: ".x", subdivisions: "2"))
        engine.start()
        var recording = Recording()
        engine.record(96000, into: &recording)
        #expect(recording.events.map(\.sample) == [24000, 48000, 72000])
        #expect(recording.events.map(\.kind) == [.subdivision, .beat, .subdivision])
        #expect(recording.samples[0..<24000].allSatisfy { $0 == 0 })
    }
}

@Suite struct ExtremeSettingsTests {
    /// The widest grids and slowest/fastest clocks the settings allow, 24 hours in: positions
    /// must still be computed exactly (Int128 traps instead of wrapping, so a pass means exact).
    @Test(arguments: [
        ("998.999", "97/89", "1/97.", "2,3,4,5,6,7,8,9", 192_000),
        ("1", "99/1", "1/1", "7,9", 192_000),
        ("1", "1/99", "1/99", "2,3,4,5,6,7,8,9", 8000),
        ("999", "1/1", "1/1", "9", 192_000),
        ("92.125", "13/97", "1/83.", "5,7", 44100),
    ])
    func exactAfterADay(bpm: String, meter: String, unit: String, layers: String, rate: Int) {
        let s = settings(bpm: bpm, meter: meter, beatUnit: unit, subdivisions: layers)
        let program = EngineProgram(settings: s, sounds: .constant(frames: 1, level: 0, sampleRate: rate),
                                    sampleRate: rate, playing: true, transportEpoch: 1)
        let day = Int64(rate) * 86_400
        // The grid position heard at the end of the day, and the onset sample computed back from it.
        let start = program.placement(of: .start(atSample: 0))
        let here = program.position(from: start.anchor, atTwice: 2 * day)
        let next = here.grid + (here.numerator == 0 ? 0 : 1)
        let sample = program.sample(bar: here.bar, offset: next, placement: start)
        #expect(sample >= day && sample <= day + 1)
        // Re-anchored on the exact position reached (as a change there does): the same sample.
        let reanchored = program.placement(of: program.position(from: start.anchor, atTwice: 2 * day - 1))
        #expect(program.sample(bar: here.bar, offset: next, placement: reanchored) == sample)
        // Every onset of the bar is on the grid.
        for index in 0..<program.onsetCount {
            let exact = s.tempo.bpm // positions in beats = offset / beat length; sample = beats * 60 * rate / bpm
            let beats = Rational(program.onsets[index].offset, program.beatGrid)
            #expect(program.sample(fromStart: Int128(program.onsets[index].offset))
                    == idealSample(beats: beats, bpm: exact, sampleRate: rate))
        }
    }
}
