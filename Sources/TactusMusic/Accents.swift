// SPDX-License-Identifier: GPL-3.0-or-later
/// How one beat of the bar is played.
public enum AccentLevel: Sendable, Hashable {
    case accent
    /// Between accent and normal: the start of a group (`3+2+2`), with its own volume.
    case soft
    case normal
    case muted

    /// klick's convention: X accent, x normal, . muted; `o` (which klick does not use) for
    /// the soft accent.
    public var symbol: Character {
        switch self {
        case .accent: "X"
        case .soft: "o"
        case .normal: "x"
        case .muted: "."
        }
    }
}

/// One level per beat. A pattern shorter than the bar leaves the remaining beats normal;
/// a longer one is cut at the bar's end, so meter changes never invalidate it. Euclidean
/// patterns follow the same rule (E(3,8) in 4/4 plays its first four steps).
///
/// Written as characters (`X..x.o.`), as a Euclidean pattern `E(k,n)` / `E(k,n,r)` (onsets
/// accented, rests normal; a trailing `.` as in `E(3,8).` makes the rests muted), or as a
/// grouping `3+2+2` (the first beat accented, the first beat of every other group a soft
/// accent, the rest normal; the groups must add up to the bar's beats). The pattern keeps
/// the form it was written in, so settings files and events show it as the user wrote it.
public struct AccentPattern: Sendable, Hashable, CustomStringConvertible {
    /// The longest bar: 99/1 counted in 1/99 notes.
    public static let maximumBeats = 99 * 99

    public enum Form: Sendable, Hashable {
        case levels
        case euclid(k: Int, n: Int, rotation: Int, mutedRests: Bool)
        case grouping([Int])
    }

    public private(set) var levels: [AccentLevel]
    public private(set) var form: Form = .levels

    public init(_ levels: [AccentLevel]) { self.levels = levels }

    /// Beat 1 accented, the rest normal.
    public static let downbeat = AccentPattern([.accent])

    /// "Accent every N beats": beats 1, N+1, 2N+1 ... accented; N = 0 accents none.
    public static func accentEvery(_ n: Int, beats: Int) -> AccentPattern {
        AccentPattern((0..<max(beats, 1)).map { n > 0 && $0 % n == 0 ? .accent : .normal })
    }

    /// E(k,n,r) as accents: onsets accented, rests normal (or muted).
    public static func euclid(_ k: Int, _ n: Int, rotation: Int = 0, mutedRests: Bool = false) -> AccentPattern {
        var pattern = AccentPattern(Euclid.pattern(k, n, rotation: rotation).map { $0 ? .accent : (mutedRests ? .muted : .normal) })
        pattern.form = .euclid(k: k, n: n, rotation: rotation, mutedRests: mutedRests)
        return pattern
    }

    /// `3+2+2`: X at the bar's start, `o` at each later group's start, x elsewhere.
    public static func grouping(_ groups: [Int]) -> AccentPattern {
        var levels: [AccentLevel] = []
        for (index, size) in groups.enumerated() {
            levels.append(index == 0 ? .accent : .soft)
            levels += Array(repeating: .normal, count: size - 1)
        }
        var pattern = AccentPattern(levels)
        pattern.form = .grouping(groups)
        return pattern
    }

    static let allowedText = "one character per beat: X accent, o soft accent, x normal, . muted (e.g. X..x...); E(k,n) or E(k,n,r) (Euclidean, a trailing . mutes the rests); or groups such as 3+2+2"

    public init(parsing text: String) throws(SettingError) {
        if text.hasPrefix("E(") {
            let muted = text.hasSuffix(").")
            let body = muted ? String(text.dropLast()) : text
            guard let (k, n, r) = try Euclid.parse(body, field: "accents") else {
                throw SettingError(field: "accents", value: text, allowed: AccentPattern.allowedText)
            }
            self = .euclid(k, n, rotation: r, mutedRests: muted)
            return
        }
        if text.contains("+") {
            let parts = text.split(separator: "+", omittingEmptySubsequences: false)
            let groups = parts.compactMap { Int($0) }
            guard groups.count == parts.count, groups.allSatisfy({ (1...AccentPattern.maximumBeats).contains($0) }),
                  groups.reduce(0, +) <= AccentPattern.maximumBeats
            else {
                throw SettingError(field: "accents", value: text,
                                   allowed: "groups of 1 or more beats joined by + (e.g. 3+2+2), adding up to the beats of the bar")
            }
            self = .grouping(groups)
            return
        }
        var levels: [AccentLevel] = []
        for symbol in text {
            switch symbol {
            case "X": levels.append(.accent)
            case "o": levels.append(.soft)
            case "x": levels.append(.normal)
            case ".": levels.append(.muted)
            default:
                throw SettingError(field: "accents", value: text, allowed: AccentPattern.allowedText)
            }
        }
        guard !levels.isEmpty, levels.count <= AccentPattern.maximumBeats else {
            throw SettingError(field: "accents", value: text, allowed: AccentPattern.allowedText)
        }
        self.levels = levels
    }

    public func level(ofBeat beat: Int) -> AccentLevel { beat < levels.count ? levels[beat] : .normal }

    /// A grouping must fill the bar exactly; every other form fits any bar (pad / cut).
    public func check(beatCount: Int) throws(SettingError) {
        guard case .grouping(let groups) = form else { return }
        let sum = groups.reduce(0, +)
        guard sum == beatCount else {
            throw SettingError(field: "accents", value: description,
                               allowed: "the groups add up to \(sum) but the bar has \(beatCount) beat\(beatCount == 1 ? "" : "s"); they must be equal")
        }
    }

    /// The written form: characters, `E(k,n[,r])[.]` or `3+2+2`.
    public var description: String {
        switch form {
        case .levels: String(levels.map(\.symbol))
        case .euclid(let k, let n, let r, let muted): Euclid.notation(k, n, rotation: r) + (muted ? "." : "")
        case .grouping(let groups): groups.map(String.init).joined(separator: "+")
        }
    }

    /// The beats as characters whatever the form (`E(3,8)` -> `X..X..X.`... with `x` rests).
    public var symbols: String { String(levels.map(\.symbol)) }
}
