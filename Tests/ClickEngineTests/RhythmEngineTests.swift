// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
@testable import ClickEngine
import Testing
import TactusArithmetic
import TactusMusic
import TactusBase

/// Swing, grooves, Euclidean accents and poly layers through the live engine: exact sample
/// vectors at 48 kHz (the notes' rhythm-patterns tables), long runs without drift, the
/// worst-case grid, and live changes under the completion guarantee.
@Suite struct RhythmEngineTests {
    func rhythm(_ base: MetronomeSettings = settings(), _ pairs: [(String, String)]) -> MetronomeSettings {
        var s = base
        try! s.assign(all: pairs.map { (name: $0.0, value: $0.1) })
        return s
    }

    func play(_ s: MetronomeSettings, frames: Int, block: Int = 128) -> Recording {
        let engine = ClickEngine.testEngine(settings: s)
        engine.start()
        var recording = Recording()
        engine.record(frames, block: block, into: &recording)
        return recording
    }

    @Test(arguments: [1, 128, 1000])
    func swingTwoToOneOnEighths(block: Int) {
        let r = play(rhythm(settings(), [("swing", "2:1")]), frames: 48000 * 4, block: block)
        let offbeats = r.events.filter { $0.kind == .subdivision }
        #expect(offbeats.count == 8)
        #expect(offbeats.map(\.sample) == (0..<8).map { (k: Int64) -> Int64 in 16000 + 24000 * k })
        #expect(offbeats.allSatisfy { $0.layer == 2 })
    }

    @Test func mpcSixtySixPercentIsNotTheTriplet() {
        let r = play(rhythm(settings(), [("swing", "66%")]), frames: 48000 * 4)
        #expect(r.events.filter { $0.kind == .subdivision }.map(\.sample) == (0..<8).map { (k: Int64) -> Int64 in 15840 + 24000 * k })
    }

