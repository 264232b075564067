/// The physical controls.
public enum ControlButton: String, Sendable, Hashable, CaseIterable {
    case wheel        // the tempo wheel's push switch
    case tap
    case startStop
    case footswitch
}

/// What the wheel sets; a short press of the wheel moves to the next field, and from the
/// last field of a mode to the next mode.
public enum WheelMode: String, Sendable, Hashable, CaseIterable {
    case tempo, accents, meter, beatUnit, subdivisions, sound, volumes
}

/// Everything that happens to the box. Every action carries its time: the reducer never
/// reads a clock.
public enum Action: Sendable, Hashable {
    /// An encoder line changed (kernel edge event).
    case encoderEdge(QuadratureDecoder.Line, isHigh: Bool, at: MonotonicTime)
    /// A button's contact changed (after active-low mapping).
    case buttonEdge(ControlButton, pressed: Bool, at: MonotonicTime)
    /// One decoded detent, +1 or -1 (the simulator's keys).
    case detent(Int, at: MonotonicTime)
    /// A recognised gesture (the simulator's keys).
    case gesture(ControlButton, ButtonGesture, at: MonotonicTime)
    /// Time passes: call at `BoxState.nextDeadline` (or more often).
    case tick(at: MonotonicTime)
    /// Saving the settings file failed; shown on the screen.
    case saveFailed(String, at: MonotonicTime)

    public var time: MonotonicTime {
        switch self {
        case .encoderEdge(_, _, let t), .buttonEdge(_, _, let t), .detent(_, let t), .gesture(_, _, let t),
             .tick(let t), .saveFailed(_, let t):
            t
        }
    }
}

public enum BuzzerCue: Sendable, Hashable {
    /// A wheel detent that changed something.
    case tick
    /// A limit: the value cannot go further.
    case bump
}

/// What the reducer asks the outside world to do.
public enum Effect: Sendable, Hashable {
    /// Hand these settings to the engine (live while playing).
    case applySettings(MetronomeSettings)
    /// Start playing at the beginning of a bar.
    case start
    /// Stop at once (clips in flight finish).
    case stop
    case buzzer(BuzzerCue)
    /// The screen's content changed.
    case screen(BoxView)
    /// Write the settings file now (debounced already).
    case save(SavedState)
}

/// What the screen shows, apart from the beat animation (that follows engine events).
public struct BoxView: Sendable, Hashable {
    public var bpm: String
    public var marking: String
    public var meter: String
    public var isPlaying: Bool
    public var mode: WheelMode
    /// The field the wheel sets in this mode, e.g. "beat 3" or "sub2 volume".
    public var fieldLabel: String
    public var fieldValue: String
    public var menu: MenuModel?
    public var dimmed: Bool
    /// A message that must be seen (settings problems), shown for a while.
    public var notice: String?
}

public struct MenuModel: Sendable, Hashable {
    public var title: String
    public var items: [String]
    public var selected: Int
    /// The selected item's value is being changed by the wheel.
    public var editing: Bool
}

public enum MenuPage: Sendable, Hashable {
    case root, markings, presets, settings
}

public struct MenuState: Sendable, Hashable {
    public var page: MenuPage
    public var selected = 0
    public var editing = false
}

/// The whole box, as one value. `reduce` is the only way it changes.
public struct BoxState: Sendable {
    public static let saveDelay: Duration = .seconds(2)
    /// Continuous turning still saves at least this often.
    public static let longestSaveDelay: Duration = .seconds(10)
    public static let noticeDuration: Duration = .seconds(8)

    public var saved: SavedState
    public var settings: MetronomeSettings {
        get { saved.settings }
        set { saved.settings = newValue }
    }
    public internal(set) var isPlaying = false
    public internal(set) var mode = WheelMode.tempo
    public internal(set) var field = 0
    public internal(set) var menu: MenuState?
    public let soundNames: [String]
    public internal(set) var notice: String?
    public internal(set) var now: MonotonicTime

