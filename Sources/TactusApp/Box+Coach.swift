// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusInstrument

/// A hit the coach judged: where on the engine's clock it was heard, the grid position it
/// went to and its error (negative = early).
public struct CoachHit: Sendable, Hashable {
    public var engineSample: Double
    public var position: JudgedPosition
    public var errorMilliseconds: Double
}

/// What the coach judges against and how late its inputs hear (the box's thread only).
public struct CoachTuning: Sendable, Hashable {
    /// `[coach] grid = "1/N"`: N, or nil for the beat and the sounding subdivision layers.
    public var perWholeNote: Int?
    /// The calibrated round trip of the audio input (speaker to microphone), nanoseconds.
    public var roundTripNanoseconds: Int64 = 0
    /// `[coach] midi_offset_ms`: how late MIDI note-ons arrive after the stroke, nanoseconds.
    public var midiOffsetNanoseconds: Int64 = 0
    /// `[coach] midi = true`: incoming note-ons (not mapped to a control) are hits.
    public var midi = false
    public init(perWholeNote: Int? = nil, roundTripNanoseconds: Int64 = 0, midiOffsetNanoseconds: Int64 = 0, midi: Bool = false) {
        self.perWholeNote = perWholeNote
        self.roundTripNanoseconds = roundTripNanoseconds
        self.midiOffsetNanoseconds = midiOffsetNanoseconds
        self.midi = midi
    }
}

extension Box {
    /// A hit the audio input heard at `time` (CLOCK_MONOTONIC of its first sample, as the
    /// capture thread mapped it): judged on the one timeline after the calibrated round trip
    /// is taken off; the Coach page and the observers get it. Nil when nothing is playing
    /// or the hit lies outside the grid.
    @discardableResult
    public func coachHit(at time: MonotonicTime) -> CoachHit? {
        preconditionOnBoxThread()
        return judge(heardAt: time.nanoseconds - coachRoundTripNanoseconds)
    }

    /// The audio input's round trip: the calibrated one in the settings file when there is
    /// one, else `CoachTuning.roundTripNanoseconds`.
    public var coachRoundTripNanoseconds: Int64 {
        state.saved.preferences.coachRoundTripMicroseconds.map { Int64($0) * 1000 } ?? coachTuning.roundTripNanoseconds
    }

    /// Hands the coach's capture thread what it needs to take the box's own sound out of the
    /// microphone: the output clock (the one mapping of CLOCK_MONOTONIC to the engine sample
    /// heard) and the round trip. Called on the box's thread every 50 ms while the coach
    /// listens, so a new calibration or a re-anchored output clock reaches it at once.
    public func publishCoachBleed(to listener: CoachListener) {
        preconditionOnBoxThread()
        listener.setRoundTrip(nanoseconds: coachRoundTripNanoseconds)
        if let clock = outputClock { listener.setOutputClock(clock) }
    }

    /// A MIDI note-on (e-drums, `[coach] midi = true`), stamped on arrival: the MIDI input's
    /// one entry point into the coach. `[coach] midi_offset_ms` is taken off; a note-on
    /// with velocity 0 is a note-off and no hit.
    @discardableResult
    public func coachNote(velocity: Int, at time: MonotonicTime) -> CoachHit? {
        preconditionOnBoxThread()
        guard velocity > 0 else { return nil }
        return judge(heardAt: time.nanoseconds - coachTuning.midiOffsetNanoseconds)
    }

    /// What became of the coach's capture device: a notice on the box (the metronome, its
    /// clicks and its timeline are not touched).
    public func coachInput(_ status: CaptureStatus) {
        preconditionOnBoxThread()
        let text: String, problem: Bool
        switch status {
        case .working:
            guard coachInputProblem else { return }
            (text, problem) = ("Coach input is back", false)
        case .missing: (text, problem) = ("Coach input missing", true)
        case .busy: (text, problem) = ("Coach input busy", true)
        case .lost: (text, problem) = ("Coach input lost", true)
        }
        coachInputProblem = problem
        handle(.coachInput(text, problem: problem, at: now))
    }

    private func judge(heardAt nanoseconds: Int64) -> CoachHit? {
        guard state.isPlaying, let clock = outputClock else { return nil }
        let sample = clock.heardSample(atNanoseconds: nanoseconds)
        coachJudging.songs = engine.song?.songs ?? []
        guard let (position, halfStep) = coachJudging.nearest(toSample: sample, on: grid),
              abs(sample - Double(position.sample)) <= halfStep else { return nil }
        let hit = CoachHit(engineSample: sample, position: position,
                           errorMilliseconds: (sample - Double(position.sample)) * 1000 / Double(engine.renderer.sampleRate))
        handle(.coachHit(errorMilliseconds: hit.errorMilliseconds, bar: position.bar, gap: position.gap, at: now))
        practiceCoach.add(hit.errorMilliseconds)
        observer?.box(self, didJudge: hit, heardAt: MonotonicTime(nanoseconds: nanoseconds))
        return hit
    }
}
