// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TOMLReader
import TactusCore
import TactusBase

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
/// Times are seconds of simulated time and may not go back. Everything becomes line edges
/// (quadrature A/B for turns, contact closed/open for presses), which go through the same
/// decoders as the box's GPIO edges.
public struct SimulationScript: Equatable {
    public enum Press: String, Equatable { case short, long, double }

    public enum Step: Equatable {
        case press(InputRole, Press)
        /// `pushed`: the wheel is held down from the step's time until 50 ms after the last detent.
        case turn(detents: Int, seconds: Rational, pushed: Bool)
        /// `sync internal|link`: the sync source; `link start-stop-sync on|off`.
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
                throw fail("'\(rest.joined(separator: " "))' is invalid: expected press, tap, turn, sync, link or end")
            }
            steps.append((time, line, step))
        }
        guard let end else { throw SimulationScriptError(file: file, line: steps.last?.line ?? 1, problem: "the script must finish with 'TIME end'") }
        endTime = end
    }

    /// The physical edges of every step, in time order, starting at `origin` and with the
    /// encoder at rest (both contacts open) before each turn. Tests use it; a simulation
    /// reads `edgeStream` instead, which holds only the steps in progress.
    public func edges(stepsPerDetent: Int, origin: MonotonicTime) -> [LineEdge] {
        Array(IteratorSequence(edgeStream(stepsPerDetent: stepsPerDetent, origin: origin)))
    }

    /// The same edges, made as they are read: memory depends on how many steps overlap,
    /// never on the length of the script or of the simulated time.
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
            case .end, .sync, .linkStartStopSync: return
            }
            if source.head != nil { sources.append(source) }
        }
    }
}
