// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// The engine's one rounding rule, written once: an exact position becomes the sample
/// nearest to it, halves rounded up (SPEC section 4). The renderer places every onset with
/// it and every reader of the grid (`SteadyGrid`, so the screen, LEDs, buzzer and whatever
/// follows) places beats with it, so both land on the very same samples.
///
/// Integers only (128-bit), no allocation: safe on the render thread.
public enum HalfSampleRule {
    /// Time subtracted after travelling: `whole + rest / denominator` samples, exact, with
    /// 0 <= rest < denominator (the time of a grid anchor's fractional part).
    public struct Lag: Sendable, Hashable, BitwiseCopyable {
        public var whole: Int64
        public var rest: Int128
        public var denominator: Int128

        public static let zero = Lag(whole: 0, rest: 0, denominator: 1)

        public init(whole: Int64, rest: Int128, denominator: Int128) {
            self.whole = whole
            self.rest = rest
            self.denominator = denominator
        }

        /// `numerator / denominator` samples (denominator > 0), split into whole and rest.
        public init(numerator: Int128, denominator: Int128) {
            let whole = Rational.floorDivide(numerator, denominator)
            self.init(whole: Int64(whole), rest: numerator - whole * denominator, denominator: denominator)
        }
    }

    /// The sample of the exact time `twice / 2 + travelNumerator / travelDenominator - lag`
    /// (travelDenominator > 0): floor(time + 1/2), i.e. the nearest sample, halves up.
    @inlinable
    public static func sample(twice: Int64, travelNumerator: Int128, travelDenominator: Int128, lag: Lag) -> Int64 {
        // floor((twice + 1) / 2 + n / d) first, then the lag's fraction may borrow one sample.
        let numerator = Int128(twice + 1) * travelDenominator + 2 * travelNumerator
        let denominator = 2 * travelDenominator
        let quotient = Rational.floorDivide(numerator, denominator)
        guard lag.rest != 0 else { return Int64(quotient) - lag.whole }
        let remainder = numerator - quotient * denominator // 0 ..< denominator
        // remainder / denominator < rest / lag.denominator borrows one more sample; the
        // products need 256 bits.
        let left = remainder.multipliedFullWidth(by: lag.denominator)
        let right = lag.rest.multipliedFullWidth(by: denominator)
        let borrow = left.high < right.high || (left.high == right.high && left.low < right.low)
        return Int64(quotient) - lag.whole - (borrow ? 1 : 0)
    }
}
