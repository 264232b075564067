// SPDX-License-Identifier: GPL-3.0-or-later
/// Places positions of one section on the sample clock, exactly, for the section's tempo
/// segment. Positions are beats (of the section's beat unit) from the section's start,
/// asked in increasing order. Control side: it keeps a cursor over stepped pieces.
///
/// - constant, stepped and per-beat tempos: every time is a rational; pieces add up
///   exactly in `SampleTime`.
/// - rampTime (linear in time, T(t) = T0 + a t): the onset of x is the smallest sample n
///   with X(n + 1/2) > x, X the position at a sample time; X is a rational quadratic, so
///   the test is exact (big-integer products); a Double square root only guesses n.
/// - rampBeats (linear in beat index, klick's model): t(x) = (L / dT) ln(T(x) / T0),
///   transcendental, evaluated in double-double (no ties can occur).
public struct SegmentTimer {
    public let segment: TempoSegment
    public let start: SampleTime
    /// Section length in beats; nil for a section that plays until stopped.
    public let length: Rational?
    let beatsPerBar: Rational
    let beatCount: Int64
    /// Samples per minute.
    let perMinute: Rational

    // Cursor over constant pieces (stepped and per-beat tempos).
    private var pieceIndex: Int64 = 0
    private var pieceStartBeat = Rational.zero
    private var pieceStartTime: SampleTime
    // rampTime constants: X(n + 1/2) > x  <=>  qx (K1 U W + K2 U^2) > px K3 W^2.
    private var k1 = BigInt(0 as Int64), k2 = BigInt(0 as Int64), k3 = BigInt(0 as Int64), w = BigInt(0 as Int64)
    private var startU = BigInt(0 as Int64), sb = BigInt(0 as Int64)

    public init(segment: TempoSegment, start: SampleTime, lengthInBeats: Rational?, beatsPerBar: Rational, sampleRate: Int) {
        self.segment = segment
        self.start = start
        self.length = lengthInBeats
        self.beatsPerBar = beatsPerBar
        self.beatCount = beatsPerBar.ceiling
        perMinute = Rational(Int64(sampleRate) * 60)
        pieceStartTime = start
        if case .rampTime(let t0, let t1) = segment, t0 != t1, let l = lengthInBeats {
            // a / 2 = (T1^2 - T0^2) / (4 L) = pa / qa
            let p0 = BigInt(t0.numerator), q0 = BigInt(t0.denominator)
            let p1 = BigInt(t1.numerator), q1 = BigInt(t1.denominator)
            let pa = (p1 * p1 * q0 * q0 - p0 * p0 * q1 * q1) * BigInt(l.denominator)
            let qa = q1 * q1 * q0 * q0 * BigInt(4 * l.numerator)
            k1 = p0 * qa
            k2 = pa * q0
            k3 = q0 * qa
            sb = BigInt(start.fractionDenominator)
            w = BigInt(2) * sb * BigInt(perMinute.numerator)
            // U(n) = (2 (n - Sw) + 1) Sb - 2 Sa = 2 n Sb + startU
            startU = (BigInt(1 - 2 * start.whole)) * sb - BigInt(2) * BigInt(start.fractionNumerator)
        }
    }

    /// The tempo of the piece or at the position (Double only for ramps linear in time,
    /// where it is irrational): for events and the screen.
    public mutating func tempo(atBeat x: Rational) -> Double {
        switch segment {
        case .constant(let t): return t.doubleValue
        case .stepped, .perBeat:
            _ = time(atBeat: x) // moves the piece cursor
            return pieceTempo(pieceIndex).doubleValue
        case .rampBeats(let t0, let t1):
            guard let l = length else { return t0.doubleValue }
            return (t0 + (t1 - t0) * x / l).doubleValue
        case .rampTime(let t0, let t1):
            guard let l = length else { return t0.doubleValue }
            // T(x)^2 = T0^2 + (T1^2 - T0^2) x / L
            return (t0 * t0 + (t1 * t1 - t0 * t0) * x / l).doubleValue.squareRoot()
        }
    }

