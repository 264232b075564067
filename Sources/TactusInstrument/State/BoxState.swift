// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusTimeline
import TactusMusic
/// A message on the screen for a while: a few seconds for news, longer for problems.
public struct Notice: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case info, problem }

    public static let infoDuration: Duration = .seconds(3)
    public static let problemDuration: Duration = .seconds(8)

    /// A notice longer than its box is shown a page of lines at a time, this long each.
    public static let pageDuration: Duration = .seconds(2)

    public var text: String
    public var kind: Kind
    public var until: MonotonicTime
    public var shownAt: MonotonicTime

    public init(_ text: String, kind: Kind, at time: MonotonicTime) {
        self.text = text
        self.kind = kind
        self.shownAt = time
        self.until = time + (kind == .problem ? Notice.problemDuration : Notice.infoDuration)
    }

    /// Which page of a long notice is up at `time` (the screen shows page n modulo its pages).
    public func page(at time: MonotonicTime) -> Int {
        Int(max(0, (time - shownAt).nanosecondCount) / Notice.pageDuration.nanosecondCount)
    }

    /// When the next page comes up, if before the notice ends.
    func nextPageTime(after time: MonotonicTime) -> MonotonicTime? {
        let next = shownAt + Notice.pageDuration * (page(at: time) + 1)
        return next < until ? next : nil
    }
}

/// When to write the settings file: 2 s after the last change, and at least every 10 s
/// while changes keep coming.
public struct SaveSchedule: Sendable, Hashable {
    public static let delay: Duration = .seconds(2)
    public static let longestDelay: Duration = .seconds(10)

    public private(set) var due: MonotonicTime?
    private var firstUnsavedChange: MonotonicTime?

    mutating func changed(at now: MonotonicTime) {
        let first = firstUnsavedChange ?? now
        firstUnsavedChange = first
        due = min(now + SaveSchedule.delay, first + SaveSchedule.longestDelay)
    }

    /// True when the file is due now (and the schedule starts over).
    mutating func isDue(at now: MonotonicTime) -> Bool {
        guard let due, now >= due else { return false }
        self.due = nil
        firstUnsavedChange = nil
        return true
    }
}

/// What the screen shows beside the settings and the beat animation (the screen reads
/// those from the state and the grid): a change here is a `.screen` effect.
public struct BoxView: Sendable, Hashable {
    public var marking: String
    public var mode: WheelMode
    public var field: Field
    public var menu: MenuModel?
    public var dimmed: Bool
    /// A message that must be seen, shown for a while.
    public var notice: Notice?
    /// The page of a notice too long for its box (`Notice.page(at:)`).
    public var noticePage: Int = 0
    /// The knob's position between detents (-1 < x < 1), so rings turn part-way with it.
    public var turning: Double
    /// Song mode, or a song playing: what the song page shows.
    public var song: SongView? = nil
    /// The Coach page's figures (in coach mode).
    public var coach: CoachPanel? = nil
    /// In a Link session (Sync: Link): the number of other peers, for the Link mark.
    public var linkPeers: Int? = nil
    /// Following a MIDI clock (Sync: MIDI): the sync mark, tempo and position.
    public var midiSync: MIDISyncView? = nil
}

/// Following a MIDI clock (Sync: MIDI): what the screen's sync mark shows, the followed
/// tempo (also the state's `bpm`) and the position a Song Position Pointer set.
public struct MIDISyncView: Sendable, Hashable {
    public var lock: MIDIClockFollower.Lock
    /// The followed tempo averaged over 96 clocks, with one decimal ("120.0"), in the beat
    /// unit's BPM; nil before two clocks.
    public var bpm: String?
    /// Bar and beat (from 1) a Song Position Pointer set, until the next start.
    public var bar: Int64?
    public var beat: Int?

    public init(lock: MIDIClockFollower.Lock, bpm: String? = nil, bar: Int64? = nil, beat: Int? = nil) {
        self.lock = lock
        self.bpm = bpm
        self.bar = bar
        self.beat = beat
    }

