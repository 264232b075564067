/// What kind of click an onset plays; the order is the order of importance.
public enum OnsetKind: UInt8, Sendable, Hashable, Comparable, BitwiseCopyable {
    case accent = 0
    case beat = 1
    case subdivision = 2

    public static func < (a: OnsetKind, b: OnsetKind) -> Bool { a.rawValue < b.rawValue }

    public var name: String {
        switch self {
        case .accent: "accent"
        case .beat: "beat"
        case .subdivision: "sub"
        }
    }
}

/// One click of the bar at an exact position.
public struct PatternOnset: Sendable, Hashable {
    /// Offset from the downbeat in whole notes.
    public let offset: Rational
    public let kind: OnsetKind
    /// 0 for accents and beats, n for subdivision layer n.
    public let layer: Int
    /// The beat (0-based) this onset belongs to.
    public let beat: Int
}

/// The onsets of one bar, in time order, each position played once by its most important
/// kind: beats before subdivisions, and among coinciding subdivisions the lowest layer
/// (2 and 4 share every second onset of 4; layer 2 plays it). Muted beats are left out
/// but their subdivisions are kept: practising the offbeats alone is a real use.
public struct BarPattern: Sendable, Hashable {
    public let barLength: Rational
    public let beatLength: Rational
    public let onsets: [PatternOnset]

    public init(_ settings: MetronomeSettings) {
        let beatLength = settings.beatUnit.wholeNotes
        let barBeats = settings.beatsPerBar
        var onsets: [PatternOnset] = []
        for beat in 0..<settings.beatCount {
            let level = settings.accents.level(ofBeat: beat)
            if level != .muted {
                onsets.append(PatternOnset(offset: Rational(Int64(beat)) * beatLength,
                                           kind: level == .accent ? .accent : .beat, layer: 0, beat: beat))
            }
            var taken: Set<Rational> = []
            var subs: [(position: Rational, layer: Int)] = []
            for layer in settings.subdivisions.layers {
                for step in 1..<layer {
                    let inBeat = Rational(Int64(step), Int64(layer))
                    let position = Rational(Int64(beat)) + inBeat
                    guard position < barBeats, taken.insert(inBeat).inserted else { continue }
                    subs.append((position, layer))
                }
            }
            subs.sort { $0.position < $1.position }
            onsets += subs.map {
                PatternOnset(offset: $0.position * beatLength, kind: .subdivision, layer: $0.layer, beat: beat)
            }
        }
        self.barLength = settings.meter.wholeNotes
        self.beatLength = beatLength
        self.onsets = onsets
    }
}
