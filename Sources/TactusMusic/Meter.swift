// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// A time signature `numerator/denominator`, both 1-99. The denominator d is a note value
/// of 1/d of a whole note, so "irrational" meters such as 4/5 or 7/12 are ordinary values.
public struct Meter: Sendable, Hashable, CustomStringConvertible {
    public static let range: ClosedRange<Int> = 1...99

    public let numerator: Int
    public let denominator: Int

    public init(_ numerator: Int, _ denominator: Int) throws(SettingError) {
        guard Meter.range.contains(numerator), Meter.range.contains(denominator) else {
            throw SettingError(field: "meter", value: "\(numerator)/\(denominator)",
                               allowed: "numerator and denominator must each be 1 to 99")
        }
        self.numerator = numerator
        self.denominator = denominator
    }

    public init(parsing text: String) throws(SettingError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]) else {
            throw SettingError(field: "meter", value: text, allowed: "expected N/D such as 4/4, 7/8 or 4/5, each 1 to 99")
        }
        do { try self.init(n, d) } catch { throw SettingError(field: "meter", value: text, allowed: error.allowed) }
    }

    /// Length of one bar in whole notes.
    public var wholeNotes: Rational { Rational(Int64(numerator), Int64(denominator)) }

    public var description: String { "\(numerator)/\(denominator)" }

    public static let common = try! Meter(4, 4)
}