    var wheel: TempoWheel
    var tap: TapTempo
    var decoder: QuadratureDecoder
    let reverseEncoder: Bool
    var buttons: [ControlButton: ButtonGestures]
    var noticeUntil: MonotonicTime?
    var lastActivity: MonotonicTime
    var saveDue: MonotonicTime?
    var firstUnsavedChange: MonotonicTime?

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
        self.soundNames = soundNames.isEmpty ? [saved.settings.sound] : soundNames
        self.now = time
        self.lastActivity = time
        var tuning = TempoWheel.Tuning()
        tuning.momentum = saved.preferences.momentum
        self.wheel = TempoWheel(bpm: saved.settings.tempo.bpm.doubleValue, tuning: tuning)
        self.tap = TapTempo(tolerancePercent: saved.preferences.tapTolerancePercent)
        self.decoder = try QuadratureDecoder(stepsPerDetent: encoderStepsPerDetent, initialA: encoderContacts.a,
                                             initialB: encoderContacts.b)
        self.reverseEncoder = reverseEncoder
        self.buttons = [
            .wheel: ButtonGestures(timing: buttonTiming, recognisesDoublePress: true),
            .tap: ButtonGestures(timing: buttonTiming, recognisesDoublePress: false),
            .startStop: ButtonGestures(timing: buttonTiming, recognisesDoublePress: false),
            .footswitch: ButtonGestures(timing: buttonTiming, recognisesDoublePress: false),
        ]
        if let problem {
            notice = problem
            noticeUntil = time + BoxState.noticeDuration
        }
    }

    /// The input layer lost encoder edges (LineEdge.missedBefore): the decoder must not count
    /// across the hole.
    public mutating func encoderLostEdges() {
        decoder.lostEdges()
    }

    /// When the box next needs a `.tick`, if anything is pending.
    public var nextDeadline: MonotonicTime? {
        var deadlines = buttons.values.compactMap(\.nextDeadline)
        if let d = wheel.nextDeadline { deadlines.append(d) }
        if let d = saveDue { deadlines.append(d) }
        if let d = noticeUntil { deadlines.append(d) }
        if let dim = dimAt, dim > now { deadlines.append(dim) }
        return deadlines.min()
    }

    var dimAt: MonotonicTime? {
        guard !isPlaying, saved.preferences.screenDimSeconds > 0 else { return nil }
        return lastActivity + .seconds(saved.preferences.screenDimSeconds)
    }

    public var screen: BoxView {
        let (label, value) = fieldText
        return BoxView(
            bpm: settings.tempo.description, marking: TempoMarking.of(settings.tempo).name,
            meter: settings.meter.description, isPlaying: isPlaying, mode: mode, fieldLabel: label,
            fieldValue: value, menu: menu.map(menuModel), dimmed: dimAt.map { now >= $0 } ?? false, notice: notice)
    }
}

/// The reducer: the next state and what to do about it.
public func reduce(_ state: BoxState, _ action: Action) -> (BoxState, [Effect]) {
    var next = state
    let effects = next.handle(action)
    return (next, effects)
}

extension BoxState {
    /// Applies one action in place and returns its effects.
    public mutating func handle(_ action: Action) -> [Effect] {
        let before = (saved: saved, screen: screen, playing: isPlaying)
        now = max(now, action.time)
        var effects: [Effect] = []
        switch action {
        case .encoderEdge(let line, let isHigh, _):
            let direction = decoder.edge(line, isHigh: isHigh)
            if direction != 0 { effects += detent(reverseEncoder ? -direction : direction) }
            lastActivity = now
        case .buttonEdge(let button, let pressed, _):
            let events = buttons[button]!.edge(pressed: pressed, at: now)
            for event in events { effects += gesture(button, event.gesture, at: event.at) }
            lastActivity = now
        case .detent(let direction, _):
            effects += detent(direction)
            lastActivity = now
        case .gesture(let button, let gesture, _):
            effects += self.gesture(button, gesture, at: now)
            lastActivity = now
        case .tick:
            for button in ControlButton.allCases {
                for event in buttons[button]!.advance(to: now) { effects += gesture(button, event.gesture, at: event.at) }
            }
            effects += wheelEvents(wheel.advance(to: now))
        case .saveFailed(let message, _):
            show("Settings not saved: \(message)")
        }
        if let until = noticeUntil, now >= until {
            notice = nil
            noticeUntil = nil
        }
        if saved != before.saved {
            if firstUnsavedChange == nil { firstUnsavedChange = now }
            saveDue = min(now + BoxState.saveDelay, firstUnsavedChange! + BoxState.longestSaveDelay)
        }
        if saved.settings != before.saved.settings { effects.append(.applySettings(saved.settings)) }
        if let due = saveDue, now >= due {
            saveDue = nil
            firstUnsavedChange = nil
            effects.append(.save(saved))
        }
        let screen = self.screen
        if screen != before.screen { effects.append(.screen(screen)) }
        return effects
    }

