// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Foundation
import Logging
import Testing
@testable import TactusApp
import TactusSimulation
import TactusMusic
import TactusInstrument

/// The repository's voices/voice-LANG (from `make voices`); see ClickEngineTests' VoiceFixture.
enum BoxVoice {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var available: Bool {
        let present = FileManager.default.fileExists(atPath: root.appendingPathComponent("voices/voice-en/voice.toml").path)
        if !present { print("VOICE BOX TEST SKIPPED: no voices/voice-en (run `make voices`)") }
        return present || ProcessInfo.processInfo.environment["TACTUS_REQUIRE_VOICES"] == "1"
    }

    static func load(_ lang: String) throws -> SoundSet {
        let dir = root.appendingPathComponent("voices/voice-\(lang)")
        func bytes(_ file: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: dir.appendingPathComponent(file))) }
        let base = try UserSoundSet.make(name: "voice-\(lang)", accent: bytes("accent.wav"), beat: bytes("beat.wav"),
                                         subdivision: bytes("sub.wav"), sampleRate: 48000)
        let description = try VoiceDescription.parse(try String(contentsOf: dir.appendingPathComponent("voice.toml"), encoding: .utf8),
                                                     file: "voice.toml")
        return try VoiceSet.make(base: base, description: description, sampleRate: 48000) { word throws(VoiceLoadError) in
            do { return try bytes(word + ".wav") } catch { throw VoiceLoadError(file: word, problem: "\(error)") }
        }
    }
}

/// How much of `clip` (placed at `begin` of the left channel) the audio holds: the fitted
/// gain and the residual relative to it (0: exactly the clip there, scaled).
func fit(_ clip: Clip, at begin: Int, in stereo: [Float]) -> (gain: Double, residual: Double) {
    var dot = 0.0, energy = 0.0
    for i in 0..<clip.frameCount {
        let x = Double(clip.samples[i])
        dot += x * Double(stereo[2 * (begin + i)])
        energy += x * x
    }
    let gain = dot / energy
    var error = 0.0
    for i in 0..<clip.frameCount {
        let d = Double(stereo[2 * (begin + i)]) - gain * Double(clip.samples[i])
        error += d * d
    }
    return (gain, (error / energy).squareRoot() / max(abs(gain), 1e-12))
}

@Suite struct VoiceBoxTests {
    @Test(.enabled(if: BoxVoice.available))
    func theBoxSpeaksOnStartAfterACountIn() throws {
        let voice = try BoxVoice.load("en")
        let words = try #require(voice.voice)
        var saved = SavedState(library: SongLibrary(songs: [
            Song(name: "Blue", countIn: .bars(1), sections: [SongSection(label: "head", bars: 1, tempo: .constant(100))]),
        ]))
        saved.settings.sound = "voice-en"
        let output = MemoryOutput()
        let simulation = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: saved, problem: nil,
                                                persistence: RecordingPersistence(), userSounds: [voice], output: output,
                                                logger: Logger(label: "test"))
        // Menu > Songs, Blue, START at 8 s.
        try simulation.run(try SimulationScript(text: "1 press wheel long\n3 turn +2 over 0.6\n5 press wheel\n7 turn +1 over 0.1\n8 press start\n14 end\n",
                                                file: "test.script"))
        let onsets = output.events("onset")
        #expect(onsets.count == 8)
        // "one, two, ready, go", then the bar counts "one, two, three, four": each word's
        // centre (its lead) exactly on its onset's sample.
        let expected = [words.numbers[0], words.numbers[1], words.countIn[0], words.countIn[1],
                        words.numbers[0], words.numbers[1], words.numbers[2], words.numbers[3]]
        for (onset, word) in zip(onsets, expected) {
            let sample = onset["sample"] as! Int
            let here = fit(word, at: sample - word.lead, in: output.samples)
            #expect(here.gain > 0.5 && here.residual < 1e-4, "\(onset): gain \(here.gain), residual \(here.residual)")
            let early = fit(word, at: sample - word.lead - 1, in: output.samples)
            #expect(early.residual > 100 * max(here.residual, 1e-7))
        }
        // The START press at 8 s; the first word begins at once, its onset one lead later.
        let first = onsets[0]["sample"] as! Int
        #expect(first - words.longestLead < 8 * 48000 + 2 * 128 * 4)
    }

    @Test func menuToneSetsTheNoteAndA4AndSoundsUntilSwitchedOff() throws {
        // Menu (long push), turn to Tone (+4), open it, push: on. Turn +3: C5; a pushed turn
        // +2: A4 = 442. Long push leaves the menu: the tone stays. Back at Tone, push: off.
        let (output, _, _) = try simulate("""
            1 press wheel long
            3 turn +4 over 0.4
            4 press wheel
            5 press wheel
            6 turn +3 over 0.3
            7 turn +2 over 0.2 pushed
            8 press wheel long
            20 press wheel long
            22 turn +4 over 0.4
            23 press wheel
            24 press wheel
            26 end
            """)
        let tones = output.states.map { $0["tone"] as? [String: Any] }
        #expect(tones.contains { $0?["note"] as? String == "A4" && $0?["a4"] as? Int == 440 })
        let last = try #require(output.states.last { ($0["t"] as! Double) < 20 }?["tone"] as? [String: Any])
        #expect(last["note"] as? String == "C5" && last["a4"] as? Int == 442 && (last["hz"] as? Double).map { abs($0 - 525.6295) < 1e-4 } == true)
        #expect(output.states.last?["tone"] is NSNull)
        // The audio from 10 to 20 s: C5 from A4 = 442 (525.6295 Hz), within 0.01 Hz.
        let left = stride(from: 2 * 10 * 48000, to: 2 * 20 * 48000, by: 2).map { output.samples[$0] }
        var crossings: [Double] = []
        for k in 1..<left.count where left[k - 1] < 0 && left[k] >= 0 {
            crossings.append(Double(k - 1) + Double(-left[k - 1]) / Double(left[k] - left[k - 1]))
        }
        let hz = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / 48000)
        #expect(abs(hz - ReferenceTone.frequency(note: 72, reference: 442)) < 0.01, "\(hz) Hz")
        // Off after the last push (a 5 ms ramp).
        #expect(output.samples[(2 * 25 * 48000)...].allSatisfy { $0 == 0 })
    }
}
