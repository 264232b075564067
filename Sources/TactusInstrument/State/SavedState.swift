// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
/// What the footswitch does.
public enum FootswitchFunction: String, Sendable, Hashable, CaseIterable {
    case startStop = "start-stop"
    case tap
}

/// Where the box takes its tempo and beat from (Menu > Settings > Sync, `--sync`).
public enum SyncSource: String, Sendable, Hashable, CaseIterable {
    /// The box's own wheel, tap and songs.
    case `internal`
    /// An incoming MIDI clock (tempo, phase, Start/Continue/Stop, Song Position Pointer).
    case midi
    /// An Ableton Link session on the LAN: one tempo, beat and phase with its peers.
    case link

    public var label: String {
        switch self {
        case .internal: "Internal"
        case .midi: "MIDI"
        case .link: "Link"
        }
    }
}

/// The box's own settings, changed in the menu and saved with the musical settings.
public struct Preferences: Sendable, Hashable {
    public static let screenDimRange: ClosedRange<Int> = 0...3600

    public var momentum = true
    /// Tap tempo tolerance in percent (TapTempo.toleranceRange).
    public var tapTolerancePercent = 20
    /// Seconds of inactivity while stopped before the screen dims; 0 never dims.
    public var screenDimSeconds = 60
    public var footswitch = FootswitchFunction.startStop
    /// Silent practice: the clicks are muted and the buzzer pulses with them instead.
    public var silentPractice = false
    /// Dark gap: in a gap click's muted bars the LEDs and buzzer rest too (else they keep
    /// counting, visual only).
    public var darkGap = false
    /// Sync source (off, Internal, by default).
    public var sync = SyncSource.internal
    /// Link start/stop sync: START and STOP on any peer start and stop everyone (off by
    /// default, as Link asks).
    public var linkStartStopSync = false
    /// The browser companion (issue 23): off by default, switched on at the box only.
    public var companion = false
    /// The reference tone's note, A4, timbre and volume (Menu > Tone, Menu > Settings).
    public var tone = ReferenceTone()
    /// The tone sounds (Menu > Tone, a push): until switched off, not across a restart.
    public var toneOn = false
    /// Menu > Coach > Calibrate's measured round trip (speaker to microphone) in
    /// microseconds, taken off the live input's hits; nil until calibrated.
    public var coachRoundTripMicroseconds: Int?
    public static let coachRoundTripRange: ClosedRange<Int> = 0...1_000_000
    /// Calibrate's measure of how loud the box's click reaches the microphone (dB against the
    /// output, to 0.01 dB): the live coach subtracts the click at this gain until it has
    /// fitted clean clicks of its own; nil until calibrated (or when no click was clean).
    public var coachClickGainDecibels: Double?
    public static let coachClickGainRange: ClosedRange<Double> = -80...20
    /// The speed trainer (song mode's fields, the companion's Settings > Trainer): off by default.
    public var trainer = Trainer()

    public init() {}
}

extension SavedState {
    /// Every song to choose from: the file's songs, then each preset (old files' and the
    /// menu's) as a one-section song that plays until stopped. The file keeps presets as
    /// written, so an old file round-trips unchanged.
    public var songLibrary: SongLibrary {
        var library = self.library
        library.migrate(presets: presets)
        return library
    }
}

/// Everything the settings file holds: survives power cuts (SPEC 7).
public struct SavedState: Sendable, Hashable {
    public var settings: MetronomeSettings
    public var preferences: Preferences
    public var presets: [Preset]
    /// Songs and the setlist (`[[song]]`, `[setlist]`) as the file holds them.
    public var library: SongLibrary
    /// The browsers paired with the companion (`[[browser]]`: number, name, the SHA-256 of the
    /// token, never the token), so a pairing survives a restart of the box and of tactus-web.
    public var browsers: [PairedBrowser]
    /// The MIDI map edited at the companion (`[midi.map]` in the settings file): it takes the
    /// place of the configuration's `[midi.map]`; nil: the configuration's applies.
    public var midiMap: [MIDIMapping]?

    /// A new box (no settings file yet): the defaults and the demo songs.
    public static var firstStart: SavedState { SavedState(library: DemoSongs.library) }

    public init(settings: MetronomeSettings = MetronomeSettings(), preferences: Preferences = Preferences(),
                presets: [Preset] = [], library: SongLibrary = SongLibrary(), browsers: [PairedBrowser] = []) {
        self.settings = settings
        self.preferences = preferences
        self.presets = presets
        self.library = library
        self.browsers = browsers
    }
}
