// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TOMLReader

/// Hostile nesting and size give one error with file and line, never a stack overflow.
@Suite struct TOMLLimitsTests {
    func error(_ text: String, limits: TOML.Limits = .standard) -> TOMLError? {
        do {
            _ = try TOML.parse(text, file: "deep.toml", limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func tenThousandNestedArraysInTwentyKilobytes() throws {
        let text = "a = " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        #expect(text.utf8.count == 20_005)
        let e = try #require(error(text))
        #expect(e.file == "deep.toml")
        #expect(e.line == 1)
        #expect(e.description.hasPrefix("deep.toml:1:"))
        #expect(e.message == "nested too deeply: tables, dotted keys, arrays and inline tables may nest at most 32 levels")
    }

    @Test func nestedInlineTablesDottedKeysAndHeaders() throws {
        let inline = "x = " + String(repeating: "{a = ", count: 5_000) + "1" + String(repeating: "}", count: 5_000)
        #expect(error(inline)?.line == 1)
        let dotted = "\n" + Array(repeating: "a", count: 10_000).joined(separator: ".") + " = 1\n"
        #expect(error(dotted)?.line == 2)
        let header = "[" + Array(repeating: "a", count: 10_000).joined(separator: ".") + "]\n"
        #expect(error(header)?.line == 1)
        let tableArrays = (1...40).map { "[[" + Array(repeating: "t", count: $0).joined(separator: ".") + "]]" }.joined(separator: "\n")
        #expect(error(tableArrays)?.line == 33)  // [[t.t...]] with 33 parts
    }

    @Test func exactlyTheLimitIsAccepted() throws {
        // 32 levels: the key, then 31 arrays; one more array is refused.
        let ok = "a = " + String(repeating: "[", count: 31) + String(repeating: "]", count: 31)
        #expect(error(ok) == nil)
        let over = "a = " + String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(error(over) != nil)
        let dotted32 = Array(repeating: "k", count: 32).joined(separator: ".") + " = 1"
        #expect(error(dotted32) == nil)
        #expect(error(dotted32.replacingFirstK()) != nil)
    }

    @Test func sizeBound() throws {
        let text = "a = \"" + String(repeating: "x", count: 100) + "\"\n"
        let e = try #require(error(text, limits: TOML.Limits(maxBytes: 64, maxDepth: 32)))
        #expect(e.description == "deep.toml: the file is 107 bytes; allowed at most 64")
        #expect(error(text, limits: TOML.Limits(maxBytes: 107, maxDepth: 32)) == nil)
    }
}

private extension String {
    /// One more dotted part in front.
    func replacingFirstK() -> String { "k." + self }
}
