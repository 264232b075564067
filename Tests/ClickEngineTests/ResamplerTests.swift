// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
@testable import ClickEngine

/// Measurements on test signals.
enum SignalMeasure {
    static func sine(frequency: Double, rate: Int, count: Int, amplitude: Double = 0.5, phase: Double = 0) -> [Float] {
        (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate) + phase)) }
    }

    /// Frequency from rising zero crossings (linearly interpolated) inside `range`.
    static func zeroCrossingFrequency(_ x: [Float], rate: Int, range: Range<Int>) -> Double {
        var crossings: [Double] = []
        for i in range.dropFirst() where x[i - 1] < 0 && x[i] >= 0 {
            crossings.append(Double(i - 1) + Double(-x[i - 1] / (x[i] - x[i - 1])))
        }
        guard crossings.count >= 2 else { return 0 }
        return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(rate))
    }

    static func rms(_ x: ArraySlice<Float>) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
    }

    static func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }
}

@Suite("Resampler")
struct ResamplerTests {
    /// Samples this far from either end see the whole kernel: only they are measured.
    static func interior(count: Int, from: Int, to: Int) -> Range<Int> {
        // The kernel reaches halfWidth periods of the lower rate to each side.
        let margin = Resampler.halfWidth * to / min(from, to) + 2
        return margin..<(count - margin)
    }

    @Test("equal rates: identity")
    func identity() {
        let x = SignalMeasure.sine(frequency: 1000, rate: 48000, count: 500)
        #expect(Resampler.resample(x, from: 48000, to: 48000) == x)
        #expect(Resampler.resample([], from: 44100, to: 48000) == [])
    }

    /// The length rule: one output per exact position k * from / to that lies inside the
    /// input, i.e. ceil(n * to / from).
    @Test("length is ceil(n * to / from)", arguments: [
        (1, 44100, 48000), (44100, 44100, 48000), (1000, 48000, 8000), (1001, 48000, 8000),
        (7, 8000, 192000), (12345, 22050, 44100), (997, 44101, 48000), (88200, 44100, 48000), (3, 192000, 8000),
    ])
    func lengthRule(n: Int, from: Int, to: Int) {
        let count = Resampler.outputCount(inputCount: n, from: from, to: to)
        // Every output position is inside the input, and the next one would not be.
        #expect((count - 1) * from < n * to)
        #expect(count * from >= n * to)
        #expect(count == Int((Double(n) * Double(to) / Double(from)).rounded(.up)))
        if n <= 12345 {
            #expect(Resampler.resample([Float](repeating: 0.1, count: n), from: from, to: to).count == count)
        }
    }

    /// Output k must equal the ideal band-limited signal at time k / to exactly (to within
    /// the filter's ripple): any accumulated position drift, image or gain error shows up.
    @Test("a 1 kHz sine keeps frequency, amplitude and exact timing",
          arguments: [(44100, 48000), (48000, 8000), (8000, 48000), (48000, 44100), (44100, 8000), (22050, 192000)])
    func sineKeepsShape(from: Int, to: Int) {
        let seconds = 0.5
        let x = SignalMeasure.sine(frequency: 1000, rate: from, count: Int(seconds * Double(from)), phase: 0.3)
        let y = Resampler.resample(x, from: from, to: to)
        let inner = Self.interior(count: y.count, from: from, to: to)
        #expect(inner.count > to / 10)

        let frequency = SignalMeasure.zeroCrossingFrequency(y, rate: to, range: inner)
        #expect(abs(frequency - 1000) < 0.01, "measured \(frequency) Hz")

        let ideal = SignalMeasure.sine(frequency: 1000, rate: to, count: y.count, phase: 0.3)
        let gain = SignalMeasure.rms(y[inner]) / SignalMeasure.rms(ideal[inner])
        #expect(abs(SignalMeasure.decibels(gain)) < 0.1, "gain \(SignalMeasure.decibels(gain)) dB")
        let worst = inner.map { abs(Double(y[$0]) - Double(ideal[$0])) }.max()!
        #expect(SignalMeasure.decibels(worst / 0.5) < -80, "worst deviation \(SignalMeasure.decibels(worst / 0.5)) dB")
    }

