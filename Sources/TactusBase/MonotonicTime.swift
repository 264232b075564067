// SPDX-License-Identifier: GPL-3.0-or-later
/// A point on the monotonic clock in nanoseconds (CLOCK_MONOTONIC, as the kernel stamps
/// GPIO edge events). The core never reads a clock: every input carries its time, so tests
/// drive the controls with a manual clock and replays are exact.
public struct MonotonicTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = MonotonicTime(nanoseconds: 0)

    public static func milliseconds(_ ms: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: ms * 1_000_000) }
    public static func seconds(_ s: Double) -> MonotonicTime { MonotonicTime(nanoseconds: Int64((s * 1e9).rounded())) }

    public static func < (a: MonotonicTime, b: MonotonicTime) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (t: MonotonicTime, d: Duration) -> MonotonicTime {
        MonotonicTime(nanoseconds: t.nanoseconds + d.nanosecondCount)
    }

    public static func - (a: MonotonicTime, b: MonotonicTime) -> Duration { .nanoseconds(a.nanoseconds - b.nanoseconds) }

    public func advanced(byNanoseconds delta: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: nanoseconds + delta) }

    public func nanoseconds(since earlier: MonotonicTime) -> Int64 { nanoseconds - earlier.nanoseconds }

    /// Seconds since `earlier`, for rate arithmetic.
    public func seconds(since earlier: MonotonicTime) -> Double { Double(nanoseconds - earlier.nanoseconds) / 1e9 }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
    /// Whole nanoseconds (durations here are far below the 292-year Int64 limit).
    public var nanosecondCount: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }

    public var secondsValue: Double { Double(nanosecondCount) / 1e9 }
}
