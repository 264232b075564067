// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TOMLReader
import TactusArithmetic
import TactusInstrument
import TactusBase
import TactusTimeline
import MIDIWire

/// A line of a simulation script that cannot be used; names the file and line.
public struct SimulationScriptError: Error, CustomStringConvertible, Equatable {
    public let file: String
    public let line: Int
    public let problem: String
    public var description: String { oneLine("\(file):\(line): \(problem)") }
}

/// Scripted physical input for `tactus simulate --headless`, one step per line:
///
///     0.000 press start            # press a button: start, tap, wheel, footswitch
///     1.200 turn +5 over 2.5       # five detents clockwise, evenly over 2.5 s
///     5.000 turn -40 over 0.3      # a quick flick counter-clockwise
///     5.500 turn +2 over 0.2 pushed # turned while held down: the next fields of the mode
///     6.000 tap                    # = press tap
///     7.000 press wheel long       # short (default), long or double
///     9.000 end
///
/// MIDI in (`tactus simulate` follows it with `--sync midi` or a `sync` line):
///
///     0.000 sync midi                          # or internal: switch the source
///     0.000 midi clock 100 until 12 jitter 0.5 seed 7   # 24 a quarter note from 0 to 12 s
///     0.500 midi start                         # start, stop or continue
///     0.600 midi spp 16                        # Song Position Pointer, in 16ths
///     1.000 midi note 36 velocity 100          # note on (velocity 0 is a note off)
///     1.200 midi cc 64 127
///     1.300 midi program 2
///
/// Times are seconds of simulated time and may not go back. Everything becomes line edges
/// (quadrature A/B for turns, contact closed/open for presses), which go through the same
/// decoders as the box's GPIO edges.
public struct SimulationScript: Equatable {
    public enum Press: String, Equatable { case short, long, double }

    public enum Step: Equatable {
        case press(InputRole, Press)
        /// `pushed`: the wheel is held down from the step's time until 50 ms after the last detent.
        case turn(detents: Int, seconds: Rational, pushed: Bool)
        /// A MIDI clock at `bpm` quarter notes a minute from the step's time until `until`
        /// (seconds), each tick moved by a uniform random amount within +-`jitter` ms.
        case midiClock(bpm: Rational, until: Rational, jitter: Rational, seed: UInt64)
        case midi(MIDIMessage)
        /// `sync internal|midi|link`: the sync source; `link start-stop-sync on|off`.
        case sync(SyncSource)
        case linkStartStopSync(Bool)
        case end
    }

    public var steps: [(time: Rational, line: Int, step: Step)] = []
    public var endTime: Rational

    /// How long a finger holds a button for each kind of press.
    public static let shortHold: Int64 = 80_000_000
    public static let longHold: Int64 = 1_200_000_000
    public static let doubleGap: Int64 = 100_000_000
    /// A pushed turn lets go of the wheel this long after its last detent.
    public static let pushedTurnRelease: Int64 = 50_000_000

    public static func == (a: SimulationScript, b: SimulationScript) -> Bool {
        a.endTime == b.endTime && a.steps.map(\.time) == b.steps.map(\.time) && a.steps.map(\.step) == b.steps.map(\.step)
    }

