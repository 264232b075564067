// SPDX-License-Identifier: GPL-3.0-or-later
import Coach
import Testing
import TestSupport

/// Menu > Coach > Calibrate's measurement on a simulated loopback: the input is the box's 16
/// clicks delayed by a known number of samples (quieter, with noise): the round trip comes
/// out exact to the sample.
@Suite struct CoachCalibrationTests {
    func clicks(rate: Int, seed: UInt64) -> (output: [Float], starts: [Int]) {
        var random = SplitMix64(state: seed)
        let spacing = rate / 2 // 120 BPM
        let starts = (0..<CoachCalibration.clicks).map { rate / 4 + $0 * spacing }
        var output = [Float](repeating: 0, count: starts.last! + rate)
        for s in starts {
            for i in 0..<(rate / 50) { // a 20 ms click: a decaying noisy tone
                let decay = Float(1 - Double(i) / Double(rate / 50))
                let tone = Float((Double(i) * 2 * 3.141592653589793 * 1500 / Double(rate)).truncatingRemainder(dividingBy: 6.283185307179586))
                output[s + i] = 0.5 * decay * (0.6 * sine(tone) + 0.4 * Float(Double.random(in: 0..<1, using: &random) * 2 - 1))
            }
        }
        return (output, starts)
    }

    func sine(_ x: Float) -> Float { // Taylor around 0 after folding to -pi...pi
        var y = x
        if y > .pi { y -= 2 * .pi }
        let y2 = y * y
        return y * (1 - y2 / 6 * (1 - y2 / 20 * (1 - y2 / 42 * (1 - y2 / 72))))
    }

    @Test(arguments: [0, 1, 731, 2400, 9_001])
    func aLoopbackDelayedByKnownSamplesIsMeasuredExactly(delay: Int) throws {
        let rate = 48000
        let (output, starts) = clicks(rate: rate, seed: 5)
        var random = SplitMix64(state: 77)
        var input = [Float](repeating: 0, count: output.count + delay)
        for i in 0..<input.count {
            let heard = i >= delay ? 0.25 * output[i - delay] : 0
            input[i] = heard + Float(Double.random(in: 0..<1, using: &random) * 2 - 1) * 0.002
        }
        #expect(CoachCalibration.roundTrip(input: input, output: output, clickStarts: starts, sampleRate: rate) == .success(delay))
    }

    @Test func silenceIsNotHeard() {
        let (output, starts) = clicks(rate: 48000, seed: 5)
        var random = SplitMix64(state: 3)
        let input = (0..<output.count).map { _ in Float(Double.random(in: 0..<1, using: &random) * 2 - 1) * 0.002 }
        #expect(CoachCalibration.roundTrip(input: input, output: output, clickStarts: starts, sampleRate: 48000) == .failure(.notHeard))
    }

    /// The live measurement: onsets on the engine's clock, one per click a known lag after
    /// it, plus noise onsets and a hit; the lag comes out to the sample.
    @Test(arguments: [0, 1, 1123, 8976, 23_999])
    func onsetsAKnownLagAfterTheClicksGiveTheLag(lag: Int) {
        let clicks = (0..<16).map { Int64(10_000 + $0 * 28_800) }
        var onsets = clicks.map { Double($0 + Int64(lag)) + 0.3 }
        onsets += [Double(clicks[3]) + 5_000, Double(clicks[9]) - 9_000, Double(clicks[12]) + Double(lag) + 4_000]
        onsets.remove(at: 7) // one click not heard at all
        #expect(CoachCalibration.roundTrip(onsets: onsets.shuffled(), clicks: clicks, sampleRate: 48_000, maximumLag: 24_000) == .success(lag))
    }

    @Test func tooFewAgreeingClicksFail() {
        let clicks = (0..<16).map { Int64(10_000 + $0 * 28_800) }
        let some = clicks.prefix(8).map { Double($0 + 1000) }
        #expect(CoachCalibration.roundTrip(onsets: some, clicks: clicks, sampleRate: 48_000, maximumLag: 24_000) == .failure(.clicksMissing(8)))
        #expect(CoachCalibration.roundTrip(onsets: [Double(clicks[2]) + 500], clicks: clicks, sampleRate: 48_000, maximumLag: 24_000) == .failure(.notHeard))
        #expect(CoachCalibration.roundTrip(onsets: [], clicks: clicks, sampleRate: 48_000, maximumLag: 24_000) == .failure(.notHeard))
        // Onsets scattered at random: no lag gathers 12 clicks.
        var random = SplitMix64(state: 9)
        let noise = (0..<40).map { _ in Double.random(in: 0..<Double(clicks.last! + 30_000), using: &random) }
        let scattered = CoachCalibration.roundTrip(onsets: noise, clicks: clicks, sampleRate: 48_000, maximumLag: 24_000)
        #expect((try? scattered.get()) == nil, "\(scattered)")
    }
}
