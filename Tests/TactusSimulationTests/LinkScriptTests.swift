// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import Logging
import Testing
@testable import TactusApp
@testable import TactusSimulation
import TactusArithmetic
import TactusMusic
import TactusInstrument
import TactusScreen
import TactusBase

/// The simulator's Link script lines, the Link mark and its notices, and Link's numbers.
@Suite struct LinkScriptTests {
    static func simulate(_ script: String, link: FakeLink) throws -> (MemoryOutput, HeadlessSimulation) {
        let output = MemoryOutput()
        let simulation = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: SavedState(), problem: nil,
                                                persistence: RecordingPersistence(), output: output, link: link, logger: Logger(label: "test"))
        try simulation.run(try SimulationScript(text: script, file: "test.script"))
        return (output, simulation)
    }

    /// The top-left corner of the last frame drawn at or before `ms` (page 0, the mark's columns).
    static func corner(_ output: MemoryOutput, at ms: Int64, width: Int) -> [UInt8] {
        let frame = output.frames.last { $0.0 <= ms }!.1
        return Array(frame.page(0).prefix(width))
    }

    @Test func scriptLinesParseAndBadOnesSayWhatIsAllowed() throws {
        let script = try SimulationScript(text: "0.5 sync link\n1 link start-stop-sync on\n1.5 link start-stop-sync off\n2 sync midi\n2.5 sync internal\n3 end\n",
                                          file: "s")
        #expect(script.steps.map(\.step) == [.sync(.link), .linkStartStopSync(true), .linkStartStopSync(false), .sync(.midi), .sync(.internal), .end])
        #expect(script.steps.map(\.time) == [Rational(1, 2), Rational(1), Rational(3, 2), Rational(2), Rational(5, 2), Rational(3)])
        for (line, message) in [("1 sync ableton", "expected 'sync internal|midi|link'"),
                                ("1 link start-stop-sync yes", "expected 'link start-stop-sync on|off'"),
                                ("1 link on", "expected 'link start-stop-sync on|off'")] {
            #expect {
                try SimulationScript(text: line + "\n2 end\n", file: "s.txt")
            } throws: { error in
                "\(error)" == "s.txt:1: \(message)"
            }
        }
    }

    /// `sync link` at 0.5 s turns Link on (a session with one other peer: the mark "L1" and a
    /// notice), `link start-stop-sync on` at 1 s reaches Link, `sync internal` at 2 s turns it
    /// off and the mark goes; each at its time.
    @Test func syncAndStartStopSyncLinesActAtTheirTimes() throws {
        let link = FakeLink()
        link.peers = 1
        let (output, simulation) = try Self.simulate("0 press start\n0.5 sync link\n1 link start-stop-sync on\n2 sync internal\n2.5 end\n", link: link)
        #expect(link.startStopSync == [true])
        #expect(!link.isEnabled)
        #expect(simulation.box.state.saved.preferences.sync == .internal)
        #expect(simulation.box.state.saved.preferences.linkStartStopSync)
        var mark = Bitmap()
        let width = SmallFont.draw("L1", at: Point(0, 0), into: &mark)
        let expected = Array(mark.page(0).prefix(width))
        #expect(Self.corner(output, at: 450, width: width) == Array(repeating: 0, count: width))
        #expect(Self.corner(output, at: 1000, width: width) == expected)
        #expect(Self.corner(output, at: 2450, width: width) == Array(repeating: 0, count: width))
        let joined = output.states.first { ($0["notice"] as? String) == "Link: a peer joined, 1 peer" }
        #expect((joined?["t"] as? Double).map { $0 >= 0.5 && $0 < 0.6 } == true)
    }

    /// The mark counts the other peers; a peer joining or leaving says so.
    @Test func peersJoiningAndLeavingShowOnTheMarkAndAsNotices() throws {
        let link = FakeLink()
        let (box, clock) = try LinkBoxTests.makeBox(link, bpm: 120)
        LinkBoxTests.run(box, clock, until: 0.5)
        #expect(ScreenPresenter.model(for: box.state, grid: nil).linkPeers == 0)
        link.peers = 2
        LinkBoxTests.run(box, clock, until: 1)
        #expect(box.state.notice?.text == "Link: a peer joined, 2 peers")
        #expect(ScreenPresenter.model(for: box.state, grid: nil).linkPeers == 2)
        link.peers = 1
        LinkBoxTests.run(box, clock, until: 1.5)
        #expect(box.state.notice?.text == "Link: a peer left, 1 peer")
        #expect(ScreenPresenter.model(for: box.state, grid: nil).linkPeers == 1)
    }

    /// A Link beat is a quarter note; the quantum is the bar in quarter notes.
    @Test func linksNumbersAreQuarterNotes() throws {
        #expect(LinkMath.quantum(try Meter(parsing: "7/8")) == Rational(7, 2))
        #expect(LinkMath.quantum(try Meter(parsing: "4/4")) == Rational(4))
        #expect(LinkMath.quantum(try Meter(parsing: "4/5")) == Rational(16, 5))
        #expect(LinkMath.linkTempo(Rational(120), unit: try BeatUnit(parsing: "1/8")) == 60)
        #expect(LinkMath.linkTempo(Rational(120), unit: try BeatUnit(parsing: "1/2")) == 240)
        #expect(LinkMath.boxTempo(60, unit: try BeatUnit(parsing: "1/8")) == Tempo(clampingWholeBPM: 120))
        // A peer's 137 goes on the wire as 437956 µs a beat: the box plays 137, not 137.00006.
        #expect(LinkMath.boxTempo(60e6 / 437_956, unit: try BeatUnit(parsing: "1/4")) == Tempo(clampingWholeBPM: 137))
    }

    /// START with a peer waits for the next quantum boundary (Link beat 4, at 2 s); the peer
    /// halves the tempo at 1 s while it waits: beat 4 is now at 3 s, and bar 0's downbeat is
    /// heard there, with nothing before it (STARTSTOPSTATE-1's start through TEMPO-1's change).
    @Test func aTempoChangeWhileAStartWaitsMovesItToItsLinkBeat() throws {
        let link = FakeLink()
        link.peers = 1
        let output = MemoryOutput()
        let simulation = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: SavedState(), problem: nil,
                                                persistence: RecordingPersistence(), output: output, link: link, logger: Logger(label: "test"))
        simulation.betweenSteps = { box in
            if link.tempo == 120 && box.now.nanoseconds >= 1_000_000_000 { link.setTempo(60, at: MonotonicTime(nanoseconds: 1_000_000_000)) }
        }
        try simulation.run(try SimulationScript(text: "0 sync link\n0.5 press start\n4.5 end\n", file: "s"))
        #expect(simulation.box.state.settings.tempo == Tempo(clampingWholeBPM: 60))
        let onsets = output.events("onset")
        #expect(onsets.map { $0["t"] as! Double } == [3, 4])
        #expect(onsets.map { "\($0["bar"]!):\($0["beat"]!)" } == ["0:0", "0:1"])
    }

    /// A song leads the session: its tempo goes to Link as it ramps (100 to 140 over two
    /// bars: each beat's tempo), not only at its sections.
    @Test func aSongLeadsTheSessionTempoAsItRamps() throws {
        let link = FakeLink()
        let saved = SavedState(library: SongLibrary(songs: [
            Song(name: "Ramp", sections: [SongSection(label: "r", bars: 2, tempo: .rampTime(from: 100, to: 140)),
                                          SongSection(label: "e", bars: 1, tempo: .constant(140))]),
        ]))
        let output = MemoryOutput()
        let simulation = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: saved, problem: nil,
                                                persistence: RecordingPersistence(), output: output, link: link, logger: Logger(label: "test"))
        try simulation.run(try SimulationScript(text: "0 sync link\n" + SongBoxTests.script + "16 end\n", file: "s"))
        let first = try #require(output.events("onset").first?["t"] as? Double)
        #expect(first >= 8)
        let ramp = link.tempoCommits.drop { $0 != 100 }
        // Sent as it goes, each beat's tempo (8 beats of ramp), rising, and 140 at the end.
        #expect(ramp.count >= 8, "\(link.tempoCommits)")
        #expect(zip(ramp, ramp.dropFirst()).allSatisfy { $0 < $1 }, "\(ramp)")
        #expect(ramp.last.map { abs($0 - 140) < 0.5 } == true, "\(ramp)")
    }
}
