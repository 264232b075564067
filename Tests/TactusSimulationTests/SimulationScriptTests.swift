// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusArithmetic
@testable import TactusSimulation

/// The headless simulator's script: lines parse to their steps at their exact times, and a bad
/// line is one error naming the file, the line and what is allowed.
@Suite struct SimulationScriptTests {
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

    @Test func timesThatGoBackAreRefused() {
        #expect(throws: (any Error).self) { try SimulationScript(text: "2 press start\n1 end\n", file: "t.txt") }
    }
}