    public init(text: String, file: String) throws(SimulationScriptError) {
        let buttons: [String: InputRole] = ["start": .startStop, "tap": .tap, "wheel": .encoderPush, "footswitch": .footswitch]
        var last = Rational.zero
        var end: Rational?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            func fail(_ problem: String) -> SimulationScriptError { SimulationScriptError(file: file, line: line, problem: problem) }
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let first = words.first else { continue }
            guard end == nil else { throw fail("nothing may follow 'end'") }
            guard let time = Rational(parsing: first), !first.contains("/"), time >= .zero, time <= Rational(86_400) else {
                throw fail("time '\(first)' is invalid: expected seconds from 0 to 86400, e.g. 1.250")
            }
            guard time >= last else { throw fail("time \(first) goes back (the previous step was at \(last.decimalDescription) s)") }
            last = time
            let rest = Array(words.dropFirst())
            let step: Step
            switch rest.first {
            case "press":
                guard rest.count == 2 || rest.count == 3, let role = buttons[rest[1]] else {
                    throw fail("expected 'press start|tap|wheel|footswitch [short|long|double]'")
                }
                guard let press = rest.count == 3 ? Press(rawValue: rest[2]) : .short else {
                    throw fail("press '\(rest[2])' is invalid: allowed short, long or double")
                }
                step = .press(role, press)
            case "tap":
                guard rest.count == 1 else { throw fail("'tap' takes nothing after it") }
                step = .press(.tap, .short)
            case "turn":
                guard rest.count == 4 || (rest.count == 5 && rest[4] == "pushed"), rest[2] == "over" else {
                    throw fail("expected 'turn +N over SECONDS [pushed]' (N a non-zero number of detents, SECONDS more than 0)")
                }
                guard let detents = Int(rest[1]), detents != 0, detents.magnitude <= 10_000 else { // abs(Int.min) traps
                    throw fail("detents '\(rest[1])' is invalid: allowed a whole number from -10000 to +10000, not 0")
                }
                guard let seconds = Rational(parsing: rest[3]), !rest[3].contains("/"), seconds > .zero, seconds <= Rational(3600) else {
                    throw fail("turn time '\(rest[3])' is invalid: allowed more than 0 up to 3600 seconds, e.g. 0.3")
                }
                step = .turn(detents: detents, seconds: seconds, pushed: rest.count == 5)
            case "midi":
                step = try SimulationScript.midiStep(Array(rest.dropFirst()), time: time, fail: fail)
            case "sync":
                guard rest.count == 2, let source = SyncSource(rawValue: rest[1]) else {
                    throw fail("expected 'sync \(SyncSource.allCases.map(\.rawValue).joined(separator: "|"))'")
                }
                step = .sync(source)
            case "link":
                guard rest.count == 3, rest[1] == "start-stop-sync", rest[2] == "on" || rest[2] == "off" else {
                    throw fail("expected 'link start-stop-sync on|off'")
                }
                step = .linkStartStopSync(rest[2] == "on")
            case "end":
                guard rest.count == 1 else { throw fail("'end' takes nothing after it") }
                step = .end
                end = time
            default:
                throw fail("'\(rest.joined(separator: " "))' is invalid: expected press, tap, turn, midi, sync, link or end")
            }
            steps.append((time, line, step))
        }
        guard let end else { throw SimulationScriptError(file: file, line: steps.last?.line ?? 1, problem: "the script must finish with 'TIME end'") }
        endTime = end
    }

    static func midiStep(_ words: [String], time: Rational, fail: (String) -> SimulationScriptError) throws(SimulationScriptError) -> Step {
        func byte(_ text: String, _ what: String) throws(SimulationScriptError) -> UInt8 {
            guard let n = Int(text), (0...127).contains(n) else { throw fail("\(what) '\(text)' is invalid: allowed 0 to 127") }
            return UInt8(n)
        }
        switch (words.first, words.count) {
        case ("clock", _):
            // clock BPM until T2 [jitter MS] [seed N]
            guard words.count >= 4, words[2] == "until" else {
                throw fail("expected 'midi clock BPM until SECONDS [jitter MS] [seed N]'")
            }
            guard let bpm = Rational(parsing: words[1]), !words[1].contains("/"), bpm >= Rational(1), bpm <= Rational(999) else {
                throw fail("clock tempo '\(words[1])' is invalid: allowed 1 to 999 BPM")
            }
            guard let until = Rational(parsing: words[3]), !words[3].contains("/"), until > time, until <= Rational(86_400) else {
                throw fail("clock end '\(words[3])' is invalid: allowed seconds after the line's time, up to 86400")
            }
            var jitter = Rational.zero
            var seed: UInt64 = 1
            var i = 4
            while i < words.count {
                guard i + 1 < words.count else { throw fail("'\(words[i])' needs a value") }
                switch words[i] {
                case "jitter":
                    // Up to 100 ms: a quarter of a period at 30 BPM is 20.8 ms, and slower or worse
                    // clocks are worth trying too.
                    guard let j = Rational(parsing: words[i + 1]), !words[i + 1].contains("/"), j >= .zero, j <= Rational(100) else {
                        throw fail("jitter '\(words[i + 1])' is invalid: allowed 0 to 100 ms")
                    }
                    jitter = j
                case "seed":
                    guard let n = UInt64(words[i + 1]) else { throw fail("seed '\(words[i + 1])' is invalid: allowed a whole number from 0") }
                    seed = n
                default:
                    throw fail("'\(words[i])' is invalid: expected jitter MS or seed N")
                }
                i += 2
            }
            return .midiClock(bpm: bpm, until: until, jitter: jitter, seed: seed)
        case ("tick", 1): return .midi(.clock)
        case ("start", 1): return .midi(.start)
        case ("stop", 1): return .midi(.stop)
        case ("continue", 1): return .midi(.continue)
        case ("spp", 2):
            guard let n = Int(words[1]), (0...MIDIMessage.maximumSongPosition).contains(n) else {
                throw fail("song position '\(words[1])' is invalid: allowed 0 to 16383 (16ths)")
            }
            return .midi(.songPosition(n))
        case ("note", 2), ("note", 4):
            let note = try byte(words[1], "note")
            var velocity: UInt8 = 100
            if words.count == 4 {
                guard words[2] == "velocity" else { throw fail("expected 'midi note N [velocity V]'") }
                velocity = try byte(words[3], "velocity")
            }
            return .midi(velocity == 0 ? .noteOff(channel: 0, note: note, velocity: 0) : .noteOn(channel: 0, note: note, velocity: velocity))
        case ("cc", 3): return .midi(.controlChange(channel: 0, controller: try byte(words[1], "controller"), value: try byte(words[2], "value")))
        case ("program", 2): return .midi(.programChange(channel: 0, program: try byte(words[1], "program")))
        default:
            throw fail("expected 'midi clock BPM until T [jitter MS] [seed N]', 'midi tick', 'midi start|stop|continue', 'midi spp N', 'midi note N [velocity V]', 'midi cc N V' or 'midi program N'")
        }
    }

    /// What the script sends over MIDI, in time order; clocks are made as they are read, so
    /// memory stays flat over a long clock.
    public func midiStream() -> MIDIStream { MIDIStream(steps: steps.map { ($0.time, $0.step) }) }

    public enum MIDIInput: Equatable {
        case message(MIDIMessage)
    }

    public struct MIDIStream: IteratorProtocol {
        private var fixed: [(nanoseconds: Int64, order: Int, input: MIDIInput)] = []
        private var fixedIndex = 0
        /// Running clocks: next tick index, first tick, period (ns, exact), end, jitter, generator.
        private var clocks: [(order: Int, start: Rational, period: Rational, until: Rational, jitter: Double, state: UInt64, index: Int64)] = []

        init(steps: [(time: Rational, step: Step)]) {
            let billion = Rational(1_000_000_000)
            for (order, (time, step)) in steps.enumerated() {
                switch step {
                case .midi(let message): fixed.append(((time * billion).rounded, order, .message(message)))
                case .midiClock(let bpm, let until, let jitter, let seed):
                    clocks.append((order, time * billion, Rational(60) * billion / (Rational(24) * bpm), until * billion,
                                   jitter.doubleValue * 1e6, seed, 0))
                default: break
                }
            }
        }

        /// SplitMix64: the same jitter for the same seed on every machine.
        private static func random(_ state: inout UInt64) -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        private func clockTime(_ c: Int) -> Rational? {
            let clock = clocks[c]
            let t = clock.start + clock.period * Rational(clock.index)
            return t < clock.until ? t : nil
        }

        public mutating func next() -> (nanoseconds: Int64, input: MIDIInput)? {
            var best: (time: Int64, order: Int, clock: Int?)?
            if fixedIndex < fixed.count { best = (fixed[fixedIndex].nanoseconds, fixed[fixedIndex].order, nil) }
            for c in clocks.indices {
                guard let t = clockTime(c) else { continue }
                let ns = t.rounded
                if best.map({ (ns, clocks[c].order) < ($0.time, $0.order) }) ?? true { best = (ns, clocks[c].order, c) }
            }
            guard let best else { return nil }
            guard let c = best.clock else {
                defer { fixedIndex += 1 }
                return (fixed[fixedIndex].nanoseconds, fixed[fixedIndex].input)
            }
            clocks[c].index += 1
            var jitter: Int64 = 0
            if clocks[c].jitter > 0 {
                let unit = Double(MIDIStream.random(&clocks[c].state) >> 11) / Double(1 << 53) // 0 ..< 1
                jitter = Int64(((unit * 2 - 1) * clocks[c].jitter).rounded())
            }
            return (max(best.time + jitter, 0), .message(.clock))
        }
    }

    /// The physical edges of every step, in time order, starting at `origin` and with the
    /// encoder at rest (both contacts open) before each turn. Tests use it; a simulation
    /// reads `edgeStream` instead, which holds only the steps in progress.
    public func edges(stepsPerDetent: Int, origin: MonotonicTime) -> [LineEdge] {
        Array(IteratorSequence(edgeStream(stepsPerDetent: stepsPerDetent, origin: origin)))
    }

    /// The steps that are settings rather than input edges, as actions at their times.
    public func actions(origin: MonotonicTime) -> [Action] {
        steps.compactMap { time, _, step in
            let at = origin.advanced(byNanoseconds: (time * Rational(1_000_000_000)).rounded)
            switch step {
            case .sync(let source): return .sync(source, at: at)
            case .linkStartStopSync(let on): return .linkStartStopSync(on, at: at)
            default: return nil
            }
        }
    }

    /// The same edges, made as they are read: memory depends on how many steps overlap,
    /// never on the length of the script or of the simulated time.
    public func edgeStream(stepsPerDetent: Int, origin: MonotonicTime) -> EdgeStream {
        EdgeStream(steps: steps.map { ($0.time, $0.step) }, stepsPerDetent: stepsPerDetent, origin: origin)
    }

    /// Merges the edges of the steps in progress in (time, step order) order; a step starts
    /// taking part when the merge reaches its start time.
    public struct EdgeStream: IteratorProtocol {
        /// One step's edges in time order: a press (or two, for a double press) or the
        /// quadrature steps of a turn.
        private struct Source {
            let order: Int
            var fixed: [LineEdge] = []
            var fixedIndex = 0
            var turn: (start: MonotonicTime, nanoseconds: Rational, quarterSteps: Int, direction: Int, done: Int, phase: Int)?

            /// Gray sequence of contact states (A closed, B closed), clockwise from rest.
            static let gray: [(Bool, Bool)] = [(false, false), (false, true), (true, true), (true, false)]

            var head: LineEdge? {
                if fixedIndex < fixed.count { return fixed[fixedIndex] }
                guard let turn, turn.done < turn.quarterSteps else { return nil }
                // Evenly spread: quarter step k lands at (k + 1) / count of the duration.
                let offset = (turn.nanoseconds * Rational(Int64(turn.done + 1), Int64(turn.quarterSteps))).rounded
                let previous = Source.gray[turn.phase], next = Source.gray[(turn.phase + turn.direction + 4) % 4]
                let time = turn.start.advanced(byNanoseconds: offset)
                // One contact changes per quarter step (Gray code).
                return previous.0 != next.0
                    ? LineEdge(role: .encoderA, level: !next.0, isActive: next.0, timestamp: time)
                    : LineEdge(role: .encoderB, level: !next.1, isActive: next.1, timestamp: time)
            }

            mutating func advance() {
                if fixedIndex < fixed.count { fixedIndex += 1; return }
                turn!.done += 1
                turn!.phase = (turn!.phase + turn!.direction + 4) % 4
            }
        }

        private let steps: [(time: Rational, step: Step)]
        private let stepsPerDetent: Int
        private let origin: MonotonicTime
        private var nextStep = 0
        private var encoderPhase = 0
        private var sources: [Source] = []

        init(steps: [(time: Rational, step: Step)], stepsPerDetent: Int, origin: MonotonicTime) {
            self.steps = steps
            self.stepsPerDetent = stepsPerDetent
            self.origin = origin
        }

        public mutating func next() -> LineEdge? {
            while true {
                let earliest = sources.indices.min { a, b in
                    (sources[a].head!.timestamp, sources[a].order) < (sources[b].head!.timestamp, sources[b].order)
                }
                if nextStep < steps.count, earliest.map({ at(steps[nextStep].time) <= sources[$0].head!.timestamp }) ?? true {
                    begin(nextStep)
                    nextStep += 1
                    continue
                }
                guard let earliest else { return nil }
                let edge = sources[earliest].head!
                sources[earliest].advance()
                if sources[earliest].head == nil { sources.remove(at: earliest) }
                return edge
            }
        }

        private func at(_ seconds: Rational, plus nanoseconds: Int64 = 0) -> MonotonicTime {
            origin.advanced(byNanoseconds: (seconds * Rational(1_000_000_000)).rounded + nanoseconds)
        }

        private func press(_ role: InputRole, from start: MonotonicTime, holding: Int64) -> [LineEdge] {
            [LineEdge(role: role, level: false, isActive: true, timestamp: start),
             LineEdge(role: role, level: true, isActive: false, timestamp: start.advanced(byNanoseconds: holding))]
        }

        private mutating func begin(_ index: Int) {
            let (time, step) = steps[index]
            // Two sources per step at most (a pushed turn's push, then its turn): orders 2i, 2i+1.
            var source = Source(order: 2 * index)
            switch step {
            case .press(let role, .short): source.fixed = press(role, from: at(time), holding: SimulationScript.shortHold)
            case .press(let role, .long): source.fixed = press(role, from: at(time), holding: SimulationScript.longHold)
            case .press(let role, .double):
                source.fixed = press(role, from: at(time), holding: SimulationScript.shortHold)
                    + press(role, from: at(time, plus: SimulationScript.shortHold + SimulationScript.doubleGap), holding: SimulationScript.shortHold)
            case .turn(let detents, let seconds, let pushed):
                let nanoseconds = seconds * Rational(1_000_000_000)
                if pushed {
                    sources.append(Source(order: 2 * index, fixed: press(.encoderPush, from: at(time),
                                                                         holding: nanoseconds.rounded + SimulationScript.pushedTurnRelease)))
                }
                let quarterSteps = abs(detents) * stepsPerDetent
                let direction = detents > 0 ? 1 : -1
                source = Source(order: 2 * index + 1)
                source.turn = (at(time), nanoseconds, quarterSteps, direction, 0, encoderPhase)
                encoderPhase = ((encoderPhase + direction * quarterSteps) % 4 + 4) % 4
            case .end, .midi, .midiClock, .sync, .linkStartStopSync: return
            }
            if source.head != nil { sources.append(source) }
        }
    }
}
