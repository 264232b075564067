// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Logging
import Testing
import TactusApp
import TactusBase
import TactusInstrument
import TactusSimulation
import TactusWire

/// Issue 29, one wire protocol: TAP goes to the box (its tolerance rule), the bar's beats come
/// from the box, and older spellings of setting names are still read.
@Suite struct ControlHubWireTests {
    /// A simulated box at `time` seconds; `ask` sends one request line and returns the answer.
    func box() throws -> (Box, (String) -> [String: Any]) {
        let simulation = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: SavedState(), problem: nil,
                                                persistence: RecordingPersistence(), output: MemoryOutput(), logger: Logger(label: "test"))
        let box = simulation.box
        nonisolated(unsafe) var replies: [String] = []
        let hub = ControlHub(send: { _, line in replies.append(line) }, files: ControlHubCompanionTests.Files(), configuration: CompanionConfiguration())
        box.advance(to: .zero)
        return (box, { line in
            hub.handle(line, from: 1, box: box)
            return try! JSONSerialization.jsonObject(with: Data(replies.removeLast().utf8)) as! [String: Any]
        })
    }

    func tap(_ box: Box, at ms: Int64, _ ask: (String) -> [String: Any]) -> Int? {
        box.advance(to: MonotonicTime(nanoseconds: ms * 1_000_000))
        let answer = ask(WireCommand.tap.request().text)
        #expect(answer["ok"] as? Bool == true, "\(answer)")
        return (answer["state"] as? [String: Any])?["bpm"] as? Int
    }

    /// Taps 500 ms apart give 120; a 700 ms interval is outside the 20 % tolerance, so it
    /// starts a new series (the tempo holds) and the next 700 ms gives 86, as the TAP button.
    @Test func tapUsesTheBoxsToleranceRule() throws {
        let (box, ask) = try box()
        #expect(tap(box, at: 1000, ask) == 120)  // the first tap of a series: the tempo as it was
        #expect(tap(box, at: 1500, ask) == 120)
        #expect(tap(box, at: 2000, ask) == 120)
        #expect(tap(box, at: 2700, ask) == 120)  // 40 % off the running average: a new series
        #expect(tap(box, at: 3400, ask) == 86)
    }

    /// With the tolerance at 50 % (sent under the settings file's spelling `tap-tolerance`),
    /// the same 700 ms interval joins the series: (500 + 700) / 2 ms is 100 BPM.
    @Test func theToleranceIsThePreferenceAndItsOldSpellingIsRead() throws {
        let (box, ask) = try box()
        let set = ask(#"{"cmd":"set-preferences","fields":{"tap-tolerance":50}}"#)
        #expect((set["preferences"] as? [String: Any])?["tap_tolerance"] as? Int == 50, "\(set)")
        #expect(tap(box, at: 1000, ask) == 120)
        #expect(tap(box, at: 1500, ask) == 120)
        #expect(tap(box, at: 2200, ask) == 100)
    }

    /// The bar's beats as the box counts them: 6/8 with a dotted-quarter beat unit has 2, not 6.
    @Test func beatCountComesFromTheBox() throws {
        let (_, ask) = try box()
        #expect((ask(#"{"cmd":"state"}"#)["state"] as? [String: Any])?["beat_count"] as? Int == 4)
        var answer = ask(#"{"cmd":"set","fields":{"meter":"6/8","beat-unit":"1/4."}}"#)
        var state = answer["state"] as? [String: Any]
        #expect(state?["beat_unit"] as? String == "1/4." && state?["beat_count"] as? Int == 2, "\(answer)")
        answer = ask(#"{"cmd":"set","fields":{"meter":"6/8"}}"#)
        state = answer["state"] as? [String: Any]
        #expect(state?["beat_unit"] as? String == "1/8" && state?["beat_count"] as? Int == 6, "\(answer)")
    }

    @Test func anUnknownCommandNamesTheProtocolsCommands() throws {
        let (_, ask) = try box()
        let answer = ask(#"{"id":3,"cmd":"dance"}"#)
        #expect(answer["status"] as? Int == 400 && answer["id"] as? Int == 3)
        #expect(answer["error"] as? String == "cmd 'dance' is unknown: allowed " + WireCommand.allCases.map(\.name).joined(separator: ", "))
    }
}