    /// The mark: "M" and locked "=", locking "~", lost "?"; then the position, e.g. "M= 3.2".
    public var mark: String {
        let sign = switch lock {
        case .locked: "="
        case .locking: "~"
        case .lost: "?"
        }
        guard let bar, let beat else { return "M\(sign)" }
        return "M\(sign) \(bar).\(beat)"
    }
}

public struct MenuModel: Sendable, Hashable {
    public var page: MenuPage
    public var title: String
    public var entries: [MenuEntry]
    public var selected: Int
    /// The selected item's value is being changed by the wheel.
    public var editing: Bool
    /// Menu > Tone: the page is the tone, not a list.
    public var tone: ToneView? = nil

    public var items: [String] { entries.map(\.text) }
}

/// The whole box, as one value: small typed machines for tempo (wheel and tap), transport,
/// navigation (modes and fields), the menu, saving and notices. `handle` is the only way
/// it changes; everything it wants done outside comes back as an `Effect`.
public struct BoxState: Sendable {
    public var saved: SavedState
    public var settings: MetronomeSettings {
        get { saved.settings }
        set { saved.settings = newValue }
    }
    public internal(set) var transport = Transport()
    /// The coach's figures for the Coach page (`Action.coachHit`).
    public internal(set) var coach = CoachPanel()
    public internal(set) var navigation = Navigation()
    public internal(set) var menu: MenuState?
    public internal(set) var notice: Notice?
    public internal(set) var now: MonotonicTime
    public internal(set) var tempo: TempoControl
    public internal(set) var saves = SaveSchedule()
    /// Song mode: the song chosen, the practice program, where the song is.
    public internal(set) var practice = SongPractice()
    /// Pairing with the browser companion: the code shown and the paired browsers' hashes.
    public internal(set) var companion = Companion()
    public internal(set) var soundNames: [String]
    /// Other peers in the Link session (Sync: Link), as the box last heard.
    public internal(set) var linkPeers = 0
    /// Following a MIDI clock: the sync mark, the followed tempo, the position (Sync: MIDI).
    public internal(set) var midiSync: MIDISyncView?
    /// Menu > Coach > Calibrate is playing its clicks (until `.coachCalibrated`).
    public internal(set) var calibratingCoach = false
    /// What the last calibration said ("Calibrated: round trip 23.4 ms"), for the companion.
    public internal(set) var lastCoachCalibration: String?

    var decoder: QuadratureDecoder
    let reverseEncoder: Bool
    var buttons: ControlButtons
    var lastActivity: MonotonicTime
    /// Effects asked for deep inside a handler that returns none (a menu choice).
    var pendingEffects: [Effect] = []

    public var isPlaying: Bool { transport.isPlaying }
    /// The Coach page is up: its mode, or its field on song mode's ring.
    var showsCoach: Bool { mode == .coach || (mode == .song && field == .songCoach) }
    public var mode: WheelMode { navigation.mode }
    public var field: Field { navigation.field(for: settings) }

    /// - Parameters:
    ///   - saved: what the settings file held (or defaults).
    ///   - problem: why the settings file could not be used, shown on the screen.
    ///   - soundNames: the sound sets the sound mode offers.
    ///   - encoderStepsPerDetent, reverseEncoder: from the board file.
    ///   - encoderContacts: the encoder's A and B contacts (closed = true) at start, read from
    ///     the lines: the decoder's rest phase is wherever the knob sits now.
    public init(saved: SavedState = SavedState(), problem: String? = nil, soundNames: [String] = ["woodblock"],
                encoderStepsPerDetent: Int = 4, reverseEncoder: Bool = false, encoderContacts: (a: Bool, b: Bool) = (false, false),
                buttonTiming: ButtonTiming = ButtonTiming(), at time: MonotonicTime) throws(SettingError) {
        self.saved = saved
        self.companion = Companion(browsers: saved.browsers)
        self.soundNames = soundNames.isEmpty ? [saved.settings.sound] : soundNames
        self.now = time
        self.lastActivity = time
        self.tempo = TempoControl(bpm: saved.settings.tempo.bpm.doubleValue, preferences: saved.preferences)
        self.decoder = try QuadratureDecoder(stepsPerDetent: encoderStepsPerDetent, initialA: encoderContacts.a,
                                             initialB: encoderContacts.b)
        self.reverseEncoder = reverseEncoder
        self.buttons = ControlButtons(timing: buttonTiming)
        if let problem { notice = Notice(problem, kind: .problem, at: time) }
    }

