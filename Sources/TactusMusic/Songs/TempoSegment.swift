// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// How the tempo moves through one section. Tempos are BPM of the section's beat unit,
/// exact rationals.
public enum TempoSegment: Sendable, Hashable, CustomStringConvertible {
    public enum StepUnit: String, Sendable, Hashable {
        case bars
        case beats
    }

    /// One tempo throughout.
    case constant(Rational)
    /// `start`, then `step` BPM more (or less, when negative) every `every` bars or beats,
    /// never beyond `limit` (nil: 1 to 9999 BPM).
    case stepped(start: Rational, step: Rational, every: Int, unit: StepUnit, limit: Rational?)
    /// A smooth ramp linear in time (`T0-T1`) over the whole section.
    case rampTime(from: Rational, to: Rational)
    /// A ramp linear in beat index (`T0~T1`), klick's model.
    case rampBeats(from: Rational, to: Rational)
    /// One tempo per beat (`120,121,...`), as many as the section has beats.
    case perBeat([Rational])

    /// Section tempos are positive and at most this (klick maps in sixteenths go past 999).
    public static let maximumBPM = Rational(9999)

    public var startTempo: Rational {
        switch self {
        case .constant(let t): t
        case .stepped(let t, _, _, _, _): t
        case .rampTime(let t, _), .rampBeats(let t, _): t
        case .perBeat(let list): list[0]
        }
    }

    public var isRamp: Bool {
        switch self {
        case .rampTime, .rampBeats: true
        default: false
        }
    }

    /// Every tempo multiplied by `factor` (a song's practice tempo).
    public func scaled(by factor: Rational) -> TempoSegment {
        if factor == .one { return self }
        switch self {
        case .constant(let t): return .constant(t * factor)
        case .stepped(let t, let s, let n, let u, let l): return .stepped(start: t * factor, step: s * factor, every: n, unit: u, limit: l.map { $0 * factor })
        case .rampTime(let a, let b): return .rampTime(from: a * factor, to: b * factor)
        case .rampBeats(let a, let b): return .rampBeats(from: a * factor, to: b * factor)
        case .perBeat(let list): return .perBeat(list.map { $0 * factor })
        }
    }

    /// The segment syntax, as `init(parsing:)` reads it back.
    public var description: String {
        switch self {
        case .constant(let t): return t.decimalDescription
        case .stepped(let t, let s, let n, let u, let l):
            let sign = s < .zero ? "-" : "+"
            let magnitude = s < .zero ? -s : s
            let every = u == .bars ? "\(n)" : "\(n)b"
            return "\(t.decimalDescription)\(sign)\(magnitude.decimalDescription)/\(every)" + (l.map { "..\($0.decimalDescription)" } ?? "")
        case .rampTime(let a, let b): return "\(a.decimalDescription)-\(b.decimalDescription)"
        case .rampBeats(let a, let b): return "\(a.decimalDescription)~\(b.decimalDescription)"
        case .perBeat(let list): return list.map(\.decimalDescription).joined(separator: ",")
        }
    }

    static let syntax = "expected a tempo (120), a ramp linear in time (100-140) or in beats (100~140), steps (100+5/2..140: +5 BPM every 2 bars up to 140; 100+5/4b..140 every 4 beats; -5 goes down) or one tempo per beat (120,121,122)"

