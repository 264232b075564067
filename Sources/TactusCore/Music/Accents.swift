/// How one beat of the bar is played.
public enum AccentLevel: Sendable, Hashable {
    case accent
    case normal
    case muted

    /// klick's convention: X accent, x normal, . muted.
    public var symbol: Character {
        switch self {
        case .accent: "X"
        case .normal: "x"
        case .muted: "."
        }
    }
}

/// One level per beat. A pattern shorter than the bar leaves the remaining beats normal;
/// a longer one is cut at the bar's end, so meter changes never invalidate it.
public struct AccentPattern: Sendable, Hashable, CustomStringConvertible {
    /// The longest bar: 99/1 counted in 1/99 notes.
    public static let maximumBeats = 99 * 99

    public var levels: [AccentLevel]

    public init(_ levels: [AccentLevel]) { self.levels = levels }

    /// Beat 1 accented, the rest normal.
    public static let downbeat = AccentPattern([.accent])

    /// "Accent every N beats": beats 1, N+1, 2N+1 ... accented; N = 0 accents none.
    public static func accentEvery(_ n: Int, beats: Int) -> AccentPattern {
        AccentPattern((0..<max(beats, 1)).map { n > 0 && $0 % n == 0 ? .accent : .normal })
    }

    public init(parsing text: String) throws(SettingError) {
        var levels: [AccentLevel] = []
        for symbol in text {
            switch symbol {
            case "X": levels.append(.accent)
            case "x": levels.append(.normal)
            case ".": levels.append(.muted)
            default:
                throw SettingError(field: "accents", value: text,
                                   allowed: "one character per beat: X accent, x normal, . muted (e.g. X..x...)")
            }
        }
        guard !levels.isEmpty, levels.count <= AccentPattern.maximumBeats else {
            throw SettingError(field: "accents", value: text,
                               allowed: "one character per beat: X accent, x normal, . muted (e.g. X..x...)")
        }
        self.levels = levels
    }

    public func level(ofBeat beat: Int) -> AccentLevel { beat < levels.count ? levels[beat] : .normal }

    public var description: String { String(levels.map(\.symbol)) }
}