    /// Piece j covers beats [boundary(j), boundary(j + 1)).
    func pieceBoundary(_ j: Int64) -> Rational {
        switch segment {
        case .stepped(_, _, let every, let unit, _):
            return Rational(j * Int64(every)) * (unit == .bars ? beatsPerBar : .one)
        case .perBeat:
            let bar = j / beatCount, beat = j % beatCount
            return Rational(bar) * beatsPerBar + Rational(beat)
        default:
            return .zero
        }
    }

    func pieceTempo(_ j: Int64) -> Rational {
        switch segment {
        case .perBeat(let list): return list[Int(min(j, Int64(list.count - 1)))]
        default: return segment.steppedTempo(j)
        }
    }

    /// Exact (or, after klick-model ramps, 2^-62-close) time of a position.
    public mutating func time(atBeat x: Rational) -> SampleTime {
        switch segment {
        case .constant(let t):
            return start + x * perMinute / t
        case .stepped, .perBeat:
            while pieceBoundary(pieceIndex + 1) <= x {
                let next = pieceBoundary(pieceIndex + 1)
                pieceStartTime = pieceStartTime + (next - pieceStartBeat) * perMinute / pieceTempo(pieceIndex)
                pieceStartBeat = next
                pieceIndex += 1
            }
            return pieceStartTime + (x - pieceStartBeat) * perMinute / pieceTempo(pieceIndex)
        case .rampTime(let t0, let t1):
            guard t0 != t1, let l = length else { return start + x * perMinute / t0 }
            // Only the end is asked as a time: tau = 2 x / (T0 + T(x)) is rational at x = L.
            precondition(x == l, "rampTime times are exact only at the section's end")
            return start + Rational(2) * l * perMinute / (t0 + t1)
        case .rampBeats:
            return SampleTime(approximately: start.doubleDouble + klickOffset(x))
        }
    }

    /// Samples from the section start to x in klick's model.
    private func klickOffset(_ x: Rational) -> DoubleDouble {
        guard case .rampBeats(let t0, let t1) = segment, let l = length, t0 != t1 else {
            return DoubleDouble(x * perMinute / segment.startTempo)
        }
        let dt = t1 - t0
        // (L / dT) ln(1 + dT x / (L T0)) minutes
        let ratio = DoubleDouble.exact(1) + DoubleDouble(dt) * DoubleDouble(x) / (DoubleDouble(l) * DoubleDouble(t0))
        return DoubleDouble(l * perMinute) / DoubleDouble(dt) * DoubleDouble.log(ratio)
    }

    /// The sample of the onset at position x (halves up; for ramps linear in time the
    /// half-sample rule).
    public mutating func onset(atBeat x: Rational) -> Int64 {
        switch segment {
        case .rampTime(let t0, let t1) where t0 != t1 && length != nil:
            return rampTimeOnset(x, t0: t0, t1: t1)
        case .rampBeats(let t0, let t1) where t0 != t1 && length != nil:
            return (start.doubleDouble + klickOffset(x) + DoubleDouble(0.5)).floor
        default:
            return time(atBeat: x).rounded
        }
    }

    /// X(n + 1/2) > x, exactly.
    public func isPast(_ x: Rational, atHalfAfter n: Int64) -> Bool {
        let u = BigInt(2 * n) * sb + startU
        let lhs = BigInt(x.denominator) * (k1 * u * w + k2 * u * u)
        let rhs = BigInt(x.numerator) * k3 * w * w
        return rhs < lhs
    }

    private func rampTimeOnset(_ x: Rational, t0: Rational, t1: Rational) -> Int64 {
        let l = length!
        let a2 = (t1.doubleValue * t1.doubleValue - t0.doubleValue * t0.doubleValue) / l.doubleValue
        let disc = t0.doubleValue * t0.doubleValue + a2 * x.doubleValue
        let tau = 2 * x.doubleValue / (t0.doubleValue + max(disc, 0).squareRoot())
        let guess = start.doubleDouble.hi + tau * perMinute.doubleValue
        var n = Int64((guess + 0.5).rounded(.down))
        while !isPast(x, atHalfAfter: n) { n += 1 }
        while isPast(x, atHalfAfter: n - 1) { n -= 1 }
        return n
    }
}
