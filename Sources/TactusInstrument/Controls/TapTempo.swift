// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// Tap tempo (SPEC 5): the tempo is the average of all intervals of the current series.
///
/// - The first tap of a series gives nothing; from the second on, every tap gives a tempo.
/// - A pause longer than `timeout` (2 s) starts a new series, so the slowest tempo that
///   can be tapped is 60 / 2 = 30 BPM; slower taps are impossible by construction.
/// - A tap whose interval lies outside +-`tolerance` of the running average throws out the
///   old taps and starts a new series from that tap: the outlying interval itself never
///   sets a tempo (a pause of 1.95 s in a series of quarters is no 31 BPM); the new tempo
///   comes with the next tap (switching from quarters to eighths: the second eighth).
/// - The result is rounded to whole BPM (halves up) and clamped to 1-999.
public struct TapTempo: Sendable {
    public static let toleranceRange: ClosedRange<Int> = 5...50

    public var timeout: Duration
    /// Percent of the running average an interval may differ from it.
    public var tolerancePercent: Int

    private var firstTap: MonotonicTime?
    private var lastTap: MonotonicTime?
    public private(set) var intervals = 0

    public init(tolerancePercent: Int = 20, timeout: Duration = .seconds(2)) {
        self.tolerancePercent = min(max(tolerancePercent, TapTempo.toleranceRange.lowerBound), TapTempo.toleranceRange.upperBound)
        self.timeout = timeout
    }

    /// The slowest tempo a series can produce: one interval of exactly `timeout`.
    public var slowestBPM: Int { TapTempo.wholeBPM(totalNanoseconds: timeout.nanosecondCount, intervals: 1) }

    /// A tap at `time`. Returns the series' tempo from the second tap on.
    public mutating func tap(at time: MonotonicTime) -> Int? {
        defer { lastTap = time }
        guard let first = firstTap, let last = lastTap, time > last, time - last <= timeout else {
            firstTap = time
            intervals = 0
            return nil
        }
        let interval = (time - last).nanosecondCount
        if intervals > 0 {
            let total = (last - first).nanosecondCount
            // |interval - total/n| > tol% * total/n, in integers: |100 n i - 100 T| > tol T.
            let n = Int64(intervals)
            let difference = (100 * n * interval - 100 * total).magnitude
            if difference > UInt64(tolerancePercent) * UInt64(total) {
                firstTap = time
                intervals = 0
                return nil
            }
        }
        intervals += 1
        return TapTempo.wholeBPM(totalNanoseconds: (time - first).nanosecondCount, intervals: intervals)
    }

    /// Forget the series (e.g. after the tempo was set another way).
    public mutating func reset() {
        firstTap = nil
        lastTap = nil
        intervals = 0
    }

    /// 60 s x intervals / total, rounded half up, clamped to 1-999.
    static func wholeBPM(totalNanoseconds: Int64, intervals: Int) -> Int {
        guard totalNanoseconds > 0 else { return 999 }
        let numerator = Int128(120_000_000_000) * Int128(intervals) + Int128(totalNanoseconds)
        let bpm = numerator / (2 * Int128(totalNanoseconds))
        return Int(min(max(bpm, 1), 999))
    }
}
