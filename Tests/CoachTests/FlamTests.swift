// SPDX-License-Identifier: GPL-3.0-or-later
@testable import Coach
import Testing

/// A flam (a grace note 15-25 ms before the main stroke, 12 dB down) is one hit, timed at its
/// main stroke and marked; a plain stroke is not a flam, and neither is a stroke's own ring.
@Suite struct FlamTests {
    @Test(arguments: [15.0, 20.0, 25.0] as [Double]) func aFlamIsOneHitAtItsMainStroke(graceBeforeMilliseconds: Double) {
        let rate = 48000
        var random = CoachRandom(seed: 7)
        var take = [Float](repeating: 0, count: rate * 9)
        var mains: [Int] = []
        for i in 0..<16 {
            let main = rate / 2 + i * rate / 2
            let kind: SyntheticTake.Kind = i % 2 == 0 ? .snare : .stick
            if i % 4 != 3 {
                let grace = main - Int(graceBeforeMilliseconds * Double(rate) / 1000)
                SyntheticTake.addHit(kind, at: grace, velocity: 0.8 * decibels(-12), rate: Double(rate), into: &take, random: &random)
            }
            SyntheticTake.addHit(kind, at: main, velocity: 0.8, rate: Double(rate), into: &take, random: &random)
            mains.append(main)
        }
        for i in take.indices { take[i] += Float(1e-4 * random.gaussian()) }
        let hits = TakeAnalysis.hits(input: take, sampleRate: rate)
        #expect(hits.count == mains.count, "\(hits.map(\.sample))")
        for (hit, (i, main)) in zip(hits, mains.enumerated()) {
            #expect(abs(Int(hit.sample) - main) <= 48, "stroke \(i): found at \(hit.sample), main stroke at \(main)")
            #expect(hit.flam == (i % 4 != 3), "stroke \(i)")
        }
    }
}
