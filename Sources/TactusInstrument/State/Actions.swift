// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusMusic
import Coach
/// The physical controls.
public enum ControlButton: String, Sendable, Hashable, CaseIterable {
    case wheel        // the tempo wheel's push switch
    case tap
    case startStop
    case footswitch
}

/// Everything that happens to the box, grouped by the sub-reducer that takes it. Every
/// action carries its time: the reducer never reads a clock. The static functions below
/// spell each one as before (`.detent(1, at: t)` is `.control(.detent(1, at: t))`).
public enum Action: Sendable, Hashable {
    /// The physical controls and the simulator's keys for them.
    case control(ControlAction)
    /// Time passes: call at `BoxState.nextDeadline` (or more often).
    case tick(at: MonotonicTime)
    /// The box's own parts and files.
    case system(SystemEvent)
    /// A song as it is heard, and the MIDI map's song and preset controls.
    case song(SongEvent)
    /// The coach's ears.
    case coach(CoachEvent)
    /// Sync: the source chosen, a followed MIDI clock, the Link session, and starting or
    /// stopping from them.
    case sync(SyncEvent)
    /// From the control socket (the companion, `tactus ctl`), already checked.
    case remote(RemoteRequest, at: MonotonicTime)

    public var time: MonotonicTime {
        switch self {
        case .control(let action): action.time
        case .tick(let t), .remote(_, let t): t
        case .system(let event): event.time
        case .song(let event): event.time
        case .coach(let event): event.time
        case .sync(let event): event.time
        }
    }
}

public enum ControlAction: Sendable, Hashable {
    /// An encoder line changed (kernel edge event).
    case encoderEdge(QuadratureDecoder.Line, isHigh: Bool, at: MonotonicTime)
    /// A button's contact changed (after active-low mapping).
    case buttonEdge(ControlButton, pressed: Bool, at: MonotonicTime)
    /// One decoded detent, +1 or -1 (the simulator's keys).
    case detent(Int, at: MonotonicTime)
    /// One detent with the wheel held down: turns the ring of fields (the simulator's keys).
    case pushedDetent(Int, at: MonotonicTime)
    /// A recognised gesture (the simulator's keys).
    case gesture(ControlButton, ButtonGesture, at: MonotonicTime)

    public var time: MonotonicTime {
        switch self {
        case .encoderEdge(_, _, let t), .buttonEdge(_, _, let t), .detent(_, let t), .pushedDetent(_, let t), .gesture(_, _, let t): t
        }
    }
}

public enum SystemEvent: Sendable, Hashable {
    /// Saving the settings file failed; shown on the screen.
    case saveFailed(String, at: MonotonicTime)
    /// A part of the box went missing or came back (display, sound device); shown on the screen.
    case part(String, working: Bool, at: MonotonicTime)

    public var time: MonotonicTime {
        switch self {
        case .saveFailed(_, let t), .part(_, _, let t): t
        }
    }
}

public enum SongEvent: Sendable, Hashable {
    /// A song's onset as it is heard: its section (from the start section, -1 count-in),
    /// bar from the song's bar 0 and tempo, so the song page follows.
    case progress(section: Int, bar: Int64, bpm: Double, song: Int, beat: Int, at: MonotonicTime)
    /// The song (or the setlist playing on) has been heard to its end.
    case ended(at: MonotonicTime)
    /// A mapped MIDI message's song or preset control (next/previous section, preset N, song N).
    case midiControl(MIDIControl, at: MonotonicTime)

    public var time: MonotonicTime {
        switch self {
        case .progress(_, _, _, _, _, let t), .ended(let t), .midiControl(_, let t): t
        }
    }
}

public enum CoachEvent: Sendable, Hashable {
    /// The coach judged a hit: its error (negative = early) and the bar of its grid position;
    /// `gap` when that bar's clicks were muted.
    case hit(errorMilliseconds: Double, bar: Int64, gap: Bool, at: MonotonicTime)
    /// The coach's input (`[coach] input`) is missing, busy, lost (`problem`) or back: a
    /// notice; the metronome goes on either way.
    case input(String, problem: Bool, at: MonotonicTime)
    /// Menu > Coach > Calibrate has played its clicks: what the input heard.
    case calibrated(CoachCalibrationOutcome, at: MonotonicTime)

