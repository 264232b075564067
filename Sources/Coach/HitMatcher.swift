// SPDX-License-Identifier: GPL-3.0-or-later

/// A position of the grid the player is judged against: where the engine put it (input
/// samples, exact; fractional when the take's offset is) and what it is in the bar.
public struct GridPoint: Sendable, Hashable {
    public var sample: Double
    public var bar: Int64
    public var beat: Int
    /// The position's number within its bar on this grid, from 0.
    public var index: Int
    public init(sample: Double, bar: Int64, beat: Int, index: Int) {
        self.sample = sample
        self.bar = bar
        self.beat = beat
        self.index = index
    }
}

/// A hit measured against the grid.
public struct MatchedHit: Sendable, Hashable {
    /// First sample of the hit's sound (input samples).
    public var sample: Int64
    public var point: GridPoint
    /// Milliseconds from the grid position to the hit: negative = early.
    public var errorMilliseconds: Double

    public init(sample: Int64, point: GridPoint, errorMilliseconds: Double) {
        self.sample = sample
        self.point = point
        self.errorMilliseconds = errorMilliseconds
    }
}

/// Each hit goes to the nearest grid position (the earlier one on an exact tie).
public struct HitMatcher: Sendable {
    public let points: [GridPoint]
    public let sampleRate: Int

    /// `points` in time order.
    public init(points: [GridPoint], sampleRate: Int) {
        self.points = points
        self.sampleRate = sampleRate
    }

    public func match(_ sample: Int64) -> MatchedHit? {
        guard !points.isEmpty else { return nil }
        let x = Double(sample)
        // First point at or after the hit.
        var low = 0
        var high = points.count
        while low < high {
            let mid = (low + high) / 2
            if points[mid].sample < x { low = mid + 1 } else { high = mid }
        }
        var nearest = min(low, points.count - 1)
        if low > 0 && (low == points.count || x - points[low - 1].sample <= points[low].sample - x) {
            nearest = low - 1
        }
        let point = points[nearest]
        return MatchedHit(sample: sample, point: point,
                          errorMilliseconds: (x - point.sample) * 1000 / Double(sampleRate))
    }

    /// Half the distance to the nearer neighbour of the point a hit matched (samples): a hit
    /// further from its point than this from every point is "far off the grid".
    public func halfStep(around point: GridPoint) -> Double {
        guard let i = points.firstIndex(of: point) else { return 0 }
        var step = Double.infinity
        if i > 0 { step = min(step, point.sample - points[i - 1].sample) }
        if i + 1 < points.count { step = min(step, points[i + 1].sample - point.sample) }
        return step.isFinite ? step / 2 : .infinity
    }
}

/// Running figures of a session: count, mean and SD of the errors, shares within 10 and 25 ms.
/// Welford's update, so a long session loses no precision; no allocation (the live page).
public struct CoachStatistics: Sendable, Hashable {
    public private(set) var count = 0
    public private(set) var mean = 0.0
    private var squares = 0.0
    public private(set) var within10 = 0
    public private(set) var within25 = 0

    public init() {}

    public mutating func add(_ errorMilliseconds: Double) {
        count += 1
        let delta = errorMilliseconds - mean
        mean += delta / Double(count)
        squares += delta * (errorMilliseconds - mean)
        if abs(errorMilliseconds) <= 10 { within10 += 1 }
        if abs(errorMilliseconds) <= 25 { within25 += 1 }
    }

    /// Population standard deviation (divided by N; 0 for fewer than two hits).
    public var standardDeviation: Double { count > 1 ? (squares / Double(count)).squareRoot() : 0 }
    public var shareWithin10: Double { count > 0 ? Double(within10) / Double(count) : 0 }
    public var shareWithin25: Double { count > 0 ? Double(within25) / Double(count) : 0 }

    /// `hits N, mean +X.X ms, SD Y.Y ms, within 10 ms P.P %, within 25 ms Q.Q %`: one decimal,
    /// the mean always signed (+ late, - early; +0.0 when it rounds to zero).
    public var summary: String {
        "hits \(count), mean \(Decimal1.signed(mean)) ms, SD \(Decimal1.plain(standardDeviation)) ms, "
            + "within 10 ms \(Decimal1.plain(shareWithin10 * 100)) %, within 25 ms \(Decimal1.plain(shareWithin25 * 100)) %"
    }
}

/// Fixed one-decimal text without Foundation (halves away from zero).
public enum Decimal1 {
    public static func plain(_ value: Double) -> String {
        let tenths = Int64((abs(value) * 10).rounded(.toNearestOrAwayFromZero))
        let text = "\(tenths / 10).\(tenths % 10)"
        return value < 0 && tenths != 0 ? "-" + text : text
    }

    public static func signed(_ value: Double) -> String {
        let text = plain(value)
        return text.hasPrefix("-") ? text : "+" + text
    }

    /// `decimals` places, for JSON fields (`error_ms` with 3, `t` with 6).
    public static func fixed(_ value: Double, decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let units = Int64((abs(value) * Double(scale)).rounded(.toNearestOrAwayFromZero))
        var fraction = "\(units % scale)"
        while fraction.count < decimals { fraction = "0" + fraction }
        let text = decimals > 0 ? "\(units / scale).\(fraction)" : "\(units / scale)"
        return value < 0 && units != 0 ? "-" + text : text
    }
}
