// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusBase

@Suite struct JSONStringTests {
    @Test func quotesAndEscapesAsJSONRequires() {
        #expect(JSONString.quoted("Verse 1") == "\"Verse 1\"")
        #expect(JSONString.quoted("a\"b\\c") == "\"a\\\"b\\\\c\"")
        #expect(JSONString.quoted("1\n2\t3\r\u{08}\u{0C}") == "\"1\\n2\\t3\\r\\b\\f\"")
        #expect(JSONString.quoted("\u{01}\u{1F}\u{7F}") == "\"\\u0001\\u001F\\u007F\"")
        #expect(JSONString.quoted("Ständchen ♩") == "\"Ständchen ♩\"")
    }
}
