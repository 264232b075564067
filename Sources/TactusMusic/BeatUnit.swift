// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// The note value the BPM counts: 1/n of a whole note (n = 1...99), optionally dotted (x3/2).
public struct BeatUnit: Sendable, Hashable, CustomStringConvertible {
    public static let range: ClosedRange<Int> = 1...99

    public let division: Int
    public let dotted: Bool

    public init(division: Int, dotted: Bool = false) throws(SettingError) {
        guard BeatUnit.range.contains(division) else {
            throw SettingError(field: SettingName.beatUnit.name, value: "1/\(division)\(dotted ? "." : "")",
                               allowed: "the note value must be 1/1 to 1/99, optionally dotted")
        }
        self.division = division
        self.dotted = dotted
    }

    /// Accepts "1/8", "1/4." (dotted quarter) and the equivalent duration "3/8" or "3/16".
    public init(parsing text: String) throws(SettingError) {
        let failure = SettingError(field: SettingName.beatUnit.name, value: text,
                                   allowed: "expected 1/N (N 1 to 99), dotted as 1/N. or 3/(2N), e.g. 1/4, 1/8, 1/4., 3/16")
        var body = Substring(text)
        let dotted = body.hasSuffix(".")
        if dotted { body.removeLast() }
        let parts = body.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let top = Int(parts[0]), let bottom = Int(parts[1]) else { throw failure }
        switch (top, dotted) {
        case (1, _):
            do { try self.init(division: bottom, dotted: dotted) } catch { throw failure }
        case (3, false) where bottom % 2 == 0:
            do { try self.init(division: bottom / 2, dotted: true) } catch { throw failure }
        default:
            throw failure
        }
    }

    /// Duration of one beat in whole notes.
    public var wholeNotes: Rational {
        dotted ? Rational(3, 2 * Int64(division)) : Rational(1, Int64(division))
    }

    public var description: String { "1/\(division)\(dotted ? "." : "")" }

    public static let quarter = try! BeatUnit(division: 4)
}
