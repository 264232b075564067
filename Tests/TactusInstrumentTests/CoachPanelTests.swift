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
        _ = state.handle(.gesture(.wheel, .shortPress, at: at(25)))
        // Menu > Coach: the page, the calibration (none stored yet) and back.
        #expect(state.screen.menu?.entries.map(\.text) == ["Coach page", "Calibrate: none", "Back"])
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

    /// Menu > Coach > Calibrate in the reducer: it stops what plays and asks the box for the
    /// clicks; the outcome is kept (and saved), shown, and the engine gets the settings back.
    @Test func calibrateAsksTheBoxAndKeepsTheOutcome() throws {
        var state = try BoxState(at: at(0))
        _ = state.handle(.gesture(.startStop, .press, at: at(5)))
        _ = state.handle(.gesture(.wheel, .longPress, at: at(10)))
        for _ in 0..<5 { _ = state.handle(.detent(1, at: at(20))) }
        _ = state.handle(.gesture(.wheel, .shortPress, at: at(25)))
        _ = state.handle(.detent(1, at: at(30)))
        let effects = state.handle(.gesture(.wheel, .shortPress, at: at(40)))
        #expect(effects.firstIndex(of: .stop(.box))! < effects.firstIndex(of: .calibrateCoach)!)
        #expect(state.calibratingCoach && !state.isPlaying && state.mode == .coach && state.menu == nil)
        #expect(state.notice?.text == "Calibrating: 16 clicks, quiet please")
        let done = state.handle(.coachCalibrated(.roundTrip(microseconds: 23_417), at: at(11_000)))
        #expect(done.contains(.applySettings(state.settings)))
        #expect(state.saved.preferences.coachRoundTripMicroseconds == 23_417 && !state.calibratingCoach)
        #expect(state.notice?.text == "Calibrated: round trip 23.4 ms")
        // A late outcome (after a cancel) changes nothing.
        #expect(state.handle(.coachCalibrated(.roundTrip(microseconds: 5), at: at(12_000))).isEmpty)
        #expect(state.saved.preferences.coachRoundTripMicroseconds == 23_417)
        #expect(MenuState.entries(.coach, saved: state.saved).map(\.text)[1] == "Calibrate: 23.4 ms")
        // Failures are problems and keep the value.
        for (outcome, text) in [(CoachCalibrationOutcome.notHeard, "Calibrate: clicks not heard"),
                                (.clicksMissing(5), "Calibrate: 5 of 16 clicks not heard, again in quiet"),
                                (.noInput, "Calibrate: no coach input")] {
            _ = state.handle(.remote(.calibrateCoach, at: at(13_000)))
            #expect(state.calibratingCoach)
            _ = state.handle(.coachCalibrated(outcome, at: at(14_000)))
            #expect(state.notice?.text == text && state.notice?.kind == .problem)
            #expect(state.saved.preferences.coachRoundTripMicroseconds == 23_417)
        }
    }
}
