// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import ClickEngine
import Coach
import HAL
import Logging
import SimHAL
import TactusApp
import TactusWire
import TactusArithmetic
import TactusInstrument
import TactusBase
import TactusTimeline
import MIDIWire

/// Where a headless simulation's results go: `tactus simulate` writes audio.wav,
/// events.jsonl and frames/*.pbm; tests keep them in memory.
public protocol SimulationOutput: AnyObject {
    /// Interleaved samples, exactly as the box rendered them, in order.
    func audio(_ interleaved: [Float]) throws
    /// One JSON object per line, in time order.
    func event(_ line: String) throws
    /// A screen frame that differs from the previous one, with its time in milliseconds.
    func frame(_ frame: Bitmap, milliseconds: Int64) throws
}

/// Paces a simulation on the real clock (`tactus simulate --headless --realtime`).
public protocol SimulationPacer: AnyObject {
    /// CLOCK_MONOTONIC nanoseconds at simulated time 0: events carry `mono` = origin + t.
    var originNanoseconds: Int64 { get }
    /// Simulated time 0 is now (the run begins; setting the box up took its time before).
    func begin()
    /// Sleeps until simulated time `nanoseconds` is due on the real clock. Returns the
    /// simulated time at which the run must end instead (a SIGTERM or SIGINT arrived), or nil.
    func wait(until nanoseconds: Int64) -> Int64?
}

/// The whole box on simulated time, faster than real time: the same `Box` as `tactus run`
/// with SimHAL parts (an offline sink pulled period by period, a manual clock, recorded
/// LEDs and screen), driven by a script's physical input edges.
public final class HeadlessSimulation: BoxObserver {
    public let box: Box
    public let format: AudioFormat
    private let clock: ManualClock
    private let sink: OfflineAudioSink
    private let output: any SimulationOutput
    /// Event lines not yet written: only the last seconds are held, so memory stays flat
    /// at any simulated length (a 24 h simulation writes as it goes).
    private var records: [(time: Int64, order: Int, line: String)] = []
    private var nextOrder = 0
    /// Lines are recorded up to this far ahead of the simulated time (a click is heard a
    /// period later, an LED goes off after its pulse); older ones can no longer change order.
    static let recordHorizon: Int64 = 2_000_000_000
    static let liveHorizon: Int64 = 20_000_000
    private var lastState: String?
    /// `--input TAKE.wav`: the coach listening to a take (hit lines in the events).
    public var coach: SimulatedCoach? {
        didSet { box.coachInputAvailable = coach != nil }
    }
    /// The take's hits are being judged (recordHits writes their lines, not didJudge).
    private var judgingTake = false

    public init(board: BoardDefinition, configuration: ConfigurationFile, saved: SavedState, problem: String?,
                notice: String? = nil, persistence: any SettingsPersistence, userSounds: [SoundSet] = [], output: any SimulationOutput,
                link: (any LinkSession)? = nil, logger: Logger) throws {
        let clock = ManualClock(start: .zero)
        // One period of output delay: the period rendered at time t is heard from t on.
        format = AudioFormat(sampleRate: board.audio.sampleRate, channels: board.audio.channels,
                             periodFrames: board.audio.periodFrames, bufferFrames: board.audio.periodFrames * board.audio.periodCount)
        sink = OfflineAudioSink(format: format, simulatedDelayFrames: format.periodFrames, clock: clock)
        let audio = try AudioOutput(device: sink, silent: sink)
        let parts = BoxParts(board: board, configuration: configuration, audio: audio, input: ScriptedInput(),
                             display: SnapshotDisplay(width: board.display?.width ?? 128, height: board.display?.height ?? 64, keeping: 1),
                             indicators: DiscardingIndicators(), persistence: persistence, clock: clock, userSounds: userSounds, link: link)
        box = try BoxAssembly.makeBox(parts, saved: saved, problem: problem, notice: notice, logger: logger)
        self.clock = clock
        self.output = output
        box.observer = self
        try audio.start(box.engine.renderer)
    }

    /// Work from outside run at each step of a paced run, on the simulation's thread (the
    /// control socket's requests: `simulate --headless --realtime --web`).
    public var betweenSteps: ((Box) -> Void)?

    /// Set while a paced run goes on: every line gets `mono` beside `t`.
    private var monoOrigin: Int64?

