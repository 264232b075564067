import Testing
@testable import TactusCore

@Suite struct BoxStateTests {
    var clock = ManualClock()

    func box(_ saved: SavedState = SavedState()) throws -> BoxState {
        try BoxState(saved: saved, soundNames: ["woodblock", "beep", "clave"], at: clock.now)
    }

    mutating func press(_ box: inout BoxState, _ button: ControlButton, holdMS: Double = 80) -> [Effect] {
        var effects = box.handle(.buttonEdge(button, pressed: true, at: clock.advance(ms: 10)))
        effects += box.handle(.buttonEdge(button, pressed: false, at: clock.advance(ms: holdMS)))
        effects += box.handle(.tick(at: clock.advance(ms: 400)))
        return effects
    }

    @Test mutating func startStopTogglesPlayback() throws {
        var b = try box()
        let effects = b.handle(.buttonEdge(.startStop, pressed: true, at: clock.advance(ms: 10)))
        #expect(effects.contains(.start))
        #expect(b.isPlaying)
        #expect(effects.contains { if case .screen(let s) = $0 { s.isPlaying } else { false } })
        _ = b.handle(.buttonEdge(.startStop, pressed: false, at: clock.advance(ms: 50)))
        #expect(b.handle(.buttonEdge(.startStop, pressed: true, at: clock.advance(ms: 500))).contains(.stop))
        #expect(!b.isPlaying)
    }

