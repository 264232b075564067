// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic
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
            // In Double: only shown, and exact products of scaled tempos outgrow 64 bits.
            return t0.doubleValue + (t1.doubleValue - t0.doubleValue) * x.doubleValue / l.doubleValue
        case .rampTime(let t0, let t1):
            guard let l = length else { return t0.doubleValue }
            // T(x)^2 = T0^2 + (T1^2 - T0^2) x / L
            let (a, b) = (t0.doubleValue, t1.doubleValue)
            return max(a * a + (b * b - a * a) * x.doubleValue / l.doubleValue, 0).squareRoot()
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
            return SegmentTimer.advance(start, beats: x, perMinute: perMinute, tempo: t)
        case .stepped, .perBeat:
            while pieceBoundary(pieceIndex + 1) <= x {
                let next = pieceBoundary(pieceIndex + 1)
                pieceStartTime = SegmentTimer.advance(pieceStartTime, beats: next - pieceStartBeat, perMinute: perMinute,
                                                      tempo: pieceTempo(pieceIndex))
                pieceStartBeat = next
                pieceIndex += 1
            }
            return SegmentTimer.advance(pieceStartTime, beats: x - pieceStartBeat, perMinute: perMinute, tempo: pieceTempo(pieceIndex))
        case .rampTime(let t0, let t1):
            guard t0 != t1, let l = length else { return SegmentTimer.advance(start, beats: x, perMinute: perMinute, tempo: t0) }
            // Only the end is asked as a time: tau = 2 x / (T0 + T(x)) is rational at x = L.
            precondition(x == l, "rampTime times are exact only at the section's end")
            return SegmentTimer.advance(start, beats: Rational(2) * l, perMinute: perMinute, tempo: t0 + t1)
        case .rampBeats:
            return SampleTime(approximately: start.doubleDouble + klickOffset(x))
        }
    }

    /// start + x * perMinute / tempo, exactly: in 128-bit arithmetic when the product fits
    /// 64 bits reduced (nearly always), else through big integers (practice-scaled tempos
    /// with many decimals, hours into a song), never trapping.
    static func advance(_ start: SampleTime, beats x: Rational, perMinute: Rational, tempo t: Rational) -> SampleTime {
        if let samples = x.multiplied(by: perMinute)?.divided(by: t) { return start + samples }
        return (BigFraction(start) + BigFraction(x) * BigFraction(perMinute) / BigFraction(t)).sampleTime
    }

    /// Samples from the section start to x in klick's model.
    private func klickOffset(_ x: Rational) -> DoubleDouble {
        guard case .rampBeats(let t0, let t1) = segment, let l = length, t0 != t1 else {
            return DoubleDouble(x) * DoubleDouble(perMinute) / DoubleDouble(segment.startTempo)
        }
        let dt = t1 - t0
        // (L / dT) ln(1 + dT x / (L T0)) minutes; products in double-double (they may not
        // fit 64 bits as exact fractions, and the result is transcendental anyway).
        let ratio = DoubleDouble.exact(1) + DoubleDouble(dt) * DoubleDouble(x) / (DoubleDouble(l) * DoubleDouble(t0))
        return DoubleDouble(l) * DoubleDouble(perMinute) / DoubleDouble(dt) * DoubleDouble.log(ratio)
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
        // X is the quadratic's rising branch only from the section's start: before it (a
        // slow start, a steep ramp: 0.01-999) X rises again, so no sample before the first
        // half-sample at or after the start is ever an onset.
        let first = start.whole + (2 * start.fractionNumerator > start.fractionDenominator ? 1 : 0)
        // Past the rising branch (a position the ramp never reaches) stop looking: 2^48
        // samples is 186 years at 48 kHz.
        let last = first + (1 << 48)
        let g = guess.isFinite ? Int64(max(min((guess + 0.5).rounded(.down), Double(last)), Double(first))) : first
        // Gallop from the guess, then bisect: a few steps near a good guess, and at most
        // about 100 exact tests whatever the numbers.
        var lo: Int64, hi: Int64 // isPast(lo) false (or lo < first), isPast(hi) true
        if isPast(x, atHalfAfter: g) {
            hi = g
            var step: Int64 = 1
            while true {
                let m = hi - step
                if m < first { lo = first - 1; break }
                if isPast(x, atHalfAfter: m) { hi = m; step *= 2 } else { lo = m; break }
            }
        } else {
            lo = g
            var step: Int64 = 1
            while true {
                let m = min(lo + step, last)
                if m == last || isPast(x, atHalfAfter: m) { hi = m; break }
                lo = m
                step *= 2
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if isPast(x, atHalfAfter: mid) { hi = mid } else { lo = mid }
        }
        return hi
    }
}
