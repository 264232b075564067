// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Coach
import TactusCore

/// The coach in `tactus simulate --headless --input TAKE.wav`: the take is what the box's
/// input hears from simulated time 0 (sample i at i / rate seconds). The detector hears it
/// period by period as the simulation runs; the grid is every beat and subdivision onset
/// the box plays (muted gap onsets too), at the time it is heard.
public final class SimulatedCoach {
    public let sampleRate: Int
    private let take: [Float]
    private let detector: OnsetDetector
    private var session: CoachSession
    private var fed = 0
    /// Recent bars whose clicks were muted (a gap), for the Coach page's marks.
    private var gapBars: [Int64] = []

    public init(take: [Float], sampleRate: Int) {
        self.take = take
        self.sampleRate = sampleRate
        detector = OnsetDetector(.init(sampleRate: sampleRate))
        session = CoachSession(sampleRate: sampleRate)
    }

    public var statistics: CoachStatistics { session.statistics }

    /// The take up to simulated time `nanoseconds` into the detector; the hits judged.
    public func hear(upTo nanoseconds: Int64) -> [MatchedHit] {
        let target = min(take.count, Int(Int64(sampleRate) * nanoseconds / 1_000_000_000))
        var found: [Int64] = []
        take.withUnsafeBufferPointer { all in
            while fed < target {
                let count = min(128, target - fed)
                detector.process(UnsafeBufferPointer(rebasing: all[fed..<fed + count])) { sample, _ in found.append(sample) }
                fed += count
            }
        }
        return found.flatMap { session.add(hit: $0) }
    }

    /// An onset of the box, heard at `nanoseconds`: a grid position unless it is a poly layer's.
    public func onset(_ onset: OnsetEvent, heardAt nanoseconds: Int64) -> [MatchedHit] {
        guard onset.kind != .poly else { return [] }
        if onset.muted && gapBars.last != onset.bar {
            gapBars.append(onset.bar)
            if gapBars.count > 64 { gapBars.removeFirst() }
        }
        let sample = Double(nanoseconds) * Double(sampleRate) / 1e9
        return session.add(point: sample, bar: onset.bar, beat: Int(onset.beat))
    }

    public func finish() -> [MatchedHit] {
        var found: [Int64] = []
        detector.finish { sample, _ in found.append(sample) }
        return found.flatMap { session.add(hit: $0) } + session.finish()
    }

    /// The events line of a hit, with `coach --hits`'s fields.
    public func line(_ hit: MatchedHit) -> String {
        "{\"t\":\(Decimal1.fixed(Double(hit.sample) / Double(sampleRate), decimals: 6)),\"type\":\"hit\",\"sample\":\(hit.sample),"
            + "\"bar\":\(hit.point.bar),\"beat\":\(hit.point.beat),\"grid\":null,\"index\":\(hit.point.index),"
            + "\"error_ms\":\(Decimal1.fixed(hit.errorMilliseconds, decimals: 3))}"
    }

    public func isGap(bar: Int64) -> Bool { gapBars.contains(bar) }

    public func nanoseconds(of hit: MatchedHit) -> Int64 { hit.sample * 1_000_000_000 / Int64(sampleRate) }
}
