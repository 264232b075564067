// SPDX-License-Identifier: GPL-3.0-or-later
@_exported import TactusCore  // HAL's frame and time types are the core's

/// GPIO edge timestamps, audio positions and indicator pulses all use the core's one
/// monotonic timeline (CLOCK_MONOTONIC nanoseconds).
public typealias MonotonicInstant = MonotonicTime

/// Where "now" comes from: the system's monotonic clock on the box, a manual clock in tests.
public protocol MonotonicClock: Sendable {
    func now() -> MonotonicInstant
}
