// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Foundation
import Testing
import TestSupport
import TactusMusic
import TactusBase

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
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 48000 + limiter.lookahead)
        defer { block.deallocate() }
        block.initialize(repeating: 0.5, count: 48000 + limiter.lookahead)
        block[200] = 2
        limiter.process(block, frameCount: 48000)
        #expect(block[200] <= Limiter.ceiling && block[200] > Limiter.ceiling * 0.9999)
        #expect(block[200 - limiter.lookahead - 1] == 0.5)  // untouched before the look-ahead ramp
        #expect(block[200 - 40] < 0.5)   // the ramp starts ahead of the peak (needs 0.47: about 51 frames)
        #expect(block[47999] == 0.5) // back to exactly unity gain
        #expect(limiter.gain == 1)
    }

    /// Gain is never changed by more than 1 / lookahead from one frame to the next, the
    /// output never passes the ceiling, and the result is the same for any block split.
    @Test func limiterGainIsSmoothAndIndependentOfBlocks() {
        var random = SplitMix64(state: 5)
        let frames = 48000
        var signal = (0..<frames).map { _ in Float.random(in: -0.6...0.6, using: &random) }
        for _ in 0..<40 { signal[Int.random(in: 0..<frames, using: &random)] = Float.random(in: -4...4, using: &random) }
        signal += [Float](repeating: 0, count: 200)
        func run(block: Int) -> [Float] {
            var limiter = Limiter(sampleRate: 48000, maxFrames: 4096)
            defer { limiter.deallocate() }
            var out = signal
            out.withUnsafeMutableBufferPointer { pointer in
                var start = 0
                while start < frames {
                    let n = min(block, frames - start)
                    limiter.process(pointer.baseAddress! + start, frameCount: n)
                    start += n
                }
            }
            return Array(out.prefix(frames))
        }
        let whole = run(block: 4096)
        #expect(run(block: 1) == whole)
        #expect(run(block: 97) == whole)
        #expect(whole.allSatisfy { abs($0) <= Limiter.ceiling })
        let lookahead = Float(48000 / 500)
        var previous: (index: Int, gain: Float) = (-1, 1)
        var worst: Float = 0
        for i in 0..<frames where abs(signal[i]) > 0.01 {
            let gain = whole[i] / signal[i]
            worst = max(worst, abs(gain - previous.gain) / Float(i - previous.index))
            previous = (i, gain)
        }
        #expect(worst <= 1 / lookahead + 1e-4, "gain step \(worst)")
    }

    /// The reproducer: 999 BPM with layers 2-9 sat at full scale (172 samples at
    /// +-32767 in s16, true peak +0.07 dBTP). Now the peak and the true peak stay below -0.1 dBFS,
    /// and the bytes do not depend on the render block size.
    @Test func denseMixStaysBelowFullScaleAndTruePeak() throws {
        var s = MetronomeSettings()
        try s.assign("bpm", "999")
        try s.assign("subdivisions", "2,3,4,5,6,7,8,9")
        func render(block: Int, frames: Int = 48000) -> [Float] {
            let engine = try! ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096, settings: s)
            engine.start()
            var recording = Recording()
            engine.record(frames, block: block, into: &recording)
            return recording.samples
        }
        let samples = render(block: 128)
        let encoded = WAVEncoder(sampleRate: 48000, channels: 1, format: .s16).encodeFile(samples)
        let values = stride(from: 80, to: encoded.count, by: 2).map { Int16(bitPattern: UInt16(encoded[$0]) | UInt16(encoded[$0 + 1]) << 8) }
        let limit = 32767 * pow(10, -0.1 / 20)
        #expect(values.filter { abs(Double($0)) >= limit }.count == 0)
        #expect(values.map { abs(Int($0)) }.max()! > 20000) // loud: the limiter is at work
        let truePeak = truePeakDBFS(Array(samples.prefix(12000)))
        #expect(truePeak < -0.1, "true peak \(truePeak) dBTP")
        #expect(render(block: 1, frames: 10000) == Array(samples.prefix(10000)))
        #expect(render(block: 4096) == samples)
    }
}

/// True peak in dBFS: the largest magnitude of the signal oversampled 4x (a 4-phase
/// windowed-sinc interpolator, 96 taps per phase; ITU-R BS.1770 recommends at least 4x).
func truePeakDBFS(_ x: [Float]) -> Double {
    let taps = 96, half = taps / 2
    var peak = x.map { abs(Double($0)) }.max() ?? 0
    var kernels: [[Double]] = []
    for phase in 1..<4 {
        let fraction = Double(phase) / 4
        kernels.append((0..<taps).map { k in
            let t = Double(k - half + 1) - fraction
            let sinc = t == 0 ? 1 : sin(Double.pi * t) / (Double.pi * t)
            let window = 0.5 + 0.5 * cos(Double.pi * t / Double(half + 1))
            return sinc * window
        })
    }
    for i in half..<(x.count - half) {
        for kernel in kernels {
            var sum = 0.0
            for k in 0..<taps { sum += Double(x[i - half + 1 + k]) * kernel[k] }
            peak = max(peak, abs(sum))
        }
    }
    return 20 * log10(peak)
}
