// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// An exact fraction of big integers (denominator > 0, not reduced): the position and
/// tempo a song has reached at a live change, whose denominators outgrow 64 bits inside a
/// ramp. Control side only: it allocates.
struct BigFraction {
    var numerator: BigInt
    var denominator: BigInt

    init(_ numerator: BigInt, _ denominator: BigInt) {
        precondition(!denominator.isZero)
        if denominator.isNegative {
            self.numerator = -numerator
            self.denominator = -denominator
        } else {
            self.numerator = numerator
            self.denominator = denominator
        }
    }

    init(_ r: Rational) { self.init(BigInt(r.numerator), BigInt(r.denominator)) }

    init(_ t: SampleTime) {
        let d = BigInt(t.fractionDenominator)
        self.init(BigInt(t.whole) * d + BigInt(t.fractionNumerator), d)
    }

    init(_ n: Int64) { self.init(BigInt(n), BigInt(1 as Int64)) }

    static func + (a: BigFraction, b: BigFraction) -> BigFraction {
        BigFraction(a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator)
    }

    static func - (a: BigFraction, b: BigFraction) -> BigFraction {
        BigFraction(a.numerator * b.denominator - b.numerator * a.denominator, a.denominator * b.denominator)
    }

    static func * (a: BigFraction, b: BigFraction) -> BigFraction {
        BigFraction(a.numerator * b.numerator, a.denominator * b.denominator)
    }

    static func / (a: BigFraction, b: BigFraction) -> BigFraction {
        BigFraction(a.numerator * b.denominator, a.denominator * b.numerator)
    }

    static func < (a: BigFraction, b: BigFraction) -> Bool {
        a.numerator * b.denominator < b.numerator * a.denominator
    }

    /// floor(self) and the rest (0 <= rest < denominator).
    private var floorParts: (whole: BigInt, rest: BigInt) {
        if numerator.isNegative {
            // floor(-m/d) = -ceil(m/d)
            let (q, r) = BigInt.divide(-numerator, denominator)
            if r.isZero { return (-q, r) }
            return (-q - BigInt(1 as Int64), denominator - r)
        }
        let (q, r) = BigInt.divide(numerator, denominator)
        return (q, r)
    }

    /// As a point on the sample clock: exact when the reduced fraction fits, else rounded
    /// down to a multiple of 2^-62 sample (`isExact` false), as `SampleTime` does itself.
    var sampleTime: SampleTime {
        let (whole, rest) = floorParts
        let w = Int64(whole.int128!)
        if let n = rest.int128, let d = denominator.int128 {
            return SampleTime(whole: w, numerator: n, denominator: d, exact: true)
        }
        let scaled = BigInt.divide(rest * BigInt(Int128(1) << 62), denominator)
        return SampleTime(whole: w, numerator: scaled.quotient.int128!, denominator: Int128(1) << 62,
                          exact: scaled.remainder.isZero)
    }

    /// As a Rational when it fits 64 bits after reduction; else the nearest below with a
    /// denominator of 2^40 (a tempo or position off by less than 10^-12).
    var rational: Rational {
        let (whole, rest) = floorParts
        if let n = rest.int128, let d = denominator.int128, let w = whole.int128 {
            let g = Rational.gcd(n, d)
            if let exact = Rational(exactly: w * (d / g) + n / g, d / g) { return exact }
        }
        let scaled = BigInt.divide(rest * BigInt(Int128(1) << 40), denominator).quotient
        return Rational(reducing: whole.int128! * (Int128(1) << 40) + scaled.int128!, Int128(1) << 40)
    }
}
