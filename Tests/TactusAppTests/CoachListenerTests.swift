// SPDX-License-Identifier: GPL-3.0-or-later
import Coach
import Testing
import TactusApp
import TactusBase

/// The capture thread's hits are stamped with the CLOCK_MONOTONIC time of their first
/// sample: block k's first sample arrives at base + k x period; each hit's time is exactly
/// the sample the same detector finds offline in the whole take, on that line (the truth
/// within 2 ms: the detector's own accuracy is proven in CoachTests), none missed or extra.
@Suite struct CoachListenerTests {
    @Test func hitsAreStampedOnTheCaptureClock() {
        let rate = 48000
        let made = SyntheticTake(grid: (1...24).map { Double($0 * 10000) }, sampleRate: rate, seed: 9, length: 6 * rate)
        let listener = CoachListener(sampleRate: rate)
        let base: Int64 = 7_000_000_000
        let period = 256
        var found: [MonotonicTime] = []
        made.samples.withUnsafeBufferPointer { all in
            var start = 0
            while start + period <= all.count {
                let first = base + Int64(start) * 1_000_000_000 / Int64(rate)
                listener.capture(UnsafeBufferPointer(rebasing: all[start..<(start + period)]), firstSampleAt: first)
                start += period
                if start % (period * 4) == 0 { found += listener.drain() }
            }
        }
        found += listener.drain()
        var offline: [Int64] = []
        let detector = OnsetDetector(.init(sampleRate: rate))
        made.samples.withUnsafeBufferPointer { detector.process($0) { sample, _ in offline.append(sample) } }
        #expect(found.count == made.hits.count && offline.count == made.hits.count)
        for ((time, sample), truth) in zip(zip(found, offline), made.hits) {
            // To the nanosecond (the block's start and the offset in it are each rounded down).
            #expect(abs(time.nanoseconds - (base + sample * 1_000_000_000 / Int64(rate))) <= 1)
            #expect(abs(time.nanoseconds - (base + truth.sample * 1_000_000_000 / Int64(rate))) <= 2_000_000)
        }
        #expect(listener.dropped.load(ordering: .relaxed) == 0)
    }
}