    @Test("the passband is flat to 0.45 of the lower rate")
    func passbandEdge() {
        let x = SignalMeasure.sine(frequency: 3500, rate: 48000, count: 24000)
        let y = Resampler.resample(x, from: 48000, to: 8000)
        let inner = Self.interior(count: y.count, from: 48000, to: 8000)
        let gain = SignalMeasure.rms(y[inner]) / (0.5 / 2.0.squareRoot())
        #expect(abs(SignalMeasure.decibels(gain)) < 0.1, "gain at 3.5 kHz: \(SignalMeasure.decibels(gain)) dB")
    }

    /// Tones above the target's Nyquist frequency must vanish, not fold back.
    @Test("tones above the target Nyquist are removed (no aliasing)",
          arguments: [(20000.0, 44100), (20000.0, 48000), (4500.0, 48000), (12000.0, 96000)])
    func noAliasing(frequency: Double, from: Int) {
        let x = SignalMeasure.sine(frequency: frequency, rate: from, count: from / 2)
        let y = Resampler.resample(x, from: from, to: 8000)
        let inner = Self.interior(count: y.count, from: from, to: 8000)
        let attenuation = SignalMeasure.decibels(SignalMeasure.rms(y[inner]) / SignalMeasure.rms(x[...]))
        #expect(attenuation <= -60, "\(frequency) Hz at \(from) -> 8000: \(attenuation) dB")
    }

    @Test("upsampling leaves no images: a 3 kHz tone from 8 kHz has nothing at 5 kHz")
    func noImages() {
        let x = SignalMeasure.sine(frequency: 3000, rate: 8000, count: 4000)
        let y = Resampler.resample(x, from: 8000, to: 48000)
        let inner = Self.interior(count: y.count, from: 8000, to: 48000)
        // Hann-windowed correlation with the image frequency (8000 - 3000 Hz), so the
        // 3 kHz tone's own leakage does not mask what is measured.
        var re = 0.0, im = 0.0, weight = 0.0
        for k in inner {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(k - inner.lowerBound) / Double(inner.count))
            let phase = 2 * Double.pi * 5000 * Double(k) / 48000
            re += w * Double(y[k]) * cos(phase)
            im += w * Double(y[k]) * sin(phase)
            weight += w
        }
        let image = 2 * (re * re + im * im).squareRoot() / weight
        #expect(SignalMeasure.decibels(image / 0.5) < -80, "image at \(SignalMeasure.decibels(image / 0.5)) dB")
    }

    @Test("a full-length clip keeps exact timing to its last sample (no drift)")
    func noDrift() {
        // 2 s at 44.1 kHz: position error would grow along the clip if steps accumulated.
        let x = SignalMeasure.sine(frequency: 997, rate: 44100, count: 88200)
        let y = Resampler.resample(x, from: 44100, to: 48000)
        #expect(y.count == 96000)
        let ideal = SignalMeasure.sine(frequency: 997, rate: 48000, count: y.count)
        let tail = (y.count - 2000)..<(y.count - 1000)
        let worst = tail.map { abs(Double(y[$0]) - Double(ideal[$0])) }.max()!
        #expect(worst < 5e-5, "worst deviation near the end: \(worst)")
    }

    @Test("DC passes with unit gain both ways")
    func dcGain() {
        for (from, to) in [(44100, 48000), (48000, 8000), (8000, 192000)] {
            let y = Resampler.resample([Float](repeating: 0.5, count: from / 4), from: from, to: to)
            let inner = Self.interior(count: y.count, from: from, to: to)
            let worst = inner.map { abs(y[$0] - 0.5) }.max()!
            #expect(worst < 5e-5, "\(from) -> \(to): \(worst)")
        }
    }
}
