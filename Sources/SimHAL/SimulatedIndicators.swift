// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import Synchronization
import TactusBase

/// LEDs and buzzer in memory: keeps the planned pulses so tests ask "was the beat LED on at t?".
public final class SimulatedIndicators: IndicatorOutput {
    private let timeline = Mutex(PulseTimeline())
    private let log = Mutex<[(IndicatorChannel, MonotonicTime, Int64)]>([])

    public init() {}

    public func pulse(_ indicator: IndicatorChannel, at start: MonotonicTime, lastingNanoseconds nanoseconds: Int64) {
        timeline.withLock { $0.add(indicator, start: start, lastingNanoseconds: nanoseconds) }
        log.withLock { $0.append((indicator, start, nanoseconds)) }
    }

    public func set(_ indicator: IndicatorChannel, on: Bool) {
        timeline.withLock { $0.hold(indicator, on: on) }
    }

    public func isOn(_ indicator: IndicatorChannel, at time: MonotonicTime) -> Bool {
        timeline.withLock { $0.isOn(indicator, at: time) }
    }

    /// Every pulse requested, in order: indicator, start, length.
    public var pulses: [(indicator: IndicatorChannel, start: MonotonicTime, nanoseconds: Int64)] {
        log.withLock { $0.map { (indicator: $0.0, start: $0.1, nanoseconds: $0.2) } }
    }
}
