// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// A point on the sample clock: `whole + fraction`, the fraction exact as n/d with
/// d <= 2^62. Section and step starts add up here exactly; only when a sum's reduced
/// denominator outgrows 2^62 (many unrelated tempos, or after a klick-model ramp whose
/// length is transcendental) is the fraction rounded down to a multiple of 2^-62 sample,
/// and `isExact` says so. The onset of a time is its half-up rounding.
public struct SampleTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public private(set) var whole: Int64
    /// 0 <= fractionNumerator < fractionDenominator.
    public private(set) var fractionNumerator: Int64
    public private(set) var fractionDenominator: Int64
    public private(set) var isExact: Bool

    static let maximumDenominator: Int128 = 1 << 62

    public init(whole: Int64) {
        self.whole = whole
        fractionNumerator = 0
        fractionDenominator = 1
        isExact = true
    }

    public init(_ r: Rational) {
        let w = r.floor
        self.init(whole: w, numerator: Int128(r.numerator) - Int128(w) * Int128(r.denominator),
                  denominator: Int128(r.denominator), exact: true)
    }

    /// whole + n/d for 0 <= n (any size) and d > 0, reduced, carried, narrowed.
    init(whole: Int64, numerator: Int128, denominator: Int128, exact: Bool) {
        let carry = Rational.floorDivide(numerator, denominator)
        var n = numerator - carry * denominator
        var d = denominator
        let g = Rational.gcd(n, d)
        n /= g
        d /= g
        var exact = exact
        if d > SampleTime.maximumDenominator {
            // floor(n/d * 2^62) by long division: n < d < 2^126 keeps 2r below 2^127.
            var r = n
            var q: Int128 = 0
            for _ in 0..<62 {
                r *= 2
                q *= 2
                if r >= d { r -= d; q += 1 }
            }
            n = q
            d = SampleTime.maximumDenominator
            let g2 = Rational.gcd(n, d)
            n /= g2
            d /= g2
            exact = exact && r == 0
        }
        self.whole = whole + Int64(carry)
        fractionNumerator = Int64(n)
        fractionDenominator = Int64(d)
        isExact = exact
    }

    public static func + (a: SampleTime, b: SampleTime) -> SampleTime {
        SampleTime(whole: a.whole + b.whole,
                   numerator: Int128(a.fractionNumerator) * Int128(b.fractionDenominator)
                       + Int128(b.fractionNumerator) * Int128(a.fractionDenominator),
                   denominator: Int128(a.fractionDenominator) * Int128(b.fractionDenominator),
                   exact: a.isExact && b.isExact)
    }

    public static func + (a: SampleTime, b: Rational) -> SampleTime { a + SampleTime(b) }

    /// From a double-double value (klick-model ramps): exact to about 1e-20 sample.
    init(approximately value: DoubleDouble) {
        let w = value.floor
        let rest = value - DoubleDouble.exact(w) // in [0, 1)
        // 2^62 * rest, split so both halves are exact integers.
        let scaled = rest * DoubleDouble(4611686018427387904.0)
        var n = Int128(scaled.floor)
        n = max(0, min(n, SampleTime.maximumDenominator - 1))
        self.init(whole: w, numerator: n, denominator: SampleTime.maximumDenominator, exact: false)
    }

    var doubleDouble: DoubleDouble {
        DoubleDouble.exact(whole) + DoubleDouble.exact(fractionNumerator) / DoubleDouble.exact(fractionDenominator)
    }

    /// The sample of this time: nearest, halves up (the engine's one rounding rule).
    public var rounded: Int64 { whole + (2 * fractionNumerator >= fractionDenominator ? 1 : 0) }

    /// As an exact rational (traps if it does not fit 64 bits).
    public var rational: Rational {
        Rational(reducing: Int128(whole) * Int128(fractionDenominator) + Int128(fractionNumerator), Int128(fractionDenominator))
    }

    public static func < (a: SampleTime, b: SampleTime) -> Bool {
        if a.whole != b.whole { return a.whole < b.whole }
        return Int128(a.fractionNumerator) * Int128(b.fractionDenominator) < Int128(b.fractionNumerator) * Int128(a.fractionDenominator)
    }

    public var description: String {
        fractionNumerator == 0 ? "\(whole)" : "\(whole)+\(fractionNumerator)/\(fractionDenominator)"
    }
}
