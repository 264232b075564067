// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase

/// An Ableton Link session as the box uses it (LinuxHAL's `AbletonLink` over Debian's Link
/// headers; a fake in tests). Times are the box's monotonic times (the implementation maps
/// them to Link's host clock); tempos are Link beats (quarter notes) per minute.
public protocol LinkSession: AnyObject {
    func enable(_ enabled: Bool)
    var isEnabled: Bool { get }
    func enableStartStopSync(_ enabled: Bool)
    /// Other peers in the session.
    var peers: Int { get }
    /// The session's timeline and start/stop state now (an application-thread capture).
    func capture(quantum: Double) -> LinkTimeline
    /// Sets the session tempo from `time` on (beat and phase stay continuous there).
    func commit(tempo: Double, at time: MonotonicTime)
    /// Maps `beat` (quantum `quantum`) to `time` for the whole session, at once (the box
    /// alone in its session leads the beat: enabling Link never moves its clicks).
    func commit(beat: Double, at time: MonotonicTime, quantum: Double)
    /// Start/stop sync: starts or stops everyone at `time`.
    func commit(playing: Bool, at time: MonotonicTime)
}

/// One capture of a Link session: beat(t) = beatOrigin + (t - timeOrigin) x tempo / 60 s,
/// in the box's nanoseconds. Link's `beatAtTime(t, q)` differs from this line by a whole
/// multiple of q only (its phase encoding), so phases agree exactly.
public struct LinkTimeline: Sendable, Hashable {
    public var tempo: Double
    /// Link's beat (quantum `quantum`) at `timeOrigin`.
    public var beatOrigin: Double
    public var quantum: Double
    public var timeOrigin: MonotonicTime
    public var isPlaying: Bool
    public var timeForIsPlaying: MonotonicTime

    public init(tempo: Double, beatOrigin: Double, quantum: Double, timeOrigin: MonotonicTime, isPlaying: Bool,
                timeForIsPlaying: MonotonicTime) {
        self.tempo = tempo
        self.beatOrigin = beatOrigin
        self.quantum = quantum
        self.timeOrigin = timeOrigin
        self.isPlaying = isPlaying
        self.timeForIsPlaying = timeForIsPlaying
    }

    public func beat(at time: MonotonicTime) -> Double {
        beatOrigin + Double(time.nanoseconds - timeOrigin.nanoseconds) * tempo / 60e9
    }

    public func time(atBeat beat: Double) -> MonotonicTime {
        timeOrigin.advanced(byNanoseconds: Int64(((beat - beatOrigin) * 60e9 / tempo).rounded()))
    }
}
