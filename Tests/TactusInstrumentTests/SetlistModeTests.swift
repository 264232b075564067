// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TOMLReader
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusInstrument
import TactusBase

/// The box's song mode with a setlist: the songs in setlist order, auto advance loading the
/// rest of the setlist at once, wait advance stopping on the next song; the random mute's
/// seed per START; presets as one-section songs.
@Suite struct SetlistModeTests: SongModeHand {
    var clock = ManualClock()

    static func library(_ advance: Setlist.Advance) -> SongLibrary {
        SongLibrary(songs: [
            Song(name: "Blue", countIn: .bars(1), sections: [
                SongSection(label: "intro", bars: 2, tempo: .constant(100)),
                SongSection(label: "head", bars: 4, tempo: .constant(120)),
            ]),
            Song(name: "Green", sections: [SongSection(label: "all", bars: 8, tempo: .constant(160))]),
            Song(name: "Red", countIn: .bars(2), sections: [SongSection(label: "verse", bars: 3, tempo: .constant(90))]),
        ], setlist: Setlist(songs: ["Red", "Blue"], advance: advance))
    }

    func box(_ advance: Setlist.Advance) throws -> BoxState {
        try BoxState(saved: SavedState(library: Self.library(advance)), soundNames: ["woodblock"], at: clock.now)
    }

    static func loaded(_ effects: [Effect]) -> (songs: [Song]?, seed: UInt64)? {
        for e in effects.reversed() { if case .loadSong(let songs, let seed) = e { return (songs, seed) } }
        return nil
    }

    @Test mutating func songsComeInSetlistOrderThenTheOthers() throws {
        var b = try box(.wait)
        #expect(SongPractice.choices(b.saved).map(\.name) == ["As set", "Red", "Blue", "Green"])
        toSongMode(&b)
        var names: [String] = []
        for _ in 0..<3 {
            _ = turn(&b, 1)
            names.append(b.screen.song!.name)
        }
        #expect(names == ["Red", "Blue", "Green"])
        _ = turn(&b, -2)
        #expect(b.screen.song?.name == "Red")
        // While playing, the footswitch goes past Red's one section to the next setlist song.
        let start = act(&b) { .gesture(.startStop, .press, at: $0) }
        #expect(Self.loaded(start)?.songs?.map(\.name) == ["Red"])
        let next = act(&b) { .gesture(.footswitch, .press, at: $0) }
        #expect(Self.loaded(next)?.songs?.map(\.name) == ["Blue"] && b.screen.song?.name == "Blue")
    }

    @Test mutating func autoLoadsTheRestOfTheSetlistAndThePageFollowsTheSongPlaying() throws {
        var b = try box(.auto)
        toSongMode(&b)
        _ = turn(&b, 1)
        let effects = act(&b) { .gesture(.startStop, .press, at: $0) }
        let songs = try #require(Self.loaded(effects)?.songs)
        // One load: Red then Blue, each as written (the engine plays only the first count-in).
        #expect(songs.map(\.name) == ["Red", "Blue"])
        #expect(songs[1].countIn == .bars(1) && songs[1].sections.map(\.label) == ["intro", "head"])
        #expect(b.screen.song?.name == "Red")
        // Red is bars 0-2; Blue's bar 0 is bar 3 of the program.
        _ = act(&b) { .songProgress(section: 0, bar: 2, bpm: 90, song: 0, at: $0) }
        #expect(b.screen.song?.name == "Red" && b.screen.song?.bar == "3/3")
        _ = act(&b) { .songProgress(section: 0, bar: 3, bpm: 100, song: 1, at: $0) }
        #expect(b.screen.song?.name == "Blue" && b.screen.song?.section == "intro" && b.screen.song?.bar == "1/2")
        _ = act(&b) { .songProgress(section: 1, bar: 6, bpm: 120, song: 1, at: $0) }
        #expect(b.screen.song?.section == "head" && b.screen.song?.bar == "2/4")
        // The end of the setlist stops the box on the last song played.
        let end = act(&b) { .songEnded(at: $0) }
        #expect(end.contains(.stop(.box)) && Self.loaded(end)?.songs == nil)
        #expect(!b.isPlaying && b.screen.song?.name == "Blue" && b.screen.song?.section == "intro")
        // Started from Blue (the setlist's last), only Blue plays; Green is not in the setlist.
        let again = act(&b) { .gesture(.startStop, .press, at: $0) }
        #expect(Self.loaded(again)?.songs?.map(\.name) == ["Blue"])
        _ = act(&b) { .gesture(.startStop, .press, at: $0) }
        _ = turn(&b, 1)
        let green = act(&b) { .gesture(.startStop, .press, at: $0) }
        #expect(Self.loaded(green)?.songs?.map(\.name) == ["Green"])
    }

    @Test mutating func autoJumpFromTheSecondSongGoesOnFromThere() throws {
        var b = try box(.auto)
        toSongMode(&b)
        _ = turn(&b, 1)
        _ = act(&b) { .gesture(.startStop, .press, at: $0) }
        _ = act(&b) { .songProgress(section: 0, bar: 3, bpm: 100, song: 1, at: $0) }
        // In Blue's intro: the footswitch jumps to Blue's head (no count-in), not Red's.
        let jump = act(&b) { .gesture(.footswitch, .press, at: $0) }
        let songs = try #require(Self.loaded(jump)?.songs)
        #expect(songs.map(\.name) == ["Blue"] && songs[0].sections.map(\.label) == ["head"] && songs[0].countIn == .none)
        #expect(b.screen.song?.name == "Blue" && b.screen.song?.section == "head")
    }

