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

/// Everything that happens to the box. Every action carries its time: the reducer never
/// reads a clock.
public enum Action: Sendable, Hashable {
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
    /// Time passes: call at `BoxState.nextDeadline` (or more often).
    case tick(at: MonotonicTime)
    /// Saving the settings file failed; shown on the screen.
    case saveFailed(String, at: MonotonicTime)
    /// A part of the box went missing or came back (display, sound device); shown on the screen.
    case part(String, working: Bool, at: MonotonicTime)
    /// A song's onset as it is heard: its section (from the start section, -1 count-in),
    /// bar from the song's bar 0 and tempo, so the song page follows.
    case songProgress(section: Int, bar: Int64, bpm: Double, song: Int = 0, beat: Int = 0, at: MonotonicTime)
    /// The song (or the setlist playing on) has been heard to its end.
    case songEnded(at: MonotonicTime)
    /// The coach judged a hit: its error (negative = early) and the bar of its grid position;
    /// `gap` when that bar's clicks were muted.
    case coachHit(errorMilliseconds: Double, bar: Int64, gap: Bool, at: MonotonicTime)
    /// The coach's input (`[coach] input`) is missing, busy, lost (`problem`) or back: a
    /// notice; the metronome goes on either way.
    case coachInput(String, problem: Bool, at: MonotonicTime)
    /// Menu > Coach > Calibrate has played its clicks: what the input heard.
    case coachCalibrated(CoachCalibrationOutcome, at: MonotonicTime)
    /// The sync source or Link's start/stop sync set from outside the menu (a script line).
    case sync(SyncSource, at: MonotonicTime)
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
    case syncNotice(String, at: MonotonicTime)
    /// A mapped MIDI message's song or preset control (next/previous section, preset N, song N).
    case midiControl(MIDIControl, at: MonotonicTime)
    /// From the control socket (the companion, `tactus ctl`), already checked.
    case remote(RemoteRequest, at: MonotonicTime)
    /// Play or stop from outside the controls: a followed MIDI clock's Start, Continue or
    /// Stop, a Link peer's, the service shutting down. Playback only: as START would, but never
    /// pressed (a song starts as its START does; nothing is simulated).
    case transport(playing: Bool, origin: TransportOrigin, at: MonotonicTime)

    public var time: MonotonicTime {
        switch self {
        case .encoderEdge(_, _, let t), .buttonEdge(_, _, let t), .detent(_, let t), .pushedDetent(_, let t),
             .gesture(_, _, let t), .tick(let t), .saveFailed(_, let t), .part(_, _, let t), .songProgress(_, _, _, _, _, let t), .songEnded(let t),
             .sync(_, let t), .linkStartStopSync(_, let t), .linkPeers(_, let t), .linkTempo(_, let t), .linkNotice(_, let t),
             .midiSync(_, let t), .clockTempo(_, let t), .syncNotice(_, let t), .midiControl(_, let t), .remote(_, let t), .transport(_, _, let t),
             .coachHit(_, _, _, let t), .coachInput(_, _, let t), .coachCalibrated(_, let t):
            t
        }
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

    /// The round trip (speaker to microphone to capture), microseconds.
    case roundTrip(microseconds: Int)
    /// The input held none of the clicks (microphone off or far from the speaker).
    case notHeard
    /// This many of the clicks were not heard alike (noise, a hit): do it again in quiet.
    case clicksMissing(Int)
    /// No `[coach] input` is configured, or it is not working.
    case noInput
}