    mutating func show(_ message: String) {
        notice = message
        noticeUntil = now + BoxState.noticeDuration
    }

    // MARK: Buttons

    mutating func gesture(_ button: ControlButton, _ gesture: ButtonGesture, at time: MonotonicTime) -> [Effect] {
        switch (button, gesture) {
        case (.footswitch, .press) where saved.preferences.footswitch == .tap:
            return self.gesture(.tap, .press, at: time)
        case (.tap, .press):
            if let bpm = tap.tap(at: time) { setTempo(Tempo(clampingWholeBPM: bpm)) }
            return []
        case (.startStop, .press), (.footswitch, .press):
            isPlaying.toggle()
            return [isPlaying ? .start : .stop]
        case (.wheel, .shortPress):
            wheelShortPress()
        case (.wheel, .longPress):
            menu = menu == nil ? MenuState(page: .root) : nil
        case (.wheel, .doublePress):
            menu = nil
            mode = .tempo
            field = 0
        default:
            break
        }
        return []
    }

    mutating func setTempo(_ tempo: Tempo) {
        settings.tempo = tempo
        wheel.set(bpm: tempo.bpm.doubleValue)
    }

    mutating func wheelShortPress() {
        if menu != nil { menuSelect(); return }
        field += 1
        if field >= fieldCount {
            let all = WheelMode.allCases
            mode = all[(all.firstIndex(of: mode)! + 1) % all.count]
            field = 0
        }
    }

    // MARK: Wheel

    mutating func detent(_ direction: Int) -> [Effect] {
        if menu != nil { return menuTurn(direction) }
        if mode == .tempo {
            tap.reset()
            return wheelEvents(wheel.detent(direction, at: now))
        }
        return adjustField(by: direction) ? [.buzzer(.tick)] : [.buzzer(.bump)]
    }

    mutating func wheelEvents(_ events: [TempoWheel.Event]) -> [Effect] {
        var effects: [Effect] = []
        for event in events {
            switch event {
            case .tempo(let bpm): settings.tempo = Tempo(clampingWholeBPM: bpm)
            case .tick: effects.append(.buzzer(.tick))
            case .limit: effects.append(.buzzer(.bump))
            }
        }
        return effects
    }

    var volumeNames: [String] { ["master", "accent", "beat"] + settings.subdivisions.layers.map { "sub\($0)" } }

    var fieldCount: Int {
        switch mode {
        case .tempo, .beatUnit, .subdivisions, .sound: 1
        case .accents: 1 + settings.beatCount
        case .meter: 2
        case .volumes: volumeNames.count
        }
    }

    static let beatUnits: [BeatUnit] = BeatUnit.range.flatMap { d in
        [try! BeatUnit(division: d), try! BeatUnit(division: d, dotted: true)]
    }

    /// All sets of layers, fewest layers first: none, 2 ... 9, 2+3, 2+4 ...
    static let subdivisionChoices: [Subdivisions] = {
        let layers = Array(Subdivisions.range)
        let sets = (0..<(1 << layers.count)).map { mask in layers.indices.filter { mask & (1 << $0) != 0 }.map { layers[$0] } }
        return sets.sorted { $0.count != $1.count ? $0.count < $1.count : $0.lexicographicallyPrecedes($1) }
            .map { try! Subdivisions($0) }
    }()

