// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusWire

@Suite struct WireCommandTests {
    /// Each command's request line reads back as that command, with its members.
    @Test func everyCommandRoundTrips() throws {
        for command in WireCommand.allCases {
            let line = command.request(JSONObject { $0.add(.token, "t\"1") }).text
            let value = try JSONValue.parse(line)
            #expect(value[WireField.cmd.name]?.stringValue.flatMap(WireCommand.init(rawValue:)) == command)
            #expect(value[WireField.token.name]?.stringValue == "t\"1")
            #expect(line.hasPrefix("{\"cmd\":\"\(command.name)\""))
        }
    }

    /// The names the box has always answered to (clients send these): none renamed.
    @Test func theNamesOnTheWireAreTheExistingOnes() {
        #expect(WireCommand.allCases.map(\.name) == [
            "state", "set", "transport", "tap", "songs", "put-songs", "import-klick", "sounds", "add-sound", "delete-sound",
            "preferences", "set-preferences", "midi-map", "put-midi-map", "coach", "calibrate-coach", "practice",
            "web", "pair", "auth", "browsers", "revoke", "subscribe",
        ])
        #expect(WireField.beatUnit.name == "beat_unit")
        #expect(WireField.tapTolerance.name == "tap_tolerance")
        #expect(WireField.beatCount.name == "beat_count")
        #expect(WireField.ifMatch.name == "if_match")
    }

    @Test func fieldNamesAreUniqueAndUseUnderscores() {
        let names = WireField.allCases.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { !$0.contains("-") })
        #expect(Set(WireCommand.allCases.map(\.name)).count == WireCommand.allCases.count)
    }

    /// The settings file's spellings (`beat-unit`, `tap-tolerance`) still name their fields.
    @Test func olderSpellingsAreAccepted() {
        #expect(WireField(accepting: "beat-unit") == .beatUnit)
        #expect(WireField(accepting: "beat_unit") == .beatUnit)
        #expect(WireField(accepting: "tap-tolerance") == .tapTolerance)
        #expect(WireField(accepting: "tempo") == nil)
        #expect(WireField.canonical("beat-unit") == "beat_unit")
        #expect(WireField.canonical("volume") == "volume")
        #expect(WireField.canonical("bogus-name") == "bogus-name")
    }

    @Test func pairingRules() {
        #expect(Pairing.code(from: 42137) == "042137")
        #expect(Pairing.code(from: 1_999_999) == "999999")
        #expect(Pairing.shortName(String(repeating: "a", count: 63) + "é") == String(repeating: "a", count: 63))
    }
}
