// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TactusMusic
@testable import TactusInstrument
import TactusBase

/// The song mode through the reducer: choose a song, start it, step sections and songs with
/// the wheel and the footswitch, follow the song on the screen, the trainer, gap and
/// practice timer.
@Suite struct SongModeTests: SongModeHand {
    var clock = ManualClock()

    static let library = SongLibrary(songs: [
        Song(name: "Blue", countIn: .bars(1), sections: [
            SongSection(label: "intro", bars: 2, tempo: .constant(100)),
            SongSection(label: "head", bars: 4, tempo: .rampTime(from: 100, to: 140)),
            SongSection(label: "outro", bars: 2, meter: try! Meter(3, 4), tempo: .constant(90)),
        ]),
        Song(name: "Green", sections: [SongSection(label: "all", bars: 8, tempo: .constant(160))]),
    ])

    func box() throws -> BoxState {
        try BoxState(saved: SavedState(library: Self.library), soundNames: ["woodblock"], at: clock.now)
    }

    static func loaded(_ effects: [Effect]) -> [Song]?? {
        for e in effects.reversed() { if case .loadSong(let songs, _) = e { return .some(songs) } }
        return nil
    }

    @Test mutating func songModeOpensFromTheMenuAndChoosesASong() throws {
        var b = try box()
        // Short pushes cycle the six modes of SPEC 5 only; a push in song mode returns to tempo.
        for expected in [WheelMode.accents, .meter, .subdivisions, .sound, .volumes, .tempo] {
            _ = act(&b) { .gesture(.wheel, .shortPress, at: $0) }
            #expect(b.mode == expected)
        }
        toSongMode(&b)
        #expect(b.mode == .song && b.menu == nil)
        _ = act(&b) { .gesture(.wheel, .shortPress, at: $0) }
        #expect(b.mode == .tempo)
        toSongMode(&b)
        #expect(b.field == .song)
        #expect(b.screen.song?.name == "As set")
        _ = turn(&b, 1)
        #expect(b.screen.song?.name == "Blue")
        #expect(b.screen.song?.section == "intro" && b.screen.song?.bpm == "100" && !b.screen.song!.playing)
        _ = turn(&b, 5) // past the last: stays
        #expect(b.screen.song?.name == "Green")
        #expect(b.fieldValue == "Green")
    }

    @Test mutating func startPlaysTheChosenSongFromTheChosenSection() throws {
        var b = try box()
        toSongMode(&b)
        _ = turn(&b, 1)
        ring(&b, 1)
        #expect(b.field == .songSection)
        _ = turn(&b, 1)
        #expect(b.fieldValue == "head")
        let effects = act(&b) { .gesture(.startStop, .press, at: $0) }
        #expect(b.isPlaying)
        let songs = try #require(Self.loaded(effects) ?? nil)
        // From "head": no count-in, head and outro.
        #expect(songs.count == 1 && songs[0].sections.map(\.label) == ["head", "outro"] && songs[0].countIn == .none)
        #expect(effects.firstIndex(of: .start(.box))! > effects.firstIndex { if case .loadSong = $0 { true } else { false } }!)
        // The screen follows the heard onsets: section 1 of the program is "outro".
        _ = act(&b) { .songProgress(section: 0, bar: 2, bpm: 117.25, at: $0) }
        #expect(b.screen.song?.section == "head" && b.screen.song?.bar == "3/4" && b.screen.song?.bpm == "117.3")
        _ = act(&b) { .songProgress(section: 1, bar: 5, bpm: 90, at: $0) }
        #expect(b.screen.song?.section == "outro" && b.screen.song?.bar == "2/2" && b.screen.song?.bpm == "90")
        // START again stops and returns to the bar pattern.
        let stop = act(&b) { .gesture(.startStop, .press, at: $0) }
        #expect(stop.contains(.stop(.box)) && Self.loaded(stop) == .some(nil))
        #expect(!b.isPlaying && !b.practice.isLoaded)
    }

