// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import ClickEngine
import TactusMusic

/// The musical flags of `render`, shared by `coach` (which judges a take against the grid
/// these flags play): tempo, meter, accents, subdivisions, rhythm, sound, songs, count-in, gap.
struct MusicFlags: ParsableArguments {
    // .unconditional: `--bpm -1` is a bad tempo, not a missing value followed by a flag.
    @Option(parsing: .unconditional, help: "Tempo in BPM, 1 to 999 (up to 3 decimals), or a segment with --bars: 100-140 (ramp in time), 100~140 (ramp in beats), 100+5/2..140 (steps every 2 bars; 4b: beats), 120,121,... (per beat).") var bpm = "120"
    @Option(help: "Meter N/D, each 1 to 99 (e.g. 7/8, 4/5).") var meter = "4/4"
    @Option(name: .customLong("beat-unit"), help: "Note value the BPM counts: 1/N, dotted 1/N. or 3/(2N). Default: 1/D of the meter.")
    var beatUnit: String?
    @Option(help: "One character per beat (X accent, o soft accent, x normal, . muted), E(k,n[,r]) or groups 3+2+2. Default: X then normal.") var accents: String?
    @Option(help: "Subdivision layers 2 to 9, comma separated, or none.") var subdivisions = "none"
    @Option(help: "Swing VALUE[@LAYER]: 66% (MPC), 2:1, 2/3, straight, septuplet, quintuplet, triplet, dotted; layer 2, 4, 6 or 8 (default 2).") var swing: String?
    @Option(help: "Groove W1,W2,..[@LAYER][*AMOUNT]: weights (W:GAIN for a step gain), layer 2-9, amount 0-150 %.") var groove: String?
    @Option(help: "A poly layer (repeatable, up to 4): N over the bar, N/Kb over K beats, or E(k,n[,r]).") var poly: [String] = []
    @Option(help: "Built-in sound set name, or a folder with accent.wav, beat.wav and sub.wav.") var sound = "woodblock"
    @Option(help: "Volumes in percent: master, accent, soft, beat, sub2..sub9, poly1..poly4, e.g. master=80,accent=100,beat=80,sub2=60.") var volume: String?
    @Option(help: "Play a song from a songs TOML file (settings.toml or songs.toml).") var song: String?
    @Option(name: .customLong("song-name"), help: "Which song of --song (default: the setlist, or the first song).") var songName: String?
    @Option(name: .customLong("tempo-map"), help: "Play a klick tempo map file ('-' is standard input).") var tempoMap: String?
    @Option(name: .customLong("count-in"), help: "Count-in before bar 0: 0 to 4 bars of the first section's meter, or 2beats.") var countIn: String?
    @Option(help: "Gap click: P:M plays P bars and mutes M (P:Mb in beats); 25% mutes a quarter of the beats at random; or 2:1,25%.") var gap: String?
    @Option(help: "Seed of the random mute (default: a new one, written in the events).") var seed: String?

    /// The plain settings these flags give (a tempo segment is the song's; the settings keep
    /// 120), with `--sound` resolved at `sampleRate`; every bad value is one line.
    func settings(sampleRate: Int, loaded: inout [String: SoundSet]) throws -> MetronomeSettings {
        var settings = MetronomeSettings()
        do throws(SettingError) {
            // A tempo segment (ramp, steps) is the song's; the plain settings keep 120. A
            // bad segment is reported as one (its bound), not as a bad plain tempo.
            do {
                if case .constant = try TempoSegment(parsing: bpm, field: "bpm") { try settings.assign("bpm", bpm) }
            } catch {
                // Segment-like: a ramp, steps or a list before any "/" (1/-5 is a bad number).
                let head = bpm.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                if head.dropFirst().contains(where: { "-~+,".contains($0) }) { throw error }
                try settings.assign("bpm", bpm)
            }
            try settings.assign("meter", meter)
            try settings.assign(.beatUnit, beatUnit ?? "1/\(settings.meter.denominator)")
            if let accents { try settings.assign("accents", accents) }
            try settings.assign("subdivisions", subdivisions)
            if let swing { try settings.assign("swing", swing) }
            if let groove { try settings.assign("groove", groove) }
            for spec in poly { _ = try PolyLayer(parsing: spec) } // names the one bad layer
            if poly.count > PolyLayer.maximumLayers {
                throw SettingError(field: "poly", value: poly.joined(separator: " --poly "),
                                   allowed: "at most \(PolyLayer.maximumLayers) poly layers (--poly given \(poly.count) times)")
            }
            if !poly.isEmpty { try settings.assign("poly", poly.joined(separator: ",")) }
            if let volume { try settings.assign(.volume, volume) }
            try settings.validate()
        } catch {
            throw ExitError("--\(error.field) '\(error.value)' is invalid: \(error.allowed)")
        }
        settings.sound = try RenderJob.resolveSound(sound, rate: sampleRate, loaded: &loaded, origin: "--sound")
        return settings
    }
}
