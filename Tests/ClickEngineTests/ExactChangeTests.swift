// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
@testable import ClickEngine
import Testing
import TactusArithmetic
import TactusMusic
import TactusBase

/// Renders with changes at exact samples (as `tactus render --changes` does) and returns
/// only the onsets; no audio is kept, so hours at 192 kHz stay cheap.
private func onsets(_ engine: ClickEngine, frames: Int64, changes: [(sample: Int64, settings: MetronomeSettings)],
                    block: Int = 4096) -> [OnsetEvent] {
    var events: [OnsetEvent] = []
    var buffer = [Float](repeating: 0, count: block * engine.renderer.channels)
    var next = 0
    let ordered = changes.sorted { $0.sample < $1.sample }
    engine.start()
    buffer.withUnsafeMutableBufferPointer { pointer in
        engine.renderer.render(into: pointer.baseAddress!, frameCount: 0)
        while engine.renderer.sampleClock < frames {
            let now = engine.renderer.sampleClock
            while next < ordered.count && ordered[next].sample <= now {
                try! engine.apply(ordered[next].settings)
                next += 1
            }
            var limit = min(frames, now + Int64(block))
            if next < ordered.count { limit = min(limit, ordered[next].sample) }
            engine.renderer.render(into: pointer.baseAddress!, frameCount: Int(limit - now))
            while let event = engine.nextEvent() { events.append(event) }
        }
    }
    return events
}

private func place(_ events: [OnsetEvent]) -> [String] {
    events.map { "\($0.sample) \($0.bar):\($0.beat) \($0.kind) \($0.layer)" }
}

@Suite struct ExactChangeTests {
    // MARK: tempo-neutral changes move nothing

    @Test func oneVolumeChangeAtOneBPMAnd192kHzMovesNoBeat() {
        let rate = 192_000
        let base = settings(bpm: "1", accents: "Xxxx")
        var louder = base
        try! louder.volumes.apply(parsing: "beat=75")
        let reference = onsets(.testEngine(sampleRate: rate, settings: base), frames: 2 * 11_520_000 + 1, changes: [])
        #expect(reference.map(\.sample) == [0, 11_520_000, 23_040_000])
        // The change at many different moments of the first beat: never a sample moved.
        var random = SplitMix64(state: 12)
        for _ in 0..<4 {
            let at = Int64.random(in: 1..<11_520_000, using: &random)
            let changed = onsets(.testEngine(sampleRate: rate, settings: base), frames: 2 * 11_520_000 + 1, changes: [(at, louder)])
            #expect(place(changed) == place(reference), "volume change at sample \(at)")
        }
    }

    @Test func twoHundredVolumeChangesAtSevenBPMMoveNoBeat() {
        let rate = 192_000
        let base = settings(bpm: "7", meter: "3/4", accents: "Xxx")
        var random = SplitMix64(state: 7)
        let frames = Int64(rate) * 60 * 4 / 7 * 3 // three bars... about 1.6 million samples per beat
        var changes: [(Int64, MetronomeSettings)] = []
        for _ in 0..<200 {
            var next = base
            try! next.volumes.set("beat", to: Int.random(in: 0...100, using: &random))
            try! next.volumes.set("master", to: Int.random(in: 1...100, using: &random))
            changes.append((Int64.random(in: 1..<frames, using: &random), next))
        }
        let reference = onsets(.testEngine(sampleRate: rate, settings: base), frames: frames, changes: [])
        let changed = onsets(.testEngine(sampleRate: rate, settings: base), frames: frames, changes: changes)
        #expect(reference.count == 12)
        #expect(place(changed) == place(reference))
        #expect(reference.map(\.sample) == (0..<12).map { idealSample(beats: Rational($0), bpm: Rational(7), sampleRate: rate) })
    }

