// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusWire

/// The one JSON writer: every string escaped as JSON requires, numbers and literals exact,
/// and what it writes read back equal by the reader.
@Suite struct JSONWriterTests {
    @Test func escapesQuotesBackslashesAndControlCharacters() {
        let object = JSONObject { $0.add(.name, "a\"b\\c\nd\te\r\u{08}\u{0C}\u{01}\u{1F}\u{7F}/") }
        #expect(object.text == #"{"name":"a\"b\\c\nd\te\r\b\f\u0001\u001F\u007F/"}"#)
    }

    @Test func writesUnicodeAsUTF8() {
        let object = JSONObject { $0.add(.name, "Grüße ♩ 🥁 e\u{301}") }
        #expect(object.text == "{\"name\":\"Grüße ♩ 🥁 e\u{301}\"}")
        #expect(Array(object.text.utf8).contains(0xF0)) // the drum's 4-byte UTF-8, not \u escapes
    }

    @Test func writesNumbersBoolsNullArraysAndNestedObjects() {
        let object = JSONObject {
            $0.add(.bpm, JSONNumber("92.5"))
            $0.add(.bar, Int64(-3))
            $0.add(.playing, true)
            $0.add(.dimmed, false)
            $0.add(.swing, String?.none)
            $0.add(.poly, [60, 0, 100])
            $0.add(.volume, JSONObject { $0.add(.master, 80); $0.add("sub2", 60) })
            $0.add(.seed, ifPresent: Int?.none)
        }
        #expect(object.text == #"{"bpm":92.5,"bar":-3,"playing":true,"dimmed":false,"swing":null,"poly":[60,0,100],"volume":{"master":80,"sub2":60}}"#)
    }

    @Test func aNumberThatIsNotJSONIsWrittenAsNull() {
        #expect(JSONObject { $0.add(.hz, JSONNumber("nan")) }.text == #"{"hz":null}"#)
        #expect(JSONObject { $0.add(.hz, JSONNumber("1.")) }.text == #"{"hz":null}"#)
        #expect(JSONObject { $0.add(.hz, JSONNumber("-0.25e3")) }.text == #"{"hz":-0.25e3}"#)
    }

    @Test func anEmptyObjectAndAppendedMembers() {
        var object = JSONObject()
        #expect(object.text == "{}")
        object.append(JSONObject())
        #expect(object.text == "{}")
        object.add(.ok, true)
        object.append(JSONObject { $0.add(.id, 7) })
        #expect(object.text == #"{"ok":true,"id":7}"#)
    }

    /// Every string of every code point below 0x80, and some beyond, survives the round trip.
    @Test func whatItWritesTheReaderReadsBack() throws {
        var text = String((0..<0x80).map { Character(Unicode.Scalar($0)!) })
        text += "é€😀\u{FFFD}"
        let object = JSONObject { $0.add(.notice, text); $0.add(.tone, JSONObject { $0.add(.a4, 442) }) }
        let value = try JSONValue.parse(object.text)
        #expect(value[WireField.notice.name]?.stringValue == text)
        #expect(value[WireField.tone.name]?[WireField.a4.name]?.intValue == 442)
        #expect(value.json == object.text)
    }
}
