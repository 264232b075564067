// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import LinuxHAL
import TOMLReader
import TactusArithmetic
import TactusMusic
import TactusInstrument
import TactusBase

/// What `render` plays when a song is involved: from --song, --tempo-map or --bpm's
/// segment forms, with --count-in and --gap applied.
struct SongRequest {
    var songs: [Song]
    var seed: UInt64
    var usesRandomMute: Bool

    static func readText(_ path: String, flag: String) throws -> String {
        if path == "-" {
            let text: String
            do { text = try BoundedFile.text(try FileSystem.readStandardInput()) } catch {
                throw ExitError("\(flag) '-': standard input cannot be read: \(error)")
            }
            return text
        }
        return try InputFile.text(path, flag: flag)
    }

    /// klick's own messages: "can't open tempo map file 'x'" and "<problem>:\nline N: <line>".
    static func klickMap(_ path: String) throws -> KlickTempoMap {
        let text: String
        if path == "-" {
            text = try readText(path, flag: "--tempo-map")
        } else {
            do { text = try BoundedFile.text(path) } catch {
                throw ExitError(KlickTempoMap.cannotOpen(path) + " (\(error))")
            }
        }
        let map: KlickTempoMap
        do { map = try KlickTempoMap(parsing: text) } catch { throw ExitError("\(error.description)") }
        for warning in map.warnings {
            FileSystem.writeStandardError("tactus: warning: \(path): \(warning)\n")
        }
        return map
    }

    static func songName(forFile path: String) -> String {
        let name = FileSystem.stem(of: path)
        return name.isEmpty || path == "-" ? "tempo map" : name
    }

    static func songFromMap(_ path: String, countIn: CountIn) throws -> Song {
        let map = try klickMap(path)
        guard !map.entries.isEmpty else { throw ExitError("--tempo-map '\(path)' has no entries: nothing to play") }
        do { return try map.song(name: songName(forFile: path), countIn: countIn) } catch {
            throw ExitError("\(path):\(error.line): \(error.message)")
        }
    }

    /// nil when no song option is used (the plain bar pattern renders as before).
    /// `bars`: `--bars` as RenderJob read it.
    static func make(_ o: MusicFlags, bars requested: Int?, settings: MetronomeSettings, sampleRate: Int) throws -> SongRequest? {
        let segment: TempoSegment
        do { segment = try TempoSegment(parsing: o.bpm, field: "bpm") } catch {
            throw ExitError("--bpm '\(o.bpm)' is invalid: \(error.allowed)")
        }
        let plainTempo: Bool = if case .constant = segment { true } else { false }
        // Before the guard below: alone it would be silently ignored.
        if o.songName != nil && o.song == nil { throw ExitError("--song-name needs --song FILE") }
        guard o.song != nil || o.tempoMap != nil || o.countIn != nil || o.gap != nil || o.seed != nil || !plainTempo else {
            return nil
        }
        if o.song != nil && o.tempoMap != nil { throw ExitError("--song and --tempo-map are exclusive: give one of them") }

        var countIn: CountIn?
        if let text = o.countIn {
            do { countIn = try CountIn(parsing: text, field: "count-in") } catch {
                throw ExitError("--count-in '\(text)' is invalid: expected 0 to 4 bars, or 2beats")
            }
        }
        var gap: GapPattern?
        var mute: Rational?
        if let text = o.gap { (gap, mute) = try SongRequest.gap(text) }

        var songs: [Song]
        if let path = o.song {
            songs = try SongRequest.songs(fromFile: path, named: o.songName)
        } else if let path = o.tempoMap {
            songs = [try songFromMap(path, countIn: countIn ?? .none)]
        } else {
            songs = [try SongRequest.song(o, segment: segment, bars: requested, settings: settings)]
        }
        for i in songs.indices {
            if let countIn, i == 0 { songs[i].countIn = countIn }
            for j in songs[i].sections.indices {
                if let gap { songs[i].sections[j].gap = gap }
                if let mute { songs[i].sections[j].randomMute = mute }
            }
        }
        var seed: UInt64
        if let text = o.seed {
            guard let value = UInt64(text) else { throw ExitError("--seed '\(text)' is invalid: expected a whole number 0 to 18446744073709551615") }
            seed = value
        } else {
            var g = SystemRandomNumberGenerator()
            seed = g.next() >> 1
        }
        return SongRequest(songs: songs, seed: seed, usesRandomMute: songs.contains(where: \.usesRandomMute))
    }