    @Test func fortySubdivisionTogglesAtFortyBPMMoveNoBeat() {
        let rate = 48000
        let base = settings(bpm: "40", accents: "Xxxx")
        var withLayers = base
        withLayers.subdivisions = try! Subdivisions([3, 7])
        var random = SplitMix64(state: 40)
        let frames = Int64(rate) * 60 * 8 / 40 // 8 beats
        var times = (0..<40).map { _ in Int64.random(in: 1..<frames, using: &random) }.sorted()
        times = Array(Set(times)).sorted()
        let changes = times.enumerated().map { ($0.element, $0.offset % 2 == 0 ? withLayers : base) }
        let reference = onsets(.testEngine(sampleRate: rate, settings: base), frames: frames, changes: [])
        let changed = onsets(.testEngine(sampleRate: rate, settings: base), frames: frames, changes: changes)
        let beats = changed.filter { $0.kind != .subdivision }
        #expect(place(beats) == place(reference))
        // Every subdivision that did play is exactly where a steady render with the layers puts it.
        let layered = Set(onsets(.testEngine(sampleRate: rate, settings: withLayers), frames: frames, changes: []).map(\.sample))
        #expect(changed.filter { $0.kind == .subdivision }.allSatisfy { layered.contains($0.sample) })
        #expect(changed.count > reference.count)
    }

