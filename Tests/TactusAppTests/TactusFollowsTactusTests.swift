// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Logging
import Testing
@testable import TactusApp
@testable import TactusSimulation
import TactusInstrument
import TactusMusic

/// A Tactus following a Tactus: the leader's MIDI out (as it leaves, with a port taking the
/// clock) is played into a second box following it, message by message at the times the
/// leader sent them; the follower's beats are the leader's, within 1 ms, from the first
/// downbeat after the leader's START (the leader's clock never jumps at Start, so the
/// follower, locked to the running clock, plays that downbeat with it).
@Suite struct TactusFollowsTactusTests {
    func seconds(_ line: [String: Any]) -> Double { (line["t"] as! NSNumber).doubleValue }

    /// What a box sent, as a script for a box following it.
    func followingScript(_ output: MemoryOutput) throws -> String {
        let words = ["F8": "tick", "FA": "start", "FC": "stop", "FB": "continue"]
        var script = "0.000 sync midi\n"
        for message in output.events("midi") where message["dir"] as? String == "out" {
            let word = try #require(words[message["bytes"] as! String], "\(message)")
            script += String(format: "%.6f midi %@\n", seconds(message), word)
        }
        return script + "10.000 end\n"
    }

    /// A chain of three: the follower's own clock out (24 clocks a beat of the leader's, its
    /// Start just before its bar 0's clock) drives a third box: every beat of the third box,
    /// from the first downbeat, within 1 ms of the leader's.
    @Test(arguments: ["120", "137"])
    func aBoxFollowingTheFollowerIsOnTheLeadersBeatsToo(bpm: String) throws {
        var saved = SavedState()
        saved.settings.tempo = try Tempo(parsing: bpm)
        let output = MemoryOutput()
        let leader = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: saved, problem: nil,
                                            persistence: RecordingPersistence(), output: output, logger: Logger(label: "leader"))
        leader.box.engine.midiClock.startsOnRunningClock = true
        _ = try leader.run(try SimulationScript(text: "2.317 press start\n9.6 press start\n10.000 end\n", file: "leader"))
        let leaderBeats = output.events("onset").filter { $0["kind"] as? String != "sub" }.map(seconds)
        let (second, _, _) = try simulate(try followingScript(output))
        let (third, _, _) = try simulate(try followingScript(second))
        let beats = third.events("onset").filter { $0["kind"] as? String != "sub" }.map(seconds)
        #expect(beats.count == leaderBeats.count, "\(beats) vs \(leaderBeats)")
        let errors = zip(beats, leaderBeats).map { ($0 - $1) * 1000 }
        #expect(errors.allSatisfy { abs($0) <= 1 }, "ms off the leader's beats: \(errors)")
    }

    @Test(arguments: ["120", "137", "92.5"])
    func theFollowersBeatsAreTheLeadersFromTheFirstDownbeat(bpm: String) throws {
        var saved = SavedState()
        saved.settings.tempo = try Tempo(parsing: bpm)
        let output = MemoryOutput()
        let leader = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: saved, problem: nil,
                                            persistence: RecordingPersistence(), output: output, logger: Logger(label: "leader"))
        // As with a MIDI port taking the clock (`tactus run`): START waits for the running clock's tick.
        leader.box.engine.midiClock.startsOnRunningClock = true
        _ = try leader.run(try SimulationScript(text: "2.317 press start\n9.6 press start\n10.000 end\n", file: "leader"))
        let sent = output.events("midi").filter { $0["dir"] as? String == "out" }
        let leaderBeats = output.events("onset").filter { $0["kind"] as? String != "sub" }.map(seconds)
        #expect(leaderBeats.count >= 10)
        // The follower hears every message at the time the leader's listener would.
        let words = ["F8": "tick", "FA": "start", "FC": "stop", "FB": "continue"]
        var script = "0.000 sync midi\n"
        for message in sent {
            let word = try #require(words[message["bytes"] as! String], "\(message)")
            script += String(format: "%.6f midi %@\n", seconds(message), word)
        }
        script += "10.000 end\n"
        let (followed, _, _) = try simulate(script)
        let beats = followed.events("onset").filter { $0["kind"] as? String != "sub" }
        #expect(beats.count == leaderBeats.count, "\(beats.map(seconds)) vs \(leaderBeats)")
        #expect(beats.first?["kind"] as? String == "accent")
        let errors = zip(beats.map(seconds), leaderBeats).map { ($0 - $1) * 1000 }
        #expect(errors.allSatisfy { abs($0) <= 1 }, "ms off the leader's beats: \(errors)")
    }
}
