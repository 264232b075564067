// SPDX-License-Identifier: GPL-3.0-or-later
import TactusWire
import Testing
import TactusMusic
import TOMLReader
import TactusBase
@testable import TactusInstrument

/// "Earn the tempo": the coach's bars gate the speed trainer (issue 31 item 5).
@Suite struct EarnedTempoTests {
    /// Bar `bar`'s hits with these errors (ms).
    func play(_ e: inout EarnedTempo, bar: Int64, _ errors: [Double]) {
        for x in errors { e.hit(bar: bar, errorMilliseconds: x) }
    }

    @Test func upOnlyAfterNBarsInTheWindowThenTheRunStartsAgainAtTheNewTempo() throws {
        var e = EarnedTempo(Trainer(step: 5, bars: 3, windowMilliseconds: 10))
        play(&e, bar: 0, [2, -2, 2, -2])
        play(&e, bar: 1, [9, 9, 9, 9])      // mean 9, SD 0: in
        let verdict1 = e.judge(through: 1, bpm: 100, startBar: 3)
        #expect(verdict1 == nil && e.inBars == 2)
        play(&e, bar: 2, [0, 0, 0, 0])
        let verdict2 = e.judge(through: 2, bpm: 100, startBar: 4)
        let step = try #require(verdict2)
        #expect(step == TrainerStep(direction: .up, bar: 2, fromBar: 4, fromBPM: 100, toBPM: 105, bars: 3, hits: 12,
                                    meanMs: (0 + 36 + 0) / 12.0, sdMs: step.sdMs))
        // Population SD of [2,-2,2,-2,9,9,9,9,0,0,0,0]: mean 3, squares 16 + 324 = 340 / 12 - 9.
        #expect(abs(step.sdMs - (340.0 / 12 - 9).squareRoot()) < 1e-12)
        // Bar 3 was played at the old tempo: never judged; the run counts from bar 4.
        play(&e, bar: 3, [0])
        play(&e, bar: 4, [0])
        let verdict3 = e.judge(through: 4, bpm: 105, startBar: 6)
        #expect(verdict3 == nil && e.inBars == 1 && e.nextBar == 5)
    }

    @Test func aBarOutOfTheWindowByMeanOrBySDBreaksTheRunAndHolds() {
        var e = EarnedTempo(Trainer(step: 5, bars: 2, windowMilliseconds: 10))
        play(&e, bar: 0, [11, 11])          // mean 11: out
        play(&e, bar: 1, [-15, 15, -15, 15]) // mean 0, SD 15: out
        play(&e, bar: 2, [10, -10])          // mean 0, SD 10: in (the window's edge counts)
        let verdict4 = e.judge(through: 2, bpm: 120, startBar: 4)
        #expect(verdict4 == nil)
        #expect(e.inBars == 1 && e.outBars == 0 && e.steps.isEmpty)
    }

    @Test func downAfterMBarsOutAndNeverWithoutDownBars() throws {
        var e = EarnedTempo(Trainer(step: 4, bars: 2, windowMilliseconds: 5, downBars: 2))
        play(&e, bar: 0, [20, 20])
        play(&e, bar: 1, [-30, 10])
        let verdict5 = e.judge(through: 1, bpm: 120, startBar: 3)
        let step = try #require(verdict5)
        #expect(step.direction == .down && step.toBPM == 116 && step.fromBar == 3 && step.hits == 4 && step.meanMs == 5)
        var never = EarnedTempo(Trainer(step: 4, bars: 2, windowMilliseconds: 5))
        for bar in 0..<20 { play(&never, bar: Int64(bar), [30]) }
        let verdict6 = never.judge(through: 19, bpm: 120, startBar: 21)
        #expect(verdict6 == nil && never.outBars == 20)
    }

    @Test func aBarOfRestHoldsAndStartsBothRunsAgain() {
        var e = EarnedTempo(Trainer(step: 4, bars: 2, windowMilliseconds: 5, downBars: 2))
        play(&e, bar: 0, [0])
        play(&e, bar: 2, [0])   // bar 1 is a rest
        play(&e, bar: 3, [50])
        play(&e, bar: 5, [50])  // bar 4 is a rest
        let verdict7 = e.judge(through: 5, bpm: 120, startBar: 7)
        #expect(verdict7 == nil)
        #expect(e.inBars == 0 && e.outBars == 1)
    }

    @Test func theTempoStaysWithin1To999BPM() {
        var e = EarnedTempo(Trainer(step: 20, bars: 1, windowMilliseconds: 10, downBars: 1))
        play(&e, bar: 0, [0])
        let verdict8 = e.judge(through: 0, bpm: 990, startBar: 2)
        #expect(verdict8?.toBPM == 999)
        play(&e, bar: 2, [0])
        let verdict9 = e.judge(through: 2, bpm: 999, startBar: 4)
        #expect(verdict9 == nil) // at the limit: no step
        play(&e, bar: 4, [90])
        let verdict10 = e.judge(through: 4, bpm: 15, startBar: 6)
        #expect(verdict10?.toBPM == 1)
    }

    /// The box's fields on song mode's ring set the saved trainer; song mode's program line shows it.
    @Test func theSongPageFieldsSetTheSavedTrainer() throws {
        var state = try BoxState(saved: SavedState(), at: MonotonicTime(nanoseconds: 0))
        func turn(_ d: Int, _ f: Field) -> Bool? { state.trainerDetent(d, field: f) }
        let turned = [turn(1, .trainerStep), turn(1, .trainerWindow), turn(1, .trainerDown), turn(-1, .trainerBars)]
        #expect(turned == [true, true, true, true])
        #expect(state.saved.preferences.trainer == Trainer(step: 1, bars: 3, windowMilliseconds: 1, downBars: 1))
        for _ in 0..<60 { _ = turn(1, .trainerWindow) }
        let atLimit = turn(1, .trainerWindow), other = turn(1, .gap)
        #expect(atLimit == false && state.saved.preferences.trainer.windowMilliseconds == 50 && other == nil)
        #expect(state.saved.preferences.trainer.programText == "+1/3 50ms down 1")
    }
}

