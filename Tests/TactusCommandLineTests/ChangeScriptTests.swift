// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusArithmetic
import TactusCommandLine

/// `tactus render --changes FILE`'s format: timed steps in time order, comments and blank
/// lines skipped, and one line naming file and line for anything else.
@Suite struct ChangeScriptTests {
    @Test func stepsAreReadInTimeOrder() throws {
        let script = try ChangeScript(text: "# a comment\n2.5 set bpm=150 meter=5/4   # later\n\n1 stop\n1.5 start\n", file: "c.txt")
        #expect(script.steps.map(\.seconds) == [Rational(1), Rational(3, 2), Rational(5, 2)])
        #expect(script.steps.map(\.line) == [4, 5, 2])
        guard case .set(let pairs) = script.steps[2].step else { Issue.record("not a set"); return }
        #expect(pairs.map(\.name) == ["bpm", "meter"] && pairs.map(\.value) == ["150", "5/4"])
        guard case .stop = script.steps[0].step, case .start = script.steps[1].step else { Issue.record("not stop, start"); return }
    }

    @Test(arguments: [
        ("x set bpm=1", "c.txt:1: time 'x' is invalid"),
        ("\n1/2 stop", "c.txt:2: time '1/2' is invalid"),
        ("86401 stop", "c.txt:1: time '86401' is invalid"),
        ("1", "c.txt:1: expected 'set NAME=VALUE ...', 'start' or 'stop' after the time"),
        ("1 set tempo=3", "c.txt:1: 'tempo=3' is invalid: expected NAME=VALUE with NAME one of"),
        ("1 stop now", "c.txt:1: 'stop now' is invalid"),
    ])
    func badLinesNameFileAndLine(text: String, message: String) {
        do {
            _ = try ChangeScript(text: text, file: "c.txt")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }
}