    /// --gap: a P:M pattern, a random mute (25%), or one of each (2:1,25%).
    static func gap(_ text: String) throws -> (pattern: GapPattern?, mute: Rational?) {
        var gap: GapPattern?
        var mute: Rational?
        for part in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            do {
                // One pattern and one random mute at most: a second would silently win.
                if part.hasSuffix("%") {
                    guard mute == nil else { throw SettingError(field: "gap", value: text, allowed: "") }
                    mute = try RandomMute.parsePercent(part, field: "gap")
                } else {
                    guard gap == nil else { throw SettingError(field: "gap", value: text, allowed: "") }
                    gap = try GapPattern(parsing: part)
                }
            } catch {
                throw ExitError("--gap '\(text)' is invalid: expected P:M (play P bars, mute M), P:Mb (beats), a random mute such as 25%, or one of each: 2:1,25%")
            }
        }
        return (gap, mute)
    }

    /// --song FILE: the song named by --song-name, else the setlist's (all of it with
    /// `advance = "auto"`), else the first song.
    static func songs(fromFile path: String, named name: String?) throws -> [Song] {
        let text = try readText(path, flag: "--song")
        let library: SongLibrary
        do {
            let root = TOMLSection(try TOML.parse(text, file: path), file: path)
            // A settings.toml's presets are one-section songs here too, as on the box.
            library = try SettingsFile.songLibrary(from: root)
        } catch { throw ExitError(error.description) }
        guard !library.songs.isEmpty else { throw ExitError("--song '\(path)' has no [[song]] or [[preset]]") }
        if let name {
            guard let song = library.song(named: name) else {
                throw ExitError("--song-name '\(name)' is invalid: \(path) has the songs \(library.songs.map { "'\($0.name)'" }.joined(separator: ", "))")
            }
            return [song]
        } else if let setlist = library.setlist, !library.setlistSongs.isEmpty {
            let named = library.setlistSongs
            return setlist.advance == .auto ? named : [named[0]]
        } else {
            return [library.songs[0]]
        }
    }

    /// A one-section song from the flags: --bpm's segment with the rhythm flags.
    static func song(_ o: MusicFlags, segment: TempoSegment, bars requested: Int?, settings: MetronomeSettings) throws -> Song {
        var bars: Int? = nil
        if let n = requested, SongSection.barRange.contains(n) { bars = n }
        if segment.isRamp && bars == nil {
            throw ExitError("--bpm '\(o.bpm)' is a ramp: give its length with --bars (1 to 999)")
        }
        if case .perBeat(let list) = segment {
            let beats = (bars ?? 0) * settings.beatCount
            guard list.count == beats else {
                throw ExitError("--bpm '\(o.bpm)' is invalid: one tempo per beat needs --bars and bars x \(settings.beatCount) values, got \(list.count)")
            }
        }
        var section = SongSection(label: "", bars: bars, meter: settings.meter, beatUnit: settings.beatUnit, tempo: segment,
                                  accents: settings.accents, subdivisions: settings.subdivisions)
        // The rhythm flags play with a tempo segment as they do without one (checked with the settings above).
        (section.swing, section.groove) = (o.swing, o.groove)
        section.poly = o.poly.isEmpty ? nil : o.poly.joined(separator: ",")
        return Song(name: "render", sections: [section])
    }
}
