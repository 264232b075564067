// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// The gap click: play P units, mute M, cycling from bar 0 (the count-in is not counted).
public struct GapPattern: Sendable, Hashable, CustomStringConvertible {
    public enum Unit: Sendable, Hashable {
        case bars
        case beats
    }

    public let play: Int
    public let mute: Int
    public let unit: Unit

    public init(play: Int, mute: Int, unit: Unit = .bars) {
        self.play = play
        self.mute = mute
        self.unit = unit
    }

    /// "P:M" (bars) or "P:Mb" (beats), P and M 1 to 999.
    public init(parsing text: String, field: String = "gap") throws(SettingError) {
        var body = Substring(text)
        let beats = body.hasSuffix("b")
        if beats { body.removeLast() }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let p = Int(parts[0]), let m = Int(parts[1]), (1...999).contains(p), (1...999).contains(m) else {
            throw SettingError(field: field, value: text,
                               allowed: "expected P:M (play P bars, mute M bars) or P:Mb (beats), each 1 to 999, e.g. 2:1")
        }
        self.init(play: p, mute: m, unit: beats ? .beats : .bars)
    }

    /// Unit u >= 0 (bar or beat counted from bar 0) is silent.
    public func isMuted(_ u: Int64) -> Bool {
        u >= 0 && u % Int64(play + mute) >= Int64(play)
    }

    public var description: String { "\(play):\(mute)\(unit == .beats ? "b" : "")" }
}

/// Random muting of p % of the beats, decided per beat by a counter-based hash of the seed
/// and the beat's index from bar 0: the same seed mutes the same beats whatever the block
/// size, re-anchoring or live changes.
public struct RandomMute: Sendable, Hashable {
    /// Percent of beats muted, 0 to 100, exact.
    public let percent: Rational
    public let seed: UInt64

    public init(percent: Rational, seed: UInt64) {
        self.percent = percent
        self.seed = seed
    }

    /// SplitMix64's output for x = seed ^ index.
    public static func hash(seed: UInt64, index: UInt64) -> UInt64 {
        var z = (seed ^ index) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Beat b is muted iff (h mod 10^6) < p * 10^4, compared exactly.
    public func isMuted(beat b: Int64) -> Bool {
        guard b >= 0 else { return false }
        let h = RandomMute.hash(seed: seed, index: UInt64(b)) % 1_000_000
        return Rational(Int64(h)) < percent * Rational(10_000)
    }

    /// "25", "25%", "12.5%": 0 to 100.
    public static func parsePercent(_ text: String, field: String) throws(SettingError) -> Rational {
        let body = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let p = Rational(parsing: body), !body.contains("/"), p >= .zero, p <= Rational(100) else {
            throw SettingError(field: field, value: text, allowed: "expected a percentage from 0 to 100, e.g. 25 or 12.5%")
        }
        return p
    }
}