    public var time: MonotonicTime {
        switch self {
        case .hit(_, _, _, let t), .input(_, _, let t), .calibrated(_, let t): t
        }
    }
}

public enum SyncEvent: Sendable, Hashable {
    /// The sync source or Link's start/stop sync set from outside the menu (a script line).
    case source(SyncSource, at: MonotonicTime)
    case linkStartStopSync(Bool, at: MonotonicTime)
    /// The Link session: its peer count changed; a peer set the tempo (already the box's
    /// tempo unit); something about it the screen must say (a tempo out of range).
    case linkPeers(Int, at: MonotonicTime)
    case linkTempo(Tempo, at: MonotonicTime)
    case linkNotice(String, at: MonotonicTime)
    /// Following a MIDI clock (Sync: MIDI): the sync mark, followed tempo and position to
    /// show (nil: not following); the followed tempo as the box's (its tempo unit); a notice
    /// about the clock (lost for two beats).
    case midiSync(MIDISyncView?, at: MonotonicTime)
    case clockTempo(Tempo, at: MonotonicTime)
    case notice(String, at: MonotonicTime)
    /// Play or stop from outside the controls: a followed MIDI clock's Start, Continue or
    /// Stop, a Link peer's, the service shutting down. Playback only: as START would, but never
    /// pressed (a song starts as its START does; nothing is simulated).
    case transport(playing: Bool, origin: TransportOrigin, at: MonotonicTime)

    public var time: MonotonicTime {
        switch self {
        case .source(_, let t), .linkStartStopSync(_, let t), .linkPeers(_, let t), .linkTempo(_, let t), .linkNotice(_, let t),
             .midiSync(_, let t), .clockTempo(_, let t), .notice(_, let t), .transport(_, _, let t): t
        }
    }
}

/// Each action as it was spelled before the groups: call sites read as what happened.
extension Action {
    public static func encoderEdge(_ line: QuadratureDecoder.Line, isHigh: Bool, at t: MonotonicTime) -> Action { .control(.encoderEdge(line, isHigh: isHigh, at: t)) }
    public static func buttonEdge(_ button: ControlButton, pressed: Bool, at t: MonotonicTime) -> Action { .control(.buttonEdge(button, pressed: pressed, at: t)) }
    public static func detent(_ direction: Int, at t: MonotonicTime) -> Action { .control(.detent(direction, at: t)) }
    public static func pushedDetent(_ direction: Int, at t: MonotonicTime) -> Action { .control(.pushedDetent(direction, at: t)) }
    public static func gesture(_ button: ControlButton, _ gesture: ButtonGesture, at t: MonotonicTime) -> Action { .control(.gesture(button, gesture, at: t)) }
    public static func saveFailed(_ message: String, at t: MonotonicTime) -> Action { .system(.saveFailed(message, at: t)) }
    public static func part(_ name: String, working: Bool, at t: MonotonicTime) -> Action { .system(.part(name, working: working, at: t)) }
    public static func songProgress(section: Int, bar: Int64, bpm: Double, song: Int = 0, beat: Int = 0, at t: MonotonicTime) -> Action {
        .song(.progress(section: section, bar: bar, bpm: bpm, song: song, beat: beat, at: t))
    }
    public static func songEnded(at t: MonotonicTime) -> Action { .song(.ended(at: t)) }
    public static func midiControl(_ control: MIDIControl, at t: MonotonicTime) -> Action { .song(.midiControl(control, at: t)) }
    public static func coachHit(errorMilliseconds: Double, bar: Int64, gap: Bool, at t: MonotonicTime) -> Action {
        .coach(.hit(errorMilliseconds: errorMilliseconds, bar: bar, gap: gap, at: t))
    }
    public static func coachInput(_ text: String, problem: Bool, at t: MonotonicTime) -> Action { .coach(.input(text, problem: problem, at: t)) }
    public static func coachCalibrated(_ outcome: CoachCalibrationOutcome, at t: MonotonicTime) -> Action { .coach(.calibrated(outcome, at: t)) }
    public static func sync(_ source: SyncSource, at t: MonotonicTime) -> Action { .sync(.source(source, at: t)) }
    public static func linkStartStopSync(_ on: Bool, at t: MonotonicTime) -> Action { .sync(.linkStartStopSync(on, at: t)) }
    public static func linkPeers(_ count: Int, at t: MonotonicTime) -> Action { .sync(.linkPeers(count, at: t)) }
    public static func linkTempo(_ tempo: Tempo, at t: MonotonicTime) -> Action { .sync(.linkTempo(tempo, at: t)) }
    public static func linkNotice(_ text: String, at t: MonotonicTime) -> Action { .sync(.linkNotice(text, at: t)) }
    public static func midiSync(_ view: MIDISyncView?, at t: MonotonicTime) -> Action { .sync(.midiSync(view, at: t)) }
    public static func clockTempo(_ tempo: Tempo, at t: MonotonicTime) -> Action { .sync(.clockTempo(tempo, at: t)) }
    public static func syncNotice(_ text: String, at t: MonotonicTime) -> Action { .sync(.notice(text, at: t)) }
    public static func transport(playing: Bool, origin: TransportOrigin, at t: MonotonicTime) -> Action {
        .sync(.transport(playing: playing, origin: origin, at: t))
    }
}

