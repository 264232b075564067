// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import Synchronization

/// A clock that moves only when the test says so.
public final class ManualClock: MonotonicClock {
    private let current: Mutex<MonotonicInstant>

    public init(start: MonotonicInstant = MonotonicInstant(nanoseconds: 0)) {
        current = Mutex(start)
    }

    public func now() -> MonotonicInstant { current.withLock { $0 } }

    public func advance(byNanoseconds delta: Int64) {
        current.withLock { $0 = $0.advanced(byNanoseconds: delta) }
    }

    public func set(_ instant: MonotonicInstant) {
        current.withLock { $0 = instant }
    }
}