    /// Reads `120`, `100-140`, `100~140`, `100+5/2..140`, `100-5/4b..80`, `120,121,122`.
    /// `field` names the flag or key in the error.
    public init(parsing raw: String, field: String = "tempo") throws(SettingError) {
        let text = raw.filter { $0 != " " }
        func fail(_ allowed: String = TempoSegment.syntax) -> SettingError { SettingError(field: field, value: raw, allowed: allowed) }
        func tempo(_ s: Substring) throws(SettingError) -> Rational {
            guard !s.isEmpty, !s.contains("/"), !s.hasPrefix("-"), !s.hasPrefix("+"), let t = Rational(parsing: String(s)) else { throw fail() }
            // At most 3 decimals (as --bpm): ramps square and multiply tempos, and that
            // keeps every product exact within the engine's 64/128-bit and big-number math.
            guard t > .zero, t <= TempoSegment.maximumBPM, let places = t.decimalPlaces, places <= Tempo.maximumDecimals else {
                throw fail("each tempo must be greater than 0 and at most 9999 BPM, with at most \(Tempo.maximumDecimals) decimals")
            }
            return t
        }
        if text.contains(",") {
            var list: [Rational] = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) { list.append(try tempo(part)) }
            self = .perBeat(list)
            return
        }
        if let slash = text.firstIndex(of: "/") {
            // Steps: T0 (+|-) S / N [b|beats|bars] [..LIMIT]
            let head = text[..<slash]
            var tail = text[text.index(after: slash)...]
            guard let signIndex = head.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }) else { throw fail() }
            let start = try tempo(head[..<signIndex])
            var stepText = head[head.index(after: signIndex)...]
            var negative = head[signIndex] == "-"
            if stepText.hasPrefix("-") { negative.toggle(); stepText = stepText.dropFirst() }
            guard let stepMagnitude = Rational(parsing: String(stepText)), !stepText.isEmpty, !stepText.contains("/"),
                  stepMagnitude > .zero, stepMagnitude <= TempoSegment.maximumBPM,
                  let places = stepMagnitude.decimalPlaces, places <= Tempo.maximumDecimals
            else { throw fail("the step must be a number of BPM greater than 0 and at most 9999, with at most \(Tempo.maximumDecimals) decimals, e.g. 100+5/2..140") }
            var limit: Rational?
            if let dot = tail.firstIndex(of: "."), tail[tail.index(after: dot)...].hasPrefix(".") {
                limit = try tempo(tail[tail.index(dot, offsetBy: 2)...])
                tail = tail[..<dot]
            }
            var unit = StepUnit.bars
            for suffix in ["beats", "beat", "bars", "bar", "b"] where tail.hasSuffix(suffix) {
                unit = suffix.hasPrefix("ba") ? .bars : .beats
                tail = tail.dropLast(suffix.count)
                break
            }
            guard let every = Int(tail), (1...9999).contains(every) else {
                throw fail("the interval must be 1 to 9999 bars (2) or beats (2b), e.g. 100+5/2..140")
            }
            let step = negative ? -stepMagnitude : stepMagnitude
            if let limit, (step > .zero && limit < start) || (step < .zero && limit > start) {
                throw fail("the limit must lie in the direction of the step (100+5/1..140, 140-5/1..100)")
            }
            self = .stepped(start: start, step: step, every: every, unit: unit, limit: limit)
            return
        }
        if let tilde = text.firstIndex(of: "~") {
            self = .rampBeats(from: try tempo(text[..<tilde]), to: try tempo(text[text.index(after: tilde)...]))
            return
        }
        if let dash = text.dropFirst().firstIndex(of: "-") {
            self = .rampTime(from: try tempo(text[..<dash]), to: try tempo(text[text.index(after: dash)...]))
            return
        }
        self = .constant(try tempo(Substring(text)))
    }

    /// The tempo of stepped piece `j` (0 from the section start), limited.
    public func steppedTempo(_ j: Int64) -> Rational {
        guard case .stepped(let start, let step, _, _, let limit) = self else { return startTempo }
        // Past the bound the tempo stays: compare before multiplying (j may be large).
        let bound: Rational = limit ?? (step > .zero ? TempoSegment.maximumBPM : Rational(1))
        let reach = (bound - start) / step // pieces until the bound, >= 0
        if Rational(j) >= reach { return limit ?? (start + Rational(max(reach.floor, 0)) * step) }
        return start + Rational(j) * step
    }
}