    /// "Accent every N" when the pattern is one, else nil (edited per beat).
    var accentEvery: Int? {
        let beats = settings.beatCount
        return (0...beats).first { n in
            let pattern = AccentPattern.accentEvery(n, beats: beats)
            return (0..<beats).allSatisfy { pattern.level(ofBeat: $0) == settings.accents.level(ofBeat: $0) }
        }
    }

    /// Moves the current field one step; false at a limit.
    mutating func adjustField(by direction: Int) -> Bool {
        func step(_ value: Int, in range: ClosedRange<Int>, by amount: Int = 1) -> Int? {
            let new = min(max(value + direction * amount, range.lowerBound), range.upperBound)
            return new == value ? nil : new
        }
        switch mode {
        case .tempo:
            return true
        case .accents where field == 0:
            guard let n = step(accentEvery ?? 0, in: 0...settings.beatCount) else { return false }
            settings.accents = .accentEvery(n, beats: settings.beatCount)
        case .accents:
            let beat = field - 1
            var levels = (0..<max(settings.beatCount, settings.accents.levels.count)).map(settings.accents.level(ofBeat:))
            let cycle: [AccentLevel] = [.accent, .soft, .normal, .muted]
            let index = cycle.firstIndex(of: levels[beat])!
            levels[beat] = cycle[(index + (direction > 0 ? 1 : cycle.count - 1)) % cycle.count]
            settings.accents = AccentPattern(levels)
        case .meter:
            let m = settings.meter
            guard let v = step(field == 0 ? m.numerator : m.denominator, in: Meter.range),
                  let meter = try? field == 0 ? Meter(v, m.denominator) : Meter(m.numerator, v)
            else { return false }
            settings.meter = meter
            settings.fitAccentsToBar()
        case .beatUnit:
            let index = BoxState.beatUnits.firstIndex(of: settings.beatUnit) ?? 6
            guard let i = step(index, in: 0...(BoxState.beatUnits.count - 1)) else { return false }
            settings.beatUnit = BoxState.beatUnits[i]
            settings.fitAccentsToBar()
        case .subdivisions:
            let index = BoxState.subdivisionChoices.firstIndex(of: settings.subdivisions) ?? 0
            guard let i = step(index, in: 0...(BoxState.subdivisionChoices.count - 1)) else { return false }
            settings.subdivisions = BoxState.subdivisionChoices[i]
        case .sound:
            let index = soundNames.firstIndex(of: settings.sound) ?? 0
            guard let i = step(index, in: 0...(soundNames.count - 1)) else {
                if !soundNames.contains(settings.sound) { settings.sound = soundNames[index]; return true }
                return false
            }
            settings.sound = soundNames[i]
        case .volumes:
            let name = volumeNames[min(field, volumeNames.count - 1)]
            guard let v = step(volume(name), in: Volumes.range, by: 5) else { return false }
            try? settings.volumes.set(name, to: v)
        }
        return true
    }

    func volume(_ name: String) -> Int {
        switch name {
        case "master": settings.volumes.master
        case "accent": settings.volumes.accent
        case "beat": settings.volumes.beat
        default: settings.volumes.layer(Int(name.dropFirst(3)) ?? 2)
        }
    }

    var fieldText: (String, String) {
        switch mode {
        case .tempo: return ("tempo", settings.tempo.description)
        case .accents where field == 0: return ("accent every", accentEvery.map(String.init) ?? "custom")
        case .accents: return ("beat \(field)", "\(settings.accents.level(ofBeat: field - 1))")
        case .meter: return (field == 0 ? "beats per bar" : "note value", settings.meter.description)
        case .beatUnit: return ("beat unit", settings.beatUnit.description)
        case .subdivisions: return ("subdivisions", settings.subdivisions.description)
        case .sound: return ("sound", settings.sound)
        case .volumes:
            let name = volumeNames[min(field, volumeNames.count - 1)]
            return ("\(name) volume", "\(volume(name))%")
        }
    }

