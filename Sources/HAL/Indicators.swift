// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase

// The box's outputs that are not sound or screen: TactusBase's IndicatorChannel (the raw
// values are the board file's keys).

/// LEDs and buzzer. Pulses are scheduled at an instant (usually the moment a click is heard)
/// and end by themselves; the implementation owns the timing.
public protocol IndicatorOutput: AnyObject, Sendable {
    /// Turns the indicator on from `start` for `nanoseconds`. Overlapping pulses merge.
    func pulse(_ indicator: IndicatorChannel, at start: MonotonicTime, lastingNanoseconds nanoseconds: Int64)
    /// Holds the indicator on or off until the next call or pulse.
    func set(_ indicator: IndicatorChannel, on: Bool)
}

/// The planned on-intervals of each indicator: the timing logic shared by the GPIO output
/// thread and the simulator, kept free of threads and clocks so it can be tested alone.
public struct PulseTimeline: Equatable, Sendable {
    public struct Interval: Equatable, Sendable {
        public var start: MonotonicTime
        public var end: MonotonicTime

        public init(start: MonotonicTime, end: MonotonicTime) {
            self.start = start
            self.end = end
        }
    }

    public private(set) var intervals: [IndicatorChannel: [Interval]] = [:]
    public private(set) var held: [IndicatorChannel: Bool] = [:]

    public init() {}

    /// Adds a pulse, merging it with any interval it overlaps or touches.
    public mutating func add(_ indicator: IndicatorChannel, start: MonotonicTime, lastingNanoseconds: Int64) {
        guard lastingNanoseconds > 0 else { return }
        var new = Interval(start: start, end: start.advanced(byNanoseconds: lastingNanoseconds))
        var kept: [Interval] = []
        for interval in intervals[indicator, default: []] {
            if interval.end < new.start || new.end < interval.start {
                kept.append(interval)
            } else {
                new = Interval(start: min(interval.start, new.start), end: max(interval.end, new.end))
            }
        }
        kept.append(new)
        kept.sort { $0.start < $1.start }
        intervals[indicator] = kept
    }

    public mutating func hold(_ indicator: IndicatorChannel, on: Bool) {
        held[indicator] = on
    }

    /// Whether the indicator should be on at `time`.
    public func isOn(_ indicator: IndicatorChannel, at time: MonotonicTime) -> Bool {
        if held[indicator] == true { return true }
        return intervals[indicator, default: []].contains { $0.start <= time && time < $0.end }
    }

    /// The first instant after `time` at which any indicator's level changes, if any.
    public func nextChange(after time: MonotonicTime) -> MonotonicTime? {
        var next: MonotonicTime?
        for list in intervals.values {
            for interval in list {
                for edge in [interval.start, interval.end] where edge > time {
                    if next == nil || edge < next! { next = edge }
                }
            }
        }
        return next
    }

    /// Forgets intervals that ended at or before `time`.
    public mutating func removeFinished(before time: MonotonicTime) {
        for (indicator, list) in intervals {
            intervals[indicator] = list.filter { $0.end > time }
        }
    }
}
