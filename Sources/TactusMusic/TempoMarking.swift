// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// The Italian tempo terms. Published tables overlap (Largo 40-60, Lento 45-60 ...); the
/// box needs exactly one marking per tempo, so each term here owns the range from its
/// lower bound up to the next term's, chosen inside the usual ranges.
public struct TempoMarking: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    /// Lowest BPM with this marking; it lasts until the next marking's lower bound.
    public let lowerBound: Int
    /// Highest whole BPM with this marking.
    public let upperBound: Int
    /// What choosing the marking in the menu sets.
    public let typicalBPM: Int

    public var description: String { name }

    /// In tempo order, covering 1-999 without gaps.
    public static let all: [TempoMarking] = [
        TempoMarking(name: "Larghissimo", lowerBound: 1, upperBound: 24, typicalBPM: 20),
        TempoMarking(name: "Grave", lowerBound: 25, upperBound: 39, typicalBPM: 35),
        TempoMarking(name: "Largo", lowerBound: 40, upperBound: 49, typicalBPM: 45),
        TempoMarking(name: "Lento", lowerBound: 50, upperBound: 59, typicalBPM: 55),
        TempoMarking(name: "Larghetto", lowerBound: 60, upperBound: 65, typicalBPM: 63),
        TempoMarking(name: "Adagio", lowerBound: 66, upperBound: 75, typicalBPM: 70),
        TempoMarking(name: "Andante", lowerBound: 76, upperBound: 107, typicalBPM: 92),
        TempoMarking(name: "Moderato", lowerBound: 108, upperBound: 119, typicalBPM: 114),
        TempoMarking(name: "Allegro", lowerBound: 120, upperBound: 155, typicalBPM: 138),
        TempoMarking(name: "Vivace", lowerBound: 156, upperBound: 175, typicalBPM: 166),
        TempoMarking(name: "Presto", lowerBound: 176, upperBound: 199, typicalBPM: 188),
        TempoMarking(name: "Prestissimo", lowerBound: 200, upperBound: 999, typicalBPM: 208),
    ]

    /// The menu lists them alphabetically.
    public static let alphabetical: [TempoMarking] = all.sorted { $0.name < $1.name }

    /// The marking of any tempo, fractional ones included (119.5 is still Moderato).
    public static func of(_ tempo: Tempo) -> TempoMarking {
        all.last { Rational($0.lowerBound) <= tempo.bpm } ?? all[0]
    }

    public static func named(_ name: String) -> TempoMarking? {
        all.first { $0.name.lowercased() == name.lowercased() }
    }
}

extension TempoMarking {
    /// The marking of a tempo given in BPM as a number (a ramp's tempo at a beat).
    public static func of(bpm: Double) -> TempoMarking {
        all.last { Double($0.lowerBound) <= bpm } ?? all[0]
    }
}