    // MARK: Menu

    static let rootItems = ["Tempo markings", "Presets", "Settings", "Back"]

    func menuItems(_ page: MenuPage) -> [String] {
        switch page {
        case .root: BoxState.rootItems
        case .markings: TempoMarking.alphabetical.map { "\($0.name) \($0.typicalBPM)" } + ["Back"]
        case .presets: ["Save current"] + saved.presets.map(\.name) + ["Back"]
        case .settings:
            [
                "Momentum: \(saved.preferences.momentum ? "on" : "off")",
                "Tap tolerance: \(saved.preferences.tapTolerancePercent)%",
                "Screen dim: " + (saved.preferences.screenDimSeconds == 0 ? "never" : "\(saved.preferences.screenDimSeconds) s"),
                "Footswitch: \(saved.preferences.footswitch == .tap ? "tap" : "start/stop")",
                "Silent practice: \(saved.preferences.silentPractice ? "on" : "off")",
                "Back",
            ]
        }
    }

    func menuModel(_ menu: MenuState) -> MenuModel {
        let title = switch menu.page {
        case .root: "Menu"
        case .markings: "Tempo markings"
        case .presets: "Presets"
        case .settings: "Settings"
        }
        return MenuModel(title: title, items: menuItems(menu.page), selected: menu.selected, editing: menu.editing)
    }

    static let screenDimChoices = [0, 10, 30, 60, 120, 300, 600, 1800, 3600]

    mutating func menuTurn(_ direction: Int) -> [Effect] {
        guard var m = menu else { return [] }
        defer { menu = m }
        if m.editing {
            var p = saved.preferences
            switch m.selected {
            case 0: p.momentum.toggle()
            case 1:
                p.tapTolerancePercent = min(max(p.tapTolerancePercent + direction, TapTempo.toleranceRange.lowerBound),
                                            TapTempo.toleranceRange.upperBound)
            case 2:
                let choices = BoxState.screenDimChoices
                let i = choices.lastIndex { $0 <= p.screenDimSeconds } ?? 0
                p.screenDimSeconds = choices[min(max(i + direction, 0), choices.count - 1)]
            case 3:
                p.footswitch = p.footswitch == .tap ? .startStop : .tap
            default:
                p.silentPractice.toggle()
            }
            if p == saved.preferences { return [.buzzer(.bump)] }
            saved.preferences = p
            wheel.tuning.momentum = p.momentum
            tap.tolerancePercent = p.tapTolerancePercent
            return [.buzzer(.tick)]
        }
        let selected = min(max(m.selected + direction, 0), menuItems(m.page).count - 1)
        if selected == m.selected { return [.buzzer(.bump)] }
        m.selected = selected
        return [.buzzer(.tick)]
    }

    mutating func menuSelect() {
        guard var m = menu else { return }
        let items = menuItems(m.page)
        let isBack = m.selected == items.count - 1
        switch m.page {
        case .root:
            switch m.selected {
            case 0: m = MenuState(page: .markings)
            case 1: m = MenuState(page: .presets)
            case 2: m = MenuState(page: .settings)
            default: menu = nil; return
            }
        case .markings:
            if isBack { m = MenuState(page: .root, selected: 0); break }
            setTempo(Tempo(clampingWholeBPM: TempoMarking.alphabetical[m.selected].typicalBPM))
            menu = nil
            return
        case .presets:
            if isBack { m = MenuState(page: .root, selected: 1); break }
            if m.selected == 0 {
                let name = "Preset \(saved.presets.count + 1)"
                saved.presets.append(Preset(name: name, settings: settings))
                show("Saved as \(name)")
            } else {
                let preset = saved.presets[m.selected - 1]
                settings = preset.settings
                wheel.set(bpm: preset.settings.tempo.bpm.doubleValue)
                menu = nil
                return
            }
        case .settings:
            if isBack { m = MenuState(page: .root, selected: 2); break }
            m.editing.toggle()
        }
        menu = m
    }
}
