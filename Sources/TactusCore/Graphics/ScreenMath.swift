/// The few elementary functions drawing needs, in plain Swift: TactusCore has no libm.
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

    /// Nearest integer, halves away from zero: one rounding rule for every drawn coordinate.
    @inline(__always)
    public static func pixel(_ value: Double) -> Int { Int(value.rounded(.toNearestOrAwayFromZero)) }
}
