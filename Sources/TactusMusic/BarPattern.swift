// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// What kind of click an onset plays; the order is the order of importance.
public enum OnsetKind: UInt8, Sendable, Hashable, Comparable, BitwiseCopyable {
    case accent = 0
    /// A soft accent (the start of a group in `3+2+2`).
    case soft = 1
    case beat = 2
    case subdivision = 3
    /// A polyrhythm layer's onset.
    case poly = 4

    public static func < (a: OnsetKind, b: OnsetKind) -> Bool { a.rawValue < b.rawValue }

    public var name: String {
        switch self {
        case .accent: "accent"
        case .soft: "soft"
        case .beat: "beat"
        case .subdivision: "sub"
        case .poly: "poly"
        }
    }

    /// Accents, soft accents and beats: the clicks that mark the beat itself.
    public var isBeat: Bool { self <= .beat }
}

/// One click of the bar at an exact position.
public struct PatternOnset: Sendable, Hashable {
    /// Offset from the downbeat in whole notes.
    public let offset: Rational
    public let kind: OnsetKind
    /// 0 for accents and beats, n for subdivision layer n, m (1-4) for poly layer m.
    public let layer: Int
    /// The beat (0-based) this onset belongs to (for poly onsets: the beat it falls in).
    public let beat: Int
    /// The step: j of a layer's notes in its beat (1..<n), i of a poly layer's span; 0 for beats.
    public let index: Int
    /// Extra gain in percent from a groove's per-step gains (100 otherwise).
    public let gain: Int

    public init(offset: Rational, kind: OnsetKind, layer: Int, beat: Int, index: Int = 0, gain: Int = 100) {
        self.offset = offset
        self.kind = kind
        self.layer = layer
        self.beat = beat
        self.index = index
        self.gain = gain
    }
}

/// The onsets of one bar, in time order, each position played once by its most important
/// kind: beats (accent, soft, beat) before subdivisions before poly layers; among coinciding
/// subdivisions the lowest layer (2 and 4 share every second onset of 4; layer 2 plays it;
/// a note swung onto a tuplet's onset is played once, by the lower layer), among poly layers
/// the first. Muted beats are left out but their subdivisions are kept: practising the
/// offbeats alone is a real use; a poly onset on a muted beat sounds.
public struct BarPattern: Sendable, Hashable {
    public let barLength: Rational
    public let beatLength: Rational
    public let onsets: [PatternOnset]
    /// The poly layers the onsets came from (their steps and spans name them in events).
    public let poly: PolyLayers

    /// Finest grid (lcm of every position's denominator, in steps per whole note) a bar may
    /// need; the engine uses it as its grid. A bar is at most 99 whole notes, so a bar in
    /// grid units stays below 2^43, and the engine's 128-bit products (grid x position x
    /// samples per whole note, kept positions with their fractions) hold for more than
    /// 24 h at 192 kHz with room (the worst case of the notes needs 24 820 320 000 < 2^35).
    public static let maximumGridDenominator: Int64 = 1 << 36
    /// Most onsets one bar may hold (memory of the compiled bar).
    public static let maximumOnsets = 400_000

    public init(_ settings: MetronomeSettings) {
        let beatLength = settings.beatUnit.wholeNotes
        let barBeats = settings.beatsPerBar
        let layers = settings.soundingLayers.map { ($0, settings.shaping(ofLayer: $0)) }
        var onsets: [PatternOnset] = []
        // Positions (in beats from the downbeat) of every click that sounds.
        var sounding: Set<Rational> = []
        for beat in 0..<settings.beatCount {
            let level = settings.accents.level(ofBeat: beat)
            let beatStart = Rational(Int64(beat))
            if level != .muted {
                let kind: OnsetKind = switch level {
                case .accent: .accent
                case .soft: .soft
                default: .beat
                }
                onsets.append(PatternOnset(offset: beatStart * beatLength, kind: kind, layer: 0, beat: beat))
                sounding.insert(beatStart)
            }
            var taken: Set<Rational> = []
            var subs: [(position: Rational, layer: Int, index: Int, gain: Int)] = []
            for (layer, shaping) in layers {
                let n = shaping?.groupSize ?? 1
                let positions = shaping?.positions
                for step in 1..<layer {
                    let inBeat: Rational
                    var gain = 100
                    if let shaping, let positions {
                        let (g, i) = (step / n, step % n)
                        inBeat = (Rational(Int64(g)) + positions[i]) * Rational(Int64(n), Int64(layer))
                        gain = shaping.gains[i]
                    } else {
                        inBeat = Rational(Int64(step), Int64(layer))
                    }
                    let position = beatStart + inBeat
                    guard position < barBeats, taken.insert(inBeat).inserted else { continue }
                    subs.append((position, layer, step, gain))
                }
            }
            subs.sort { $0.position < $1.position }
            for sub in subs {
                sounding.insert(sub.position)
                onsets.append(PatternOnset(offset: sub.position * beatLength, kind: .subdivision, layer: sub.layer,
                                           beat: beat, index: sub.index, gain: sub.gain))
            }
        }
        var polyOnsets: [PatternOnset] = []
        for (number, layer) in settings.poly.layers.enumerated() {
            for (position, index) in layer.onsets(beatsPerBar: barBeats) where sounding.insert(position).inserted {
                polyOnsets.append(PatternOnset(offset: position * beatLength, kind: .poly, layer: number + 1,
                                               beat: Int(position.floor), index: index))
            }
        }
        if !polyOnsets.isEmpty {
            // Merge keeping the order of equal... positions are distinct, so a plain sort.
            onsets = (onsets + polyOnsets).sorted { $0.offset < $1.offset }
        }
        self.barLength = settings.meter.wholeNotes
        self.beatLength = beatLength
        self.onsets = onsets
        self.poly = settings.poly
    }

    /// The lcm of the denominators of the bar, the beat and every onset (steps per whole
    /// note of the finest grid holding them all), or nil above `maximumGridDenominator`.
    public var gridDenominator: Int64? {
        var grid = Int128(barLength.denominator)
        let limit = Int128(BarPattern.maximumGridDenominator)
        func include(_ d: Int64) -> Bool {
            let d = Int128(d)
            grid = grid / Rational.gcd(grid, d) * d
            return grid <= limit
        }
        guard include(beatLength.denominator) else { return nil }
        for onset in onsets { guard include(onset.offset.denominator) else { return nil } }
        return Int64(grid)
    }
}
