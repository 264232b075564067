// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
@testable import ClickEngine
import Testing
import TactusMusic
import TactusBase

/// The output a perfect mixer makes from the onsets that started: every clip whole, from
/// its first sample, at its onset. Clip levels are constant, so any cut or late start shows.
func expectedMix(events: [OnsetEvent], frames: Int, clipFrames: Int, level: Float) -> [Float] {
    var out = [Float](repeating: 0, count: frames)
    for event in events {
        let value: Float = switch event.kind {
        case .accent, .soft: 3 * level
        case .beat: 2 * level
        case .subdivision, .poly: level
        }
        for i in Int(event.sample)..<min(frames, Int(event.sample) + clipFrames) { out[i] += value }
    }
    return out
}

@Suite struct PlaybackChangeTests {
    @Test func tempoStormKeepsEveryBeatInOrderAndEveryClipWhole() {
        var random = SplitMix64(state: 42)
        let clipFrames = 3000
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", accents: "Xxxx"), clipFrames: clipFrames)
        engine.start()
        var recording = Recording()
        var beatLengths: [Double] = [24000]
        for _ in 0..<400 {
            var next = engine.settings
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let bpm = Int.random(in: 30...999, using: &random)
                next.tempo = Tempo(clampingWholeBPM: bpm)
                beatLengths.append(48000.0 * 60 / Double(bpm))
            case 1: next.subdivisions = try! Subdivisions([Int.random(in: 2...9, using: &random)])
            case 2: next.accents = .accentEvery(Int.random(in: 0...4, using: &random), beats: 4)
            default: try! next.volumes.set("master", to: 100)
            }
            try! engine.apply(next)
            engine.record(Int.random(in: 1...3000, using: &random), block: Int.random(in: 1...512, using: &random), into: &recording)
        }
        let beats = recording.events.filter { $0.kind != .subdivision }
        #expect(beats.count > 90)
        for (a, b) in zip(beats, beats.dropFirst()) {
            let next = (a.bar, a.beat + 1) == (b.bar, b.beat) || (a.bar + 1, 0) == (b.bar, b.beat)
            #expect(next, "beat \(a.bar):\(a.beat) followed by \(b.bar):\(b.beat)")
            let gap = Double(b.sample - a.sample)
            #expect(gap >= beatLengths.min()! - 1 && gap <= beatLengths.max()! + 1)
        }
        let samples = recording.events.map(\.sample)
        #expect(samples == samples.sorted())
        #expect(Set(samples).count == samples.count, "an onset was doubled")
        let expected = expectedMix(events: recording.events, frames: recording.samples.count, clipFrames: clipFrames, level: 0.001)
        #expect(maxDifference(recording.samples, expected) < 1e-6, "a clip was cut or started late")
    }

    @Test func fullStormWithMetersAndBeatUnitsNeverCutsADoublesOrReorders() {
        var random = SplitMix64(state: 7)
        let clipFrames = 2000
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", accents: "Xxxx"), clipFrames: clipFrames)
        engine.start()
        var recording = Recording()
        let meters = ["4/4", "3/4", "7/8", "5/4", "4/5", "7/12", "1/4", "13/16"]
        let units = ["1/4", "1/8", "1/4.", "1/5", "3/16", "1/2"]
        for step in 0..<500 {
            var next = engine.settings
            next.tempo = Tempo(clampingWholeBPM: Int.random(in: 40...400, using: &random))
            if step % 3 == 0 { next.meter = try! Meter(parsing: meters.randomElement(using: &random)!) }
            if step % 5 == 0 { next.beatUnit = try! BeatUnit(parsing: units.randomElement(using: &random)!) }
            if step % 4 == 0 { next.subdivisions = try! Subdivisions([Int.random(in: 2...9, using: &random), Int.random(in: 2...9, using: &random)]) }
            try! engine.apply(next)
            engine.record(Int.random(in: 1...4000, using: &random), block: Int.random(in: 1...300, using: &random), into: &recording)
        }
        let samples = recording.events.map(\.sample)
        #expect(samples.count > 500)
        #expect(samples == samples.sorted())
        #expect(Set(samples).count == samples.count)
        // Beat numbers change meaning with the beat unit, bars never go back.
        let bars = recording.events.map(\.bar)
        #expect(bars == bars.sorted())
        let expected = expectedMix(events: recording.events, frames: recording.samples.count, clipFrames: clipFrames, level: 0.001)
        #expect(maxDifference(recording.samples, expected) < 1e-6)
    }

    @Test func tempoChangeKeepsTheBarPhase() {
        // Halfway through beat 2 at 120 BPM, switch to 60: beat 3 follows after half a beat at 60 (24000).
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", accents: "Xxxx"))
        engine.start()
        var recording = Recording()
        engine.record(36000, block: 1000, into: &recording)
        var slower = engine.settings
        slower.tempo = Tempo(clampingWholeBPM: 60)
        try! engine.apply(slower)
        engine.record(200_000, block: 1000, into: &recording)
        #expect(recording.events.prefix(5).map(\.sample) == [0, 24000, 60000, 108000, 156000])
        #expect(recording.events.prefix(5).map(\.beat) == [0, 1, 2, 3, 0])
    }

    @Test func changeLandingExactlyOnAnOnsetPlaysItOnce() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", accents: "Xxxx"))
        engine.start()
        var recording = Recording()
        engine.record(24000, block: 1000, into: &recording) // the next block starts on beat 2
        var faster = engine.settings
        faster.tempo = Tempo(clampingWholeBPM: 240)
        try! engine.apply(faster)
        engine.record(48000, block: 1000, into: &recording)
        #expect(recording.events.prefix(4).map(\.sample) == [0, 24000, 36000, 48000])
    }

    @Test func shorterMeterFinishesTheBeatThenStartsABar() {
        // At 3.5 beats into 4/4, switch to 3/4: the downbeat comes half a beat later.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", accents: "Xxxx"))
        engine.start()
        var recording = Recording()
        engine.record(84000, block: 1000, into: &recording)
        var threeFour = engine.settings
        threeFour.meter = try! Meter(parsing: "3/4")
        try! engine.apply(threeFour)
        engine.record(60000, block: 1000, into: &recording)
        #expect(recording.events.map(\.sample) == [0, 24000, 48000, 72000, 96000, 120000])
        #expect(recording.events.map(\.bar) == [0, 0, 0, 0, 1, 1])
    }

    @Test func stopLetsTheClipInFlightFinish() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"), clipFrames: 5000)
        engine.start()
        var recording = Recording()
        engine.record(26000, into: &recording) // 2000 frames into beat 2's clip
        engine.stop()
        engine.record(100_000, into: &recording)
        #expect(recording.events.map(\.sample) == [0, 24000])
        #expect(recording.samples[24000..<29000].allSatisfy { $0 == 0.002 })
        #expect(recording.samples[29000...].allSatisfy { $0 == 0 })
        #expect(engine.renderer.activeVoiceCount == 0)
    }

    @Test func startBeginsAtABarStartEvenAfterAStop() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", accents: "Xxxx"))
        engine.start()
        var recording = Recording()
        engine.record(30000, into: &recording)
        engine.stop()
        engine.record(1234, into: &recording)
        engine.start()
        engine.record(30000, into: &recording)
        #expect(recording.events.map(\.sample) == [0, 24000, 31234, 55234])
        #expect(recording.events.map(\.bar) == [0, 0, 0, 0])
        #expect(recording.events.map(\.kind) == [.accent, .beat, .accent, .beat])
    }

    @Test func fullPoolDropsNewOnsetsAndNeverStealsAVoice() {
        // Four voices, clips two beats long, subdivisions of 4: new onsets must be dropped.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", subdivisions: "4"), clipFrames: 48000, voiceCount: 4)
        engine.start()
        var recording = Recording()
        engine.record(96000, into: &recording)
        #expect(engine.renderer.droppedOnsetCount > 0)
        // Every clip that started played whole: the output is exactly their sum.
        let expected = expectedMix(events: recording.events, frames: recording.samples.count, clipFrames: 48000, level: 0.001)
        #expect(maxDifference(recording.samples, expected) < 1e-6)
        #expect(recording.events.count + engine.renderer.droppedOnsetCount == 16)
    }
}

func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
    zip(a, b).map { abs($0 - $1) }.max() ?? 0
}
