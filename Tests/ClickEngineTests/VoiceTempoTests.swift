// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Foundation
import Testing
import TactusMusic

/// The manual's table of the tempos up to which each voice's subdivision syllables are kept
/// (docs/manual/commands.md) is what the engine does with the voices `make voices` builds:
/// in 4/4 with one layer, every syllable is spoken at the named tempo, and some give way to
/// the click within 3 BPM above it (so the figure is not an understatement).
@Suite(.enabled(if: VoiceFixture.available && FileManager.default.fileExists(atPath: VoiceFixture.folder("es").path)))
struct VoiceTempoTests {
    /// (voice, layer, BPM) from the manual's table: the first figure of each cell (4/4).
    static func namedTempos() throws -> [(lang: String, layer: Int, bpm: Int)] {
        let manual = try String(contentsOf: VoiceFixture.root.appendingPathComponent("docs/manual/commands.md"), encoding: .utf8)
        var rows: [(String, Int, Int)] = []
        for line in manual.split(separator: "\n") where line.hasPrefix("  | `voice-") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let lang = String(cells[0].dropFirst("`voice-".count).dropLast())
            for (k, cell) in cells.dropFirst().prefix(3).enumerated() {
                let words = cell.split(separator: " ")
                let at = try #require(words.firstIndex(of: "BPM"), "\(cell)")
                rows.append((lang, k + 2, try #require(Int(words[at - 1]), "\(cell)")))
            }
        }
        return rows
    }

    static func spokenShare(_ voice: SoundSet, bpm: Int, layer: Int) -> (spoken: Int, of: Int) {
        var s = settings(bpm: "\(bpm)", meter: "4/4", subdivisions: "\(layer)")
        s.sound = voice.name
        let program = EngineProgram(settings: s, sounds: voice, sampleRate: 48000, playing: true, transportEpoch: 1)
        let syllables = (0..<program.onsetCount).map { program.onsets[$0] }.filter { $0.kind == .subdivision }
        return (syllables.filter { $0.lead > 0 }.count, syllables.count)
    }

    @Test func everySyllableIsKeptUpToTheNamedTempoAndNoFurther() throws {
        let named = try Self.namedTempos()
        #expect(named.count == 9, "\(named)")
        for (lang, layer, bpm) in named {
            let voice = try VoiceFixture.load(lang)
            let at = Self.spokenShare(voice, bpm: bpm, layer: layer)
            #expect(at.of > 0 && at.spoken == at.of, "voice-\(lang) layer \(layer) at \(bpm) BPM: \(at.spoken) of \(at.of) spoken")
            let above = Self.spokenShare(voice, bpm: bpm + 3, layer: layer)
            #expect(above.spoken < above.of, "voice-\(lang) layer \(layer) at \(bpm + 3) BPM: all still spoken")
        }
    }
}
