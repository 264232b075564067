// SPDX-License-Identifier: GPL-3.0-or-later
import TactusWire
import Foundation
import ClickEngine
import Logging
import Testing
@testable import TactusApp
@testable import TactusSimulation
import TactusBase
import TactusInstrument

/// The control socket's answers the companion relays as HTTP (README "Control socket"):
/// `set` with a whole state object sent back, and the pairing lockout's statuses.
@Suite struct ControlHubCompanionTests {
    final class Files: ControlFiles {
        func practice() -> JSONObject { JSONObject { $0.add(.minutes, JSONObject()); $0.add(.sessions, [Int]()) } }
        func addSound(set: String, file: String, from path: String) throws(ControlError) -> SoundSet? { nil }
        func removeSound(set: String) throws(ControlError) {}
    }

    /// A box with an installed voice set (voice-en), as `make voices` leaves one: not the user's.
    final class WithVoice: ControlFiles {
        func practice() -> JSONObject { JSONObject { $0.add(.minutes, JSONObject()); $0.add(.sessions, [Int]()); $0.add(.kept, false) } }
        func addSound(set: String, file: String, from path: String) throws(ControlError) -> SoundSet? { nil }
        func removeSound(set: String) throws(ControlError) { throw ControlError(404, "no sound set \"\(set)\"") }
        func isInstalled(set: String) -> Bool { set == "voice-en" }
    }

    /// A simulated box with its hub; `ask` sends one request line and returns the answer.
    func box(files: any ControlFiles = Files()) throws -> (Box, (String) -> [String: Any]) {
        let simulation = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: SavedState(), problem: nil,
                                                persistence: RecordingPersistence(), output: MemoryOutput(), logger: Logger(label: "test"))
        let box = simulation.box
        nonisolated(unsafe) var replies: [String] = []
        let hub = ControlHub(send: { _, line in replies.append(line) }, files: files, configuration: CompanionConfiguration())
        box.advance(to: .zero)
        return (box, { line in
            hub.handle(line, from: 1, box: box)
            return try! JSONSerialization.jsonObject(with: Data(replies.removeLast().utf8)) as! [String: Any]
        })
    }

    @Test func theWholeStateSentBackChangesOnlyWhatChanged() throws {
        let (_, ask) = try box()
        let state = ask(#"{"cmd":"state"}"#)["state"] as! [String: Any]
        var changed = state
        changed["bpm"] = 132
        changed["meter"] = "7/8"
        // The meter's own beat unit and accents, as a lone meter change gives (sent, they would be set).
        changed.removeValue(forKey: "beat_unit")
        changed.removeValue(forKey: "accents")
        let fields = String(decoding: try JSONSerialization.data(withJSONObject: changed), as: UTF8.self)
        var answer = ask(#"{"cmd":"set","fields":"# + fields + "}")
        #expect(answer["ok"] as? Bool == true, "\(answer)")
        let now = answer["state"] as? [String: Any]
        #expect(now?["bpm"] as? Int == 132 && now?["meter"] as? String == "7/8" && now?["beat_unit"] as? String == "1/8")
        // A field that is not settable and differs from the box's: 422 naming it and what is allowed.
        answer = ask(#"{"cmd":"set","fields":{"bpm":140,"mode":"song"}}"#)
        #expect(answer["status"] as? Int == 422 && answer["field"] as? String == "mode")
        #expect((answer["error"] as? String)?.hasPrefix(#"mode = "song" is invalid: not settable: allowed bpm, meter"#) == true, "\(answer)")
        #expect((ask(#"{"cmd":"state"}"#)["state"] as? [String: Any])?["bpm"] as? Int == 132)  // nothing applied
    }

    /// Issue 32: an installed voice set is built in for the companion: never deleted (409, not
    /// the folder's 404), and the practice log's `kept` passed on as the files give it.
    @Test func installedVoiceSetsAreBuiltIn() throws {
        let (_, ask) = try box(files: WithVoice())
        let refused = ask(#"{"cmd":"delete-sound","set":"voice-en"}"#)
        #expect(refused["status"] as? Int == 409 && refused["error"] as? String == "voice-en is built in and cannot be deleted", "\(refused)")
        #expect(ask(#"{"cmd":"delete-sound","set":"voice-de"}"#)["status"] as? Int == 404)  // not installed here: the user's, looked for
        let sounds = ask(#"{"cmd":"sounds"}"#)
        #expect((sounds["built_in"] as? [String])?.starts(with: ["woodblock", "clave", "rimshot", "beep", "cowbell"]) == true, "\(sounds)")
        #expect(ask(#"{"cmd":"practice"}"#)["kept"] as? Bool == false)
    }

    @Test func beatTimesInSecondsAsTheEventsWriteThem() {
        #expect(ControlHub.mono(28_574_703_348_123) == "28574.703348")
        #expect(ControlHub.mono(28_574_703_348_500) == "28574.703349")
        #expect(ControlHub.mono(1_000_000_000) == "1.000000")
        #expect(ControlHub.mono(999) == "0.000001")
    }

    @Test func fiveWrongCodesAreAnswered403ThenPairingIs429() throws {
        let (box, ask) = try box()
        SimulatedCompanionSwitch.on(box, code: "123456")
        let token = String(repeating: "ab", count: 32)
        var statuses: [Int] = []
        for attempt in 0..<6 {
            let answer = ask(#"{"cmd":"pair","code":"00000\#(attempt)","token":"\#(token)"}"#)
            statuses.append(answer["status"] as? Int ?? 200)
            if attempt == 4 { #expect((answer["error"] as? String)?.hasSuffix("pairing is now locked for 60 s") == true, "\(answer)") }
            if attempt == 5 { #expect(answer["retry_after"] as? Int == 60) }
        }
        #expect(statuses == [403, 403, 403, 403, 403, 429])
        // Even the right code, while locked.
        #expect(ask(#"{"cmd":"pair","code":"123456","token":"\#(token)"}"#)["status"] as? Int == 429)
    }
}

/// Menu > Settings > Companion: on, with a code shown (what `simulate --web` does at the box).
enum SimulatedCompanionSwitch {
    static func on(_ box: Box, code: String) {
        box.handle(.remote(.companion(on: true), at: box.now))
        box.handle(.remote(.showPairingCode(code), at: box.now))
    }
}
