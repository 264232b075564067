// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusInstrument
@testable import TactusScreen
import TactusBase

@Suite struct BoxStateTests {
    var clock = ManualClock()

    func box(_ saved: SavedState = SavedState()) throws -> BoxState {
        try BoxState(saved: saved, soundNames: ["woodblock", "beep", "clave"], at: clock.now)
    }

    /// A short push: 80 ms down, then past the double-press window.
    mutating func press(_ box: inout BoxState, _ button: ControlButton, holdMS: Double = 80) -> [Effect] {
        var effects = box.handle(.buttonEdge(button, pressed: true, at: clock.advance(ms: 10)))
        effects += box.handle(.buttonEdge(button, pressed: false, at: clock.advance(ms: holdMS)))
        effects += box.handle(.tick(at: clock.advance(ms: 400)))
        return effects
    }

    /// The wheel held down and turned `detents`, then let go.
    mutating func pushTurn(_ box: inout BoxState, _ detents: Int) -> [Effect] {
        var effects = box.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 10)))
        for _ in 0..<abs(detents) { effects += box.handle(.detent(detents > 0 ? 1 : -1, at: clock.advance(ms: 60))) }
        effects += box.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 60)))
        effects += box.handle(.tick(at: clock.advance(ms: 400)))
        return effects
    }

    mutating func turn(_ box: inout BoxState, _ detents: Int) {
        for _ in 0..<abs(detents) { _ = box.handle(.detent(detents > 0 ? 1 : -1, at: clock.advance(ms: 300))) }
    }

    /// Short pushes to one of the six modes, or Menu > Songs for song mode.
    mutating func open(_ mode: WheelMode, in box: inout BoxState) {
        guard mode == .song else {
            while box.mode != mode { _ = press(&box, .wheel) }
            return
        }
        _ = press(&box, .wheel, holdMS: 700)
        turn(&box, 2)
        _ = press(&box, .wheel)
    }

    @Test mutating func startStopTogglesPlayback() throws {
        var b = try box()
        let effects = b.handle(.buttonEdge(.startStop, pressed: true, at: clock.advance(ms: 10)))
        #expect(effects.contains(.start(.box)))
        #expect(b.isPlaying)
        _ = b.handle(.buttonEdge(.startStop, pressed: false, at: clock.advance(ms: 50)))
        #expect(b.handle(.buttonEdge(.startStop, pressed: true, at: clock.advance(ms: 500))).contains(.stop(.box)))
        #expect(!b.isPlaying)
    }

    /// A followed clock or a Link peer starts and stops through the transport action: the
    /// effect carries its origin (and a MIDI start's placement) to the box; playing already
    /// is nothing; no button is pressed (the START button's gesture state is untouched).
    @Test mutating func transportFromOutsideCarriesItsOrigin() throws {
        var b = try box()
        let placement = MIDIClockStart(barZeroTwice: 96_000, firstTickTwice: 96_000)
        #expect(b.handle(.transport(playing: true, origin: .midiClock(placement), at: clock.advance(ms: 10))).contains(.start(.midiClock(placement))))
        #expect(b.isPlaying)
        #expect(!b.handle(.transport(playing: true, origin: .link, at: clock.advance(ms: 10))).contains { if case .start = $0 { true } else { false } })
        #expect(b.handle(.transport(playing: false, origin: .link, at: clock.advance(ms: 10))).contains(.stop(.link)))
        #expect(!b.isPlaying)
        #expect(b.handle(.transport(playing: false, origin: .box, at: clock.advance(ms: 10))).isEmpty)
        // The START button still works as before: one press starts.
        #expect(press(&b, .startStop).contains(.start(.box)))
    }

    @Test mutating func wheelTurnsChangeTempoAndEngineAndBuzzerAtTheDetentsTime() throws {
        var b = try box()
        var effects: [Effect] = []
        var times: [MonotonicTime] = []
        for _ in 0..<3 {
            times.append(clock.advance(ms: 400))
            effects += b.handle(.detent(1, at: times.last!))
        }
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 123))
        #expect(effects.filter { if case .buzzer(.tick, _) = $0 { true } else { false } } == times.map { .buzzer(.tick, at: $0) })
        #expect(effects.contains(.applySettings(b.settings)))
        #expect(b.settings.tempo.description == "123")
        #expect(b.screen.marking == "Allegro")
    }

    @Test mutating func encoderEdgesGoThroughTheDecoderAndTurnTheRingsPartWay() throws {
        var b = try box()
        var turning: [Double] = []
        for (line, high) in [(QuadratureDecoder.Line.b, true), (.a, true), (.b, false), (.a, false)] {
            _ = b.handle(.encoderEdge(line, isHigh: high, at: clock.advance(ms: 100)))
            turning.append(b.screen.turning)
        }
        #expect(turning == [0.25, 0.5, 0.75, 0])
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 121))
    }

    @Test mutating func tapTempoSetsTheTempoLive() throws {
        var b = try box()
        _ = b.handle(.buttonEdge(.startStop, pressed: true, at: clock.advance(ms: 10)))
        var effects: [Effect] = []
        for _ in 0..<4 {
            effects += b.handle(.buttonEdge(.tap, pressed: true, at: clock.advance(ms: 500)))
            effects += b.handle(.buttonEdge(.tap, pressed: false, at: clock.advance(ms: 100)))
            clock.now = clock.now + .milliseconds(-100)
        }
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 120))
        #expect(b.isPlaying)
        #expect(!effects.contains { if case .applySettings = $0 { true } else { false } })  // 120 is the default: no change
        for _ in 0..<2 {
            effects += b.handle(.buttonEdge(.tap, pressed: true, at: clock.advance(ms: 250)))
            effects += b.handle(.buttonEdge(.tap, pressed: false, at: clock.advance(ms: 50)))
            clock.now = clock.now + .milliseconds(-50)
        }
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 240))
        var expected = MetronomeSettings()
        expected.tempo = Tempo(clampingWholeBPM: 240)
        #expect(effects.contains(.applySettings(expected)))
    }

    @Test mutating func footswitchFollowsItsPreference() throws {
        var saved = SavedState()
        saved.preferences.footswitch = .tap
        var b = try box(saved)
        _ = b.handle(.gesture(.footswitch, .press, at: clock.advance(ms: 10)))
        _ = b.handle(.gesture(.footswitch, .press, at: clock.advance(ms: 1000)))
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 60))
        #expect(!b.isPlaying)
        var other = try box()
        #expect(other.handle(.gesture(.footswitch, .press, at: clock.advance(ms: 10))).contains(.start(.box)))
    }

    @Test mutating func darkGapReachesTheBoxAsAnEffect() throws {
        var b = try box()
        b.menu = MenuState(page: .settings, selected: PreferenceField.allCases.firstIndex(of: .darkGap)!)
        _ = press(&b, .wheel)           // edit Dark gap
        let effects = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(b.saved.preferences.darkGap)
        #expect(effects.contains(.darkGap(true)))
    }

    @Test mutating func oneShortPushPerModeAroundTheRing() throws {
        var b = try box()
        var modes = [b.mode]
        for _ in 0..<6 {
            _ = press(&b, .wheel)
            modes.append(b.mode)
            #expect(b.navigation.fieldIndex == 0)
        }
        #expect(modes == [.tempo, .accents, .meter, .subdivisions, .sound, .volumes, .tempo])
        // Song mode is Menu > Songs (SPEC 5: the menu holds presets, songs are their successor);
        // a short push there returns to tempo.
        open(.song, in: &b)
        #expect(b.mode == .song && b.menu == nil)
        _ = press(&b, .wheel)
        #expect(b.mode == .tempo)
    }

    @Test mutating func everyFieldIsAtMostTwoActionsFromItsModesFirstScreen() throws {
        var saved = SavedState()
        saved.settings.subdivisions = try Subdivisions([2, 3, 5, 7, 9])
        // The Coach page is not on the wheel's ring (Menu > Coach opens it, CoachPanelTests);
        // pushing the wheel would never reach it.
        for mode in WheelMode.allCases where mode != .coach {
            let fields = mode.fields(for: saved.settings)
            for (index, field) in fields.enumerated() {
                var b = try box(saved)
                open(mode, in: &b)
                #expect(b.field == fields[0])
                // One push-and-turn, the shorter way round the ring.
                let forward = index, backward = fields.count - index
                if index > 0 { _ = pushTurn(&b, forward <= backward ? forward : -backward) }
                #expect(b.field == field)
                #expect(b.mode == mode)
            }
        }
    }

    @Test mutating func pushAndTurnIsNeitherAShortNorALongPush() throws {
        var b = try box()
        _ = press(&b, .wheel)      // accents
        // Held 1.3 s while turning: no menu, no next mode.
        _ = b.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 10)))
        _ = b.handle(.detent(1, at: clock.advance(ms: 100)))
        _ = b.handle(.tick(at: clock.advance(ms: 1200)))
        _ = b.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 10)))
        _ = b.handle(.tick(at: clock.advance(ms: 400)))
        #expect(b.menu == nil)
        #expect(b.mode == .accents)
        #expect(b.field == .beatAccent(0))
        // The field ring wraps: back one from "accent every" is the Euclidean rotation, then
        // the Euclidean onsets, then the last beat.
        _ = pushTurn(&b, -2)
        #expect(b.field == .rhythm(.euclidRotation))
        _ = pushTurn(&b, -2)
        #expect(b.field == .beatAccent(3))
    }

    @Test mutating func editingFieldsAndDoublePushBackToTempo() throws {
        var b = try box()
        _ = press(&b, .wheel)
        #expect(b.mode == .accents)
        #expect(b.fieldLabel == "accent every")
        #expect(b.fieldValue == "4")  // the default, beat 1 accented, is "every 4" in 4/4
        turn(&b, -2)
        #expect(b.settings.accents == .accentEvery(2, beats: 4))
        _ = pushTurn(&b, 2)            // beat 2
        #expect(b.fieldLabel == "beat 2")
        turn(&b, 1)                    // normal -> muted
        #expect(b.settings.accents.description == "X.Xx")
        _ = press(&b, .wheel)
        #expect(b.mode == .meter)
        #expect(b.field == .numerator)
        turn(&b, 1)
        _ = pushTurn(&b, 1)
        turn(&b, 4)
        #expect(b.settings.meter == (try Meter(5, 8)))
        #expect(b.settings.beatUnit == (try BeatUnit(division: 8)))
        // Double push: back to tempo.
        _ = b.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 10)))
        _ = b.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 60)))
        _ = b.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 120)))
        _ = b.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 60)))
        _ = b.handle(.tick(at: clock.advance(ms: 1000)))
        #expect(b.mode == .tempo)
        #expect(b.field == .tempo)
    }

    @Test mutating func meterChangesCountInTheNewDenominatorUntilAUnitIsChosen() throws {
        var b = try box()
        _ = press(&b, .wheel); _ = press(&b, .wheel)      // meter
        _ = pushTurn(&b, 1)                                // denominator
        turn(&b, 4)                                        // 4/4 -> 4/8
        _ = pushTurn(&b, -1)                               // numerator
        turn(&b, 3)                                        // 7/8
        #expect(b.settings.meter == (try Meter(7, 8)))
        #expect(b.settings.beatUnit == (try BeatUnit(division: 8)))
        #expect(b.settings.beatCount == 7)
        _ = pushTurn(&b, 2)                                // beat unit
        turn(&b, -8)                                       // 1/8 -> 1/4, past 1/7. 1/7 ... 1/4.
        #expect(b.settings.beatUnit == .quarter)
        _ = press(&b, .wheel)                              // subdivisions: the unit stays
        #expect(b.settings.beatUnit == .quarter)
        _ = b.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 10)))
        _ = b.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 60)))
        _ = b.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 120)))
        _ = b.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 60)))
        _ = b.handle(.tick(at: clock.advance(ms: 1000)))
        _ = press(&b, .wheel); _ = press(&b, .wheel)      // meter again
        turn(&b, -1)                                       // 6/8: the meter changed, so 1/8 again
        #expect(b.settings.beatUnit == (try BeatUnit(division: 8)))
    }

    @Test mutating func otherFieldsStepWithTicksAndBumps() throws {
        var b = try box()
        for _ in 0..<3 { _ = press(&b, .wheel) }
        #expect(b.mode == .subdivisions)
        #expect(b.handle(.detent(-1, at: clock.advance(ms: 300))).contains(.buzzer(.bump, at: clock.now)))
        turn(&b, 2)
        #expect(b.settings.subdivisions == (try Subdivisions([3])))
        _ = pushTurn(&b, 1)                                // layer 2
        #expect(b.field == .layer(2))
        turn(&b, 1)
        #expect(b.settings.subdivisions == (try Subdivisions([2, 3])))
        _ = press(&b, .wheel)
        turn(&b, 1)
        #expect(b.settings.sound == "beep")
        _ = press(&b, .wheel)
        #expect(b.mode == .volumes)
        #expect(b.mode.fields(for: b.settings) == [.volume(.master), .volume(.accent), .volume(.beat), .volume(.layer(2)), .volume(.layer(3))])
        _ = pushTurn(&b, -1)                               // the last: sub3
        #expect(b.fieldLabel == "sub3 volume")
        #expect(b.handle(.detent(1, at: clock.advance(ms: 300))).contains(.buzzer(.tick, at: clock.now)))
        #expect(b.settings.volumes.layer(3) == 65)
        #expect(b.fieldValue == "65%")
    }

    @Test mutating func menuMarkingsOpenAtTheCurrentMarkingAndSetItsTypicalTempo() throws {
        var b = try box()
        _ = b.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 10)))
        let effects = b.handle(.tick(at: clock.advance(ms: 700)))
        _ = b.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 10)))
        #expect(b.menu?.page == .root)
        #expect(effects.contains { if case .screen(let s) = $0 { s.menu?.title == "Menu" } else { false } })
        _ = press(&b, .wheel)  // Tempo markings
        // 120 BPM is Allegro: the list opens there.
        #expect(b.screen.menu?.items[b.menu!.selected] == "Allegro: 138")
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))  // Andante
        _ = press(&b, .wheel)
        #expect(b.menu == nil)
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 92))
        #expect(b.screen.marking == "Andante")
        // The wheel continues from the new tempo.
        _ = b.handle(.detent(1, at: clock.advance(ms: 400)))
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 93))
    }

    @Test mutating func menuSettingsEditAndBackReturnsToItsRow() throws {
        var b = try box()
        b.menu = MenuState(page: .settings)
        _ = press(&b, .wheel)           // edit momentum
        #expect(b.screen.menu?.editing == true)
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(b.saved.preferences.momentum == false)
        #expect(b.tempo.wheel.tuning.momentum == false)
        _ = press(&b, .wheel)
        #expect(b.screen.menu?.editing == false)
        turn(&b, 4)                     // Silent practice, then Back
        #expect(b.screen.menu?.items[b.menu!.selected] == "Silent practice: off")
        _ = press(&b, .wheel)
        let effects = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(effects.contains(.silentPractice(true)))
        _ = press(&b, .wheel)
        turn(&b, 4)                     // Dark gap, Tone timbre, Tone volume, then Sync
        #expect(b.screen.menu?.items[b.menu!.selected] == "Sync: Internal")
        _ = press(&b, .wheel)           // edit Sync: MIDI, then Link
        let sync = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(sync.contains(.sync(.midi)))
        #expect(b.saved.preferences.sync == .midi)
        #expect(try SettingsFile.decode(SettingsFile.encode(b.saved), file: "s").preferences.sync == .midi)
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(b.saved.preferences.sync == .link)
        _ = press(&b, .wheel)
        turn(&b, 1)
        #expect(b.screen.menu?.items[b.menu!.selected] == "Link start/stop: off")
        turn(&b, 2)                     // Companion, then Back
        _ = press(&b, .wheel)           // Back: the root, on "Settings"
        #expect(b.menu == MenuState(page: .root, selected: 3))
    }

    @Test mutating func presetsSaveWithANoticeAndLoad() throws {
        var b = try box()
        b.menu = MenuState(page: .presets)
        _ = press(&b, .wheel)           // save current
        #expect(b.saved.presets == [Preset(name: "Preset 1", settings: b.settings)])
        #expect(b.screen.notice?.text == "Saved as Preset 1")
        #expect(b.screen.notice?.kind == .info)
        // News stays 3 s (from the push's recognition, at the last tick).
        _ = b.handle(.tick(at: clock.advance(ms: 2999)))
        #expect(b.screen.notice != nil)
        _ = b.handle(.tick(at: clock.advance(ms: 1)))
        #expect(b.screen.notice == nil)
        b.menu = nil
        turn(&b, 5)
        b.menu = MenuState(page: .presets, selected: 1)
        _ = press(&b, .wheel)
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 120))
        #expect(b.menu == nil)
    }

    @Test mutating func saveIsDebouncedAfterTheLastChange() throws {
        var b = try box()
        var effects: [Effect] = []
        for _ in 0..<3 { effects += b.handle(.detent(1, at: clock.advance(ms: 500))) }
        let lastChange = clock.now
        #expect(!effects.contains { if case .save = $0 { true } else { false } })
        #expect(b.nextDeadline != nil)
        effects = b.handle(.tick(at: lastChange + .milliseconds(1999)))
        #expect(!effects.contains { if case .save = $0 { true } else { false } })
        effects = b.handle(.tick(at: lastChange + .seconds(2)))
        #expect(effects.contains(.save(b.saved)))
        #expect(b.saved.settings.tempo == Tempo(clampingWholeBPM: 123))
        effects = b.handle(.tick(at: lastChange + .seconds(10)))
        #expect(!effects.contains { if case .save = $0 { true } else { false } })
    }

    @Test mutating func continuousChangesStillSaveWithinTenSeconds() throws {
        var b = try box()
        var saves = 0
        for _ in 0..<40 {
            for effect in b.handle(.detent(1, at: clock.advance(ms: 500))) { if case .save = effect { saves += 1 } }
        }
        #expect(saves == 1)   // 20 s of turning: saved 10 s after the first change...
        for effect in b.handle(.tick(at: clock.advance(ms: 2000))) { if case .save = effect { saves += 1 } }
        #expect(saves == 2)   // ...and 2 s after the last
    }

    @Test mutating func screenDimsWhenIdleAndStopped() throws {
        var b = try box()
        _ = b.handle(.tick(at: clock.advance(ms: 59_000)))
        #expect(!b.screen.dimmed)
        let effects = b.handle(.tick(at: clock.advance(ms: 1_000)))
        #expect(b.screen.dimmed)
        #expect(effects.contains { if case .screen(let s) = $0 { s.dimmed } else { false } })
        _ = b.handle(.detent(1, at: clock.advance(ms: 10)))
        #expect(!b.screen.dimmed)
    }

    @Test mutating func problemsStayEightSecondsAndNewsThree() throws {
        let start = clock.now
        var b = try BoxState(problem: "settings.toml was corrupt; kept as settings.corrupt-1.toml", at: start)
        #expect(b.screen.notice?.text.contains("corrupt") == true)
        #expect(b.screen.notice?.kind == .problem)
        // A long notice pages every 2 s (the next page is a deadline), and ends at 8 s.
        #expect(b.nextDeadline == start + .seconds(2))
        _ = b.handle(.tick(at: start + .seconds(6)))
        #expect(b.screen.noticePage == 3)
        #expect(b.nextDeadline == start + .seconds(8))
        _ = b.handle(.tick(at: start + .milliseconds(7999)))
        #expect(b.screen.notice != nil)
        _ = b.handle(.tick(at: start + .seconds(8)))
        #expect(b.screen.notice == nil)
        _ = b.handle(.saveFailed("disk full", at: start + .seconds(9)))
        #expect(b.screen.notice == Notice("Settings not saved: disk full", kind: .problem, at: start + .seconds(9)))
        _ = b.handle(.part("Sound device", working: false, at: start + .seconds(10)))
        #expect(b.screen.notice?.text == "Sound device missing")
        _ = b.handle(.part("Sound device", working: true, at: start + .seconds(11)))
        #expect(b.screen.notice == Notice("Sound device is back", kind: .info, at: start + .seconds(11)))
    }

    @Test mutating func silentPracticeIsAnEffectFromTheStart() throws {
        var saved = SavedState()
        saved.preferences.silentPractice = true
        let b = try box(saved)
        #expect(b.startupEffects == [.silentPractice(true), .darkGap(false), .applySettings(saved.settings)])
    }

    @Test mutating func reducerIsPure() throws {
        let start = try box()
        let time = clock.advance(ms: 300)
        let (a, effectsA) = reduce(start, .detent(1, at: time))
        let (b, effectsB) = reduce(start, .detent(1, at: time))
        #expect(effectsA == effectsB)
        #expect(a.saved == b.saved)
        #expect(a.settings.tempo == Tempo(clampingWholeBPM: 121))
        // The state handed in is a value: reducing it again from scratch gives the same.
        let (c, _) = reduce(start, .detent(-1, at: time))
        #expect(c.settings.tempo == Tempo(clampingWholeBPM: 119))
        #expect(ScreenPresenter.model(for: a, grid: nil) == ScreenPresenter.model(for: b, grid: nil))
    }
}

