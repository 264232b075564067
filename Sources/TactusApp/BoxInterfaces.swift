// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Coach
import HAL
import TactusBase
import TactusInstrument
import TactusMusic
import TactusTimeline
import MIDIWire

// What the box talks to: the parts it is given (audio clock, persistence, the practice log,
// the MIDI thread) and those that watch it (the simulator's log, the control socket).

/// Where the engine's samples are being heard, if anywhere: the active audio sink.
public protocol AudioClockSource: AnyObject, Sendable {
    var outputPosition: AudioOutputPosition? { get }
}

/// Writes the settings file; the message of a failure is shown on the screen.
public protocol SettingsPersistence: Sendable {
    func save(_ saved: SavedState) throws
}

/// Keeps the minutes played per day (the practice log in the state folder). The box adds
/// each stretch of playing when it stops.
public protocol PracticeLogStore: Sendable {
    /// A stretch of playing: how long, the song ("" for none), the fastest tempo played and
    /// the coach's figures when it judged hits in it.
    func addPractice(seconds: Int64, song: String, bpm: Double, coach: CoachFigures?) throws
}

/// Why an LED or the buzzer pulsed.
public enum PulseReason: Sendable, Hashable {
    case onset(OnsetKind)
    case wheel(WheelFeedback)
}

/// Something that wants to see everything the box does (the headless simulator's log).
public protocol BoxObserver: AnyObject {
    func box(_ box: Box, didStart onset: OnsetEvent, heardAt time: MonotonicTime)
    func box(_ box: Box, didChange state: BoxState, at time: MonotonicTime)
    func box(_ box: Box, didPulse pulse: IndicatorPulse, because reason: PulseReason)
    func box(_ box: Box, didShow frame: Bitmap, at time: MonotonicTime)
    /// A MIDI message the engine placed for sending (`heardAt`: when its sample is heard).
    func box(_ box: Box, willSend message: MIDIOutEvent, heardAt time: MonotonicTime)
    /// A MIDI message that came in.
    func box(_ box: Box, didReceive message: MIDIMessage, at time: MonotonicTime)
    /// The coach judged a hit heard at `time` (the round trip or MIDI offset taken off).
    func box(_ box: Box, didJudge hit: CoachHit, heardAt time: MonotonicTime)
    /// An earned trainer stepped the tempo (Box+Trainer), from the downbeat heard at `time`.
    func box(_ box: Box, didStepTrainer step: TrainerStep, heardAt time: MonotonicTime)
}

extension BoxObserver {
    public func box(_ box: Box, willSend message: MIDIOutEvent, heardAt time: MonotonicTime) {}
    public func box(_ box: Box, didReceive message: MIDIMessage, at time: MonotonicTime) {}
    public func box(_ box: Box, didJudge hit: CoachHit, heardAt time: MonotonicTime) {}
    public func box(_ box: Box, didStepTrainer step: TrainerStep, heardAt time: MonotonicTime) {}
}

/// Where MIDI messages placed by the engine go on a real box (the MIDI clock thread).
public protocol MIDISender: AnyObject {
    /// From now on the MIDI clock thread takes the engine's messages itself, never through
    /// the control thread: `next` gives the next one and the monotonic time it is to leave
    /// (when its sample is heard, minus `[midi] offset_ms`), or nil. Called once, on the
    /// control thread; `next` runs on the clock thread and never allocates, locks or logs.
    func takeMessages(_ next: @escaping @Sendable () -> (message: MIDIMessage, deadline: Int64)?)
}

/// What the control socket follows: the onsets as heard and every state change.
public protocol BoxControlObserver: AnyObject {
    func box(_ box: Box, didStart onset: OnsetEvent, heardAt time: MonotonicTime)
    func box(_ box: Box, didChange state: BoxState, at time: MonotonicTime)
    /// Someone follows the beat remotely (an open live view): the box announces its beats
    /// ahead and places START a little ahead, so the view hears of the first beat in time.
    var followsBeats: Bool { get }
    /// The beats of the published grid heard from `from` on, up to half a second ahead, as
    /// they now are: a beat announced earlier at or after `from` that is not listed is gone
    /// (a change, STOP). Sent when beats enter that window and when the grid changes.
    func box(_ box: Box, willPlay beats: [AnnouncedBeat], from: MonotonicTime)
}

/// A beat of the one timeline announced ahead: bar, beat in the bar and when it is heard.
public struct AnnouncedBeat: Sendable, Hashable {
    public var bar: Int64
    public var beat: Int
    public var time: MonotonicTime
}
