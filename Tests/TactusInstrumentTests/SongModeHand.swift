// SPDX-License-Identifier: GPL-3.0-or-later
@testable import TactusInstrument
import TactusBase

/// A hand on the reducer for the song-mode suites: each action 100 ms after the last.
protocol SongModeHand {
    var clock: ManualClock { get set }
}

extension SongModeHand {
    mutating func act(_ b: inout BoxState, _ action: (MonotonicTime) -> Action) -> [Effect] {
        b.handle(action(clock.advance(ms: 100)))
    }

    /// Menu > Songs: a long push, two detents down the root page, a push.
    mutating func toSongMode(_ b: inout BoxState) {
        _ = act(&b) { .gesture(.wheel, .longPress, at: $0) }
        _ = turn(&b, 2)
        _ = act(&b) { .gesture(.wheel, .shortPress, at: $0) }
    }

    mutating func turn(_ b: inout BoxState, _ n: Int) -> [Effect] {
        var effects: [Effect] = []
        for _ in 0..<abs(n) { effects += act(&b) { .detent(n > 0 ? 1 : -1, at: $0) } }
        return effects
    }

    /// Turns with the wheel held down: the mode's ring of fields.
    mutating func ring(_ b: inout BoxState, _ n: Int) {
        for _ in 0..<abs(n) { _ = act(&b) { .pushedDetent(n > 0 ? 1 : -1, at: $0) } }
    }
}
