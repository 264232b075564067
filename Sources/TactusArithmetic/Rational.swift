// SPDX-License-Identifier: GPL-3.0-or-later
/// An exact fraction `numerator / denominator`, always reduced, denominator > 0.
///
/// Intermediate products are taken in 128 bits and reduced before they are narrowed back
/// to 64 bits, so every value the metronome can produce (BPM 1-999 with three decimals,
/// meters up to 99/99, beat units up to 1/99 dotted, subdivisions up to 9, sample rates up
/// to 192 kHz, 24 h positions) is exact. A result that would not fit traps with a message
/// instead of wrapping: it can never overflow silently.
public struct Rational: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let numerator: Int64
    public let denominator: Int64

    public init(_ numerator: Int64, _ denominator: Int64 = 1) {
        precondition(denominator != 0, "Rational with a zero denominator")
        self.init(reducing: Int128(numerator), Int128(denominator))
    }

    public init(_ value: Int) { self.init(Int64(value), 1) }

    /// Reduces a 128-bit fraction and narrows it; traps if the reduced value does not fit.
    public init(reducing numerator: Int128, _ denominator: Int128) {
        precondition(denominator != 0, "Rational with a zero denominator")
        let sign: Int128 = (denominator < 0) ? -1 : 1
        let divisor = Rational.gcd(numerator, denominator)
        let n = sign * numerator / divisor
        let d = sign * denominator / divisor
        guard let n64 = Int64(exactly: n), let d64 = Int64(exactly: d) else {
            preconditionFailure("Rational overflow: \(n)/\(d) does not fit in 64 bits")
        }
        self.numerator = n64
        self.denominator = d64
    }

    public static let zero = Rational(0)
    public static let one = Rational(1)

    public static func gcd(_ a: Int128, _ b: Int128) -> Int128 {
        var x = a.magnitude
        var y = b.magnitude
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : Int128(x)
    }

    public static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var x = a.magnitude
        var y = b.magnitude
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : Int64(x)
    }

    public static func lcm(_ a: Int64, _ b: Int64) -> Int64 {
        let (product, overflow) = (a / gcd(a, b)).multipliedReportingOverflow(by: b)
        precondition(!overflow, "lcm(\(a), \(b)) overflows")
        return product.magnitude == product ? product : -product
    }

    public static func + (a: Rational, b: Rational) -> Rational {
        Rational(reducing: Int128(a.numerator) * Int128(b.denominator) + Int128(b.numerator) * Int128(a.denominator),
                 Int128(a.denominator) * Int128(b.denominator))
    }

    public static func - (a: Rational, b: Rational) -> Rational {
        Rational(reducing: Int128(a.numerator) * Int128(b.denominator) - Int128(b.numerator) * Int128(a.denominator),
                 Int128(a.denominator) * Int128(b.denominator))
    }

    public static func * (a: Rational, b: Rational) -> Rational {
        Rational(reducing: Int128(a.numerator) * Int128(b.numerator), Int128(a.denominator) * Int128(b.denominator))
    }

    public static func / (a: Rational, b: Rational) -> Rational {
        precondition(b.numerator != 0, "Rational division by zero")
        return Rational(reducing: Int128(a.numerator) * Int128(b.denominator), Int128(a.denominator) * Int128(b.numerator))
    }

    public static prefix func - (a: Rational) -> Rational { Rational(-a.numerator, a.denominator) }

    public static func < (a: Rational, b: Rational) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }

    /// Largest integer not above the value.
    public var floor: Int64 { Rational.floorDivide(numerator, denominator) }
    /// Smallest integer not below the value.
    public var ceiling: Int64 { -Rational.floorDivide(-numerator, denominator) }
    /// Nearest integer, halves rounded up (towards +infinity): the one rounding rule used
    /// for every sample position, so that "already rendered" and "still to come" never
    /// disagree about an onset that sits exactly between two samples.
    public var rounded: Int64 { Rational.floorDivide(2 * numerator + denominator, 2 * denominator) }

    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    public var isInteger: Bool { denominator == 1 }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    public static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q
    }

    public static func floorDivide(_ a: Int128, _ b: Int128) -> Int128 {
        let q = a / b
        return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q
    }

    /// The reduced fraction, or nil when it does not fit in 64 bits (never traps).
    public init?(exactly numerator: Int128, _ denominator: Int128) {
        guard denominator != 0 else { return nil }
        let divisor = Rational.gcd(numerator, denominator)
        let sign: Int128 = (denominator < 0) ? -1 : 1
        // Int128.min cannot be negated; values from 64-bit inputs never reach it.
        guard numerator != .min, denominator != .min,
              let n64 = Int64(exactly: sign * (numerator / divisor)), let d64 = Int64(exactly: sign * (denominator / divisor))
        else { return nil }
        self.numerator = n64
        self.denominator = d64
    }

    // MARK: overflow-reporting arithmetic, for values that come from input

    /// a + b, or nil when the reduced result does not fit 64 bits (never traps).
    public func adding(_ b: Rational) -> Rational? {
        Rational(exactly: Int128(numerator) * Int128(b.denominator) + Int128(b.numerator) * Int128(denominator),
                 Int128(denominator) * Int128(b.denominator))
    }

    /// a - b, or nil when it does not fit.
    public func subtracting(_ b: Rational) -> Rational? {
        Rational(exactly: Int128(numerator) * Int128(b.denominator) - Int128(b.numerator) * Int128(denominator),
                 Int128(denominator) * Int128(b.denominator))
    }

    /// a * b, or nil when it does not fit.
    public func multiplied(by b: Rational) -> Rational? {
        Rational(exactly: Int128(numerator) * Int128(b.numerator), Int128(denominator) * Int128(b.denominator))
    }

    /// a / b, or nil when b is 0 or the result does not fit.
    public func divided(by b: Rational) -> Rational? {
        guard b.numerator != 0 else { return nil }
        return Rational(exactly: Int128(numerator) * Int128(b.denominator), Int128(denominator) * Int128(b.numerator))
    }

    /// Decimal digits after the point of the shortest decimal form, or nil when the value
    /// has none (a denominator with a factor other than 2 and 5).
    public var decimalPlaces: Int? {
        var d = denominator
        var twos = 0, fives = 0
        while d % 2 == 0 { d /= 2; twos += 1 }
        while d % 5 == 0 { d /= 5; fives += 1 }
        return d == 1 ? max(twos, fives) : nil
    }

    /// `init(parsing:)` limited to `maximumDecimals` digits after the point (input values:
    /// the bound keeps every product the engine forms within exact 64/128-bit math).
    public init?(parsing text: String, maximumDecimals: Int) {
        if let point = text.firstIndex(of: "."), text.distance(from: point, to: text.endIndex) - 1 > maximumDecimals { return nil }
        self.init(parsing: text)
    }

    /// Parses "3", "-2", "7/8", "92.5", "92.125", ".5" (up to 9 decimals). Returns nil for
    /// anything else, including an empty number ("", "%" less its sign, "-") and every
    /// value that would not fit (`10000000000.000000001`, `9223372036854775807.9`,
    /// `1/-9223372036854775808`): callers turn nil into one clear message, so no text can
    /// trap and nothing empty reads as 0.
    public init?(parsing text: String) {
        guard !text.isEmpty else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let n = Int64(parts[0]), let d = Int64(parts[1]), d != 0 else { return nil }
            self.init(exactly: Int128(n), Int128(d))
            return
        }
        guard parts.count == 1 else { return nil }
        let decimal = text.split(separator: ".", omittingEmptySubsequences: false)
        guard decimal.count <= 2, let whole = Int64(decimal[0]) ?? (decimal[0].isEmpty ? 0 : nil) else { return nil }
        if decimal.count == 1 { self.init(whole, 1); return }
        let fraction = decimal[1]
        guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isASCIIDigit), let digits = Int64(fraction) else {
            return nil
        }
        var scale: Int128 = 1
        for _ in 0..<fraction.count { scale *= 10 }
        let negative = decimal[0].hasPrefix("-")
        // At most 19 digits times 10^9: fits in 128 bits; the reduced result may not fit in 64.
        self.init(exactly: Int128(whole) * scale + Int128(negative ? -digits : digits), scale)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Rational: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(value, 1) }
}
