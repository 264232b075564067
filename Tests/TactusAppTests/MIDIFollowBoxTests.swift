// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Logging
import Testing
@testable import TactusApp
@testable import TactusSimulation
import TactusArithmetic
import TactusInstrument
import TactusBase

/// Issue 30's reproducers through the whole simulated box.
@Suite struct MIDIFollowBoxTests {
    func seconds(_ line: [String: Any]) -> Double { (line["t"] as! NSNumber).doubleValue }

    /// Two clocks at the same instant (a merger) trapped the box (SIGILL, exit 132) at every
    /// start with Sync: MIDI saved. Now the second is dropped: the tempo shown is 120.0, locked.
    @Test func simultaneousClocksDoNotTrap() throws {
        let (output, _, _) = try simulate("0.000 sync midi\n0.000 midi clock 120 until 10\n0.000 midi clock 120 until 10\n10 end\n")
        let states = output.states.filter { $0["sync"] as? String == "midi" }
        #expect(!states.isEmpty)
        for state in states {
            if let bpm = (state["bpm"] as? NSNumber)?.doubleValue { #expect(bpm >= 1 && bpm <= 999, "\(state)") }
        }
        let last = try #require(states.last)
        #expect(last["lock"] as? String == "locked")
        #expect((last["bpm"] as? NSNumber)?.doubleValue == 120)
    }

    /// 250 BPM with +-2.5 ms jitter (25 % of a period): from beat 4 every beat within 2 ms of
    /// the sender's jitter-free beat (n x 0.24 s), 99 % within 1 ms, none skipped or doubled.
    @Test(arguments: [3, 4, 7, 11] as [UInt64])
    func quarterPeriodJitterAt250(seed: UInt64) throws {
        let (output, _, _) = try simulate("""
            0.000 sync midi
            0.000 midi start
            0.000 midi clock 250 until 12 jitter 2.5 seed \(seed)
            11.900 midi stop
            12.000 end
            """)
        let beats = output.events("onset").filter { $0["kind"] as? String != "sub" }
        // Seed 3 once passed over bar 1's downbeat while locking: a correction pinned ahead of the
        // render clock made the next tempo change cut the bar there.
        #expect(beats.count == 50, "\(beats.count) beats") // 0 ... 11.76 s
        let errors = beats.enumerated().dropFirst(4).map { abs(seconds($1) - 0.24 * Double($0)) * 1000 }
        #expect(errors.allSatisfy { $0 <= 2 }, "\(errors)")
        #expect(Double(errors.filter { $0 <= 1 }.count) >= 0.99 * Double(errors.count), "\(errors)")
        let shown = output.states.filter { seconds($0) > 1 && $0["lock"] as? String == "locked" }.compactMap { ($0["bpm"] as? NSNumber)?.doubleValue }
        #expect(!shown.isEmpty && shown.allSatisfy { abs($0 - 250) <= 0.5 }, "\(shown)")
    }

    /// While locking the simulator wrote 35-120 state lines a second: now the tempo applied
    /// and shown move at most a few times a second.
    @Test func lockingWritesFewStateLines() throws {
        let (output, _, _) = try simulate("""
            0.000 sync midi
            0.000 midi start
            0.000 midi clock 300 until 4 jitter 2 seed 5
            4.000 end
            """)
        let states = output.states.filter { seconds($0) >= 0.5 }
        #expect(states.count <= 24, "\(states.count) state lines in 3.5 s")
    }

    /// A controller mapped to a switch acts on the rise through 64: held high it is one press.
    @Test func controllersActOnTheRiseThrough64() throws {
        let configuration = try ConfigurationFile.parse("""
            [midi.map]
            "cc 64" = "start-stop"
            "cc 20" = "tempo-up"
            """, file: "c.toml")
        let output = MemoryOutput()
        let simulation = try HeadlessSimulation(board: testBoard(), configuration: configuration, saved: SavedState(), problem: nil,
                                                persistence: RecordingPersistence(), output: output, logger: Logger(label: "test"))
        try simulation.run(try SimulationScript(text: """
            0.100 midi cc 64 127
            0.200 midi cc 64 127
            0.300 midi cc 20 127
            0.400 midi cc 20 127
            0.500 midi cc 20 100
            1.100 midi cc 64 0
            1.200 midi cc 64 127
            1.300 midi cc 20 0
            1.400 midi cc 20 64
            2.000 end
            """, file: "s"))
        // One start (0.1 s), one stop (1.2 s, after going down and up again); +1 BPM twice.
        let playing = output.states.compactMap { $0["playing"] as? Bool }
        #expect(playing.contains(true))
        #expect(!simulation.box.state.isPlaying)
        let tempos = output.states.compactMap { ($0["bpm"] as? NSNumber)?.doubleValue }
        #expect(tempos.contains(121), "\(tempos)")
        #expect(simulation.box.state.settings.tempo.bpm == Rational(122))
    }
}

/// Clock out while following (issue 30 item 3).
@Suite struct MIDIFollowClockOutTests {
    func outgoing(_ output: MemoryOutput) -> [(bytes: String, sample: Int)] {
        output.events("midi").filter { $0["dir"] as? String == "out" }.map { ($0["bytes"] as! String, $0["sample"] as! Int) }
    }

