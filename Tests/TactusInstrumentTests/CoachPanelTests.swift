// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusBase
import TactusInstrument
import Coach

@Suite struct CoachPanelTests {
    func at(_ ms: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: ms * 1_000_000) }

    /// Menu > Coach opens the page; hits fill it; a short push resets it; the wheel still
    /// sets the tempo there; a double push goes home.
    @Test func menuCoachHitsAndReset() throws {
        var state = try BoxState(at: at(0))
        _ = state.handle(.gesture(.wheel, .longPress, at: at(10)))
        let root = state.screen.menu!.entries.map(\.label)
        #expect(root == ["Tempo markings", "Presets", "Songs", "Settings", "Tone", "Coach", "Back"])
        for _ in 0..<5 { _ = state.handle(.detent(1, at: at(20))) }
        _ = state.handle(.gesture(.wheel, .shortPress, at: at(30)))
        #expect(state.mode == .coach && state.screen.menu == nil)
        _ = state.handle(.coachHit(errorMilliseconds: -4, bar: 0, gap: false, at: at(40)))
        _ = state.handle(.coachHit(errorMilliseconds: 8, bar: 1, gap: true, at: at(50)))
        #expect(state.screen.coach?.statistics.count == 2)
        #expect(state.screen.coach?.last == 8)
        #expect(state.screen.coach?.bars.map(\.gap) == [false, true])
        _ = state.handle(.detent(1, at: at(2000)))
        #expect(state.settings.tempo.bpm == 121)
        _ = state.handle(.gesture(.wheel, .shortPress, at: at(3000)))
        #expect(state.mode == .coach && state.screen.coach?.statistics.count == 0 && state.screen.coach?.last == nil)
        _ = state.handle(.gesture(.wheel, .doublePress, at: at(4000)))
        #expect(state.mode == .tempo && state.screen.coach == nil)
    }
}
