// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
/// What Menu > Tone shows: the note large, its exact frequency, A4, timbre, volume, on/off.
public struct ToneView: Sendable, Hashable {
    public var on: Bool
    public var tone: ReferenceTone

    public init(_ preferences: Preferences) {
        on = preferences.toneOn
        tone = preferences.tone
    }

    /// "440.00 Hz": hundredths, rounded half up.
    public var hertz: String {
        let hundredths = Int((tone.frequency * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) Hz"
    }

    /// One line for the event log's `menu` field: "on A4 440.00 Hz, A4=440 Hz, sine 50%".
    public var summary: String {
        "\(on ? "on" : "off") \(tone.noteName) \(hertz), A4=\(tone.reference) Hz, \(tone.timbre.rawValue) \(tone.volume)%"
    }
}
