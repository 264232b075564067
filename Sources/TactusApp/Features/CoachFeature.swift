// SPDX-License-Identifier: GPL-3.0-or-later
import Coach
import Glibc
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

/// The coach on the box's side: hits from the audio input or MIDI judged on the one
/// timeline, the input's notices, and Menu > Coach > Calibrate (the clicks it plays and the
/// round trip it measures).
final class CoachFeature: BoxFeature {
    unowned let box: Box
    /// The coach's grid and latencies (`[coach]` settings, the calibrated round trip).
    var coachTuning = CoachTuning() {
        didSet {
            coachJudging = JudgingGrid(perWholeNote: coachTuning.perWholeNote)
            tuneListener()
        }
    }
    var coachJudging = JudgingGrid()
    /// The coach's input last reported a problem (so "back" is said only after one).
    var coachInputProblem = false
    /// The coach has an audio input (`[coach] input` opened, or the simulator's take).
    var coachInputAvailable = false
    /// The capture side (the box's own click taken out of the input), when there is one.
    var listener: CoachListener?
    /// Menu > Coach > Calibrate playing its clicks.
    var coachCalibrationRun: CoachCalibrationRun?

    init(box: Box) { self.box = box }

    func perform(_ effect: Effect, at time: MonotonicTime, in box: Box) {
        switch effect {
        case .calibrateCoach: startCoachCalibration()
        case .cancelCoachCalibration: endCoachCalibration()
        default: break
        }
    }

    func advance(_ box: Box) { finishCoachCalibration() }

    func nextWakeup(_ box: Box) -> MonotonicTime? { coachCalibrationRun?.endsAt }

    /// A hit the audio input heard at `time` (CLOCK_MONOTONIC of its first sample, as the
    /// capture thread mapped it): judged on the one timeline after the calibrated round trip
    /// is taken off; the Coach page and the observers get it. Nil when nothing is playing
    /// or the hit lies outside the grid.
    @discardableResult
    func coachHit(at time: MonotonicTime) -> CoachHit? {
        if coachCalibrationRun != nil {
            // Calibrating: the onset is the box's own click, measured at the run's end.
            coachCalibrationRun?.heard.append(time.nanoseconds)
            return nil
        }
        // The calibrated round trip in the settings file, when there is one, is the one taken off.
        return judge(heardAt: time.nanoseconds - coachRoundTripNanoseconds)
    }

    /// A MIDI note-on (e-drums, `[coach] midi = true`), stamped on arrival: the MIDI input's
    /// one entry point into the coach. `[coach] midi_offset_ms` is taken off; a note-on
    /// with velocity 0 is a note-off and no hit.
    @discardableResult
    func coachNote(velocity: Int, at time: MonotonicTime) -> CoachHit? {
        guard velocity > 0, coachCalibrationRun == nil else { return nil }
        return judge(heardAt: time.nanoseconds - coachTuning.midiOffsetNanoseconds)
    }

    /// What became of the coach's capture device: a notice on the box (the metronome, its
    /// clicks and its timeline are not touched).
    func coachInput(_ status: CaptureStatus) {
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
        box.handle(.coachInput(text, problem: problem, at: box.now))
    }

    private func judge(heardAt nanoseconds: Int64) -> CoachHit? {
        guard box.state.isPlaying, let clock = box.outputClock else { return nil }
        let sample = clock.heardSample(atNanoseconds: nanoseconds)
        coachJudging.songs = box.engine.song?.songs ?? []
        guard let (position, halfStep) = coachJudging.nearest(toSample: sample, on: box.grid),
              abs(sample - Double(position.sample)) <= halfStep else { return nil }
        let hit = CoachHit(engineSample: sample, position: position,
                           errorMilliseconds: (sample - Double(position.sample)) * 1000 / Double(box.engine.renderer.sampleRate))
        box.handle(.coachHit(errorMilliseconds: hit.errorMilliseconds, bar: position.bar, gap: position.gap, at: box.now))
        box.practiceCoach.add(hit.errorMilliseconds)
        box.observer?.box(box, didJudge: hit, heardAt: MonotonicTime(nanoseconds: nanoseconds))
        return hit
    }

    /// The round trip hits are judged with (the calibrated one, else the configuration's).
    var coachRoundTripNanoseconds: Int64 {
        box.state.saved.preferences.coachRoundTripMicroseconds.map { Int64($0) * 1000 } ?? coachTuning.roundTripNanoseconds
    }