    /// What the outside world must do before the first action: the engine's settings,
    /// whether silent practice mutes it and whether the LEDs rest in a gap.
    public var startupEffects: [Effect] {
        // No tone: it starts off after every restart (Preferences.toneOn is not saved).
        [.silentPractice(saved.preferences.silentPractice), .darkGap(saved.preferences.darkGap), .applySettings(settings)]
    }

    /// The reference tone as it should sound now (nil: off).
    public var soundingTone: ReferenceTone? { saved.preferences.toneOn ? saved.preferences.tone : nil }

    /// The input layer lost encoder edges (LineEdge.missedBefore): the decoder must not count
    /// across the hole.
    public mutating func encoderLostEdges() {
        decoder.lostEdges()
    }

    /// When the box next needs a `.tick`, if anything is pending.
    public var nextDeadline: MonotonicTime? {
        var deadlines = [buttons.nextDeadline].compactMap { $0 }
        if let d = tempo.nextDeadline { deadlines.append(d) }
        if let d = saves.due { deadlines.append(d) }
        if let d = notice?.until { deadlines.append(d) }
        if let d = notice?.nextPageTime(after: now) { deadlines.append(d) }
        if let d = practice.timerEnds { deadlines.append(d) }
        if let d = companion.codeUntil, d > now { deadlines.append(d) }
        if let dim = dimAt, dim > now { deadlines.append(dim) }
        return deadlines.min()
    }

    var dimAt: MonotonicTime? {
        guard !isPlaying, saved.preferences.screenDimSeconds > 0 else { return nil }
        return lastActivity + .seconds(saved.preferences.screenDimSeconds)
    }

    public var screen: BoxView {
        let direction = reverseEncoder ? -1.0 : 1.0
        let following = saved.preferences.sync == .midi ? midiSync : nil
        return BoxView(
            marking: TempoMarking.of(settings.tempo).name, mode: mode, field: field,
            menu: menu.map(menuModel), dimmed: dimAt.map { now >= $0 } ?? false, notice: notice,
            noticePage: notice?.page(at: now) ?? 0, turning: decoder.partialDetent * direction, song: songView,
            coach: showsCoach ? coach : nil,
            linkPeers: saved.preferences.sync == .link ? linkPeers : nil, midiSync: following)
    }

    func menuModel(_ menu: MenuState) -> MenuModel {
        MenuModel(page: menu.page, title: menu.page.title, entries: MenuState.entries(menu.page, saved: saved, companion: companion),
                  selected: menu.selected, editing: menu.editing, tone: menu.page == .tone ? ToneView(saved.preferences) : nil)
    }
}

/// The reducer: the next state and what to do about it.
public func reduce(_ state: BoxState, _ action: Action) -> (BoxState, [Effect]) {
    var next = state
    let effects = next.handle(action)
    return (next, effects)
}

extension BoxState {
    /// Applies one action in place and returns its effects: one sub-reducer per group.
    public mutating func handle(_ action: Action) -> [Effect] {
        let before = (saved: saved, screen: screen)
        now = max(now, action.time)
        var effects: [Effect]
        switch action {
        case .control(let control): effects = handle(control)
        case .tick: effects = tick()
        case .system(let event): effects = reduceSystem(event)
        case .song(let event): effects = reduceSong(event)
        case .coach(let event): effects = reduceCoach(event)
        case .sync(let event): effects = reduceSync(event)
        case .remote(let request, _): effects = remote(request)
        }
        effects += settle(since: before)
        return effects
    }

