@testable import ClickEngine
import Testing
import TactusCore

@Suite struct MixerTests {
    @Test func volumesApplyExactlyAsSet() {
        var s = settings(bpm: "60", meter: "2/4", accents: "Xx", subdivisions: "2,3")
        var volumes = Volumes()
        try! volumes.apply(parsing: "master=50,accent=80,beat=40,sub2=20,sub3=70")
        s.volumes = volumes
        let engine = ClickEngine.testEngine(settings: s, clipFrames: 10, level: 0.1)
        engine.start()
        var recording = Recording()
        engine.record(96000, into: &recording)
        func at(_ sample: Int) -> Float { recording.samples[sample] }
        #expect(abs(at(0) - 0.3 * 0.5 * 0.8) < 1e-7)      // accent
        #expect(abs(at(48000) - 0.2 * 0.5 * 0.4) < 1e-7)  // beat
        #expect(abs(at(24000) - 0.1 * 0.5 * 0.2) < 1e-7)  // layer 2
        #expect(abs(at(16000) - 0.1 * 0.5 * 0.7) < 1e-7)  // layer 3
    }

    @Test func belowFullScaleTheOutputIsTheExactSum() {
        // Eight overlapping layers of a 0.1 clip: sums up to 0.9, never limited.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "200", subdivisions: "2,3,4,5,6,7,8,9"),
                                            clipFrames: 14000, level: 0.02)
        engine.start()
        var recording = Recording()
        engine.record(48000 * 3, into: &recording)
        let expected = expectedMix(events: recording.events, frames: recording.samples.count, clipFrames: 14000, level: 0.02)
        #expect(expected.max()! > 0.5)
        #expect(maxDifference(recording.samples, expected) < 1e-6)
    }

    @Test func overFullScaleTheLimiterHoldsFullScaleWithoutSteps() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "300", subdivisions: "2,3,4,5,6,7,8,9"),
                                            clipFrames: 6000, level: 0.3)
        engine.start()
        var recording = Recording()
        engine.record(48000 * 2, into: &recording)
        let raw = expectedMix(events: recording.events, frames: recording.samples.count, clipFrames: 6000, level: 0.3)
        #expect(raw.max()! > 3) // without a limiter this would wrap or clip hard
        #expect(recording.samples.allSatisfy { abs($0) <= 1 })
        // A step in the output larger than the raw signal's own step plus a short attack ramp is a pop.
        var worst: Float = 0
        for i in 1..<recording.samples.count {
            let step = abs(recording.samples[i] - recording.samples[i - 1]) - abs(raw[i] - raw[i - 1])
            worst = max(worst, step)
        }
        #expect(worst < 0.1)
    }

    @Test func limiterReturnsToUnityGainAfterAnOver() {
        var limiter = Limiter(sampleRate: 48000, maxFrames: 48000)
        defer { limiter.deallocate() }
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 48000)
        defer { block.deallocate() }
        block.initialize(repeating: 0.5, count: 48000)
        block[100] = 2
        limiter.process(block, frameCount: 48000)
        #expect(block[100] == 1)
        #expect(block[0] == 0.5)  // untouched well before the attack ramp
        #expect(block[47999] == 0.5) // back to exactly unity gain
        #expect(limiter.gain == 1)
    }
}