public enum BuzzerCue: Sendable, Hashable {
    /// A wheel detent that changed something (a half step crossed, a field stepped).
    case tick
    /// A limit: the value cannot go further.
    case bump
}

/// What the reducer asks the outside world to do. Every outside effect goes through here:
/// the box acts on effects and never reads the state to decide what to do.
public enum Effect: Sendable, Hashable {
    /// Hand these settings to the engine (live while playing).
    case applySettings(MetronomeSettings)
    /// Silent practice switched: mute the clicks (without touching the volumes) and let the
    /// buzzer pulse with them instead, or undo that.
    case silentPractice(Bool)
    /// Dark gap switched: the LEDs and buzzer rest with a gap's muted bars, or keep counting.
    case darkGap(Bool)
    /// Menu > Settings > Sync changed: follow an incoming clock, or not.
    case sync(SyncSource)
    /// The reference tone to sound from now (nil: off), whether or not the clicks play.
    case tone(ReferenceTone?)
    /// Start playing at the beginning of a bar (placed as its origin says).
    case start(TransportOrigin)
    /// Stop at once (clips in flight finish).
    case stop(TransportOrigin)
    /// A buzzer cue at the moment of its cause (the detent's edge, a glide's half step).
    case buzzer(BuzzerCue, at: MonotonicTime)
    /// The screen's content changed.
    case screen(BoxView)
    /// Write the settings file now (debounced already).
    case save(SavedState)
    /// Play these songs back to back from the next start instead of the bar pattern, with
    /// this random mute seed; nil returns to the bar pattern.
    case loadSong([Song]?, seed: UInt64 = 0)
    /// An earned trainer's step (EarnedTempo): the song's tempo from bar `step.fromBar` on.
    case earnedTempo(TrainerStep)
    /// Draw a random 6-digit pairing code and send it back as `.remote(.showPairingCode)`.
    case drawPairingCode
    /// Menu > Coach > Calibrate: play the calibration clicks (stopped already) and send back
    /// `.coachCalibrated`; then the reducer hands its own settings back (`.applySettings`).
    case calibrateCoach
    /// START during the calibration: stop its clicks; no outcome follows.
    case cancelCoachCalibration
}

/// What Menu > Coach > Calibrate found.
public enum CoachCalibrationOutcome: Sendable, Hashable {
    /// The clicks the calibration plays.
    public static let clicks = CoachCalibration.clicks

    /// The round trip (speaker to microphone to capture), microseconds, and how loud the
    /// click reached the microphone (dB, nil when no click was heard clean).
    case roundTrip(microseconds: Int, clickGainDecibels: Double? = nil)
    /// The input held none of the clicks (microphone off or far from the speaker).
    case notHeard
    /// This many of the clicks were not heard alike (noise, a hit): do it again in quiet.
    case clicksMissing(Int)
    /// No `[coach] input` is configured, or it is not working.
    case noInput
}