    @Test func threeOverTheBarAt137() {
        // With the downbeat muted the poly layer's own first onset is heard; otherwise the
        // accent plays that position once.
        let muted = play(rhythm(settings(bpm: "137", accents: ".xxx"), [("poly", "3")]), frames: 84088 * 2)
        let poly = muted.events.filter { $0.kind == .poly }
        #expect(poly.prefix(3).map(\.sample) == [0, 28029, 56058])
        #expect(poly.prefix(3).map(\.index) == [0, 1, 2])
        #expect(poly.allSatisfy { $0.layer == 1 })
        let accented = play(rhythm(settings(bpm: "137", accents: "Xxxx"), [("poly", "3")]), frames: 84000)
        #expect(accented.events.filter { $0.sample == 0 }.map(\.kind) == [.accent])
        #expect(accented.events.filter { $0.kind == .poly }.map(\.sample) == [28029, 56058])
        // 5 over the bar at 120 and 137 BPM.
        #expect(play(rhythm(settings(accents: ".xxx"), [("poly", "5")]), frames: 96000).events
            .filter { $0.kind == .poly }.map(\.sample) == [0, 19200, 38400, 57600, 76800])
        #expect(play(rhythm(settings(bpm: "137", accents: ".xxx"), [("poly", "5")]), frames: 84000).events
            .filter { $0.kind == .poly }.map(\.sample) == [0, 16818, 33635, 50453, 67270])
    }

    @Test func euclideanAccentsInEightEight() {
        let r = play(rhythm(settings(meter: "8/8", beatUnit: "1/8"), [("accents", "E(3,8)")]), frames: 192_000)
        #expect(r.events.filter { $0.kind == .accent }.map(\.sample) == [0, 72000, 144000])
        #expect(r.events.filter { $0.kind == .beat }.map(\.sample) == [24000, 48000, 96000, 120000, 168000])
    }

    @Test func softAccentsAndPolyLayersUseTheirOwnClipsAndVolumes() {
        var s = rhythm(settings(meter: "7/8", beatUnit: "1/8", accents: "X"), [("accents", "3+2+2"), ("poly", "2")])
        try! s.volumes.set("soft", to: 50)
        try! s.volumes.set("poly1", to: 25)
        try! s.volumes.set("master", to: 80)
        let engine = ClickEngine.testEngine(settings: s)
        let poly = Clip(samples: Array(repeating: 0.004, count: 100), sampleRate: 48000)
        let base = SoundSet.constant(frames: 100, level: 0.001, sampleRate: 48000, name: "withpoly")
        engine.register(SoundSet(name: "withpoly", accent: base.accent, beat: base.beat, subdivision: base.subdivision, poly: poly))
        s.sound = "withpoly"
        try! engine.apply(s)
        engine.start()
        var r = Recording()
        engine.record(168_000, into: &r)
        #expect(r.events.map(\.kind) == [.accent, .beat, .beat, .soft, .poly, .beat, .soft, .beat])
        // 3.5 eighths: the poly onset at half the bar, between beats 3 and 4.
        #expect(r.events.first { $0.kind == .poly }?.sample == 84000)
        #expect(abs(r.samples[72000] - 0.003 * 0.8 * 0.5) < 1e-9) // accent clip at the soft volume
        #expect(abs(r.samples[84000] - 0.004 * 0.8 * 0.25) < 1e-9) // the set's poly clip at poly1's volume
        let r2 = play(rhythm(settings(meter: "7/8", beatUnit: "1/8"), [("poly", "2")]), frames: 84100)
        #expect(r2.events.last?.kind == .poly && r2.events.last?.sample == 84000)
        #expect(r2.samples[84000] == 0.001) // a set without a poly clip plays the subdivision clip
    }

    @Test func grooveGainsScaleTheirNotes() {
        let r = play(rhythm(settings(), [("groove", "3:100,2:50,2:100,3:25")]), frames: 24000)
        #expect(r.events.map(\.sample) == [0, 7200, 12000, 16800])
        #expect([r.samples[7200], r.samples[12000], r.samples[16800]] == [0.0005, 0.001, 0.00025])
    }

    @Test func polyLayersDoNotDriftOverTenThousandBars() {
        // Onset i of bar B of "3 over the bar" at 137 BPM is round((4B + 4i/3) * 2880000/137),
        // and onset 0 is the bar's downbeat, for every bar.
        let s = rhythm(settings(bpm: "137", accents: ".xxx"), [("poly", "3,5,E(3,8)")])
        let program = EngineProgram(settings: s, sounds: .constant(frames: 1, level: 0, sampleRate: 48000),
                                    sampleRate: 48000, playing: true, transportEpoch: 1)
        let polyOnsets = (0..<program.onsetCount).map { program.onsets[$0] }.filter { $0.kind == .poly && $0.layer == 1 }
        #expect(polyOnsets.count == 3)
        for bar in Int64(0)..<10_000 {
            let barStart = program.sample(fromStart: Int128(bar) * Int128(program.barGrid))
            #expect(barStart == Rational(4 * bar * 2_880_000, 137).rounded)
            for onset in polyOnsets {
                let actual = program.sample(fromStart: Int128(bar) * Int128(program.barGrid) + Int128(onset.offset))
                let ideal = ((Rational(4 * bar) + Rational(4 * Int64(onset.index), 3)) * Rational(2_880_000, 137)).rounded
                if actual != ideal { Issue.record("bar \(bar) onset \(onset.index): \(actual) != \(ideal)"); return }
                if onset.index == 0 { #expect(actual == barStart) }
            }
        }
        // And rendered: 40 bars in odd blocks, every poly onset where the formula says.
        let engine = ClickEngine.testEngine(settings: rhythm(settings(bpm: "137", accents: ".xxx"), [("poly", "3")]))
        engine.start()
        var r = Recording()
        engine.record(84088 * 40, block: 997, into: &r)
        let poly = r.events.filter { $0.kind == .poly }
        #expect(poly.count >= 120)
        for e in poly {
            #expect(e.sample == ((Rational(4 * e.bar) + Rational(4 * Int64(e.index), 3)) * Rational(2_880_000, 137)).rounded)
        }
    }

    @Test func worstCaseGridStaysExactForTwentyFourHoursAt192kHz() {
        // Meter 97/89, beat unit 3/166 (dotted 1/83), layers 2-9, a groove on layer 8 at
        // alpha = 9999/10000 towards 4/7.
        for bpm in ["999", "137.125", "1"] {
            let s = rhythm(settings(bpm: bpm, meter: "97/89", beatUnit: "3/166", subdivisions: "2,3,4,5,6,7,8,9"),
                           [("groove", "4,3@8*9999/10000")])
            let program = EngineProgram(settings: s, sounds: .constant(frames: 1, level: 0, sampleRate: 192_000),
                                        sampleRate: 192_000, playing: true, transportEpoch: 1)
            #expect(program.gridPerWhole == 24_820_320_000)
            let bar = s.meter.wholeNotes
            let perWhole = Rational(192_000 * 60) / (s.tempo.bpm * s.beatUnit.wholeNotes)
            // The last bars that start within 24 h.
            let lastBar = (Rational(86_400 * 192_000) / (perWhole * bar)).floor
            for b in [lastBar - 1, lastBar] {
                for index in [0, 1, program.onsetCount / 2, program.onsetCount - 1] {
                    let onset = program.onsets[index]
                    let grid = Int128(b) * Int128(program.barGrid) + Int128(onset.offset)
                    let actual = program.sample(fromStart: grid)
                    // Exact in 128 bits: position (grid / gridPerWhole) x samples per whole, halves up.
                    let num = grid * Int128(perWhole.numerator)
                    let den = Int128(program.gridPerWhole) * Int128(perWhole.denominator)
                    let ideal = Int64((2 * num + den) / (2 * den))
                    #expect(actual == ideal, "\(bpm) bar \(b) onset \(index)")
                    #expect(actual <= 86_400 * 192_000 + Int64(perWhole.ceiling) * 2)
                }
            }
        }
    }

    // MARK: live changes

    @Test func stormOfRhythmChangesKeepsBeatsInOrderAndEveryClipWhole() {
        var random = SplitMix64(state: 14)
        let clipFrames = 1500
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", accents: "Xxxx"), clipFrames: clipFrames)
        engine.start()
        var recording = Recording()
        let swings = ["none", "straight", "septuplet", "quintuplet", "triplet", "dotted", "66%", "58%@4", "2:1@8", "3:1@6"]
        let grooves = ["none", "3,2,2,3", "3,2,2,3*150%", "2,1@8*9999/10000", "5,3,4@6*50%", "3,2*120%"]
        let polys = ["none", "3", "5,7", "E(3,8)", "3/2b,E(5,16,3)", "2,3,4,5"]
        let accents = ["Xxxx", "E(3,8)", "E(5,8,1).", "3+1", "2+2", "Xo.x"]
        for _ in 0..<400 {
            var next = engine.settings
            let pairs: [(name: String, value: String)] = switch Int.random(in: 0..<5, using: &random) {
            case 0: [("swing", swings.randomElement(using: &random)!)]
            case 1: [("groove", grooves.randomElement(using: &random)!)]
            case 2: [("poly", polys.randomElement(using: &random)!)]
            case 3: [("accents", accents.randomElement(using: &random)!)]
            default: [("bpm", "\(Int.random(in: 60...300, using: &random))")]
            }
            do { try next.assign(all: pairs) } catch { continue } // a swing/groove layer clash
            try! engine.apply(next)
            engine.record(Int.random(in: 1...3000, using: &random), block: Int.random(in: 1...512, using: &random), into: &recording)
        }
        let beats = recording.events.filter { $0.kind.isBeat }
        #expect(beats.count > 25)
        for (a, b) in zip(beats, beats.dropFirst()) {
            // In order, never twice (muted beats leave gaps).
            #expect((a.bar, a.beat) < (b.bar, b.beat), "beat \(a.bar):\(a.beat) followed by \(b.bar):\(b.beat)")
        }
        let samples = recording.events.map(\.sample)
        #expect(samples == samples.sorted())
        let expected = expectedMix(events: recording.events, frames: recording.samples.count, clipFrames: clipFrames, level: 0.001)
        #expect(maxDifference(recording.samples, expected) < 1e-6, "a clip was cut or started late")
    }

    @Test func swingAndGrooveAmountStormPlaysEveryNoteExactlyOnce() {
        // The layers stay; only the amounts move (as the wheel does): every swung 8th and
        // every grooved 16th of every beat is heard exactly once, whatever the change moved
        // across the cut.
        var random = SplitMix64(state: 99)
        let clipFrames = 500
        let engine = ClickEngine.testEngine(settings: rhythm(settings(bpm: "150", accents: "Xxxx"), [("swing", "straight"), ("groove", "3,2,2,3")]),
                                            clipFrames: clipFrames)
        engine.start()
        var recording = Recording()
        for _ in 0..<600 {
            let swing = ["straight", "septuplet", "quintuplet", "triplet", "dotted", "66%", "54%", "70%", "1/3"].randomElement(using: &random)!
            let amount = Int.random(in: 0...150, using: &random)
            try! engine.apply(rhythm(engine.settings, [("swing", swing), ("groove", "3,2,2,3*\(amount)%")]))
            engine.record(Int.random(in: 1...2500, using: &random), block: Int.random(in: 1...256, using: &random), into: &recording)
        }
        struct Note: Hashable { let bar: Int64, beat: Int32, kind: UInt8, layer: UInt8, index: Int32 }
        var seen: [Note: Int64] = [:]
        for event in recording.events {
            let note = Note(bar: event.bar, beat: event.beat, kind: event.kind.isBeat ? 0 : event.kind.rawValue,
                            layer: event.layer, index: event.index)
            if let first = seen[note] { Issue.record("\(note) at \(first) and again at \(event.sample)") }
            seen[note] = event.sample
        }
        // Every beat that was fully rendered has its layer-2 off-beat and its three 16ths.
        let lastBeat = recording.events.filter { $0.kind.isBeat }.dropLast().last!
        var missing = 0
        for bar in 0...lastBeat.bar {
            for beat in Int32(0)..<4 where (bar, beat) < (lastBeat.bar, lastBeat.beat) {
                for (layer, index) in [(2, 1), (4, 1), (4, 3)] {
                    if seen[Note(bar: bar, beat: beat, kind: OnsetKind.subdivision.rawValue, layer: UInt8(layer), index: Int32(index))] == nil {
                        missing += 1
                    }
                }
            }
        }
        #expect(missing == 0)
        #expect(lastBeat.bar >= 8)
        let expected = expectedMix(events: recording.events, frames: recording.samples.count, clipFrames: clipFrames, level: 0.001)
        #expect(maxDifference(recording.samples, expected) < 1e-6, "a clip was cut or started late")
    }

    @Test func swingChangeAtABlockBoundaryMovesOnlyNotesStillToCome() {
        // Straight 8ths at 120; at 12800 (after the 8th at 12000) swing to the triplet: the
        // 8th already played is not played again at 16000; the next pair is swung.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", accents: "Xxxx", subdivisions: "2"))
        engine.start()
        var r = Recording()
        engine.record(12800, block: 128, into: &r)
        try! engine.apply(rhythm(engine.settings, [("swing", "triplet")]))
        engine.record(48000 - 12800, block: 128, into: &r)
        #expect(r.events.map(\.sample) == [0, 12000, 24000, 40000])
        // Before the 8th: at 11904 (a block boundary) the change moves it to 16000, once.
        let engine2 = ClickEngine.testEngine(settings: settings(bpm: "120", accents: "Xxxx", subdivisions: "2"))
        engine2.start()
        var r2 = Recording()
        engine2.record(11904, block: 128, into: &r2)
        try! engine2.apply(rhythm(engine2.settings, [("swing", "triplet")]))
        engine2.record(48000 - 11904, block: 128, into: &r2)
        #expect(r2.events.map(\.sample) == [0, 16000, 24000, 40000])
    }
}
