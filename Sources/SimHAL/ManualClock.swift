// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import Synchronization
import TactusBase

/// A clock that moves only when the test says so.
public final class ManualClock: MonotonicClock {
    private let current: Mutex<MonotonicTime>

    public init(start: MonotonicTime = MonotonicTime(nanoseconds: 0)) {
        current = Mutex(start)
    }

    public func now() -> MonotonicTime { current.withLock { $0 } }

    public func advance(byNanoseconds delta: Int64) {
        current.withLock { $0 = $0.advanced(byNanoseconds: delta) }
    }

    public func set(_ instant: MonotonicTime) {
        current.withLock { $0 = instant }
    }
}
