// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
@testable import TactusCore
import TactusBase

/// A manual clock for tests: time moves only when the test says so.
struct ManualClock {
    var now = MonotonicTime.seconds(100)
    mutating func advance(ms: Double) -> MonotonicTime {
        now = now + .nanoseconds(Int64(ms * 1_000_000))
        return now
    }
}

func ms(_ value: Int64) -> MonotonicTime { .milliseconds(value) }
