// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import ClickEngine
import TestSupport

/// `tactus simulate --headless --input TAKE.wav` proves the earned trainer (issue 31 item 5):
/// the box plays a song at 120 BPM in song mode, its trainer steps +10 BPM after 2 bars whose
/// hits are within +-10 ms; a take that keeps tight makes it climb, one that drifts holds it.
@Suite struct EarnedTempoSimulationTests {
    /// Menu > Songs (1 ... 5 s), a turn chooses the song, START at 8 s: bar 0's downbeat is
    /// heard at 8 s (sample 384000); STOP at `stop` s writes the practice log.
    static func script(stop: Int) -> String {
        "1 press wheel long\n3 turn +2 over 0.6\n5 press wheel\n7 turn +1 over 0.1\n8 press start\n\(stop) press start\n\(stop).5 end\n"
    }

    /// A settings file with one endless 4/4 song at 120; the trainer in the song's keys, or
    /// in the box's preferences (the fields of song mode's ring).
    static func settings(songKeys: String, preferences: String = "") -> String {
        "schema = 1\n[preferences]\n\(preferences)\n[[song]]\nname = \"Earn\"\ncount_in = 0\n\(songKeys)\n"
            + "[[song.section]]\nlabel = \"groove\"\nbars = \"until-stop\"\nmeter = \"4/4\"\ntempo = \"120\"\n"
    }

    static let songTrainer = "trainer_step = 10\ntrainer_bars = 2\ntrainer_window_ms = 10\ntrainer_down_bars = 2\n"

    struct Outcome {
        var trainer: [[String: Any]]
        var onsets: [[String: Any]]
        var states: [[String: Any]]
        var practice: String
    }

