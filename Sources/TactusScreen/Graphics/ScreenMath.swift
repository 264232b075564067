// SPDX-License-Identifier: GPL-3.0-or-later
/// The few elementary functions drawing needs, in plain Swift: TactusScreen has no libm.
/// Written out, they also make every frame bit-identical on every platform, which the
/// golden snapshot images rely on. Accuracy (about 1e-15) is far beyond one pixel.
public enum ScreenMath {
    public static let pi = 3.141_592_653_589_793

    /// cos(pi * t): exactly 1 or -1 at every integer t, which the pendulum's "at an end
    /// exactly on the beat" relies on.
    public static func cosPi(_ t: Double) -> Double {
        // Reduce to r in [-1/2, 1/2] half-turns around the nearest integer n.
        let n = (t + 0.5).rounded(.down)
        let r = t - n
        let value = cosKernel(r * pi)
        return Int64(n) & 1 == 0 ? value : -value
    }

    /// sin(pi * t), exactly 0 at every integer t.
    public static func sinPi(_ t: Double) -> Double {
        let n = (t + 0.5).rounded(.down)
        let r = t - n
        let value = sinKernel(r * pi)
        return Int64(n) & 1 == 0 ? value : -value
    }

    public static func cos(_ radians: Double) -> Double { cosPi(radians / pi) }
    public static func sin(_ radians: Double) -> Double { sinPi(radians / pi) }

    /// Taylor series on [-pi/2, pi/2]; 11 terms keep the error under 1e-16 there.
    private static func sinKernel(_ x: Double) -> Double {
        let x2 = x * x
        var term = x
        var sum = x
        for k in 1...11 {
            term *= -x2 / Double((2 * k) * (2 * k + 1))
            sum += term
        }
        return sum
    }

    private static func cosKernel(_ x: Double) -> Double {
        let x2 = x * x
        var term = 1.0
        var sum = 1.0
        for k in 1...11 {
            term *= -x2 / Double((2 * k - 1) * (2 * k))
            sum += term
        }
        return sum
    }

    static let ln2 = 0.693_147_180_559_945_3

    /// Natural logarithm for x > 0: x = m 2^e with m in [1, 2), ln m = 2 atanh((m-1)/(m+1)).
    public static func log(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x == 0 ? -.infinity : .nan }
        let e = Double(x.exponent)
        let m = x.significand
        let z = (m - 1) / (m + 1), z2 = z * z
        var term = z, sum = 0.0
        for k in 0..<30 {
            sum += term / Double(2 * k + 1)
            term *= z2
        }
        return 2 * sum + e * ln2
    }

    public static func log2(_ x: Double) -> Double { log(x) / ln2 }

    /// e^x: x = k ln2 + r with |r| <= ln2 / 2, Taylor series for e^r, scaled by 2^k.
    public static func exp(_ x: Double) -> Double {
        guard x.isFinite else { return x > 0 ? .infinity : 0 }
        guard x < 709 else { return .infinity }
        guard x > -745 else { return 0 }
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        var term = 1.0, sum = 1.0
        for n in 1...20 {
            term *= r / Double(n)
            sum += term
        }
        return Double(sign: .plus, exponent: Int(k), significand: sum)
    }

    /// 1 / (1 + e^-x), from 0 to 1.
    public static func logistic(_ x: Double) -> Double { 1 / (1 + exp(-x)) }
    /// The inverse of `logistic` for 0 < p < 1.
    public static func logit(_ p: Double) -> Double { log(p / (1 - p)) }

    /// Nearest integer, halves away from zero: one rounding rule for every drawn coordinate.
    @inline(__always)
    public static func pixel(_ value: Double) -> Int { Int(value.rounded(.toNearestOrAwayFromZero)) }
}
