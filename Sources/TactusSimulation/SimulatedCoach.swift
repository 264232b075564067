// SPDX-License-Identifier: GPL-3.0-or-later
import TactusWire
import Coach
import TactusApp
import TactusInstrument

/// The coach's input in `tactus simulate --headless --input TAKE.wav`: the take is what the
/// box's input hears from simulated time 0 (sample i at i / rate seconds). The detector hears
/// it period by period as the simulation runs; each hit goes to the box (`Box.coachHit`), which
/// judges it on the one timeline as it does the live capture's.
public final class SimulatedCoach {
    public let sampleRate: Int
    private let take: [Float]
    private let detector: OnsetDetector
    private var fed = 0

    public init(take: [Float], sampleRate: Int) {
        self.take = take
        self.sampleRate = sampleRate
        detector = OnsetDetector(.init(sampleRate: sampleRate))
    }

    /// The take up to simulated time `nanoseconds` into the detector: the first samples of the hits found.
    public func hear(upTo nanoseconds: Int64) -> [Int64] {
        let target = min(take.count, Int(Int64(sampleRate) * nanoseconds / 1_000_000_000))
        var found: [Int64] = []
        take.withUnsafeBufferPointer { all in
            while fed < target {
                let count = min(128, target - fed)
                detector.process(UnsafeBufferPointer(rebasing: all[fed..<fed + count])) { sample, _ in found.append(sample) }
                fed += count
            }
        }
        return found
    }

    public func finish() -> [Int64] {
        var found: [Int64] = []
        detector.finish { sample, _ in found.append(sample) }
        return found
    }

    /// When take sample `sample` is heard, on the simulated clock.
    public func nanoseconds(ofSample sample: Int64) -> Int64 { sample * 1_000_000_000 / Int64(sampleRate) }

    /// The events line of a hit (take sample `sample`), with `coach --hits`'s fields.
    public func line(_ hit: CoachHit, sample: Int64, grid: String?) -> String {
        Self.line(hit, sample: sample, sampleRate: sampleRate, grid: grid)
    }

    /// The events line of a hit at `sample` of a clock at `sampleRate` from simulated time 0.
    public static func line(_ hit: CoachHit, sample: Int64, sampleRate: Int, grid: String?) -> String {
        JSONObject {
            $0.add("t", JSONNumber(Decimal1.fixed(Double(sample) / Double(sampleRate), decimals: 6)))
            $0.add(.type, "hit")
            $0.add("sample", sample)
            $0.add(.bar, hit.position.bar)
            $0.add(.beat, hit.position.beat)
            $0.add("grid", grid)
            $0.add("index", hit.position.index)
            $0.add("error_ms", JSONNumber(Decimal1.fixed(hit.errorMilliseconds, decimals: 3)))
        }.text
    }
}