    func run(_ take: EarnedTempoTake, settings: String, stop: Int) throws -> Outcome {
        let dir = scratchFolder()
        let state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try settings.write(to: state.appendingPathComponent("settings.toml"), atomically: true, encoding: .utf8)
        let wav = dir.appendingPathComponent("take.wav")
        try Data(WAVEncoder(sampleRate: 48000, channels: 1, format: .f32).encodeFile(take.samples)).write(to: wav)
        let script = dir.appendingPathComponent("script.txt")
        try Self.script(stop: stop).write(to: script, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let result = try tactus(["simulate", "--headless", "--script", script.path, "--out", out.path, "--state", state.path,
                                 "--input", wav.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOf: out.appendingPathComponent("events.jsonl"), encoding: .utf8).split(separator: "\n")
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let practice = (try? String(contentsOf: state.appendingPathComponent("practice.toml"), encoding: .utf8)) ?? ""
        return Outcome(trainer: objects.filter { $0["type"] as? String == "trainer" },
                       onsets: objects.filter { $0["type"] as? String == "onset" && $0["layer"] as? Int == 0 },
                       states: objects.filter { $0["type"] as? String == "state" }, practice: practice)
    }

    /// Each trainer event as (direction, bar, from_bar, from_bpm, to_bpm).
    func steps(_ o: Outcome) -> [String] {
        o.trainer.map { "\($0["direction"]!) \($0["bar"]!)>\($0["from_bar"]!) \(Int($0["from_bpm"] as! Double))>\(Int($0["to_bpm"] as! Double))" }
    }

    /// The tempo of each bar's downbeat as heard.
    func barTempos(_ o: Outcome) -> [Int: Double] {
        var tempos: [Int: Double] = [:]
        for onset in o.onsets where onset["beat"] as? Int == 0 { tempos[onset["bar"] as! Int] = onset["bpm"] as? Double }
        return tempos
    }

    @Test func aTakeThatStaysTightMakesTheTempoClimb() throws {
        // Bars 0-2 at 120, 3-5 at 130 ...: bars 0 and 1 earn the step, judged in bar 2, played from bar 3.
        let schedule: [(fromBar: Int, bpm: Double)] = [(0, 120), (3, 130), (6, 140), (9, 150), (12, 160)]
        let take = EarnedTempoTake(firstDownbeat: 384_000, schedule: schedule, bars: 14, seed: 31) { i in Double(i % 5) - 2 }
        let o = try run(take, settings: Self.settings(songKeys: Self.songTrainer), stop: 30)
        #expect(steps(o) == ["up 1>3 120>130", "up 4>6 130>140", "up 7>9 140>150", "up 10>12 150>160"])
        // Each step's figures: its 2 bars' 8 hits, their mean and SD (offsets -2 ... +2 ms, the detector's few samples on top).
        for step in o.trainer {
            #expect(step["bars"] as? Int == 2 && step["hits"] as? Int == 8)
            #expect(abs(step["mean_ms"] as! Double) < 2 && (step["sd_ms"] as! Double) < 2.5)
        }
        let tempos = barTempos(o)
        for (bar, bpm) in [(0, 120.0), (2, 120), (3, 130), (5, 130), (6, 140), (9, 150), (12, 160)] { #expect(tempos[bar] == bpm, "bar \(bar)") }
        // The step lands on the bar line: bar 3's downbeat after 3 bars of 2 s, bar 4's 4 beats of 60/130 s later.
        let downbeats = Dictionary(o.onsets.filter { $0["beat"] as? Int == 0 }.map { ($0["bar"] as! Int, $0["sample"] as! Int) }) { a, _ in a }
        #expect(downbeats[3] == 384_000 + 3 * 96_000)
        #expect(downbeats[4].map { abs($0 - (672_000 + 4 * 22_154)) <= 1 } == true)
        #expect(o.trainer.first?["t"] as? Double == 14.0)
        // The practice log keeps each step with its figures; the state shows the trainer's runs.
        #expect(o.practice.components(separatedBy: "direction = \"up\"").count == 5)
        #expect(o.practice.contains("from-bpm = 150.000, to-bpm = 160.000"))
        let trainers = o.states.compactMap { ($0["song"] as? [String: Any])?["trainer"] as? [String: Any] }
        let trainer = try #require(trainers.last)
        #expect(trainer["window_ms"] as? Int == 10 && trainer["steps"] as? Int == 4)
    }

    @Test func aTakeThatDriftsHoldsTheTempo() throws {
        // The player rushes ahead at 123 BPM: 12.2 ms more early each beat. The box's own trainer (its fields), never down.
        let take = EarnedTempoTake(firstDownbeat: 384_000, schedule: [(0, 120)], bars: 10, seed: 32) { i in -Double(i) * (500 - 500 * 120 / 123) }
        let prefs = "trainer-step = 10\ntrainer-bars = 2\ntrainer-window-ms = 10\n"
        let o = try run(take, settings: Self.settings(songKeys: "", preferences: prefs), stop: 28)
        #expect(o.trainer.isEmpty)
        #expect(Set(barTempos(o).values) == [120])
        #expect(o.onsets.count >= 38)
        let trainers = o.states.compactMap { ($0["song"] as? [String: Any])?["trainer"] as? [String: Any] }
        let trainer = try #require(trainers.last)
        #expect(trainer["steps"] as? Int == 0 && trainer["in_bars"] as? Int == 0)
    }

    @Test func aTakeThatLosesTheNewTempoStepsBackDown() throws {
        // Tight at 120 for bars 0-2 (earns 130 from bar 3), then the player stays at 120: bars 3
        // and 4 are out, judged in bar 5, so 120 again from bar 6; the take then rests (holds).
        let take = EarnedTempoTake(firstDownbeat: 384_000, schedule: [(0, 120)], bars: 6, seed: 33) { _ in 0 }
        let o = try run(take, settings: Self.settings(songKeys: Self.songTrainer), stop: 24)
        #expect(steps(o) == ["up 1>3 120>130", "down 4>6 130>120"])
        #expect(o.trainer.last?["bars"] as? Int == 2 && (o.trainer.last?["mean_ms"] as! Double) > 10)
        let tempos = barTempos(o)
        #expect(tempos[3] == 130 && tempos[5] == 130 && tempos[6] == 120 && tempos[8] == 120)
        #expect(o.practice.contains("direction = \"down\", from-bpm = 130.000, to-bpm = 120.000"))
    }
}
