// SPDX-License-Identifier: GPL-3.0-or-later
/// A reference pitch to tune to: a note from C4 to B5, equal-tempered from a chosen A4.
public struct ReferenceTone: Sendable, Hashable {
    public enum Timbre: String, Sendable, Hashable, CaseIterable {
        /// A pure sine.
        case sine
        /// A soft organ: the fundamental with a quiet octave and twelfth (1, 1/4, 1/10).
        case organ
    }

    /// MIDI note numbers: 60 is C4, 69 A4, 83 B5.
    public static let noteRange = 60...83
    /// A4 in whole Hz.
    public static let referenceRange = 415...466
    public static let volumeRange = 0...100
    public static let defaultReference = 440

    public var note: Int
    public var reference: Int
    public var timbre: Timbre
    /// 0-100 %, its own: the master volume does not scale it.
    public var volume: Int

    public init(note: Int = 69, reference: Int = ReferenceTone.defaultReference, timbre: Timbre = .sine, volume: Int = 50) {
        self.note = note
        self.reference = reference
        self.timbre = timbre
        self.volume = volume
    }

    /// 2^(s/12) for s = 0...11, to full double precision (an octave is then exact).
    private static let semitoneRatios: [Double] = [
        1.0, 1.0594630943592953, 1.122462048309373, 1.189207115002721, 1.2599210498948732, 1.3348398541700344,
        1.4142135623730951, 1.4983070768766815, 1.5874010519681996, 1.681792830507429, 1.7817974362806785,
        1.887748625363387,
    ]

    /// Hz, equal-tempered from A4: reference x 2^((note - 69) / 12). A4 = 440 gives C5 = 523.2511 Hz.
    public var frequency: Double { ReferenceTone.frequency(note: note, reference: reference) }

    public static func frequency(note: Int, reference: Int) -> Double {
        let semitones = note - 69
        let octave = semitones >= 0 ? semitones / 12 : -((11 - semitones) / 12)
        let step = semitones - 12 * octave
        var f = Double(reference) * semitoneRatios[step]
        if octave >= 0 { for _ in 0..<octave { f *= 2 } } else { for _ in 0..<(-octave) { f /= 2 } }
        return f
    }

    private static let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]

    /// "A4", "C#5".
    public static func name(of note: Int) -> String {
        let octave = note / 12 - 1
        return names[note % 12] + "\(octave)"
    }

    public var noteName: String { ReferenceTone.name(of: note) }

    /// Reads "A4", "C#5", "Bb4" (C4 to B5), optionally "@442" for A4 in Hz (415 to 466).
    public static func parse(_ text: String) -> (note: Int, reference: Int)? {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        var reference = defaultReference
        if parts.count == 2 {
            guard let hz = Int(parts[1]), referenceRange.contains(hz) else { return nil }
            reference = hz
        }
        var chars = Array(parts[0])
        guard chars.count >= 2, let letter = chars.first?.uppercased(),
              let base = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11][letter] else { return nil }
        chars.removeFirst()
        var pitch = base
        if chars.first == "#" { pitch += 1; chars.removeFirst() } else if chars.first == "b" { pitch -= 1; chars.removeFirst() }
        guard !chars.isEmpty, chars.allSatisfy({ $0.isASCII && $0.isNumber }), chars.count <= 2, let octave = Int(String(chars)) else {
            return nil
        }
        let note = 12 * (octave + 1) + pitch
        guard noteRange.contains(note) else { return nil }
        return (note, reference)
    }
}