@Suite struct SettingsFileTests {
    @Test func roundTripsEverything() throws {
        var saved = SavedState()
        saved.settings.tempo = try Tempo(Rational(185, 2))
        saved.settings.meter = try Meter(7, 8)
        saved.settings.beatUnit = try BeatUnit(division: 8)
        saved.settings.accents = try AccentPattern(parsing: "Xx.Xx.x")
        saved.settings.subdivisions = try Subdivisions([2, 3])
        try saved.settings.volumes.set("sub3", to: 35)
        saved.settings.sound = "my \"clicks\""
        saved.preferences.momentum = false
        saved.preferences.footswitch = .tap
        saved.preferences.screenDimSeconds = 0
        var ballad = MetronomeSettings()
        ballad.tempo = try Tempo(Rational(92125, 1000))
        saved.presets = [Preset(name: "Ballad", settings: ballad), Preset(name: "Fast", settings: MetronomeSettings())]
        let text = SettingsFile.encode(saved)
        #expect(text.contains("schema = 1\n"))
        #expect(text.contains("bpm = 92.5\n"))
        #expect(text.contains("[[preset]]\nname = \"Ballad\"\nbpm = 92.125\n"))
        #expect(try SettingsFile.decode(text, file: "settings.toml") == saved)
    }

    /// A file exactly as the box wrote it before the meter rule and the new navigation
    /// (schema 1): every value the user set comes back, including a beat unit that is
    /// not 1/denominator.
    @Test func schemaOneFilesFromEarlierBoxesKeepEveryValue() throws {
        let text = """
        # Tactus settings, written by the box a moment after each change.
        schema = 1

        [current]
        bpm = 92.5
        meter = "7/8"
        beat-unit = "1/4"
        accents = "Xx.Xx.x"
        subdivisions = "2,3"
        sound = "clave"

        [current.volumes]
        master = 70
        accent = 100
        beat = 55
        sub2 = 60
        sub3 = 35
        sub4 = 60
        sub5 = 60
        sub6 = 60
        sub7 = 60
        sub8 = 60
        sub9 = 10

        [preferences]
        momentum = false
        tap-tolerance = 30
        screen-dim-seconds = 0
        footswitch = "tap"
        silent-practice = true

        [[preset]]
        name = "Ballad"
        bpm = 66
        meter = "6/8"
        beat-unit = "1/4."
        accents = "X"
        subdivisions = "none"
        sound = "woodblock"

        [preset.volumes]
        master = 80
        accent = 100
        beat = 80
        sub2 = 60
        sub3 = 60
        sub4 = 60
        sub5 = 60
        sub6 = 60
        sub7 = 60
        sub8 = 60
        sub9 = 60

        """
        let saved = try SettingsFile.decode(text, file: "settings.toml")
        #expect(saved.settings.tempo == (try Tempo(Rational(185, 2))))
        #expect(saved.settings.meter == (try Meter(7, 8)))
        #expect(saved.settings.beatUnit == .quarter)
        #expect(saved.settings.accents.description == "Xx.Xx.x")
        #expect(saved.settings.subdivisions == (try Subdivisions([2, 3])))
        #expect(saved.settings.volumes.description == (try { var v = Volumes(); try v.apply(parsing: "master=70,beat=55,sub3=35,sub9=10"); return v }()).description)
        #expect(saved.settings.sound == "clave")
        #expect(!saved.preferences.momentum && saved.preferences.tapTolerancePercent == 30 && saved.preferences.screenDimSeconds == 0)
        #expect(saved.preferences.footswitch == .tap && saved.preferences.silentPractice)
        #expect(saved.presets.map(\.name) == ["Ballad"])
        #expect(saved.presets[0].settings.beatUnit == (try BeatUnit(parsing: "1/4.")))
        // Written again, it reads back the same.
        #expect(try SettingsFile.decode(SettingsFile.encode(saved), file: "s.toml") == saved)
    }

