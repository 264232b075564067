/// What the wheel currently sets. The lead maps the box state's wheel modes onto this;
/// beat unit is its own case so it can be a mode or a page of the meter mode.
public enum ScreenWheelMode: Int, Sendable, Hashable, CaseIterable {
    case tempo, accents, meter, beatUnit, subdivisions, sound, volume

    var icon: Bitmap {
        switch self {
        case .tempo: Icons.tempo
        case .accents: Icons.accent
        case .meter: Icons.meter
        case .beatUnit: Icons.note
        case .subdivisions: Icons.layers
        case .sound: Icons.speaker
        case .volume: Icons.volume
        }
    }
}

/// A list the wheel turns through (menu entries, sound sets). `position` is the selection
/// as the knob has it, fractional while it turns, so the ring moves with the hand.
public struct ScreenChoice: Sendable, Hashable {
    public var title: String
    public var entries: [String]
    public var position: Double

    public init(title: String, entries: [String], position: Double) {
        self.title = title
        self.entries = entries
        self.position = position
    }

    /// The entry under the selection mark.
    public var selectedIndex: Int {
        guard !entries.isEmpty else { return 0 }
        return min(max(ScreenMath.pixel(position), 0), entries.count - 1)
    }
}

/// Everything the screen shows, as plain values: the box state maps onto it, the renderer
/// turns it (plus the sample being heard) into a frame. Kept separate from the state
/// machine so screens can be tested, and snapshotted, on their own.
public struct ScreenModel: Sendable, Hashable {
    public enum Page: Sendable, Hashable {
        /// The metronome running: needs `timeline`; motion comes from the heard sample.
        case playing
        /// Stopped: tempo, marking, meter, the wheel's mode; or the current mode's page.
        case stopped
        /// The menu (markings, presets, settings ...), a ring of entries.
        case menu(ScreenChoice)
        /// After the idle time while stopped: little lit, moving, so the OLED does not burn in.
        case dimmed
    }

    public var page: Page
    public var settings: MetronomeSettings
    /// The Italian marking of the current tempo ("Allegro").
    public var marking: String
    public var wheelMode: ScreenWheelMode
    /// What the wheel edits inside the mode: the beat for accents, 0 numerator / 1
    /// denominator for meter, the layer (2...9) for subdivisions, 0 master / 1 accent /
    /// 2 beat for volume.
    public var focus: Int
    /// Sound sets for the sound mode, with the knob's position among them.
    public var soundSets: ScreenChoice
    /// The running grid; nil when stopped.
    public var timeline: BeatTimeline?
    /// Moves the dimmed screen's content around (one step every few minutes is enough).
    public var dimStep: Int

    public init(page: Page = .stopped, settings: MetronomeSettings = MetronomeSettings(), marking: String = "",
                wheelMode: ScreenWheelMode = .tempo, focus: Int = 0,
                soundSets: ScreenChoice = ScreenChoice(title: "", entries: [], position: 0),
                timeline: BeatTimeline? = nil, dimStep: Int = 0) {
        self.page = page
        self.settings = settings
        self.marking = marking
        self.wheelMode = wheelMode
        self.focus = focus
        self.soundSets = soundSets
        self.timeline = timeline
        self.dimStep = dimStep
    }

    /// Contrast for the display driver: full while in use, lowest when dimmed.
    public var contrast: UInt8 {
        if case .dimmed = page { return 0x01 }
        return 0xCF
    }
}
