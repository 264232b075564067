// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Foundation
import Testing
import TactusArithmetic
import TactusMusic

/// The spoken count never traps: every combination of muted beats, subdivision layers
/// (several together too), poly layers, meters and beat units compiles and renders with
/// each voice set (issue 31: a muted first beat with subdivisions trapped in
/// `EngineProgram.words`), in the steady program and in songs.
@Suite struct VoiceCombinationTests {
    static let meters: [(meter: String, unit: String)] = [
        ("4/4", "1/4"), ("3/4", "1/4"), ("1/4", "1/4"), ("5/8", "1/8"), ("7/8", "1/8"), ("4/5", "1/5"),
        ("7/12", "1/12"), ("6/8", "1/4."), ("9/8", "3/8"), ("17/8", "1/8"),
    ]
    static let layers = ["none", "2", "3", "4", "5", "2,3", "2,4", "3,4", "2,3,4", "2,3,4,5"]
    static let polys = ["none", "3", "E(3,8),5"]

    /// Accent patterns of `beats` beats: the first muted (the trap), every other muted,
    /// only the last sounding, all muted, only the first sounding.
    static func accents(_ beats: Int) -> [String] {
        let muted = { (sounds: (Int) -> Bool) in String((0..<beats).map { sounds($0) ? "x" : "." }) }
        return Set([muted { $0 > 0 }, muted { $0 % 2 == 1 }, muted { $0 == beats - 1 }, muted { _ in false }, muted { $0 == 0 }])
            .sorted()
    }

    static var languages: [String] {
        ["en", "de", "es"].filter { FileManager.default.fileExists(atPath: VoiceFixture.folder($0).appendingPathComponent("voice.toml").path) || VoiceFixture.required }
    }

    @Test(.enabled(if: VoiceFixture.available), arguments: ["en", "de", "es"])
    func everyCombinationCompilesAndRenders(lang: String) throws {
        guard Self.languages.contains(lang) else { return }
        let voice = try VoiceFixture.load(lang)
        let words = try #require(voice.voice)
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096, settings: MetronomeSettings())
        engine.register(voice)
        var rendered = 0
        for (meter, unit) in Self.meters {
            let beats = Int((try Meter(parsing: meter).wholeNotes / BeatUnit(parsing: unit).wholeNotes).ceiling)
            for accents in Self.accents(beats) {
                for layers in Self.layers {
                    for poly in Self.polys {
                        for bpm in ["60", "300"] {
                            var s = settings(bpm: bpm, meter: meter, beatUnit: unit, accents: accents, subdivisions: layers, sound: voice.name)
                            s.poly = try PolyLayers(parsing: poly)
                            if (try? s.validate()) == nil { continue }
                            let program = EngineProgram(settings: s, sounds: voice, sampleRate: 48000, playing: true, transportEpoch: 1)
                            let onsets = (0..<program.onsetCount).map { program.onsets[$0] }
                            // Numbers always speak on the beats they cover; poly layers click.
                            for o in onsets where o.kind.isBeat {
                                let number = words.number(beat: Int(o.beat))
                                #expect(o.clip == number?.samples ?? o.clip && (o.lead > 0) == (number != nil),
                                        "voice-\(lang) \(meter) \(unit) \(accents) \(layers) \(poly)")
                            }
                            #expect(onsets.filter { $0.kind == .poly }.allSatisfy { $0.lead == 0 })
                            // A short render of every combination (one beat, long enough to
                            // start each word of the first beat); it must not trap.
                            try engine.apply(s)
                            var recording = Recording()
                            engine.start()
                            engine.record(4096, block: 4096, into: &recording)
                            engine.stop()
                            engine.record(0, into: &recording)
                            #expect(recording.samples.allSatisfy { $0.isFinite && abs($0) <= 1 })
                            rendered += 1
                        }
                    }
                }
            }
        }
        #expect(rendered > 1500)
    }

    /// The reproducer of issue 31 at the exact settings, rendered for two bars: beats 1, 3
    /// and 4 are muted, beat 2 speaks, and the four subdivisions still sound.
    @Test(.enabled(if: VoiceFixture.available), arguments: ["en", "de", "es"])
    func aMutedFirstBeatWithSubdivisionsSpeaksTheRest(lang: String) throws {
        guard Self.languages.contains(lang) else { return }
        let voice = try VoiceFixture.load(lang)
        let s = settings(bpm: "120", accents: ".x..", subdivisions: "2", sound: voice.name)
        let program = EngineProgram(settings: s, sounds: voice, sampleRate: 48000, playing: true, transportEpoch: 1)
        let onsets = (0..<program.onsetCount).map { program.onsets[$0] }
        #expect(onsets.filter { $0.kind.isBeat }.map(\.beat) == [1])
        #expect(onsets.filter { $0.kind == .subdivision }.count == 4)
        let engine = VoiceTests.engine(voice, s)
        let recording = VoiceTests.record(engine, seconds: 4, block: 512)
        #expect(recording.events.filter { $0.kind.isBeat }.count == 2)
        #expect(recording.events.filter { $0.kind == .subdivision }.count == 8)
    }

    /// Songs: count-ins, muted beats (first, random), subdivision layers and meters, played
    /// through the song schedule's `speak`.
    @Test(.enabled(if: VoiceFixture.available), arguments: ["en", "de", "es"])
    func songsWithMutedBeatsAndLayersRender(lang: String) throws {
        guard Self.languages.contains(lang) else { return }
        let voice = try VoiceFixture.load(lang)
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096, settings: MetronomeSettings())
        engine.register(voice)
        var s = MetronomeSettings()
        s.sound = voice.name
        try engine.apply(s)
        for (meter, unit) in Self.meters {
            let beats = Int((try Meter(parsing: meter).wholeNotes / BeatUnit(parsing: unit).wholeNotes).ceiling)
            for accents in Self.accents(beats) {
                for layers in ["2", "4", "2,3,4"] {
                    let section = SongSection(label: "a", bars: 2, meter: try Meter(parsing: meter), beatUnit: try BeatUnit(parsing: unit),
                                              tempo: .rampBeats(from: 90, to: 300), accents: try AccentPattern(parsing: accents),
                                              subdivisions: try Subdivisions(parsing: layers), randomMute: accents.hasPrefix(".") ? 50 : nil)
                    let song = Song(name: "s", countIn: .bars(1), sections: [section, SongSection(label: "b", bars: 1, accents: try AccentPattern(parsing: ".xx."),
                                                                                                   subdivisions: try Subdivisions(parsing: layers))])
                    try engine.load(songs: [song], seed: 7, bars: 4)
                    var recording = Recording()
                    engine.start()
                    engine.record(96_000, block: 4096, into: &recording)
                    engine.stop()
                    engine.record(0, into: &recording)
                    #expect(recording.events.contains { $0.kind.isBeat }, "voice-\(lang) \(meter) \(accents) \(layers)")
                }
            }
        }
    }
}