    @Test func aMeterWithoutABeatUnitCountsInItsDenominator() throws {
        let saved = try SettingsFile.decode("schema = 1\n[current]\nmeter = \"7/8\"\n", file: "s.toml")
        #expect(saved.settings.beatUnit == (try BeatUnit(division: 8)))
        #expect(saved.settings.beatCount == 7)
    }

    @Test func missingSectionsAreDefaults() throws {
        #expect(try SettingsFile.decode("schema = 1\n", file: "s.toml") == SavedState())
    }

    @Test(arguments: [
        ("schema = 1\n[current]\nbpm = 1000\n", "s.toml:3: current.bpm = 1000 is invalid: allowed 1 to 999, at most 3 decimals"),
        ("schema = 1\n[current]\nmeter = \"4/0\"\n", "s.toml:3: current.meter = \"4/0\" is invalid: numerator and denominator must each be 1 to 99"),
        ("schema = 1\n[preferences]\ntap-tolerance = 80\n", "s.toml:3: preferences.tap-tolerance = 80 is invalid: allowed a whole number from 5 to 50"),
        ("schema = 2\n", "s.toml:1: schema = 2 is invalid: this version of Tactus reads schema 1 or older"),
        ("[current]\nbpm = 100\n", "s.toml: schema: missing; the file format version, 1"),
        ("schema = 1\n[current]\ntempo = 100\n", "s.toml:3: current.tempo: unknown key; allowed keys here: bpm, meter, beat-unit, accents, subdivisions, volumes, sound, swing, groove, poly"),
        ("schema = 1\n[[preset]]\nbpm = 100\n", "s.toml:2: preset[0].name: missing; the preset's name in quotes"),
        ("schema = 1\n[current\n", "s.toml:2:9: expected ']' to close the table header"),
    ])
    func invalidFilesNameLineFieldValueAndRange(text: String, message: String) {
        do {
            _ = try SettingsFile.decode(text, file: "s.toml")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description == message)
        }
    }
}