    /// Runs the script to its end and writes everything to the output. With a pacer, each
    /// step waits for its moment on the real clock, and an interruption ends the run there
    /// as `end` would; lines are written as soon as nothing earlier can still come.
    /// Returns the simulated time at which it ended.
    @discardableResult
    public func run(_ script: SimulationScript, pacer: (any SimulationPacer)? = nil) throws -> Rational {
        pacer?.begin()
        monoOrigin = pacer?.originNanoseconds
        var edges = script.edgeStream(stepsPerDetent: box.board.encoder.stepsPerDetent, origin: .zero)
        var nextEdge = edges.next()
        var midi = script.midiStream()
        var nextMIDI = midi.next()
        var actions = script.actions(origin: .zero)[...]
        var end = (script.endTime * Rational(1_000_000_000)).rounded
        let rate = Int64(format.sampleRate)
        var framesRendered: Int64 = 0
        recordState(box.state, at: 0)
        box.advance(to: .zero)
        while true {
            let periodTime = framesRendered * 1_000_000_000 / rate
            var next = periodTime
            if let edge = nextEdge { next = min(next, edge.timestamp.nanoseconds) }
            if let action = actions.first { next = min(next, action.time.nanoseconds) }
            if let input = nextMIDI { next = min(next, max(input.nanoseconds, clock.now().nanoseconds)) }
            // A wakeup that is already due was just handled: time must move on (by 1 µs at least).
            if let wake = box.nextWakeup { next = min(next, max(wake.nanoseconds, clock.now().nanoseconds + 1_000)) }
            guard next < end else { break }
            if let pacer, let stop = pacer.wait(until: next) {
                end = max(min(end, stop), clock.now().nanoseconds)
                if next >= end { break }
            }
            clock.set(MonotonicTime(nanoseconds: next))
            // Settings lines first: `sync link` and a press at the same time start in Link.
            while let action = actions.first, action.time.nanoseconds <= next {
                box.handle(action)
                box.advance(to: MonotonicTime(nanoseconds: next))
                actions.removeFirst()
            }
            while let edge = nextEdge, edge.timestamp.nanoseconds <= next {
                record(at: next, input(edge))
                box.handle(edge)
                nextEdge = edges.next()
            }
            while let input = nextMIDI, input.nanoseconds <= next {
                switch input.input {
                case .message(let message): box.handleMIDI(message, at: MonotonicTime(nanoseconds: max(input.nanoseconds, clock.now().nanoseconds)))
                }
                nextMIDI = midi.next()
            }
            betweenSteps?(box)
            var heard: [Int64]?
            if periodTime <= next {
                try output.audio(sink.pull(frameCount: format.periodFrames))
                framesRendered += Int64(format.periodFrames)
                heard = coach?.hear(upTo: framesRendered * 1_000_000_000 / rate)
            }
            box.advance(to: MonotonicTime(nanoseconds: next))
            // After the advance: the anchors of what was just rendered are on the timeline.
            recordHits(heard)
            if records.count >= 256 { try writeRecords(before: min(next - Self.recordHorizon, end + 1)) }
            // Live readers (a browser, a test) see lines within a fraction of a second: nothing
            // recorded later is dated before the moment being simulated.
            if pacer != nil, !records.isEmpty { try writeRecords(before: min(next - Self.liveHorizon, end + 1)) }
        }
        clock.set(MonotonicTime(nanoseconds: end))
        box.advance(to: MonotonicTime(nanoseconds: end))
        recordHits(coach?.hear(upTo: end))
        recordHits(coach?.finish())
        try writeRecords(before: end + 1)
        return Rational(end, 1_000_000_000)
    }

    /// Writes, in time order, the recorded lines earlier than `limit` and forgets them.
    private func writeRecords(before limit: Int64) throws {
        records.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        var written = 0
        while written < records.count && records[written].time < limit {
            try output.event(withMono(records[written].line, at: records[written].time))
            written += 1
        }
        records.removeFirst(written)
    }

    /// `{"t":T,"mono":M,...}`: every line starts with its `t`; on the real clock `mono`
    /// (CLOCK_MONOTONIC seconds) follows it.
    private func withMono(_ line: String, at time: Int64) -> String {
        guard let origin = monoOrigin, let comma = line.firstIndex(of: ",") else { return line }
        return String(line[..<comma]) + ",\"mono\":\(seconds(origin + time))" + String(line[comma...])
    }

    // MARK: BoxObserver

    public func box(_ box: Box, didStart onset: OnsetEvent, heardAt time: MonotonicTime) {
        // The fields render's events have (one writer), after the time it is heard.
        let schedule = box.state.practice.isLoaded ? box.engine.song : nil
        record(at: time.nanoseconds, "{\"t\":\(seconds(time.nanoseconds)),\"type\":\"onset\",\(OnsetEventJSON.fields(onset, schedule: schedule))}")
    }

    public func box(_ box: Box, willSend message: MIDIOutEvent, heardAt time: MonotonicTime) {
        record(at: time.nanoseconds, event(time.nanoseconds, "midi") {
            $0.add("dir", "out")
            $0.add("bytes", message.message.hex)
            $0.add("sample", message.sample)
        })
    }

    public func box(_ box: Box, didReceive message: MIDIMessage, at time: MonotonicTime) {
        record(at: time.nanoseconds, event(time.nanoseconds, "midi") { $0.add("dir", "in"); $0.add("bytes", message.hex) })
    }

