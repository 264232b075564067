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

    /// What a box sent, as a script for a box following it: every message at the time the
    /// sender's listener would hear it.
    func followingScript(_ output: MemoryOutput) throws -> String {
        let words = ["F8": "tick", "FA": "start", "FC": "stop", "FB": "continue"]
        var script = "0.000 sync midi\n"
        for message in output.events("midi") where message["dir"] as? String == "out" {
            let word = try #require(words[message["bytes"] as! String], "\(message)")
            script += String(format: "%.6f midi %@\n", seconds(message), word)
        }
        return script + "10.000 end\n"
    }

    func beats(_ output: MemoryOutput) -> [[String: Any]] { output.events("onset").filter { $0["kind"] as? String != "sub" } }

    /// The leader at `bpm`: START at 2.317 s and again at 9.6 s, as with a MIDI port taking the
    /// clock (`tactus run`: START waits for the running clock's tick).
    func lead(bpm: String) throws -> MemoryOutput {
        var saved = SavedState()
        saved.settings.tempo = try Tempo(parsing: bpm)
        let output = MemoryOutput()
        let leader = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: saved, problem: nil,
                                            persistence: RecordingPersistence(), output: output, logger: Logger(label: "leader"))
        leader.box.engine.midiClock.startsOnRunningClock = true
        _ = try leader.run(try SimulationScript(text: "2.317 press start\n9.6 press start\n10.000 end\n", file: "leader"))
        return output
    }

    func expectOnTheLeadersBeats(_ followed: MemoryOutput, leader: MemoryOutput) {
        let leaderBeats = beats(leader).map(seconds)
        let found = beats(followed)
        #expect(found.count == leaderBeats.count, "\(found.map(seconds)) vs \(leaderBeats)")
        #expect(found.first?["kind"] as? String == "accent")
        let errors = zip(found.map(seconds), leaderBeats).map { ($0 - $1) * 1000 }
        #expect(errors.allSatisfy { abs($0) <= 1 }, "ms off the leader's beats: \(errors)")
    }

    @Test(arguments: ["120", "137", "92.5"])
    func theFollowersBeatsAreTheLeadersFromTheFirstDownbeat(bpm: String) throws {
        let leader = try lead(bpm: bpm)
        #expect(beats(leader).count >= 10)
        let (followed, _, _) = try simulate(try followingScript(leader))
        expectOnTheLeadersBeats(followed, leader: leader)
    }

    /// A chain of three: the follower's own clock out (24 clocks a beat of the leader's, its
    /// Start just before its bar 0's clock) drives a third box: every beat of the third box,
    /// from the first downbeat, within 1 ms of the leader's.
    @Test(arguments: ["120", "137"])
    func aBoxFollowingTheFollowerIsOnTheLeadersBeatsToo(bpm: String) throws {
        let leader = try lead(bpm: bpm)
        let (second, _, _) = try simulate(try followingScript(leader))
        let (third, _, _) = try simulate(try followingScript(second))
        expectOnTheLeadersBeats(third, leader: leader)
    }
}
