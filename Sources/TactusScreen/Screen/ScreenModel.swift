// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
import TactusTimeline
import TactusInstrument
/// A list the wheel turns through (menu entries, sound sets). `position` is the selection
/// as the knob has it, fractional while it turns, so the ring moves with the hand.
public struct ScreenChoice: Sendable, Hashable {
    public var title: String
    public var entries: [String]
    /// A value drawn right-aligned beside each entry (a setting's state), never cut short.
    public var values: [String?]
    public var position: Double
    /// The selected entry's value is being changed by the wheel.
    public var editing: Bool

    public init(title: String, entries: [String], values: [String?] = [], position: Double, editing: Bool = false) {
        self.title = title
        self.entries = entries
        self.values = values
        self.position = position
        self.editing = editing
    }

    /// The entry under the selection mark.
    public var selectedIndex: Int {
        guard !entries.isEmpty else { return 0 }
        return min(max(ScreenMath.pixel(position), 0), entries.count - 1)
    }

    public func value(at index: Int) -> String? { index < values.count ? values[index] : nil }
}

/// Everything the screen shows, as plain values: `ScreenPresenter` maps the box state onto
/// it, the renderer turns it (plus the sample being heard) into a frame. Kept separate from
/// the state machine so screens can be tested, and snapshotted, on their own.
public struct ScreenModel: Sendable, Hashable {
    public enum Page: Sendable, Hashable {
        /// The metronome running: needs `grid`; motion comes from the heard sample.
        case playing
        /// Stopped: tempo, marking, meter; or the current mode's page.
        case stopped
        /// The menu (markings, presets, settings ...), a ring of entries.
        case menu(ScreenChoice)
        /// Menu > Tone.
        case tone(ToneView)
        /// After the idle time while stopped: little lit, moving, so the OLED does not burn in.
        case dimmed
    }

    public var page: Page
    public var settings: MetronomeSettings
    /// The Italian marking of the current tempo ("Allegro").
    public var marking: String
    public var wheelMode: WheelMode
    /// What the wheel edits inside the mode.
    public var field: Field
    /// The knob between detents (-1 < x < 1): the mode's field ring turns part-way with it.
    public var turning: Double
    /// Sound sets for the sound mode, with the knob's position among them.
    public var soundSets: ScreenChoice
    /// The running timeline; nil when stopped. With it every page keeps the beat visible,
    /// and the tempo page shows what is sounding (a song's tempo, meter and beat).
    public var grid: BeatGrid?
    /// A message drawn over the lower part of the page for a while.
    public var notice: Notice?
    /// Which page of a notice longer than its column is up (`Notice.page(at:)`).
    public var noticePage = 0
    /// Moves the dimmed screen's content around (one step every few minutes is enough).
    public var dimStep: Int
    /// The song page's content (song mode).
    public var song: SongView? = nil
    /// The Coach page's figures (coach mode).
    public var coach: CoachPanel? = nil
    /// Sync: Link: the number of other peers in the session, drawn as the Link mark.
    public var linkPeers: Int? = nil
    /// Sync: MIDI: the sync mark (locked, locking, lost), the followed tempo and position.
    public var midiSync: MIDISyncView? = nil

    public init(page: Page = .stopped, settings: MetronomeSettings = MetronomeSettings(), marking: String = "",
                wheelMode: WheelMode = .tempo, field: Field = .tempo, turning: Double = 0,
                soundSets: ScreenChoice = ScreenChoice(title: "", entries: [], position: 0),
                grid: BeatGrid? = nil, notice: Notice? = nil, dimStep: Int = 0) {
        self.page = page
        self.settings = settings
        self.marking = marking
        self.wheelMode = wheelMode
        self.field = field
        self.turning = turning
        self.soundSets = soundSets
        self.grid = grid
        self.notice = notice
        self.dimStep = dimStep
    }

    /// Contrast for the display driver: full while in use, lowest when dimmed.
    public var contrast: UInt8 {
        if case .dimmed = page { return 0x01 }
        return 0xCF
    }
}

/// Maps the box state onto what the screen renderer draws: a pure function of the state
/// (and of the running timeline the engine publishes).
public enum ScreenPresenter {
    /// Dimmed content moves one step every 2 minutes.
    static let dimStepNanoseconds: Int64 = 120_000_000_000

    public static func model(for state: BoxState, grid: BeatGrid?) -> ScreenModel {
        let view = state.screen
        let settings = state.settings
        let playing = state.isPlaying ? grid : nil
        var model = ScreenModel(
            page: .stopped, settings: settings, marking: view.marking, wheelMode: view.mode, field: view.field,
            turning: view.turning, grid: playing, notice: view.notice)
        model.song = view.song
        model.coach = view.coach
        model.noticePage = view.noticePage
        model.linkPeers = view.linkPeers
        model.midiSync = view.midiSync
        let soundIndex = state.soundNames.firstIndex(of: settings.sound) ?? 0
        let soundTurning = view.field == .sound && view.menu == nil ? view.turning : 0
        model.soundSets = ScreenChoice(title: "Sound", entries: state.soundNames, position: Double(soundIndex) + soundTurning)
        if view.dimmed {
            model.page = .dimmed
            // Move the dimmed content now and then so no pixel stays lit for hours.
            model.dimStep = Int(state.now.nanoseconds / dimStepNanoseconds)
        } else if let tone = view.menu?.tone {
            model.page = .tone(tone)
        } else if let menu = view.menu {
            // The ring follows the knob part-way, except while a value is being edited.
            let position = Double(menu.selected) + (menu.editing ? 0 : view.turning)
            model.page = .menu(ScreenChoice(title: menu.title, entries: menu.entries.map(\.label),
                                            values: menu.entries.map(\.value), position: position, editing: menu.editing))
        } else if playing != nil {
            model.page = .playing
        }
        return model
    }
}