    @Test mutating func footswitchStepsSectionsThenSongs() throws {
        var b = try box()
        toSongMode(&b)
        _ = turn(&b, 1)
        // Stopped, the footswitch starts the song (it is start/stop by default).
        var effects = act(&b) { .gesture(.footswitch, .press, at: $0) }
        #expect(b.isPlaying && Self.loaded(effects)??.first?.sections.count == 3)
        effects = act(&b) { .gesture(.footswitch, .press, at: $0) }
        #expect(Self.loaded(effects)??.first?.sections.map(\.label) == ["head", "outro"] && effects.contains(.start(.box)))
        effects = act(&b) { .gesture(.footswitch, .press, at: $0) }
        #expect(Self.loaded(effects)??.first?.sections.map(\.label) == ["outro"])
        // Past the last section: the next song.
        effects = act(&b) { .gesture(.footswitch, .press, at: $0) }
        #expect(Self.loaded(effects)??.first?.name == "Green" && b.screen.song?.name == "Green")
        // A long press goes back: to Blue's last section.
        effects = act(&b) { .gesture(.footswitch, .longPress, at: $0) }
        #expect(Self.loaded(effects)??.first?.sections.map(\.label) == ["outro"] && b.screen.song?.name == "Blue")
        #expect(b.isPlaying)
        // The section field jumps too while playing.
        ring(&b, 1)
        effects = turn(&b, -2)
        #expect(Self.loaded(effects)??.first?.sections.map(\.label) == ["intro", "head", "outro"])
    }

    @Test mutating func trainerAndGapShapeTheProgram() throws {
        var b = try box()
        toSongMode(&b)
        ring(&b, 2)
        #expect(b.field == .trainerStep)
        _ = turn(&b, 5)
        #expect(b.fieldValue == "+5 BPM")
        ring(&b, 1)
        _ = turn(&b, -2)
        #expect(b.fieldValue == "2 bars")
        // Past the earned trainer's window and step-down fields (left off: a plain trainer).
        ring(&b, 3)
        #expect(b.field == .gap)
        _ = turn(&b, 2)
        #expect(b.fieldValue == "2:1")
        #expect(b.screen.song?.program == "+5/2 gap 2:1")
        let effects = act(&b) { .gesture(.startStop, .press, at: $0) }
        let song = try #require(Self.loaded(effects)??.first)
        // "As set" at 120: +5 every 2 bars, no limit; gap 2:1.
        #expect(song.sections[0].tempo == .stepped(start: 120, step: 5, every: 2, unit: .bars, limit: nil))
        #expect(song.sections[0].gap == GapPattern(play: 2, mute: 1))
        // Ramps keep their shape; constant sections get the steps.
        let blue = b.practice.program(SavedState(library: Self.library))
        #expect(blue.sections.count == 1) // still "As set": the choice did not change
    }

    @Test mutating func practiceTimerStopsAfterItsMinutes() throws {
        var b = try box()
        toSongMode(&b)
        ring(&b, -1) // stopped: the practice timer is the ring's last field
        #expect(b.field == .practiceTimer)
        _ = turn(&b, 2)
        #expect(b.fieldValue == "10 min")
        _ = act(&b) { .gesture(.startStop, .press, at: $0) }
        let started = clock.now
        #expect(b.nextDeadline == started + .seconds(600))
        var effects = b.handle(.tick(at: started + .seconds(599)))
        #expect(b.isPlaying && !effects.contains(.stop(.box)))
        effects = b.handle(.tick(at: started + .seconds(600)))
        #expect(!b.isPlaying && effects.contains(.stop(.box)) && Self.loaded(effects) == .some(nil))
        #expect(b.screen.notice?.text == "Practice done: 10 min")
    }

    @Test mutating func wheelTempoDuringASongStartsFromTheTempoPlaying() throws {
        var b = try box()
        toSongMode(&b)
        _ = turn(&b, 1)
        _ = act(&b) { .gesture(.startStop, .press, at: $0) }
        _ = act(&b) { .songProgress(section: 1, bar: 3, bpm: 117.6, at: $0) }
        while b.mode != .tempo { _ = act(&b) { .gesture(.wheel, .shortPress, at: $0) } }
        // The song keeps playing on the tempo page; a detent turns from 118, not from 120.
        #expect(b.practice.isLoaded && b.screen.song != nil)
        let effects = act(&b) { .detent(1, at: $0) }
        #expect(b.settings.tempo == Tempo(clampingWholeBPM: 119))
        #expect(effects.contains(.applySettings(b.settings)))
    }