    func startCoachCalibration() {
        guard coachInputAvailable, !coachInputProblem else { return box.handle(.coachCalibrated(.noInput, at: box.now)) }
        // The user's sound at the usual levels: a silenced or muted setting would hear nothing.
        let clicks = MetronomeSettings(tempo: Tempo(clampingWholeBPM: CoachCalibrationRun.bpm), sound: box.state.settings.sound)
        do { try box.engine.apply(clicks) } catch {
            box.report("coach calibration: \(error)")
            return box.handle(.coachCalibrated(.noInput, at: box.now))
        }
        tuneListener(learning: true)
        let run = CoachCalibrationRun(
            endsAt: box.now.advanced(byNanoseconds: Int64(CoachCalibration.clicks) * 60_000_000_000 / Int64(CoachCalibrationRun.bpm)
                                 + CoachCalibrationRun.maximumLagNanoseconds + 500_000_000), // and the start's lead
            midiClockWasEnabled: box.engine.midiClock.enabled)
        box.engine.midiClock.enabled = false
        coachCalibrationRun = run
        box.engine.start()
        box.forgetGrid()
    }

    /// At the run's end: the outcome, measured before the clicks' grid is forgotten.
    func finishCoachCalibration() {
        guard let run = coachCalibrationRun, box.now >= run.endsAt else { return }
        var outcome = measureCoachCalibration(run)
        // The click's gain from the clean clicks the listener fitted (half of them at least).
        if case .roundTrip(let microseconds, _) = outcome, let learned = listener?.learned,
           learned.clicks >= CoachCalibration.clicks / 2, learned.gain != 0 {
            outcome = .roundTrip(microseconds: microseconds, clickGainDecibels: Double(learned.gain.magnitude).decibels)
        }
        endCoachCalibration()
        box.handle(.coachCalibrated(outcome, at: box.now))
        tuneListener()
        // The service log says it too (the VM suite's scenario 25 reads it).
        let onsets = run.heard.count
        switch outcome {
        case .roundTrip(let microseconds, let gain):
            let click = box.state.saved.preferences.coachClickGainDecibels.map { ", click at \($0) dB" } ?? (gain == nil ? ", click gain not learned" : "")
            box.inform("coach: calibrated, round trip \(microseconds) us\(click) (\(onsets) onsets heard)")
        default: box.inform("coach: calibration failed: \(box.state.lastCoachCalibration ?? "\(outcome)") (\(onsets) onsets heard)")
        }
    }

    /// Stops the calibration's clicks (its end, or START meanwhile).
    func endCoachCalibration() {
        guard let run = coachCalibrationRun else { return }
        coachCalibrationRun = nil
        box.engine.stop()
        box.engine.midiClock.enabled = run.midiClockWasEnabled
        box.forgetGrid()
        tuneListener()
    }

    /// The listener takes the click out at the round trip and calibrated gain the box holds
    /// now, or (Calibrate) hears the clicks and learns their gain.
    func tuneListener(learning: Bool = false) {
        let gain = box.state.saved.preferences.coachClickGainDecibels.map { Float(decibels: $0) }
        listener?.tune(roundTripNanoseconds: coachRoundTripNanoseconds, subtract: !learning, clickGain: gain)
    }

    private func measureCoachCalibration(_ run: CoachCalibrationRun) -> CoachCalibrationOutcome {
        guard let clock = box.outputClock, let start = box.grid.pieces.last?.startSample else { return .notHeard }
        var clicks: [Int64] = []
        for i in 0..<CoachCalibration.clicks {
            guard let sample = box.grid.sample(bar: Int64(i / 4), beats: Rational(Int64(i % 4)), near: start) else { return .notHeard }
            clicks.append(sample)
        }
        let rate = box.engine.renderer.sampleRate
        let onsets = run.heard.map { clock.heardSample(atNanoseconds: $0) }
        let maximumLag = Int(CoachCalibrationRun.maximumLagNanoseconds * Int64(rate) / 1_000_000_000)
        switch CoachCalibration.roundTrip(onsets: onsets, clicks: clicks, sampleRate: rate, maximumLag: maximumLag) {
        case .success(let lag): return .roundTrip(microseconds: Int(Int64(lag) * 1_000_000 / Int64(rate)))
        case .failure(.notHeard): return .notHeard
        case .failure(.clicksMissing(let count)): return .clicksMissing(count)
        }
    }
}

/// Menu > Coach > Calibrate on the box's side: the engine plays `CoachCalibration.clicks`
/// plain beats at 100 BPM (0.6 s apart, more than any round trip it accepts), the onsets the
/// input hears meanwhile are kept instead of judged, and at the end the lag most clicks
/// agree on is the round trip, measured on the one timeline as hits are judged.
struct CoachCalibrationRun {
    static let bpm = 100
    /// Onsets heard later than this after a click are not its own.
    static let maximumLagNanoseconds: Int64 = 500_000_000
    var heard: [Int64] = []
    var endsAt: MonotonicTime
    /// The MIDI clock's switch before: calibration clicks are not sent to other gear.
    var midiClockWasEnabled: Bool
}

extension Float {
    /// The amplitude of `decibels` dB.
    init(decibels: Double) { self = Float(pow(10, decibels / 20)) }
}

extension Double {
    /// This amplitude in dB.
    var decibels: Double { 20 * log10(self) }
}
