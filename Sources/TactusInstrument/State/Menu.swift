// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
/// The menu's pages.
public enum MenuPage: Sendable, Hashable {
    case root, markings, presets, settings, companion
    /// Menu > Coach: the Coach page and its calibration.
    case coach
    /// The reference tone: the wheel sets the note, a pushed turn A4, a push switches it.
    case tone

    public var title: String {
        switch self {
        case .root: "Menu"
        case .markings: "Tempo markings"
        case .presets: "Presets"
        case .settings: "Settings"
        case .companion: "Companion"
        case .coach: "Coach"
        case .tone: "Tone"
        }
    }
}

/// A box setting changed in Menu > Settings.
public enum PreferenceField: Sendable, Hashable, CaseIterable {
    case momentum, tapTolerance, screenDim, footswitch, silentPractice, darkGap, toneTimbre, toneVolume, sync, linkStartStopSync, companion

    /// The rows of Menu > Settings (the companion's switch lives on its own page).
    public static let settingsPage: [PreferenceField] = [.momentum, .tapTolerance, .screenDim, .footswitch, .silentPractice, .darkGap,
                                                         .toneTimbre, .toneVolume, .sync, .linkStartStopSync]

    public static let screenDimChoices = [0, 10, 30, 60, 120, 300, 600, 1800, 3600]

    public var label: String {
        switch self {
        case .momentum: "Momentum"
        case .tapTolerance: "Tap tolerance"
        case .screenDim: "Screen dim"
        case .footswitch: "Footswitch"
        case .silentPractice: "Silent practice"
        case .darkGap: "Dark gap"
        case .companion: "Companion"
        case .toneTimbre: "Tone timbre"
        case .toneVolume: "Tone volume"
        case .sync: "Sync"
        case .linkStartStopSync: "Link start/stop"
        }
    }

    public func value(in p: Preferences) -> String {
        switch self {
        case .momentum: p.momentum ? "on" : "off"
        case .tapTolerance: "\(p.tapTolerancePercent)%"
        case .screenDim: p.screenDimSeconds == 0 ? "never" : "\(p.screenDimSeconds) s"
        case .footswitch: p.footswitch == .tap ? "tap" : "start"
        case .silentPractice: p.silentPractice ? "on" : "off"
        case .darkGap: p.darkGap ? "on" : "off"
        case .companion: p.companion ? "on" : "off"
        case .toneTimbre: p.tone.timbre.rawValue
        case .toneVolume: "\(p.tone.volume)%"
        case .sync: p.sync.label
        case .linkStartStopSync: p.linkStartStopSync ? "on" : "off"
        }
    }

    /// One step of the wheel; unchanged at a limit.
    public func adjust(_ p: Preferences, by direction: Int) -> Preferences {
        var p = p
        switch self {
        case .momentum: p.momentum.toggle()
        case .tapTolerance:
            p.tapTolerancePercent = min(max(p.tapTolerancePercent + direction, TapTempo.toleranceRange.lowerBound),
                                        TapTempo.toleranceRange.upperBound)
        case .screenDim:
            let choices = PreferenceField.screenDimChoices
            let i = choices.lastIndex { $0 <= p.screenDimSeconds } ?? 0
            p.screenDimSeconds = choices[min(max(i + direction, 0), choices.count - 1)]
        case .footswitch: p.footswitch = p.footswitch == .tap ? .startStop : .tap
        case .silentPractice: p.silentPractice.toggle()
        case .darkGap: p.darkGap.toggle()
        case .companion: p.companion.toggle()
        case .toneTimbre: p.tone.timbre = p.tone.timbre == .sine ? .organ : .sine
        case .toneVolume:
            // 5 % a detent: 20 detents from silence to full.
            p.tone.volume = min(max(p.tone.volume + 5 * direction, ReferenceTone.volumeRange.lowerBound), ReferenceTone.volumeRange.upperBound)
        case .sync:
            let all = SyncSource.allCases
            p.sync = all[min(max(all.firstIndex(of: p.sync)! + direction, 0), all.count - 1)]
        case .linkStartStopSync: p.linkStartStopSync.toggle()
        }
        return p
    }
}

/// What choosing a menu entry does.
public enum MenuAction: Sendable, Hashable {
    case open(MenuPage)
    case chooseMarking(TempoMarking)
    case savePreset
    case loadPreset(Int)
    /// To song mode (songs, setlist and practice programs).
    case songs
    /// To the Coach page.
    case coach
    /// Play 16 clicks and measure the audio input's round trip (Menu > Coach > Calibrate).
    case calibrateCoach
    /// The reference tone on or off (the Tone page's push).
    case toggleTone
    /// Start (or end) changing a setting with the wheel.
    case edit(PreferenceField)
    /// To the root page, or out of the menu from the root.
    case back
    /// Show a pairing code for the browser companion.
    case pairBrowser
    /// Forget a paired browser.
    case revokeBrowser(Int)
}

/// One row of a menu page: what it reads and what it does.
public struct MenuEntry: Sendable, Hashable {
    public var label: String
    /// A setting's current value, drawn apart from the label so it is never cut short.
    public var value: String?
    public var action: MenuAction

    public init(_ label: String, value: String? = nil, _ action: MenuAction) {
        self.label = label
        self.value = value
        self.action = action
    }

    /// "Momentum: on", as the event log shows the selection.
    public var text: String { value.map { "\(label): \($0)" } ?? label }
}

