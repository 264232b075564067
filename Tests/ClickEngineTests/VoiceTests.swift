// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Foundation
import Testing
import TactusArithmetic
import TactusMusic

/// The repository's `voices/voice-LANG` (made by `make voices`), loaded as the box loads it.
/// Without it the tests that need it are skipped, loudly; `make test` sets
/// TACTUS_REQUIRE_VOICES=1, so there a missing voice folder fails instead.
enum VoiceFixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var required: Bool { ProcessInfo.processInfo.environment["TACTUS_REQUIRE_VOICES"] == "1" }

    static func folder(_ lang: String) -> URL { root.appendingPathComponent("voices/voice-\(lang)") }

    static var available: Bool {
        let present = ["en", "de"].allSatisfy { FileManager.default.fileExists(atPath: folder($0).appendingPathComponent("voice.toml").path) }
        if !present { print("VOICE TESTS SKIPPED: no voices/voice-en and voices/voice-de (run `make voices`)") }
        return present || required
    }

    static func load(_ lang: String, sampleRate: Int = 48000) throws -> SoundSet {
        let dir = folder(lang)
        func bytes(_ file: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: dir.appendingPathComponent(file))) }
        let base = try UserSoundSet.make(name: "voice-\(lang)", accent: bytes("accent.wav"), beat: bytes("beat.wav"),
                                         subdivision: bytes("sub.wav"), sampleRate: sampleRate)
        let text = try String(contentsOf: dir.appendingPathComponent("voice.toml"), encoding: .utf8)
        let description = try VoiceDescription.parse(text, file: "voice.toml")
        return try VoiceSet.make(base: base, description: description, sampleRate: sampleRate) { word throws(VoiceLoadError) in
            do { return try bytes(word + ".wav") } catch { throw VoiceLoadError(file: word, problem: "\(error)") }
        }
    }
}

/// A voice set of recognisable words: word k is a ramp (every sample different), with its
/// own length and lead, so a clip started one frame off or cut short shows.
func syntheticVoice(sampleRate: Int = 48000, wordFrames: Int = 3000) -> SoundSet {
    func word(_ k: Int, lead: Int, frames: Int) -> Clip {
        Clip(samples: (0..<frames).map { Float($0 + 1) * 1e-5 * Float(k + 1) }, sampleRate: sampleRate, lead: lead)
    }
    let numbers = (0..<16).map { word($0, lead: 100 + 97 * $0, frames: wordFrames + 13 * $0) }
    let layers = [[word(20, lead: 40, frames: wordFrames)],
                  [word(21, lead: 700, frames: wordFrames), word(22, lead: 10, frames: wordFrames)],
                  [word(23, lead: 5, frames: wordFrames), word(24, lead: 333, frames: wordFrames), word(25, lead: 0, frames: wordFrames)]]
    let words = VoiceWords(language: "xx", numbers: numbers, layers: layers,
                           countIn: [word(30, lead: 250, frames: wordFrames), word(31, lead: 120, frames: wordFrames)])
    let click = Clip(samples: Array(repeating: 0.002, count: 50), sampleRate: sampleRate)
    return SoundSet(name: "voice-test", accent: click, beat: click, subdivision: click, voice: words)
}

/// The rendered signal rebuilt from the events: each onset's clip (looked up in a program
/// compiled from the same settings) placed so its lead sits on the onset's sample.
func rebuild(_ events: [OnsetEvent], program: EngineProgram, frames: Int) -> [Double] {
    var out = [Double](repeating: 0, count: frames)
    for e in events {
        let o = try! #require((0..<program.onsetCount).map { program.onsets[$0] }.first {
            $0.beat == e.beat && $0.layer == e.layer && $0.index == e.index && $0.kind == e.kind
        })
        let begin = Int(e.sample) - o.lead
        for i in 0..<o.clipFrames where begin + i < frames { out[begin + i] += Double(o.clip[i]) * Double(o.gain) }
    }
    return out
}

