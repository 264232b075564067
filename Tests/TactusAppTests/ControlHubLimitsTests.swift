// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Logging
import Testing
@testable import TactusApp
@testable import TactusSimulation
import TactusBase
import TactusInstrument

/// Issue 32 at the control socket: every line answered with its id, a change saved before
/// its answer, versions (`if_match` -> 412), the songs' limits.
@Suite struct ControlHubLimitsTests {
    func box() throws -> (RecordingPersistence, (String) -> [String: Any]) {
        let persistence = RecordingPersistence()
        let simulation = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: SavedState(), problem: nil,
                                                persistence: persistence, output: MemoryOutput(), logger: Logger(label: "test"))
        let box = simulation.box
        nonisolated(unsafe) var replies: [String] = []
        let hub = ControlHub(send: { _, line in replies.append(line) }, files: ControlHubCompanionTests.Files(), configuration: CompanionConfiguration())
        box.advance(to: .zero)
        return (persistence, { line in
            hub.handle(line, from: 1, box: box)
            return try! JSONSerialization.jsonObject(with: Data(replies.removeLast().utf8)) as! [String: Any]
        })
    }

    @Test func aLineThatIsNotJSONIsStillAnsweredWithItsID() throws {
        let (_, ask) = try box()
        let odd = #"{"id":42,"cmd":"pair","code":""# + String(repeating: "\u{7F}", count: 175_000)
        let answer = ask(odd)
        #expect(answer["id"] as? Int == 42 && answer["status"] as? Int == 400)
        // Over the old 1 MiB, valid: read and answered.
        #expect(ask(#"{"id":43,"cmd":"state","pad":""# + String(repeating: "x", count: 2 << 20) + #""}"#)["ok"] as? Bool == true)
    }

    @Test func aChangeIsSavedBeforeItsAnswer() throws {
        let (persistence, ask) = try box()
        let before = persistence.saves.count
        #expect(ask(#"{"id":1,"cmd":"set","fields":{"bpm":133}}"#)["ok"] as? Bool == true)
        #expect(persistence.saves.count == before + 1)
        #expect(persistence.saves.last?.settings.tempo.description == "133")
        _ = ask(#"{"id":2,"cmd":"state"}"#)
        #expect(persistence.saves.count == before + 1)  // a read saves nothing
    }

    @Test func aStaleVersionIs412WithWhatIsThereNow() throws {
        let (_, ask) = try box()
        let tag = try #require(ask(#"{"cmd":"songs"}"#)["etag"] as? String)
        let theirs = #"[[song]]\nname = \"Theirs\"\n[[song.section]]\nbars = 8\n"#
        let first = ask(#"{"cmd":"put-songs","if_match":"\#(tag)","toml":"\#(theirs)"}"#)
        #expect(first["ok"] as? Bool == true, "\(first)")
        let newer = try #require(first["etag"] as? String)
        #expect(newer != tag)
        let stale = ask(#"{"cmd":"put-songs","if_match":"\#(tag)","toml":"[[song]]\nname = \"Mine\"\n[[song.section]]\nbars = 4\n"}"#)
        #expect(stale["status"] as? Int == 412 && stale["etag"] as? String == newer)
        #expect((stale["toml"] as? String)?.contains("Theirs") == true)
        let state = try #require(ask(#"{"cmd":"state"}"#)["etag"] as? String)
        #expect(ask(#"{"cmd":"set","if_match":"\#(state)","fields":{"bpm":100}}"#)["ok"] as? Bool == true)
        #expect(ask(#"{"cmd":"set","if_match":"\#(state)","fields":{"bpm":101}}"#)["status"] as? Int == 412)
        #expect(ask(#"{"cmd":"set","fields":{"bpm":102}}"#)["ok"] as? Bool == true)  // no if_match: as before
    }

    @Test func songsOverTheLimitsAreRefusedNamingThem() throws {
        let (_, ask) = try box()
        let many = (0..<65).map { #"[[song]]\nname = \"S\#($0)\"\nsection = [{bars=1}]\n"# }.joined()
        let tooMany = ask(#"{"cmd":"put-songs","toml":"\#(many)"}"#)
        #expect(tooMany["status"] as? Int == 422 && (tooMany["error"] as? String)?.contains("at most 64 songs") == true, "\(tooMany)")
        let long = #"[[song]]\nname = \"Long\"\nsection = ["# + Array(repeating: "{bars=1}", count: 257).joined(separator: ",") + "]"
        let tooLong = ask(#"{"cmd":"put-songs","toml":"\#(long)"}"#)
        #expect(tooLong["status"] as? Int == 422 && (tooLong["error"] as? String)?.contains("at most 256 sections a song") == true, "\(tooLong)")
        let big = ask(#"{"cmd":"put-songs","toml":""# + String(repeating: "#", count: 300_000) + #""}"#)
        #expect(big["status"] as? Int == 413 && (big["error"] as? String)?.contains("256 KB") == true)
    }
}