    /// The physical controls (and the simulator's keys for them).
    private mutating func handle(_ action: ControlAction) -> [Effect] {
        lastActivity = now
        switch action {
        // Edges and detents count at their own (kernel) time, not when they are handled: a
        // backlog (a busy control thread, input read late) must not squeeze taps together or
        // turn slow detents into a fast flick.
        case .encoderEdge(let line, let isHigh, let time):
            let direction = decoder.edge(line, isHigh: isHigh)
            return direction != 0 ? detent(reverseEncoder ? -direction : direction, at: time) : []
        case .buttonEdge(let button, let pressed, let time):
            return buttons[button].edge(pressed: pressed, at: time).flatMap { gesture(button, $0.gesture, at: $0.at) }
        case .detent(let direction, let time):
            return detent(direction, at: time)
        case .pushedDetent(let direction, _):
            return turnFieldRing(direction)
        case .gesture(let button, let gesture, _):
            return self.gesture(button, gesture, at: now)
        }
    }

    /// Time: held buttons, the wheel's glide, the practice timer.
    private mutating func tick() -> [Effect] {
        var effects: [Effect] = []
        for button in ControlButton.allCases {
            for event in buttons[button].advance(to: now) { effects += gesture(button, event.gesture, at: event.at) }
        }
        effects += tempoChanges(tempo.advance(to: now))
        effects += practiceTimerCheck()
        return effects
    }

    /// After any action: notices and pairing codes that ran out, the companion switched off,
    /// the menus kept in range, and the effects of what changed (settings, preferences, the
    /// screen, a save that is due).
    private mutating func settle(since before: (saved: SavedState, screen: BoxView)) -> [Effect] {
        var effects: [Effect] = []
        if let until = companion.codeUntil, now >= until { companion.code = nil; companion.codeUntil = nil }
        if let until = notice?.until, now >= until { notice = nil }
        effects += pendingEffects
        pendingEffects = []
        if !saved.preferences.companion, !companion.browsers.isEmpty || companion.code != nil {
            // Switched off at the box: every pairing ends with it.
            companion = Companion()
        }
        // Paired and revoked browsers are saved with the settings (atomically, as any change).
        if saved.browsers != companion.browsers { saved.browsers = companion.browsers }
        navigation.clamp(to: settings, songPlaying: practice.isLoaded && isPlaying)
        if saved != before.saved { saves.changed(at: now) }
        if saved.settings != before.saved.settings { effects.append(.applySettings(saved.settings)) }
        if saved.preferences.silentPractice != before.saved.preferences.silentPractice {
            effects.append(.silentPractice(saved.preferences.silentPractice))
        }
        if saved.preferences.darkGap != before.saved.preferences.darkGap { effects.append(.darkGap(saved.preferences.darkGap)) }
        if saved.preferences.sync != before.saved.preferences.sync { effects.append(.sync(saved.preferences.sync)) }
        if soundingTone != (before.saved.preferences.toneOn ? before.saved.preferences.tone : nil) { effects.append(.tone(soundingTone)) }
        if saves.isDue(at: now) { effects.append(.save(saved)) }
        let screen = self.screen
        if screen != before.screen { effects.append(.screen(screen)) }
        return effects
    }

    mutating func show(_ message: String, _ kind: Notice.Kind) {
        notice = Notice(message, kind: kind, at: now)
    }

    // MARK: Buttons

    mutating func gesture(_ button: ControlButton, _ gesture: ButtonGesture, at time: MonotonicTime) -> [Effect] {
        if calibratingCoach, gesture == .press, button == .startStop || button == .footswitch {
            // START during the calibration's clicks ends them; the next START plays.
            calibratingCoach = false
            show("Calibrate: cancelled", .info)
            lastCoachCalibration = notice?.text
            return [.cancelCoachCalibration, .applySettings(settings)]
        }
        if menu == nil, let effects = songGesture(button, gesture) { return effects }
        switch (button, gesture) {
        case (.footswitch, .press) where saved.preferences.footswitch == .tap:
            return self.gesture(.tap, .press, at: time)
        case (.tap, .press):
            if let tapped = tempo.tap(at: time) { setTempo(tapped) }
        case (.startStop, .press), (.footswitch, .press):
            return [transport.toggle()]
        case (.wheel, .shortPress) where menu == nil && showsCoach:
            coach.reset()
        case (.wheel, .shortPress):
            if menu != nil { menuSelect() } else { navigation.nextMode() }
        case (.wheel, .longPress):
            menu = menu == nil ? MenuState(page: .root) : nil
        case (.wheel, .doublePress):
            menu = nil
            navigation.home()
        default:
            break
        }
        return []
    }