    /// An incoming SPP + Continue goes out as SPP + Continue, not Start, just before the clock
    /// at that position.
    @Test func songPositionAndContinueAreForwarded() throws {
        let (output, _, _) = try simulate("""
            0.000 sync midi
            0.000 midi clock 120 until 4
            0.300 midi spp 8
            0.310 midi continue
            3.000 midi stop
            4.000 end
            """)
        let out = outgoing(output)
        #expect(!out.contains { $0.bytes == "FA" }, "\(out.filter { $0.bytes != "F8" })")
        let spp = try #require(out.firstIndex { $0.bytes.hasPrefix("F2") })
        #expect(out[spp].bytes == "F2 08 00")
        #expect(out[spp + 1].bytes == "FB" && out[spp + 2].bytes == "F8")
    }

    /// A followed clock's corrections keep the count: no SPP or Continue goes out while
    /// following, through locking and a dropout (the SPP + Continue that tells chained gear
    /// of a move of the bars is Link's; seeds 1, 2, 3 and 5 sent one at 2 s when it was not).
    @Test(arguments: [1, 2, 3, 5] as [UInt64])
    func followingSendsNoSongPositionOfItsOwn(seed: UInt64) throws {
        let (output, _, _) = try simulate("""
            0.000 sync midi
            0.000 midi start
            0.000 midi clock 120 until 5 jitter 2.5 seed \(seed)
            9.000 midi clock 120 until 14 jitter 2.5 seed \(seed)
            13.900 midi stop
            14.000 end
            """)
        #expect(outgoing(output).map(\.bytes).filter { $0 != "F8" } == ["FA", "FC"])
    }

    /// Following a jittery clock (its corrections re-place the grid): exactly 24 clocks out per
    /// incoming beat, never two on one sample, none dropped or doubled.
    @Test func twentyFourClocksPerIncomingBeat() throws {
        let (output, _, _) = try simulate("""
            0.000 sync midi
            0.000 midi start
            0.000 midi clock 40 until 30 jitter 0.5 seed 2
            30.000 end
            """)
        let clocks = outgoing(output).filter { $0.bytes == "F8" }
        let start = try #require(outgoing(output).firstIndex { $0.bytes == "FA" })
        let after = outgoing(output)[(start + 1)...].filter { $0.bytes == "F8" }.map(\.sample)
        #expect(Set(after).count == after.count)
        // 40 BPM: a clock every 62.5 ms (3000 samples), 24 a beat of 1.5 s. From 3 s on (the
        // first half second plays the box's own tempo until the clock is counted), 24 s from a
        // clock hold 384 (the window ends half a period before the 385th).
        let steady = after.filter { $0 >= 3 * 48_000 }
        let first = try #require(steady.first)
        let window = steady.filter { $0 < first + 384 * 3000 - 1500 }
        #expect(window.count == 384, "\(window.count) clocks")
        // Every interval within 1 % of a clock period.
        let intervals = zip(window.dropFirst(), window).map { $0 - $1 }
        #expect(intervals.allSatisfy { abs($0 - 3000) <= 30 }, "\(intervals.filter { abs($0 - 3000) > 30 })")
        #expect(!clocks.isEmpty)
    }
}