/// The open menu: a page, its selected row and whether the wheel changes that row's value.
public struct MenuState: Sendable, Hashable {
    public var page: MenuPage
    public var selected = 0
    public var editing = false

    public init(page: MenuPage, selected: Int = 0, editing: Bool = false) {
        self.page = page
        self.selected = selected
        self.editing = editing
    }

    /// The rows of `page` for what is saved now.
    public static func entries(_ page: MenuPage, saved: SavedState, companion: Companion = Companion()) -> [MenuEntry] {
        switch page {
        case .root:
            [MenuEntry("Tempo markings", .open(.markings)), MenuEntry("Presets", .open(.presets)),
             MenuEntry("Songs", .songs), MenuEntry("Settings", .open(.settings)), MenuEntry("Tone", .open(.tone)), MenuEntry("Coach", .open(.coach)), MenuEntry("Back", .back)]
        case .coach:
            [MenuEntry("Coach page", .coach),
             MenuEntry("Calibrate", value: saved.preferences.coachRoundTripMicroseconds.map(MenuState.milliseconds) ?? "none", .calibrateCoach),
             MenuEntry("Back", .back)]
        case .markings:
            TempoMarking.alphabetical.map { MenuEntry($0.name, value: "\($0.typicalBPM)", .chooseMarking($0)) } + [MenuEntry("Back", .back)]
        case .presets:
            [MenuEntry("Save current", .savePreset)]
                + saved.presets.enumerated().map { MenuEntry($0.element.name, .loadPreset($0.offset)) }
                + [MenuEntry("Back", .back)]
        case .settings:
            PreferenceField.settingsPage.map { MenuEntry($0.label, value: $0.value(in: saved.preferences), .edit($0)) }
                + [MenuEntry("Companion", value: PreferenceField.companion.value(in: saved.preferences), .open(.companion)), MenuEntry("Back", .back)]
        case .companion:
            // The switch, then (when on) pairing and the paired browsers, each revoked by a push.
            [MenuEntry("Companion", value: PreferenceField.companion.value(in: saved.preferences), .edit(.companion))]
                + (saved.preferences.companion ? [MenuEntry("Pair a browser", .pairBrowser)] : [])
                + companion.browsers.map { MenuEntry("Revoke \($0.id)", value: String($0.name.prefix(12)), .revokeBrowser($0.id)) }
                + [MenuEntry("Back", .back)]
        case .tone:
            // One row: the page is drawn whole (ToneScreen); the wheel never moves a selection here.
            [MenuEntry("Tone", value: ToneView(saved.preferences).summary, .toggleTone)]
        }
    }

    /// A calibrated round trip as Menu > Coach shows it: "12.3 ms".
    public static func milliseconds(_ microseconds: Int) -> String {
        let tenths = (microseconds + 50) / 100
        return "\(tenths / 10).\(tenths % 10) ms"
    }

    /// The wheel in the menu: the selection moves or, while a row is edited, its setting
    /// changes (Menu > Tone: the note, a semitone a detent, C4 to B5). False at a limit.
    mutating func turn(_ direction: Int, preferences: inout Preferences, entries: [MenuEntry]) -> Bool {
        if page == .tone {
            let note = preferences.tone.note + direction
            guard ReferenceTone.noteRange.contains(note) else { return false }
            preferences.tone.note = note
            return true
        }
        if editing, case .edit(let preference) = entries[selected].action {
            let p = preference.adjust(preferences, by: direction)
            if p == preferences { return false }
            preferences = p
            return true
        }
        let selected = min(max(self.selected + direction, 0), entries.count - 1)
        if selected == self.selected { return false }
        self.selected = selected
        return true
    }

    /// A pushed turn: on the Tone page it sets A4, 1 Hz a detent (false at a limit); nil on
    /// any other page, where it does nothing.
    func pushedTurn(_ direction: Int, preferences: inout Preferences) -> Bool? {
        guard page == .tone else { return nil }
        let a4 = preferences.tone.reference + direction
        guard ReferenceTone.referenceRange.contains(a4) else { return false }
        preferences.tone.reference = a4
        return true
    }

    /// A push on the selected row. Opening a page, going back and starting or ending an edit
    /// are the menu's own; any other choice is returned for the box to carry out (`.back`
    /// only from the root: leave the menu).
    mutating func push(_ entries: [MenuEntry], saved: SavedState, settings: MetronomeSettings) -> MenuAction? {
        let action = entries[min(selected, entries.count - 1)].action
        switch action {
        case .open(let page):
            self = MenuState.opening(page, settings: settings)
        case .back where page != .root:
            self = MenuState.returning(from: page, saved: saved)
        case .edit:
            editing.toggle()
        default:
            return action
        }
        return nil
    }

    /// A page as it opens: the markings list at the current tempo's marking.
    static func opening(_ page: MenuPage, settings: MetronomeSettings) -> MenuState {
        guard page == .markings else { return MenuState(page: page) }
        let current = TempoMarking.of(settings.tempo)
        return MenuState(page: page, selected: TempoMarking.alphabetical.firstIndex(of: current) ?? 0)
    }

    /// Back from `page` to the root, on the row that opened it.
    static func returning(from page: MenuPage, saved: SavedState) -> MenuState {
        if page == .companion {
            return MenuState(page: .settings, selected: entries(.settings, saved: saved).firstIndex { $0.action == .open(.companion) } ?? 0)
        }
        return MenuState(page: .root, selected: entries(.root, saved: saved).firstIndex { $0.action == .open(page) } ?? 0)
    }
}