    @Test func practiceLogAddsSecondsPerDayAndRoundTrips() throws {
        var log = PracticeLog()
        log.add(seconds: 90, day: "2026-11-23")
        log.add(seconds: 45, day: "2026-11-23")
        log.add(seconds: 600, day: "2026-11-22")
        #expect(log.text == "# Tactus practice log: minutes played per day (local time)\nschema = 1\n\n[minutes]\n2026-11-22 = 10.00\n2026-11-23 = 2.25\n")
        let back = try PracticeLog(parsing: log.text, file: "practice.toml")
        #expect(back == log)
        #expect(throws: SettingError.self) { try PracticeLog(parsing: "[minutes]\n2026-13 = 1\n", file: "p.toml") }
        // Written before the log had a schema: still loads. A newer schema is refused, not rewritten.
        #expect(try PracticeLog(parsing: "[minutes]\n2026-11-23 = 2.25\n", file: "p.toml").minutes(on: "2026-11-23") == 2.25)
        #expect(throws: SettingError.self) { try PracticeLog(parsing: "schema = 2\n[minutes]\n", file: "p.toml") }
    }

    @Test func practiceSessionsKeepSongTempoAndCoachFiguresAndRoundTrip() throws {
        var log = PracticeLog()
        log.add(PracticeSession(day: "2026-11-23", song: "Blue \"Bossa\"", seconds: 750, bpm: 132))
        log.add(PracticeSession(day: "2026-11-24", song: "", seconds: 60, bpm: 92.5,
                                coach: CoachFigures(hits: 64, meanMs: -1.6, sdMs: 7, within10Percent: 79.7, within25Percent: 100)))
        #expect(log.minutes(on: "2026-11-23") == 12.5)
        #expect(log.text == """
            # Tactus practice log: minutes played per day (local time)
            schema = 1

            [minutes]
            2026-11-23 = 12.50
            2026-11-24 = 1.00

            [[session]]
            day = "2026-11-23"
            song = "Blue \\"Bossa\\""
            minutes = 12.50
            bpm = 132.000

            [[session]]
            day = "2026-11-24"
            song = ""
            minutes = 1.00
            bpm = 92.500
            hits = 64
            mean-ms = -1.6
            sd-ms = 7.0
            within-10ms = 79.7
            within-25ms = 100.0

            """)
        #expect(try PracticeLog(parsing: log.text, file: "practice.toml") == log)
        // A coach's session written by another version: the figures come with their hits.
        for (bad, field) in [("day = \"2026-11-23\"\nminutes = 1\nhits = 3\nmean-ms = 1\n", "session[0].sd-ms"),
                             ("day = \"2026-11-23\"\nminutes = 1\nbpm = 1000\n", "session[0].bpm"),
                             ("day = \"23.11.2026\"\nminutes = 1\n", "session[0].day"),
                             ("day = \"2026-11-23\"\nminutes = 1\nspeed = 3\n", "session[0].speed")] {
            do {
                _ = try PracticeLog(parsing: "schema = 1\n[[session]]\n" + bad, file: "p.toml")
                Issue.record("accepted \(bad)")
            } catch { #expect(error.field.hasSuffix(field), "\(error)") }
        }
    }

    /// The Coach page on song mode's ring while a song plays: hits show there, a short push
    /// resets them and stays in song mode; the song plays on.
    @Test mutating func theCoachIsAFieldOfTheSongRing() throws {
        var b = try box()
        toSongMode(&b)
        _ = turn(&b, 1) // Blue
        _ = act(&b) { .gesture(.startStop, .press, at: $0) }
        #expect(b.isPlaying && b.screen.coach == nil)
        ring(&b, -1)
        #expect(b.field == .songCoach && b.mode == .song)
        _ = act(&b) { .coachHit(errorMilliseconds: 6, bar: 0, gap: false, at: $0) }
        _ = act(&b) { .coachHit(errorMilliseconds: -2, bar: 1, gap: true, at: $0) }
        #expect(b.screen.coach?.statistics.count == 2 && b.screen.coach?.last == -2)
        _ = act(&b) { .gesture(.wheel, .shortPress, at: $0) }
        #expect(b.mode == .song && b.screen.coach?.statistics.count == 0 && b.isPlaying)
        ring(&b, 1)
        #expect(b.field == .song && b.screen.coach == nil)
        // Stopped, the ring ends at the practice timer again.
        ring(&b, -1)
        _ = act(&b) { .gesture(.startStop, .press, at: $0) }
        #expect(!b.isPlaying && b.field == .practiceTimer && b.screen.coach == nil)
        ring(&b, 1)
        #expect(b.field == .song)
    }
}
