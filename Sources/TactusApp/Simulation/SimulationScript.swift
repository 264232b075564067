// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TOMLReader
import TactusCore

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
                guard rest.count == 4 || (rest.count == 5 && rest[4] == "pushed"), rest[2] == "over", let detents = Int(rest[1]),
                      detents != 0, abs(detents) <= 10_000,
                      let seconds = Rational(parsing: rest[3]), !rest[3].contains("/"), seconds > .zero, seconds <= Rational(3600)
                else { throw fail("expected 'turn +N over SECONDS [pushed]' (N a non-zero number of detents, SECONDS more than 0)") }
                step = .turn(detents: detents, seconds: seconds, pushed: rest.count == 5)
            case "end":
                guard rest.count == 1 else { throw fail("'end' takes nothing after it") }
                step = .end
                end = time
            default:
                throw fail("'\(rest.joined(separator: " "))' is invalid: expected press, tap, turn or end")
            }
            steps.append((time, line, step))
        }
        guard let end else { throw SimulationScriptError(file: file, line: steps.last?.line ?? 1, problem: "the script must finish with 'TIME end'") }
        endTime = end
    }

    /// The physical edges of every step, in time order, starting at `origin` and with the
    /// encoder at rest (both contacts open) before each turn.
    public func edges(stepsPerDetent: Int, origin: MonotonicTime) -> [LineEdge] {
        var edges: [LineEdge] = []
        func at(_ seconds: Rational, plus nanoseconds: Int64 = 0) -> MonotonicTime {
            origin.advanced(byNanoseconds: (seconds * Rational(1_000_000_000)).rounded + nanoseconds)
        }
        func press(_ role: InputRole, from start: MonotonicTime, holding: Int64) {
            edges.append(LineEdge(role: role, level: false, isActive: true, timestamp: start))
            edges.append(LineEdge(role: role, level: true, isActive: false, timestamp: start.advanced(byNanoseconds: holding)))
        }
        // Gray sequence of contact states (A closed, B closed), clockwise from rest.
        let gray: [(Bool, Bool)] = [(false, false), (false, true), (true, true), (true, false)]
        var phase = 0
        for (time, _, step) in steps {
            switch step {
            case .press(let role, .short): press(role, from: at(time), holding: Self.shortHold)
            case .press(let role, .long): press(role, from: at(time), holding: Self.longHold)
            case .press(let role, .double):
                press(role, from: at(time), holding: Self.shortHold)
                press(role, from: at(time, plus: Self.shortHold + Self.doubleGap), holding: Self.shortHold)
            case .turn(let detents, let seconds, let pushed):
                if pushed {
                    press(.encoderPush, from: at(time), holding: (seconds * Rational(1_000_000_000)).rounded + Self.pushedTurnRelease)
                }
                let quarterSteps = abs(detents) * stepsPerDetent
                let direction = detents > 0 ? 1 : -1
                for step in 0..<quarterSteps {
                    // Evenly spread: quarter step k lands at (k + 1) / count of the duration.
                    let offset = (seconds * Rational(Int64(step + 1), Int64(quarterSteps)) * Rational(1_000_000_000)).rounded
                    let previous = gray[phase]
                    phase = (phase + direction + 4) % 4
                    let next = gray[phase]
                    let time = at(time, plus: offset)
                    if previous.0 != next.0 { edges.append(LineEdge(role: .encoderA, level: !next.0, isActive: next.0, timestamp: time)) }
                    if previous.1 != next.1 { edges.append(LineEdge(role: .encoderB, level: !next.1, isActive: next.1, timestamp: time)) }
                }
            case .end: break
            }
        }
        return edges.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
    }
}