    mutating func setTempo(_ new: Tempo) {
        settings.tempo = new
        tempo.set(new)
    }

    // MARK: Wheel

    mutating func detent(_ direction: Int, at time: MonotonicTime) -> [Effect] {
        if buttons[.wheel].isPressed {
            // Turning while held down turns the field ring; the push is not a press any more.
            buttons[.wheel].usePress()
            return turnFieldRing(direction)
        }
        if menu != nil { return menuTurn(direction) }
        if mode == .song { return songDetent(direction, at: time) }
        if field == .tempo, practice.isLoaded, let bpm = practice.bpm, Int(bpm.rounded()) != Int(settings.tempo.bpm.doubleValue.rounded()) {
            // During a song the wheel turns from the tempo playing (a ramp ends there).
            setTempo(Tempo(clampingWholeBPM: Int(bpm.rounded())))
        }
        if field == .tempo { return tempoChanges(tempo.detent(direction, at: time)) }
        return [.buzzer(FieldEditor.adjust(field, by: direction, in: &settings, soundNames: soundNames) ? .tick : .bump, at: time)]
    }

    mutating func turnFieldRing(_ direction: Int) -> [Effect] {
        if let menu {
            guard let moved = menu.pushedTurn(direction, preferences: &saved.preferences) else { return [] }
            return [.buzzer(moved ? .tick : .bump, at: now)]
        }
        return [.buzzer(navigation.turnFields(by: direction, settings: settings) ? .tick : .bump, at: now)]
    }

    mutating func tempoChanges(_ change: (bpm: Int?, effects: [Effect])) -> [Effect] {
        if let bpm = change.bpm { settings.tempo = Tempo(clampingWholeBPM: bpm) }
        return change.effects
    }

    // MARK: Menu (its own transitions are MenuState's; a choice that changes the box is done here)

    mutating func menuTurn(_ direction: Int) -> [Effect] {
        guard var m = menu else { return [] }
        let entries = MenuState.entries(m.page, saved: saved, companion: companion)
        let moved = m.turn(direction, preferences: &saved.preferences, entries: entries)
        menu = m
        tempo.follow(saved.preferences)
        return [.buzzer(moved ? .tick : .bump, at: now)]
    }

    mutating func menuSelect() {
        guard var m = menu else { return }
        let entries = MenuState.entries(m.page, saved: saved, companion: companion)
        switch m.push(entries, saved: saved, settings: settings) {
        case nil, .open, .edit:
            break
        case .back:
            menu = nil
            return
        case .chooseMarking(let marking):
            setTempo(Tempo(clampingWholeBPM: marking.typicalBPM))
            menu = nil
            return
        case .savePreset:
            let name = "Preset \(saved.presets.count + 1)"
            saved.presets.append(Preset(name: name, settings: settings))
            show("Saved as \(name)", .info)
        case .songs:
            navigation.open(.song)
            menu = nil
            return
        case .coach:
            navigation.open(.coach)
            menu = nil
            return
        case .calibrateCoach:
            pendingEffects += calibrateCoach()
            return
        case .loadPreset(let index):
            settings = saved.presets[index].settings
            tempo.set(settings.tempo)
            menu = nil
            return
        case .pairBrowser:
            pendingEffects.append(.drawPairingCode)
        case .revokeBrowser(let id):
            _ = companion.revoke(id)
            m.selected = min(m.selected, MenuState.entries(m.page, saved: saved, companion: companion).count - 1)
            show("Browser \(id) revoked", .info)
        case .toggleTone:
            saved.preferences.toneOn.toggle()
        }
        menu = m
    }

    /// Play or stop as START does (a song plays or stops as its START does), marked with
    /// where it came from so the box places the start; nothing when already so.
    mutating func setPlaying(_ playing: Bool, from origin: TransportOrigin) -> [Effect] {
        guard playing != isPlaying else { return [] }
        return gesture(.startStop, .press, at: now).map { effect in
            switch effect {
            case .start: .start(origin)
            case .stop: .stop(origin)
            default: effect
            }
        }
    }

