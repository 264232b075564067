// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// The coach's entry points on the box (the capture thread's hits, MIDI note-ons, the
/// input's status, the `[coach]` settings), each checked to be on the box's thread and
/// handed to the coach feature.
extension Box {
    /// The coach's grid and latencies (`[coach]` settings, the calibrated round trip).
    public var coachTuning: CoachTuning {
        get { coaching.coachTuning }
        set { coaching.coachTuning = newValue }
    }

    /// The coach has an audio input (`[coach] input` opened, or the simulator's take).
    public var coachInputAvailable: Bool {
        get { coaching.coachInputAvailable }
        set { coaching.coachInputAvailable = newValue }
    }

    /// The capture side's ears: told the round trip and the calibrated click gain to take
    /// the box's click out with (not while calibrating: then it learns the click's gain).
    public var coachListener: CoachListener? {
        get { coaching.listener }
        set {
            coaching.listener = newValue
            coaching.tuneListener()
        }
    }

    /// Menu > Coach > Calibrate is playing its clicks (they are no practice).
    var isCalibratingCoach: Bool { coaching.coachCalibrationRun != nil }

    /// A hit the audio input heard at `time` (CLOCK_MONOTONIC of its first sample, as the
    /// capture thread mapped it), judged on the one timeline; nil when nothing is playing,
    /// the hit lies outside the grid, or the calibration keeps it.
    @discardableResult
    public func coachHit(at time: MonotonicTime) -> CoachHit? {
        preconditionOnBoxThread()
        return coaching.coachHit(at: time)
    }

    /// A MIDI note-on (e-drums, `[coach] midi = true`), stamped on arrival.
    @discardableResult
    public func coachNote(velocity: Int, at time: MonotonicTime) -> CoachHit? {
        preconditionOnBoxThread()
        return coaching.coachNote(velocity: velocity, at: time)
    }

    /// What became of the coach's capture device: a notice on the box.
    public func coachInput(_ status: CaptureStatus) {
        preconditionOnBoxThread()
        coaching.coachInput(status)
    }
}
