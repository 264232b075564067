// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TestSupport
import TOMLReader
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusTimeline
@testable import TactusInstrument
import TactusBase

@Suite struct KlickTempoMapTests {
    @Test func manualExampleMap() throws {
        let map = try KlickTempoMap(parsing: klickManualMap)
        #expect(map.entries.count == 10)
        #expect(map.entries[1].pattern == "X.x." && map.entries[1].label == "verse1")
        #expect(map.entries[2].tempo == 120 && map.entries[2].tempo2 == 140 && map.entries[2].label == "")
        #expect(map.entries[4].beats == 3 && map.entries[4].volume == Rational(1, 2))
        let song = try map.song(name: "example")
        let all = Array(SongTimeline(song: song, sampleRate: 48000))
        var starts: [Int64] = []
        var seen = Set<Int>()
        for o in all where !seen.contains(o.section) { seen.insert(o.section); starts.append(o.sample) }
        #expect(starts == [0, 768000, 1920000, 2275163, 3591735, 4085449, 4579163, 5731163, 7047735, 7541449])
        var timeline = SongTimeline(song: song, sampleRate: 48000)
        while timeline.next() != nil {}
        #expect(timeline.endTime?.rounded == 7756341)
        // X.x. plays beats 0 and 2 only.
        #expect(all.filter { $0.section == 1 && $0.barInSection == 0 }.map(\.beat) == [0, 2])
        #expect(song.sections[4].gainPercent == 50)
    }

    func error(_ text: String) -> KlickTempoMap.ParseError? {
        do { _ = try KlickTempoMap(parsing: text); return nil } catch { return error }
    }

    @Test func everyErrorWithItsLine() {
        let cases: [(String, String, Int)] = [
            ("8 120\n\n4 120 Y\n", "malformed tempo map entry", 3),
            ("# c\n8 120 Xx.\n", "pattern length doesn't match number of beats", 2),
            ("1 2/4 120,121,122\n", "number of tempo values doesn't match number of beats", 1),
            ("8 120\n4 0\n", "tempo must be greater than zero", 2),
            ("2 2/4 120,0,120,120\n", "tempo must be greater than zero", 1),
            ("0 120\n", "number of bars must be greater than zero", 1),
            ("4 0/4 120\n", "invalid time signature", 1),
            ("4 3/0 120\n", "invalid time signature", 1),
            ("4 120 - 140\n", "malformed tempo map entry", 1),
            ("intro 8 120\n", "malformed tempo map entry", 1),
            ("8 -120\n", "malformed tempo map entry", 1),
            ("8 120 X.x.0.5\n", "malformed tempo map entry", 1),
        ]
        for (text, message, line) in cases {
            let e = error(text)
            #expect(e?.message == message, "\(text)")
            #expect(e?.line == line, "\(text)")
        }
        #expect(error("8 120\n4 0\n")?.description == "tempo must be greater than zero:\nline 2: 4 0")
        #expect(KlickTempoMap.cannotOpen("x.map") == "can't open tempo map file 'x.map'")
    }

    @Test func grammarCorners() throws {
        let map = try KlickTempoMap(parsing: "a-b_1:2 7/8 150 X..x... .5 #c\n  \t# only a comment\n1 120.#x\n2 .5-0\nz:1 120,121,122,123\r\n")
        #expect(map.entries.map(\.label) == ["a-b_1", "", "", "z"])
        #expect(map.entries[0].volume == Rational(1, 2) && map.entries[0].pattern == "X..x...")
        #expect(map.entries[1].tempo == 120)
        #expect(map.entries[2].tempo == Rational(1, 2) && map.entries[2].tempo2 == nil) // t2 = 0: no ramp
        #expect(map.entries[3].tempi.count == 4)
        #expect(map.warnings.count == 1 && map.warnings[0].hasPrefix("line 5:"))
        // 7/8 at 150 quarters is 300 eighths per minute.
        let song = try map.song(name: "m")
        #expect(song.sections[0].tempo == .constant(300))
        #expect(song.sections[0].beatUnit == (try BeatUnit(division: 8)))
    }

    /// Found by the klick-map fuzz target in CI: t d / 4 in an odd meter has up to 5
    /// decimals, which import-klick wrote and the songs reader then refused.
    @Test func meterNoteTempoIsRoundedToThreeDecimals() throws {
        let song = try KlickTempoMap(parsing: "1 3/41 40.8100\n2 4/2 0.001-120.001\n").song(name: "m")
        #expect(song.sections[0].tempo == .constant(Rational(418_303, 1000))) // 418.3025 rounds half up
        #expect(song.sections[1].tempo == .rampBeats(from: Rational(1, 1000), to: Rational(60_001, 1000))) // 0.0005, 60.0005
        let library = SongLibrary(songs: [song])
        #expect(try SongFile.decode(SongFile.encode(library), file: "x.toml") == library)
        // 0.001 quarters a minute in 4/1 is 0.00025 whole notes: below what Tactus writes.
        #expect(throws: KlickTempoMap.ParseError.self) { try KlickTempoMap(parsing: "1 4/1 0.001\n").song(name: "m") }
    }
}

