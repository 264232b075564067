// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import TactusBase
import TactusInstrument

/// A manual clock for tests: time moves only when the test says so.
struct ManualClock {
    var now = MonotonicTime.seconds(100)
    mutating func advance(ms: Double) -> MonotonicTime {
        now = now + .nanoseconds(Int64(ms * 1_000_000))
        return now
    }
}

func ms(_ value: Int64) -> MonotonicTime { .milliseconds(value) }

extension BoxState {
    /// The field the wheel sets, as the screen labels it ("beat 3", "sub2 volume").
    var fieldLabel: String { FieldEditor.label(field) }
    /// Its value as the screen writes it (song mode: the song page's).
    var fieldValue: String { mode == .song ? screen.song!.fieldValue : FieldEditor.value(field, in: settings) }
}
