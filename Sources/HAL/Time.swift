// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase

// GPIO edge timestamps, audio positions and indicator pulses all use one monotonic timeline
// (CLOCK_MONOTONIC nanoseconds): TactusBase's MonotonicTime, shared with the core.

/// Where "now" comes from: the system's monotonic clock on the box, a manual clock in tests.
public protocol MonotonicClock: Sendable {
    func now() -> MonotonicTime
}