/// The trainer in song files, the settings file and the practice log.
@Suite struct TrainerFilesTests {
    static let song = "[[song]]\nname = \"a\"\ntrainer_step = 5\ntrainer_bars = 4\ntrainer_window_ms = 10\ntrainer_down_bars = 2\n[[song.section]]\n"

    func failure(_ text: String) -> TOMLError? {
        do { _ = try SongFile.decode(text, file: "songs.toml"); return nil } catch { return error }
    }

    @Test func songFileKeysRoundTrip() throws {
        let library = try SongFile.decode(Self.song, file: "songs.toml")
        #expect(library.songs[0].trainer == Trainer(step: 5, bars: 4, windowMilliseconds: 10, downBars: 2))
        #expect(try SongFile.decode(SongFile.encode(library), file: "x.toml") == library)
        let plain = try SongFile.decode("[[song]]\nname = \"a\"\ntrainer_step = -3\n[[song.section]]\n", file: "s.toml")
        #expect(plain.songs[0].trainer == Trainer(step: -3, bars: 4))
    }

    @Test func badSongFileValuesNameFileLineAndField() {
        let cases: [(String, Int, String)] = [
            ("[[song]]\nname = \"a\"\ntrainer_step = 21\n[[song.section]]\n", 3, "song[0].trainer_step"),
            ("[[song]]\nname = \"a\"\ntrainer_step = 5\ntrainer_bars = 0\n[[song.section]]\n", 4, "song[0].trainer_bars"),
            ("[[song]]\nname = \"a\"\ntrainer_step = 5\ntrainer_window_ms = 51\n[[song.section]]\n", 4, "song[0].trainer_window_ms"),
            ("[[song]]\nname = \"a\"\ntrainer_step = 5\ntrainer_window_ms = \"10\"\n[[song.section]]\n", 4, "song[0].trainer_window_ms"),
            ("[[song]]\nname = \"a\"\ntrainer_step = 5\ntrainer_window_ms = 5\ntrainer_down_bars = 33\n[[song.section]]\n", 5, "song[0].trainer_down_bars"),
            ("[[song]]\nname = \"a\"\ntrainer_step = 5\ntrainer_down_bars = 2\n[[song.section]]\n", 4, "song[0].trainer_down_bars"),
            ("[[song]]\nname = \"a\"\ntrainer_window_ms = 10\n[[song.section]]\n", 3, "song[0].trainer_window_ms"),
        ]
        for (text, line, field) in cases {
            let e = failure(text)
            #expect(e?.file == "songs.toml" && e?.line == line && e?.field == field, "\(text): \(String(describing: e))")
            #expect(e.map { "\($0)".hasPrefix("songs.toml:\(line): \(field) = ") } == true, "\(String(describing: e))")
        }
    }

