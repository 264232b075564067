// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// An unevaluated sum hi + lo of two Doubles (about 106 bits, 32 digits): enough to place
/// the onsets of a klick-model ramp, whose times are transcendental (e^q, q rational, is
/// never rational), so a 1e-20-sample error can only matter at a tie that cannot happen.
/// Pure Swift, no libm: `addingProduct` is the fused multiply-add instruction.
struct DoubleDouble: Sendable {
    var hi: Double
    var lo: Double

    init(_ hi: Double, _ lo: Double = 0) {
        let s = hi + lo
        self.lo = lo - (s - hi)
        self.hi = s
    }

    /// An Int64 exactly (beyond 2^53 the rest goes into the low part).
    static func exact(_ v: Int64) -> DoubleDouble {
        let h = Double(v)
        return DoubleDouble(h, Double(Int128(v) - Int128(h)))
    }

    init(_ r: Rational) { self = DoubleDouble.exact(r.numerator) / DoubleDouble.exact(r.denominator) }

    private static func twoSum(_ a: Double, _ b: Double) -> (Double, Double) {
        let s = a + b
        let v = s - a
        return (s, (a - (s - v)) + (b - v))
    }

    static func + (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let (s, e) = twoSum(a.hi, b.hi)
        let (t, f) = twoSum(a.lo, b.lo)
        var x = DoubleDouble(s, e + t)
        x = DoubleDouble(x.hi, x.lo + f)
        return x
    }

    static prefix func - (a: DoubleDouble) -> DoubleDouble { DoubleDouble(-a.hi, -a.lo) }
    static func - (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble { a + (-b) }

    static func * (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let p = a.hi * b.hi
        let e = (-p).addingProduct(a.hi, b.hi)
        return DoubleDouble(p, e + (a.hi * b.lo + a.lo * b.hi))
    }

    static func / (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let q1 = a.hi / b.hi
        let r = a - b * DoubleDouble(q1)
        let q2 = r.hi / b.hi
        let r2 = r - b * DoubleDouble(q2)
        let q3 = r2.hi / b.hi
        return DoubleDouble(q1, q2) + DoubleDouble(q3)
    }

    static let ln2 = DoubleDouble(0.6931471805599453, 2.3190468138462996e-17)

    /// Natural logarithm of a positive value: y = 2^k m with m near 1, then
    /// ln m = 2 atanh((m - 1)/(m + 1)), a series in z^2 <= 0.03.
    static func log(_ y: DoubleDouble) -> DoubleDouble {
        precondition(y.hi > 0, "log of a non-positive value")
        var k = 0
        var m = y
        while m.hi > 1.4142135623730951 { m = m * DoubleDouble(0.5); k += 1 }
        while m.hi < 0.7071067811865476 { m = m * DoubleDouble(2); k -= 1 }
        let z = (m - DoubleDouble(1)) / (m + DoubleDouble(1))
        let z2 = z * z
        var term = z
        var sum = z
        var n = 1.0
        for _ in 0..<40 {
            term = term * z2
            n += 2
            let add = term / DoubleDouble(n)
            sum = sum + add
            if abs(add.hi) < 1e-34 * abs(sum.hi) { break }
        }
        return DoubleDouble(2) * sum + DoubleDouble(Double(k)) * ln2
    }

    /// floor(value), exact for |value| < 2^62.
    var floor: Int64 {
        let f = hi.rounded(.down)
        if f == hi {
            // hi is an integer: the low part decides.
            return Int64(f) + Int64(lo.rounded(.down))
        }
        return Int64(f)
    }
}