    /// A hit judged outside the take (a MIDI note-on, `[coach] midi`): a `hit` line at the
    /// note's arrival, its `sample` on the box's own clock (the take's hits are written by
    /// recordHits, with the take's sample).
    public func box(_ box: Box, didJudge hit: CoachHit, heardAt time: MonotonicTime) {
        guard !judgingTake else { return }
        let arrival = time.nanoseconds + box.coachTuning.midiOffsetNanoseconds
        let rate = Int64(box.engine.renderer.sampleRate)
        let line = SimulatedCoach.line(hit, sample: arrival * rate / 1_000_000_000, sampleRate: Int(rate),
                                       grid: box.coachTuning.perWholeNote.map { "1/\($0)" })
        record(at: arrival, line)
    }

    /// An earned trainer's step: a `trainer` line at the downbeat the new tempo starts on.
    public func box(_ box: Box, didStepTrainer step: TrainerStep, heardAt time: MonotonicTime) {
        record(at: time.nanoseconds, event(time.nanoseconds, "trainer") { $0.append(StateJSON.trainerStep(step)) })
    }

    public func box(_ box: Box, didChange state: BoxState, at time: MonotonicTime) {
        recordState(state, at: time.nanoseconds)
    }

    public func box(_ box: Box, didPulse pulse: IndicatorPulse, because reason: PulseReason) {
        let start = pulse.startNanoseconds
        let end = start + pulse.lengthNanoseconds
        let milliseconds = Double(pulse.lengthNanoseconds) / 1e6
        if pulse.channel == .buzzer {
            let kind: String = switch reason {
            case .wheel(.tick): "tick"
            case .wheel(.bump): "bump"
            case .onset: "pulse"
            }
            record(at: start, event(start, "buzzer") { $0.add(.kind, kind); $0.add("length_ms", JSONNumber("\(milliseconds)")) })
        } else {
            let which = switch pulse.channel {
            case .accentLED: "accent"
            case .beatLED: "beat"
            default: "sub"
            }
            record(at: start, event(start, "led") { $0.add("which", which); $0.add(.on, true) })
            record(at: end, event(end, "led") { $0.add("which", which); $0.add(.on, false) })
        }
    }

    public func box(_ box: Box, didShow frame: Bitmap, at time: MonotonicTime) {
        try? output.frame(frame, milliseconds: time.nanoseconds / 1_000_000)
    }

    // MARK: records

    /// Hits the take holds (its samples): the box judges them as the live capture's; each
    /// judged one is a `hit` line at its time.
    private func recordHits(_ samples: [Int64]?) {
        guard let coach, let samples else { return }
        let grid = box.coachTuning.perWholeNote.map { "1/\($0)" }
        judgingTake = true
        defer { judgingTake = false }
        for sample in samples {
            let time = coach.nanoseconds(ofSample: sample)
            guard let hit = box.coachHit(at: MonotonicTime(nanoseconds: time)) else { continue }
            record(at: time, coach.line(hit, sample: sample, grid: grid))
        }
    }

    private func record(at time: Int64, _ line: String) {
        records.append((time, nextOrder, line))
        nextOrder += 1
    }

    private func seconds(_ nanoseconds: Int64) -> String {
        let value = Double(nanoseconds) / 1e9
        var text = String(Int64((value * 1e6).rounded()))
        while text.count < 7 { text = "0" + text }
        return "\(text.dropLast(6)).\(text.suffix(6))"
    }

    private func input(_ edge: LineEdge) -> String {
        event(edge.timestamp.nanoseconds, "input") { $0.add(.line, edge.role.rawValue); $0.add("active", edge.isActive) }
    }

    /// One events line, `{"t":S,"type":T,...}`, by the one JSON writer.
    private func event(_ time: Int64, _ type: String, _ members: (inout JSONObject) -> Void) -> String {
        var line = JSONObject()
        line.add("t", JSONNumber(seconds(time)))
        line.add(.type, type)
        members(&line)
        return line.text
    }

    /// A "state" line with the whole current settings, when anything in it changed.
    private func recordState(_ state: BoxState, at time: Int64) {
        let fields = StateJSON.fields(state)
        guard fields.members != lastState else { return }
        lastState = fields.members
        record(at: time, event(time, "state") { $0.append(fields) })
    }
}

/// LEDs and buzzer for the headless simulation: the observer writes every pulse as an
/// event, so nothing needs keeping here (a 24 h run would otherwise hold every pulse).
final class DiscardingIndicators: IndicatorOutput {
    func pulse(_ indicator: IndicatorChannel, at start: MonotonicTime, lastingNanoseconds nanoseconds: Int64) {}
    func set(_ indicator: IndicatorChannel, on: Bool) {}
}