    /// Random storms of volume, sound, accent and subdivision changes at random tempos, meters and
    /// rates leave every onset where the steady render with every layer puts it, and every beat
    /// where the unchanged render puts it.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func tempoNeutralStormsMoveNoOnset(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let rate = [8000, 44100, 48000, 96000, 192_000].randomElement(using: &random)!
        let bpm = ["1", "7", "40", "92.5", "137", "333.333", "999"].randomElement(using: &random)!
        let (meter, unit) = [("4/4", "1/4"), ("7/8", "1/8"), ("4/5", "1/4"), ("9/16", "1/4"), ("5/4", "1/4."), ("7/12", "1/12")]
            .randomElement(using: &random)!
        let base = settings(bpm: bpm, meter: meter, beatUnit: unit, accents: "Xxxxxxxxx")
        var all = base
        all.subdivisions = try! Subdivisions(Array(2...9))
        let beatSamples = Rational(Int64(rate) * 60) / base.tempo.bpm
        let frames = min(Int64(rate) * 600, (beatSamples * Rational(24)).floor)
        var changes: [(Int64, MetronomeSettings)] = []
        for _ in 0..<150 {
            var next = base
            try! next.volumes.set("master", to: Int.random(in: 0...100, using: &random))
            try! next.volumes.set("accent", to: Int.random(in: 0...100, using: &random))
            next.accents = .accentEvery(Int.random(in: 0...3, using: &random), beats: base.beatCount)
            let layers = (2...9).filter { _ in Bool.random(using: &random) }
            next.subdivisions = try! Subdivisions(Array(layers.prefix(3)))
            next.sound = Bool.random(using: &random) ? "test" : "test2"
            changes.append((Int64.random(in: 1..<frames, using: &random), next))
        }
        func engine() -> ClickEngine {
            let engine = ClickEngine.testEngine(sampleRate: rate, settings: base)
            engine.register(SoundSet.constant(frames: 50, level: 0.002, sampleRate: rate, name: "test2"))
            return engine
        }
        let reference = onsets(engine(), frames: frames, changes: [])
        let grid = onsets(engine(), frames: frames, changes: [(0, all)])
        let changed = onsets(engine(), frames: frames, changes: changes)
        let onGrid = Set(grid.map { "\($0.sample) \($0.bar):\($0.beat)" })
        for event in changed {
            #expect(onGrid.contains("\(event.sample) \(event.bar):\(event.beat)"), "\(event) is off the grid (\(bpm) BPM, \(rate) Hz, \(meter))")
        }
        let beatAt = Dictionary(reference.map { ("\($0.bar):\($0.beat)", $0.sample) }, uniquingKeysWith: { a, _ in a })
        for event in changed where event.kind != .subdivision {
            #expect(beatAt["\(event.bar):\(event.beat)"] == event.sample)
        }
    }

    // MARK: a tempo change keeps the exact position

    @Test func tempoChangeKeepsTheExactBarPhase() {
        // 137 BPM at 44.1 kHz, then 91.3 BPM from sample 50_001: each later beat at
        // round(change + (k - x) * 60 * rate / 91.3) where x is the exact position (beats) at the
        // change (exactly at sample 50_001).
        let rate = 44100
        let base = settings(bpm: "137", accents: "Xxxx")
        var slower = base
        slower.tempo = try! Tempo(parsing: "91.3")
        let change: Int64 = 50_001
        let events = onsets(.testEngine(sampleRate: rate, settings: base), frames: 400_000, changes: [(change, slower)], block: 333)
        let cut = Rational(change)
        let x = cut * Rational(137) / Rational(Int64(rate) * 60)
        let after = events.filter { $0.sample >= change }
        #expect(after.count > 6)
        for (index, event) in after.enumerated() {
            let k = Rational(Int64(x.ceiling) + Int64(index))
            let exact = cut + (k - x) * Rational(Int64(rate) * 60) / slower.tempo.bpm
            #expect(event.sample == exact.rounded, "beat \(k)")
        }
    }

    @Test func tempoThereAndBackLandsOnTheSameGridAsExactArithmetic() {
        // 1 BPM at 192 kHz: a grid unit is many samples, so any rounding of the kept position shows.
        let rate = 192_000
        let base = settings(bpm: "1", accents: "Xxxx")
        var fast = base
        fast.tempo = Tempo(clampingWholeBPM: 7)
        let first: Int64 = 3_333_333, second: Int64 = 5_555_555
        let events = onsets(.testEngine(sampleRate: rate, settings: base), frames: 30_000_000,
                            changes: [(first, fast), (second, base)])
        let spb1 = Rational(Int64(rate) * 60), spb7 = Rational(Int64(rate) * 60, 7)
        let x1 = Rational(first) / spb1
        let x2 = x1 + Rational(second - first) / spb7
        var expected: [Int64] = [0]
        var k = Int64(1)
        while true {
            let beat = Rational(k)
            let t: Rational = beat < x1 ? beat * spb1
                : beat < x2 ? Rational(first) + (beat - x1) * spb7
                : Rational(second) + (beat - x2) * spb1
            guard t.rounded < 30_000_000 else { break }
            expected.append(t.rounded)
            k += 1
        }
        #expect(events.map(\.sample) == expected)
    }

    // MARK: a shrinking meter finishes the beat, then starts a bar

    @Test func meterShrinkingToFourFifthsFinishesTheBeat() {
        // The reproducer: 120 BPM 4/4, `1.65 set meter=4/5`: beat 3 of bar 0 played once.
        let base = settings(bpm: "120", accents: "X")
        var shorter = base
        shorter.meter = try! Meter(parsing: "4/5")
        let events = onsets(.testEngine(settings: base), frames: 249_600, changes: [(79_200, shorter)], block: 128)
        #expect(place(events) == [
            "0 0:0 accent 0", "24000 0:1 beat 0", "48000 0:2 beat 0", "72000 0:3 beat 0",
            "96000 1:0 accent 0", "120000 1:1 beat 0", "144000 1:2 beat 0", "168000 1:3 beat 0",
            "172800 2:0 accent 0", "196800 2:1 beat 0", "220800 2:2 beat 0", "244800 2:3 beat 0",
        ])
    }

    @Test func meterShrinkingToNineSixteenthsKeepsBeatsInOrder() {
        let base = settings(bpm: "120", accents: "X")
        var shorter = base
        shorter.meter = try! Meter(parsing: "9/16")
        let events = onsets(.testEngine(settings: base), frames: 204_000, changes: [(79_200, shorter)], block: 128)
        #expect(place(events) == [
            "0 0:0 accent 0", "24000 0:1 beat 0", "48000 0:2 beat 0", "72000 0:3 beat 0",
            "96000 1:0 accent 0", "120000 1:1 beat 0", "144000 1:2 beat 0",
            "150000 2:0 accent 0", "174000 2:1 beat 0", "198000 2:2 beat 0",
        ])
    }

    /// Every meter, every change moment: beats of a bar come in order and never twice, and a
    /// shrinking bar starts exactly where the old beat ends.
    @Test func everyShrinkFinishesTheCurrentBeatThenStartsABar() {
        var random = SplitMix64(state: 99)
        let meters = ["1/1", "4/4", "3/4", "7/8", "4/5", "9/16", "1/16", "13/16", "7/12", "5/4", "2/2"]
        for _ in 0..<120 {
            let from = meters.randomElement(using: &random)!, to = meters.randomElement(using: &random)!
            let unit = ["1/4", "1/8", "1/4.", "1/5"].randomElement(using: &random)!
            let base = settings(bpm: "120", meter: from, beatUnit: unit, accents: "X")
            var next = base
            next.meter = try! Meter(parsing: to)
            let at = Int64.random(in: 1..<200_000, using: &random)
            let events = onsets(.testEngine(settings: base), frames: 400_000, changes: [(at, next)], block: 97)
            for (a, b) in zip(events, events.dropFirst()) {
                let inOrder = (a.bar == b.bar && b.beat == a.beat + 1) || (b.bar == a.bar + 1 && b.beat == 0)
                #expect(inOrder, "\(from) -> \(to) (\(unit)) at \(at): \(a.bar):\(a.beat) then \(b.bar):\(b.beat)")
                #expect(b.sample > a.sample)
            }
            // Where the bar was cut short, the next downbeat is at the end of the beat playing at the change.
            let beat = Rational(48000 * 60) / base.tempo.bpm // samples per beat
            let barBeats = base.beatsPerBar
            let x = Rational(2 * at - 1, 2) / beat // beats since the start
            let bar = (x / barBeats).floor
            let inBar = x - Rational(bar) * barBeats
            if !(inBar < next.beatsPerBar) {
                let end = min(Rational(inBar.ceiling), barBeats)
                let downbeat = (Rational(bar) * barBeats + end) * beat
                let first = events.first { $0.bar == bar + 1 }
                #expect(first?.sample == downbeat.rounded && first?.beat == 0, "\(from) -> \(to) (\(unit)) at \(at)")
            }
        }
    }

    @Test func aShrinkingMeterFinishesTheBeatWithItsSubdivisions() {
        // 120 BPM 4/4, layers 2 and 3, `1.65 set meter=3/4`: beat 3 of bar 0 (72000) keeps its
        // subdivisions after the change (80000, 84000, 88000), then bar 1 starts at 96000.
        let base = settings(bpm: "120", accents: "X", subdivisions: "2,3")
        var shorter = base
        shorter.meter = try! Meter(parsing: "3/4")
        let events = onsets(.testEngine(settings: base), frames: 120_001, changes: [(79_200, shorter)], block: 128)
        #expect(place(events).drop { !$0.hasPrefix("72000 ") }.map { $0 } == [
            "72000 0:3 beat 0", "80000 0:3 subdivision 3", "84000 0:3 subdivision 2", "88000 0:3 subdivision 3",
            "96000 1:0 accent 0", "104000 1:0 subdivision 3", "108000 1:0 subdivision 2", "112000 1:0 subdivision 3",
            "120000 1:1 beat 0",
        ])
        // Subdivisions switched on with the shrink play in the rest of the beat as well.
        var withLayer = shorter
        withLayer.subdivisions = try! Subdivisions(parsing: "4")
        let plain = settings(bpm: "120", accents: "X")
        let switched = onsets(.testEngine(settings: plain), frames: 96_001, changes: [(79_200, withLayer)], block: 128)
        #expect(place(switched).suffix(4) == ["72000 0:3 beat 0", "84000 0:3 subdivision 4", "90000 0:3 subdivision 4", "96000 1:0 accent 0"])
    }

    @Test func aChangeWhileTheBeatFinishesKeepsItsSubdivisions() {
        // 4/4 -> 3/4 at 74000 (downbeat due at 96000), then a volume change at 82000: the
        // subdivisions at 84000 and 90000 are each played once, at their places.
        let base = settings(bpm: "120", accents: "X", subdivisions: "4")
        var shorter = base
        shorter.meter = try! Meter(parsing: "3/4")
        var quieter = shorter
        try! quieter.volumes.set("master", to: 50)
        let events = onsets(.testEngine(settings: base), frames: 96_001, changes: [(74_000, shorter), (82_000, quieter)], block: 100)
        #expect(place(events).suffix(5) == [
            "72000 0:3 beat 0", "78000 0:3 subdivision 4", "84000 0:3 subdivision 4", "90000 0:3 subdivision 4", "96000 1:0 accent 0",
        ])
    }

    /// Same beat unit, same layers: until the new downbeat, a shrink leaves every onset where
    /// the unchanged render puts it (the finishing beat keeps all its subdivisions).
    @Test func everyShrinkKeepsTheFinishingBeatsSubdivisionsInPlace() {
        var random = SplitMix64(state: 31)
        let meters = ["4/4", "3/4", "5/4", "2/4", "7/8", "9/16", "4/5", "13/16"]
        var shrinks = 0
        for _ in 0..<60 {
            let from = meters.randomElement(using: &random)!, to = meters.randomElement(using: &random)!
            let unit = ["1/4", "1/8", "1/5"].randomElement(using: &random)!
            let layers = ["2", "3", "2,3", "4", "2,5,7"].randomElement(using: &random)!
            let base = settings(bpm: "120", meter: from, beatUnit: unit, accents: "X", subdivisions: layers)
            var next = base
            next.meter = try! Meter(parsing: to)
            let at = Int64.random(in: 1..<200_000, using: &random)
            let reference = onsets(.testEngine(settings: base), frames: 400_000, changes: [], block: 97)
            let events = onsets(.testEngine(settings: base), frames: 400_000, changes: [(at, next)], block: 97)
            let beats = events.filter { $0.layer == 0 }
            guard let downbeat = zip(beats, beats.dropFirst()).first(where: { $0.1.sample >= at && $0.1.beat == 0 && $0.1.bar == $0.0.bar + 1 })?.1,
                  base.beatsPerBar > next.beatsPerBar else { continue }
            let cutShort = reference.first { $0.bar == downbeat.bar && $0.beat == 0 && $0.layer == 0 }.map { $0.sample != downbeat.sample } ?? true
            guard cutShort else { continue }
            shrinks += 1
            let before = { (e: OnsetEvent) in e.sample < downbeat.sample }
            #expect(place(events.filter(before)) == place(reference.filter(before)), "\(from) -> \(to) (\(unit), \(layers)) at \(at)")
        }
        #expect(shrinks >= 10)
    }

    @Test func aChangeBeforeTheDelayedDownbeatKeepsIt() {
        // 4/4 -> 3/4 at 3.5 beats (downbeat due at 96000), then a volume change at 90000.
        let base = settings(bpm: "120", accents: "X")
        var shorter = base
        shorter.meter = try! Meter(parsing: "3/4")
        var quieter = shorter
        try! quieter.volumes.set("master", to: 50)
        let events = onsets(.testEngine(settings: base), frames: 170_000, changes: [(84_000, shorter), (90_000, quieter)])
        #expect(place(events) == [
            "0 0:0 accent 0", "24000 0:1 beat 0", "48000 0:2 beat 0", "72000 0:3 beat 0",
            "96000 1:0 accent 0", "120000 1:1 beat 0", "144000 1:2 beat 0", "168000 2:0 accent 0",
        ])
    }
}

