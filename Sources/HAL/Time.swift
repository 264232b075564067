/// A point on the system's monotonic clock (CLOCK_MONOTONIC), in nanoseconds.
/// GPIO edge timestamps, audio positions and indicator pulses all use this one timeline.
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }

    public func advanced(byNanoseconds delta: Int64) -> Self { Self(nanoseconds: nanoseconds + delta) }

    public func nanoseconds(since earlier: Self) -> Int64 { nanoseconds - earlier.nanoseconds }

    public var description: String { "\(Double(nanoseconds) / 1e9) s" }
}

/// Where "now" comes from: the system's monotonic clock on the box, a manual clock in tests.
public protocol MonotonicClock: Sendable {
    func now() -> MonotonicInstant
}