    // MARK: Coach calibration

    /// Menu > Coach > Calibrate (or the companion): stops what plays, shows the Coach page
    /// and has the box play the calibration clicks.
    mutating func calibrateCoach() -> [Effect] {
        guard !calibratingCoach else { return [] }
        menu = nil
        navigation.open(.coach)
        let stop = setPlaying(false, from: .box)
        calibratingCoach = true
        show("Calibrating: \(CoachCalibrationOutcome.clicks) clicks, quiet please", .info)
        return stop + [.calibrateCoach]
    }

    /// The calibration's outcome: a round trip is kept (and saved); the engine gets the
    /// box's settings back either way.
    mutating func coachCalibrated(_ outcome: CoachCalibrationOutcome) -> [Effect] {
        guard calibratingCoach else { return [] } // cancelled meanwhile
        calibratingCoach = false
        switch outcome {
        case .roundTrip(let microseconds, let gain):
            let kept = min(max(microseconds, Preferences.coachRoundTripRange.lowerBound), Preferences.coachRoundTripRange.upperBound)
            saved.preferences.coachRoundTripMicroseconds = kept
            // This microphone and speaker now: a gain measured with others no longer holds.
            saved.preferences.coachClickGainDecibels = gain.map {
                (min(max($0, Preferences.coachClickGainRange.lowerBound), Preferences.coachClickGainRange.upperBound) * 100).rounded() / 100
            }
            show("Calibrated: round trip \(MenuState.milliseconds(kept))", .info)
        case .notHeard: show("Calibrate: clicks not heard", .problem)
        case .clicksMissing(let count): show("Calibrate: \(count) of \(CoachCalibrationOutcome.clicks) clicks not heard, again in quiet", .problem)
        case .noInput: show("Calibrate: no coach input", .problem)
        }
        lastCoachCalibration = notice?.text
        return [.applySettings(settings)]
    }

    // MARK: Companion and control socket

    mutating func remote(_ request: RemoteRequest) -> [Effect] {
        switch request {
        case .settings(let new):
            settings = new
            tempo.set(new.tempo)
        case .transport(let playing):
            return setPlaying(playing, from: .box)
        case .playSong(let name):
            guard let index = songChoices.firstIndex(where: { $0.name == name }) else { return [] }
            var effects = setPlaying(false, from: .box)
            menu = nil
            navigation.open(.song)
            practice.rebase()
            practice.choice = index
            practice.section = 0
            effects += setPlaying(true, from: .box)
            return effects
        case .library(let library):
            saved.library = library
        case .showPairingCode(let code):
            guard saved.preferences.companion else { return [] }
            companion.show(code: code, at: now)
            notice = Notice("Pairing code \(code)", kind: .info, at: now)
            notice?.until = now + Companion.codeLifetime
        case .pair(let code, let token, let name, let client):
            let result = saved.preferences.companion ? companion.pair(code: code, token: token, name: name, client: client, at: now) : .wrongCode
            companion.lastPairing = result
            // Wrong codes and locks leave the screen alone: the code shown stays for the owner.
            if case .paired(let id) = result {
                if notice?.text.hasPrefix("Pairing code") == true { notice = nil }
                show("Browser \(id) paired: \(Companion.shortName(name))", .info)
            }
        case .revoke(let id):
            _ = companion.revoke(id)
        case .preferences(let p):
            var p = p
            p.companion = saved.preferences.companion
            saved.preferences = p
            tempo.follow(p)
        case .soundAdded(let name):
            if !soundNames.contains(name) { soundNames.append(name) }
        case .soundRemoved(let name):
            soundNames.removeAll { $0 == name }
            if settings.sound == name, let first = soundNames.first { settings.sound = first }
        case .companion(let on):
            saved.preferences.companion = on
        case .midiMap(let map):
            saved.midiMap = map
        case .calibrateCoach:
            return calibrateCoach()
        }
        return []
    }
}
