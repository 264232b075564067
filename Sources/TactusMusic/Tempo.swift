// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// Beats per minute as an exact rational: whole BPM from the wheel and tap, fractional
/// (up to three decimals, e.g. 92.5) from presets.
public struct Tempo: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let range: ClosedRange<Int64> = 1...999
    public static let maximumDecimals = 3

    public let bpm: Rational

    public init(_ bpm: Rational) throws(SettingError) {
        guard bpm >= Rational(Tempo.range.lowerBound), bpm <= Rational(Tempo.range.upperBound),
              1000 % bpm.denominator == 0
        else {
            throw SettingError(field: "bpm", value: bpm.decimalDescription,
                               allowed: "allowed 1 to 999, at most \(Tempo.maximumDecimals) decimals")
        }
        self.bpm = bpm
    }

    /// Whole BPM, clamped to 1...999 (the wheel and tap tempo never fail).
    public init(clampingWholeBPM value: Int) {
        bpm = Rational(Int64(min(max(value, 1), 999)))
    }

    public init(parsing text: String) throws(SettingError) {
        guard let value = Rational(parsing: text), !text.contains("/") else {
            throw SettingError(field: "bpm", value: text, allowed: "expected a number from 1 to 999, e.g. 120 or 92.5")
        }
        do { try self.init(value) } catch { throw SettingError(field: "bpm", value: text, allowed: error.allowed) }
    }

    public static func < (a: Tempo, b: Tempo) -> Bool { a.bpm < b.bpm }

    public var description: String { bpm.decimalDescription }
}

extension Rational {
    /// "92.5" for 185/2; exact for every value with a power-of-ten-compatible denominator.
    public var decimalDescription: String {
        if denominator == 1 { return "\(numerator)" }
        var scale: Int64 = 1
        var digits = 0
        while scale % denominator != 0 && digits < 9 { scale *= 10; digits += 1 }
        guard scale % denominator == 0 else { return description }
        let (scaled, overflow) = numerator.multipliedReportingOverflow(by: scale / denominator)
        guard !overflow else { return description }
        let whole = scaled / scale
        var fraction = String((scaled % scale).magnitude)
        while fraction.count < digits { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        let sign = (scaled < 0 && whole == 0) ? "-" : ""
        return "\(sign)\(whole).\(fraction)"
    }
}