    @Test func settingsFileAndCompanionKeys() throws {
        var saved = SavedState()
        saved.preferences.trainer = Trainer(step: 2, bars: 8, windowMilliseconds: 15, downBars: 3)
        let text = SettingsFile.encode(saved)
        #expect(text.contains("trainer-window-ms = 15") && text.contains("trainer-down-bars = 3"))
        #expect(try SettingsFile.decode(text, file: "settings.toml").preferences.trainer == saved.preferences.trainer)
        #expect(!SettingsFile.encode(SavedState()).contains("trainer"))
        let p = try RemotePatch.preferences(try JSONValue.parse(#"{"trainer_step":5,"trainer_window_ms":10,"trainer_down_bars":2}"#),
                                            to: Preferences())
        #expect(p.trainer == Trainer(step: 5, bars: 4, windowMilliseconds: 10, downBars: 2))
        #expect(RemotePatch.json(p).text.hasSuffix(#""trainer_step":5,"trainer_bars":4,"trainer_window_ms":10,"trainer_down_bars":2}"#))
        #expect(throws: RemotePatch.Problem.self) { try RemotePatch.preferences(try JSONValue.parse(#"{"trainer_window_ms":60}"#), to: Preferences()) }
    }

    @Test func practiceLogKeepsEachStepWithItsFigures() throws {
        var log = PracticeLog()
        let steps = [TrainerStep(direction: .up, bar: 1, fromBar: 3, fromBPM: 120, toBPM: 130, bars: 2, hits: 8, meanMs: 0.625, sdMs: 1.2),
                     TrainerStep(direction: .down, bar: 4, fromBar: 6, fromBPM: 130, toBPM: 120, bars: 2, hits: 7, meanMs: -12.5, sdMs: 3)]
        log.add(PracticeSession(day: "2026-11-28", song: "Earn", seconds: 60, bpm: 130,
                                coach: CoachFigures(hits: 40, meanMs: 1, sdMs: 2, within10Percent: 90, within25Percent: 100, trainer: steps)))
        let text = log.text
        #expect(text.contains(#"  { bar = 1, from-bar = 3, direction = "up", from-bpm = 120.000, to-bpm = 130.000, bars = 2, hits = 8, mean-ms = 0.6, sd-ms = 1.2 },"#))
        let again = try PracticeLog(parsing: text, file: "practice.toml")
        let read = try #require(again.sessions.first?.coach?.trainer)
        #expect(read.map(\.direction) == [.up, .down] && read.map(\.toBPM) == [130, 120] && read.map(\.fromBar) == [3, 6])
        #expect(read[1].meanMs == -12.5 && read[1].hits == 7)
        #expect(throws: SettingError.self) {
            try PracticeLog(parsing: text.replacing("direction = \"up\"", with: "direction = \"sideways\""), file: "p.toml")
        }
    }
}