    @Test mutating func wheelTurnsChangeTempoAndEngineAndBuzzer() throws {
        var b = try box()
        var effects: [Effect] = []
        for _ in 0..<3 { effects += b.handle(.detent(1, at: clock.advance(ms: 400))) }
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 123))
        #expect(effects.filter { $0 == .buzzer(.tick) }.count == 3)
        #expect(effects.contains(.applySettings(b.settings)))
        #expect(b.screen.bpm == "123")
        #expect(b.screen.marking == "Allegro")
    }

    @Test mutating func encoderEdgesGoThroughTheDecoder() throws {
        var b = try box()
        for (line, high) in [(QuadratureDecoder.Line.b, true), (.a, true), (.b, false), (.a, false)] {
            _ = b.handle(.encoderEdge(line, isHigh: high, at: clock.advance(ms: 100)))
        }
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
        var expected = MetronomeSettings()
        expected.tempo = Tempo(clampingWholeBPM: 120)
        #expect(effects.contains(.applySettings(expected)) == false)  // 120 is the default: no change
        for _ in 0..<2 {
            effects += b.handle(.buttonEdge(.tap, pressed: true, at: clock.advance(ms: 250)))
            effects += b.handle(.buttonEdge(.tap, pressed: false, at: clock.advance(ms: 50)))
            clock.now = clock.now + .milliseconds(-50)
        }
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 240))
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
        #expect(other.handle(.gesture(.footswitch, .press, at: clock.advance(ms: 10))) .contains(.start))
    }

    @Test mutating func shortPressCyclesModesAndFieldsDoublePressReturnsToTempo() throws {
        var b = try box()
        _ = press(&b, .wheel)
        #expect(b.mode == .accents)
        #expect(b.screen.fieldLabel == "accent every")
        #expect(b.screen.fieldValue == "4")  // the default, beat 1 accented, is "every 4" in 4/4
        // Accent every 2 beats in 4/4.
        _ = b.handle(.detent(-1, at: clock.advance(ms: 300)))
        _ = b.handle(.detent(-1, at: clock.advance(ms: 300)))
        #expect(b.settings.accents == .accentEvery(2, beats: 4))
        // Beat 2: normal -> muted.
        _ = press(&b, .wheel)
        _ = press(&b, .wheel)
        #expect(b.screen.fieldLabel == "beat 2")
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(b.settings.accents.description == "X.Xx")
        for _ in 0..<3 { _ = press(&b, .wheel) }
        #expect(b.mode == .meter)
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))
        _ = press(&b, .wheel)
        for _ in 0..<4 { _ = b.handle(.detent(1, at: clock.advance(ms: 300))) }
        #expect(b.settings.meter == (try Meter(5, 8)))
        // Double press: back to tempo.
        _ = b.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 10)))
        _ = b.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 60)))
        _ = b.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 120)))
        _ = b.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 60)))
        _ = b.handle(.tick(at: clock.advance(ms: 1000)))
        #expect(b.mode == .tempo)
        #expect(b.field == 0)
    }

    @Test mutating func otherModesAdjustTheirValuesWithTicksAndBumps() throws {
        var b = try box()
        b.mode = .beatUnit
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(b.settings.beatUnit.description == "1/4.")
        b.mode = .subdivisions
        #expect(b.handle(.detent(-1, at: clock.advance(ms: 300))).contains(.buzzer(.bump)))
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(b.settings.subdivisions == (try Subdivisions([3])))
        b.mode = .sound
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(b.settings.sound == "beep")
        b.mode = .volumes
        b.field = 3  // sub3, the only active layer
        #expect(b.screen.fieldLabel == "sub3 volume")
        #expect(b.handle(.detent(1, at: clock.advance(ms: 300))).contains(.buzzer(.tick)))
        #expect(b.settings.volumes.layer(3) == 65)
    }

    @Test mutating func menuMarkingSetsItsTypicalTempo() throws {
        var b = try box()
        _ = b.handle(.buttonEdge(.wheel, pressed: true, at: clock.advance(ms: 10)))
        let effects = b.handle(.tick(at: clock.advance(ms: 700)))
        _ = b.handle(.buttonEdge(.wheel, pressed: false, at: clock.advance(ms: 10)))
        #expect(b.menu?.page == .root)
        #expect(effects.contains { if case .screen(let s) = $0 { s.menu?.title == "Menu" } else { false } })
        _ = press(&b, .wheel)  // Tempo markings
        #expect(b.screen.menu?.items.first == "Adagio 70")
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))  // Allegro
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))  // Andante
        _ = press(&b, .wheel)
        #expect(b.menu == nil)
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 92))
        #expect(b.screen.marking == "Andante")
        // The wheel continues from the new tempo.
        _ = b.handle(.detent(1, at: clock.advance(ms: 400)))
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 93))
    }

    @Test mutating func menuSettingsChangeMomentumAndPresetsSave() throws {
        var b = try box()
        b.menu = MenuState(page: .settings)
        _ = press(&b, .wheel)           // edit momentum
        _ = b.handle(.detent(1, at: clock.advance(ms: 300)))
        #expect(b.saved.preferences.momentum == false)
        #expect(b.wheel.tuning.momentum == false)
        _ = press(&b, .wheel)
        b.menu = MenuState(page: .presets)
        _ = press(&b, .wheel)           // save current
        #expect(b.saved.presets == [Preset(name: "Preset 1", settings: b.settings)])
        #expect(b.screen.notice == "Saved as Preset 1")
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

    @Test mutating func loadProblemAndSaveFailureAreShown() throws {
        var b = try BoxState(problem: "settings.toml was corrupt; kept as settings.corrupt-1.toml", at: clock.now)
        #expect(b.screen.notice?.contains("corrupt") == true)
        _ = b.handle(.tick(at: clock.advance(ms: 9000)))
        #expect(b.screen.notice == nil)
        _ = b.handle(.saveFailed("disk full", at: clock.advance(ms: 10)))
        #expect(b.screen.notice == "Settings not saved: disk full")
    }

    @Test mutating func reducerIsPureAndOneStepCostsMicroseconds() throws {
        let start = try box()
        let (a, effectsA) = reduce(start, .detent(1, at: clock.advance(ms: 300)))
        let (b, effectsB) = reduce(start, .detent(1, at: clock.now))
        #expect(effectsA == effectsB)
        #expect(a.saved == b.saved)
        #expect(start.settings.tempo == Tempo(clampingWholeBPM: 120))
        var box = start
        let c = ContinuousClock()
        let elapsed = c.measure {
            for _ in 0..<2000 { _ = box.handle(.detent(1, at: clock.advance(ms: 300))) }
        }
        #expect(elapsed < .seconds(1))  // well under a millisecond per step, even in debug
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