@Suite struct SongFileTests {
    let text = """
    [[song]]
    name = "Blue Bossa"
    practice_tempo = "100%"
    loop = false
    count_in = 1
      [[song.section]]
      label = "intro"
      bars = 8
      meter = "4/4"
      beat_unit = "1/4"
      tempo = "120"
      accents = "Xxxx"
      swing = "2:1"
      poly = "3/bar"
      gap = "2:1"
      gain = "100%"
      [[song.section]]
      label = "ramp"
      bars = 4
      tempo = "100+5/2bars..140"
    [[song]]
    name = "So What"
    count_in = "2beats"
      [[song.section]]
      bars = 1
      meter = "3/4"
      tempo = [120, 121, 122]
      [[song.section]]
      bars = "until-stop"
      tempo = 92.5
    [setlist]
    songs = ["Blue Bossa", "So What"]
    advance = "auto"
    """

    @Test func readsAndRoundTrips() throws {
        let library = try SongFile.decode(text, file: "songs.toml")
        #expect(library.songs.count == 2)
        let bossa = library.songs[0]
        #expect(bossa.countIn == .bars(1) && bossa.sections.count == 2)
        #expect(bossa.sections[0].gap == GapPattern(play: 2, mute: 1) && bossa.sections[0].swing == "2:1")
        #expect(bossa.sections[1].tempo == .stepped(start: 100, step: 5, every: 2, unit: .bars, limit: 140))
        let soWhat = library.songs[1]
        #expect(soWhat.countIn == .twoBeats)
        #expect(soWhat.sections[0].tempo == .perBeat([120, 121, 122]))
        #expect(soWhat.sections[0].beatUnit == .quarter)
        #expect(soWhat.sections[1].bars == nil && soWhat.sections[1].tempo == .constant(Rational(185, 2)))
        #expect(library.setlist == Setlist(songs: ["Blue Bossa", "So What"], advance: .auto))
        let again = try SongFile.decode(SongFile.encode(library), file: "songs.toml")
        #expect(again == library)
    }

    @Test func klickManualMapRoundTripsThroughToml() throws {
        let song = try KlickTempoMap(parsing: klickManualMap).song(name: "example")
        let library = SongLibrary(songs: [song])
        #expect(try SongFile.decode(SongFile.encode(library), file: "x.toml") == library)
    }

    func failure(_ text: String) -> TOMLError? {
        do { _ = try SongFile.decode(text, file: "songs.toml"); return nil } catch { return error }
    }

    @Test func badValuesNameFileLineFieldAndValue() {
        let e = failure("[[song]]\nname = \"a\"\n[[song.section]]\nbars = 4\ntempo = \"100-\"\n")
        #expect(e?.line == 5 && e?.field == "song[0].section[0].tempo")
        #expect(failure("[[song]]\nname = \"a\"\n[[song.section]]\nbars = 2\ntempo = \"120,121\"\n")?.line == 5)
        #expect(failure("[[song]]\nname = \"a\"\n[[song.section]]\nbars = \"until-stop\"\ntempo = \"100-140\"\n") != nil)
        #expect(failure("[[song]]\nname = \"a\"\n[[song.section]]\nbars = \"until-stop\"\n[[song.section]]\nbars = 1\n") != nil)
        #expect(failure("[[song]]\nname = \"a\"\n") != nil)
        #expect(failure("[[song]]\nname = \"a\"\n[[song.section]]\nbras = 1\n")?.field == "song[0].section[0].bras")
        #expect(failure("[[song]]\nname = \"a\"\n[[song.section]]\n[setlist]\nsongs = [\"b\"]\n") != nil)
        #expect(failure("[[song]]\nname = \"a\"\ncount_in = 5\n[[song.section]]\n")?.line == 3)
    }

    @Test func presetsBecomeOneSectionSongs() throws {
        var settings = MetronomeSettings()
        settings.tempo = try Tempo(parsing: "92.5")
        settings.meter = try Meter(7, 8)
        settings.beatUnit = try BeatUnit(division: 8)
        var library = SongLibrary()
        library.migrate(presets: [Preset(name: "Ballad", settings: settings)])
        #expect(library.songs.count == 1)
        let song = library.songs[0]
        #expect(song.name == "Ballad" && song.sections.count == 1 && song.sections[0].bars == nil)
        #expect(song.sections[0].tempo == .constant(Rational(185, 2)) && song.sections[0].meter == settings.meter)
        library.migrate(presets: [Preset(name: "Ballad", settings: settings)])
        #expect(library.songs.count == 1)
    }
}

@Suite struct SettingsFileSongsTests {
    @Test func oldPresetsAreMigratedAndSongsRoundTripInSettings() throws {
        let old = "schema = 1\n[[preset]]\nname = \"Ballad\"\nbpm = 66\nmeter = \"3/4\"\n"
        let saved = try SettingsFile.decode(old, file: "settings.toml")
        #expect(saved.presets.map(\.name) == ["Ballad"])
        #expect(saved.library.songs.isEmpty)
        #expect(saved.songLibrary.songs.map(\.name) == ["Ballad"])
        #expect(saved.songLibrary.songs[0].sections[0].tempo == .constant(66))
        #expect(saved.songLibrary.songs[0].sections[0].meter == (try Meter(3, 4)))
        var next = saved
        next.library.songs.append(Song(name: "Ramp", countIn: .bars(2), sections: [SongSection(bars: 8, tempo: .rampTime(from: 80, to: 120))]))
        next.library.setlist = Setlist(songs: ["Ramp", "Ballad"], advance: .auto)
        let text = SettingsFile.encode(next)
        #expect(text.contains("[[song.section]]") && text.contains("[setlist]"))
        #expect(try SettingsFile.decode(text, file: "settings.toml") == next)
    }
}