    @Test mutating func waitStopsAtTheSongsEndAndSelectsTheNext() throws {
        var b = try box(.wait)
        toSongMode(&b)
        _ = turn(&b, 1)
        let start = act(&b) { .gesture(.startStop, .press, at: $0) }
        #expect(Self.loaded(start)?.songs?.map(\.name) == ["Red"])
        let end = act(&b) { .songEnded(at: $0) }
        #expect(end.contains(.stop(.box)) && Self.loaded(end)?.songs == nil)
        #expect(!b.isPlaying && !b.practice.isLoaded)
        #expect(b.screen.song?.name == "Blue" && b.screen.song?.section == "intro" && b.fieldValue == "Blue")
        let next = act(&b) { .gesture(.startStop, .press, at: $0) }
        #expect(Self.loaded(next)?.songs?.map(\.name) == ["Blue"] && b.isPlaying)
        // Blue is the setlist's last: its end stops and Blue stays chosen.
        _ = act(&b) { .songEnded(at: $0) }
        #expect(!b.isPlaying && b.screen.song?.name == "Blue")
        // A song outside the setlist just stops at its end.
        _ = turn(&b, 1)
        _ = act(&b) { .gesture(.startStop, .press, at: $0) }
        _ = act(&b) { .songEnded(at: $0) }
        #expect(!b.isPlaying && b.screen.song?.name == "Green")
    }

    /// Song mode, the gap field stepped through all its choices and back to 25 %.
    mutating func toRandomMute(_ b: inout BoxState) -> [String] {
        toSongMode(&b)
        // Section, step, every, the earned trainer's window and step-down, then the gap.
        ring(&b, 6)
        var values: [String] = []
        for _ in 0..<12 {
            _ = turn(&b, 1)
            values.append(b.fieldValue)
        }
        _ = turn(&b, -4)
        return values
    }

    @Test mutating func randomMuteChoicesAndANewSeedEachStart() throws {
        var b = try box(.wait)
        let values = toRandomMute(&b)
        #expect(b.field == .gap)
        #expect(values == ["1:1", "2:1", "3:1", "2:2", "4:4", "1:3", "10%", "25%", "50%", "2:1 10%", "2:1 25%", "2:1 50%"])
        #expect(b.fieldValue == "25%" && b.screen.song?.program == "gap 25%")
        let first = try #require(Self.loaded(act(&b) { .gesture(.startStop, .press, at: $0) }))
        #expect(first.songs?[0].sections.allSatisfy { $0.randomMute == 25 && $0.gap == nil } == true)
        #expect(first.seed == b.practice.seed && b.practice.usesRandomMute(b.saved))
        _ = act(&b) { .gesture(.startStop, .press, at: $0) }
        let second = try #require(Self.loaded(act(&b) { .gesture(.startStop, .press, at: $0) }))
        #expect(second.seed != first.seed && second.seed == b.practice.seed)
        // Both below 2^53 (exact in any JSON reader).
        #expect(first.seed < 1 << 53 && second.seed < 1 << 53)
        // The same input at the same times: the same seed (a simulation replays exactly).
        var replay = SetlistModeTests()
        var c = try replay.box(.wait)
        _ = replay.toRandomMute(&c)
        let again = try #require(Self.loaded(replay.act(&c) { .gesture(.startStop, .press, at: $0) }))
        #expect(again.seed == first.seed)
    }

    @Test func presetsAreOneSectionSongsWithTheirRhythmAndNoneIsDropped() throws {
        let text = """
            schema = 1
            [[preset]]
            name = "Ballad"
            bpm = 66
            meter = "3/4"
            swing = "2:1"
            [[preset]]
            name = "Ballad"
            bpm = 70
            groove = "3,2,2,3@4"
            [[preset]]
            name = "Odd"
            bpm = 92.5
            meter = "7/8"
            poly = "3"
            [setlist]
            songs = ["Odd", "Ballad"]
            advance = "auto"
            """
        let saved = try SettingsFile.decode(text, file: "settings.toml")
        #expect(saved.presets.map(\.name) == ["Ballad", "Ballad", "Odd"])
        let library = saved.songLibrary
        #expect(library.songs.map(\.name) == ["Ballad", "Ballad (2)", "Odd"])
        let threeFour = try Meter(3, 4)
        #expect(library.songs[0].sections[0].swing == "2:1" && library.songs[0].sections[0].meter == threeFour)
        #expect(library.songs[1].sections[0].tempo == .constant(70))
        #expect(library.songs[1].sections[0].patternSettings.groove == saved.presets[1].settings.groove)
        #expect(library.songs[1].sections[0].groove != nil)
        #expect(library.songs[2].sections[0].poly == "3" && library.songs[2].sections[0].tempo == .constant(Rational(185, 2)))
        #expect(library.songs.allSatisfy { $0.sections.count == 1 && $0.sections[0].bars == nil })
        #expect(SongPractice.choices(saved).map(\.name) == ["As set", "Odd", "Ballad", "Ballad (2)"])
        // The same library from the document alone (what render --song reads).
        let root = TOMLSection(try TOML.parse(text, file: "settings.toml"), file: "settings.toml")
        #expect(try SettingsFile.songLibrary(from: root) == library)
        // The file is written back with its presets as they were, not as songs.
        let written = SettingsFile.encode(saved)
        #expect(!written.contains("[[song]]"))
        #expect(try SettingsFile.decode(written, file: "settings.toml") == saved)
    }
}