@Suite struct VoiceTests {
    static func engine(_ sounds: SoundSet, _ s: MetronomeSettings) -> ClickEngine {
        let engine = try! ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096, settings: MetronomeSettings())
        engine.register(sounds)
        var s = s
        s.sound = sounds.name
        try! engine.apply(s)
        return engine
    }

    /// Renders until every clip has ended (no clip is cut by the end of the recording).
    static func record(_ engine: ClickEngine, seconds: Double, block: Int) -> Recording {
        var recording = Recording()
        engine.start()
        engine.record(Int(seconds * 48000), block: block, into: &recording)
        engine.stop()
        engine.record(0, into: &recording)
        while engine.renderer.framesUntilSilent > 0 { engine.record(min(128, engine.renderer.framesUntilSilent), into: &recording) }
        return recording
    }

    @Test(arguments: [1, 128, 1000])
    func eachWordBeginsItsLeadBeforeItsExactOnset(block: Int) {
        let voice = syntheticVoice()
        let s = settings(bpm: "40", meter: "5/4", subdivisions: "2,3,4")
        let engine = Self.engine(voice, s)
        let recording = Self.record(engine, seconds: 16, block: block)
        let program = EngineProgram(settings: { var t = s; t.sound = voice.name; return t }(), sounds: voice, sampleRate: 48000,
                                    playing: true, transportEpoch: 1)
        // The downbeat comes one longest lead after START (700 frames: the "trip"), so the
        // first word starts in time too; every onset is still the exact grid from there.
        let origin = Int64(program.maxLead)
        #expect(origin == 700)
        for e in recording.events {
            let beats = Rational(Int64(e.bar) * 5 + Int64(e.beat)) + (e.layer == 0 ? 0 : Rational(Int64(e.index), Int64(e.layer)))
            #expect(e.sample == origin + idealSample(beats: beats, bpm: 40, sampleRate: 48000))
        }
        #expect(recording.events.count >= 60)
        let expected = rebuild(recording.events, program: program, frames: recording.samples.count)
        #expect(maxDifference(recording.samples, expected.map { Float($0) }) < 1e-6)
        // Numbers, not clicks, on the beats; the syllables where they fit.
        let words = (0..<program.onsetCount).map { program.onsets[$0] }
        #expect(words.filter { $0.kind.isBeat }.allSatisfy { $0.clipFrames >= 3000 })
        #expect(words.filter { $0.kind == .subdivision }.allSatisfy { $0.clipFrames == 3000 })
    }

    @Test func voiceTomlIsReadStrictlyWithOneClearErrorEach() throws {
        let good = """
            language = "en"
            numbers = ["1", "2"]
            layer2 = ["and"]
            count_in = ["ready", "go"]
            [lead]
            1 = 10
            2 = 20
            and = 5
            ready = 7
            go = 0
            """
        let d = try VoiceDescription.parse(good, file: "voice.toml")
        #expect(d.numbers == ["1", "2"] && d.layers == [["and"], [], []] && d.countIn == ["ready", "go"] && d.leads["and"] == 5)
        #expect(d.words == ["1", "2", "and", "ready", "go"])
        func error(_ text: String) -> String {
            do { _ = try VoiceDescription.parse(text, file: "voice.toml"); return "" } catch { return "\(error)" }
        }
        #expect(error(good.replacingOccurrences(of: "and = 5\n", with: "")).contains("lead.and"))
        #expect(error(good.replacingOccurrences(of: "layer2 = [\"and\"]", with: "layer2 = [\"and\", \"x\"]")).contains("layer2"))
        #expect(error(good.replacingOccurrences(of: "numbers = [\"1\", \"2\"]", with: "numbers = [\"../1\"]")).contains("numbers"))
        #expect(error("speed = 3\n" + good).contains("unknown key"))
        #expect(error(good.replacingOccurrences(of: "go = 0", with: "go = -1")).contains("lead.go"))
        for text in [good.replacingOccurrences(of: "and = 5\n", with: ""), "speed = 3\n" + good] {
            #expect(!error(text).contains("\n"))
        }
        // Leads at another rate: round half up (964 frames at 22050 Hz is 2098.5 at 48 kHz).
        #expect(UserSoundSet.leadFrames(964, from: 22050, to: 48000) == 2099)
        #expect(UserSoundSet.leadFrames(100, from: 48000, to: 44100) == 92)
    }

    @Test func syllablesGiveWayToTheClickWhenTheyWouldNotEndBeforeTheNextWord() {
        // 240 BPM with layer 4: a sixteenth is 3000 frames, each word 3000+ frames: the
        // syllables would still sound when the next word starts. Numbers always speak.
        let voice = syntheticVoice()
        let program = EngineProgram(settings: settings(bpm: "240", subdivisions: "4", sound: voice.name), sounds: voice,
                                    sampleRate: 48000, playing: true, transportEpoch: 1)
        let onsets = (0..<program.onsetCount).map { program.onsets[$0] }
        #expect(onsets.filter { $0.kind.isBeat }.map(\.clipFrames) == [3000, 3013, 3026, 3039])
        // "e" (lead 5) would overlap "and" (lead 333), "a" (lead 0) the next number: both give
        // way; "and" ends 333 frames before "a" begins and speaks.
        #expect(onsets.filter { $0.kind == .subdivision }.map(\.clipFrames) == Array(repeating: [50, 3000, 50], count: 4).flatMap { $0 })
        // At 60 BPM the same words fit (12000 frames a sixteenth).
        let slow = EngineProgram(settings: settings(bpm: "60", subdivisions: "4", sound: voice.name), sounds: voice,
                                 sampleRate: 48000, playing: true, transportEpoch: 1)
        #expect((0..<slow.onsetCount).map { slow.onsets[$0] }.filter { $0.kind == .subdivision }.allSatisfy { $0.clipFrames == 3000 })
    }

    @Test func aChangeWhileWordsAreStartedAheadPlaysNoOnsetTwiceAndDropsNone() {
        let voice = syntheticVoice()
        let engine = Self.engine(voice, settings(bpm: "120", subdivisions: "2"))
        var recording = Recording()
        engine.start()
        engine.record(48000 + 24000 - 300, block: 128, into: &recording)  // just before beat 3's "and" ... lead window
        var s = settings(bpm: "120", subdivisions: "2", sound: voice.name)
        try! s.volumes.set("master", to: 50)
        try! engine.apply(s)
        engine.record(48000, block: 128, into: &recording)
        let keys = recording.events.map { "\($0.bar).\($0.beat).\($0.layer).\($0.index)" }
        #expect(Set(keys).count == keys.count)
        let origin = recording.events[0].sample
        #expect(recording.events.map { $0.sample - origin } == (0..<recording.events.count).map { Int64($0) * 12000 })
    }

    @Test(.enabled(if: VoiceFixture.available))
    func everyRealWordsCentreLandsExactlyOnItsOnset() throws {
        for lang in ["en", "de"] {
            let voice = try VoiceFixture.load(lang)
            let words = try #require(voice.voice)
            #expect(words.numbers.count == 16)
            #expect(words.layers.map(\.count) == [1, 2, 3])
            #expect(words.countIn.count == 2)
            // Every word alone, 2 s apart (30 BPM): the output around each onset is exactly
            // that word, its lead-th frame on the onset's sample.
            for layer in [0, 2, 3, 4] {
                let s = settings(bpm: "30", meter: layer == 0 ? "16/4" : "1/4", accents: "x", subdivisions: layer == 0 ? "none" : "\(layer)")
                let engine = Self.engine(voice, s)
                let recording = Self.record(engine, seconds: layer == 0 ? 32 : 2, block: 128)
                let program = EngineProgram(settings: { var t = s; t.sound = voice.name; return t }(), sounds: voice,
                                            sampleRate: 48000, playing: true, transportEpoch: 1)
                for e in recording.events {
                    let clip: Clip = e.layer == 0 ? try #require(words.number(beat: Int(e.beat))) : try #require(words.syllable(layer: Int(e.layer), index: Int(e.index)))
                    let o = try #require((0..<program.onsetCount).map { program.onsets[$0] }.first { $0.beat == e.beat && $0.layer == e.layer && $0.index == e.index })
                    #expect(o.clip == clip.samples && o.lead == clip.lead && clip.lead > 0)
                    let begin = Int(e.sample) - clip.lead
                    for i in stride(from: 0, to: clip.frameCount, by: 1) where recording.samples[begin + i] != clip.samples[i] * o.gain {
                        Issue.record("voice-\(lang) layer \(layer) step \(e.beat).\(e.index): frame \(i) differs")
                        break
                    }
                    if begin >= 200 { #expect(recording.samples[begin - 200..<begin].allSatisfy { $0 == 0 }) }
                }
            }
        }
    }

    @Test(.enabled(if: VoiceFixture.available), arguments: [("40", "4"), ("40", "2,3,4"), ("240", "2,3,4")])
    func aCountWithLayersRendersWithNoCutClip(bpm: String, layers: String) throws {
        let voice = try VoiceFixture.load("en")
        var s = settings(bpm: bpm, meter: "4/4", subdivisions: layers)
        try s.volumes.set("master", to: 15)
        let engine = Self.engine(voice, s)
        let recording = Self.record(engine, seconds: 16, block: 128)
        let program = EngineProgram(settings: { var t = s; t.sound = voice.name; return t }(), sounds: voice, sampleRate: 48000,
                                    playing: true, transportEpoch: 1)
        // Every started clip whole, at its place: the output is exactly their sum (and the
        // recording ran until the last one had ended).
        let expected = rebuild(recording.events, program: program, frames: recording.samples.count)
        #expect(maxDifference(recording.samples, expected.map { Float($0) }) < 1e-5)
        #expect(recording.events.count >= (bpm == "40" ? 40 : 240))
        let onsets = (0..<program.onsetCount).map { program.onsets[$0] }
        // Numbers always speak; at 40 BPM the sixteenths' syllables fit, at 240 every
        // syllable gives way to the click.
        #expect(onsets.filter { $0.kind.isBeat }.allSatisfy { $0.lead > 0 })
        let subdivisions = onsets.filter { $0.kind == .subdivision }
        let spoken = subdivisions.filter { $0.lead > 0 }.count
        if layers == "4" { #expect(spoken == subdivisions.count) }
        if bpm == "240" { #expect(spoken == 0) }
    }
}
