// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// A JSON value, read from the control socket's request lines (the box links no
/// Foundation). Bounded like the TOML reader: at most 1 MiB of text and 32 levels deep.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number as written (so "92.5" reaches the tempo parser exactly as the user wrote it).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.map(\.key) == y.map(\.key) && x.map(\.value) == y.map(\.value)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(json) }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var intValue: Int? { if case .number(let n) = self { Int(n) } else { nil } }

    /// Compact JSON text.
    public var json: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n
        case .string(let s): JSONValue.quoted(s)
        case .array(let items): "[" + items.map(\.json).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { JSONValue.quoted($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal, as the writer (`JSONObject`) writes every string.
    public static func quoted(_ text: String) -> String { JSONString.quoted(text) }

    public static let maximumBytes = 1 << 20

    /// The `id` of an answer line that cannot be parsed (`{"ok":false,"id":N,` or `{"ok":true,"id":N,`).
    public static func leadingAnswerID(_ text: String) -> Int? {
        for start in ["{\"ok\":true,", "{\"ok\":false,"] where text.hasPrefix(start) {
            return leadingID("{" + String(text.dropFirst(start.count).prefix(40))).flatMap { Int($0.json) }
        }
        return nil
    }

    /// The `id` of a request line too large or too broken to parse, when it starts as the
    /// companion and `tactus ctl` write it (`{"id":N,`): its answer still reaches the
    /// request that waits for it (issue 32).
    public static func leadingID(_ text: String) -> JSONValue? {
        var bytes = text.utf8.prefix(32)[...]
        for expected in Array("{\"id\":".utf8) {
            guard bytes.first == expected else { return nil }
            bytes = bytes.dropFirst()
        }
        let digits = bytes.prefix { (0x30...0x39).contains($0) }
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        return .number(String(decoding: digits, as: UTF8.self))
    }
    public static let maximumDepth = 32

    /// Parses one JSON text of at most `limit` bytes; the error says what and at which byte.
    public static func parse(_ text: String, limit: Int = maximumBytes) throws(JSONError) -> JSONValue {
        var parser = JSONParser(Array(text.utf8))
        guard parser.bytes.count <= limit else { throw JSONError("JSON text is larger than \(limit >> 20) MiB") }
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }
}

public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String) -> JSONError { JSONError("\(message) at byte \(index + 1)") }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws(JSONError) -> JSONValue {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else { throw error("invalid JSON value") }
        index += w.count
        return value
    }

    mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard depth < JSONValue.maximumDepth else { throw error("JSON nested deeper than 32 levels") }
        guard index < bytes.count else { throw error("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "["):
            index += 1
            var items: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw error("unexpected end of JSON") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                throw error("expected , or ]")
            }
        case UInt8(ascii: "{"):
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected :") }
                index += 1
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard index < bytes.count else { throw error("unexpected end of JSON") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                throw error("expected , or }")
            }
        default:
            return .number(try number())
        }
    }

    mutating func number() throws(JSONError) -> String {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1; digits += 1 }
        guard digits > 0 else { throw error("invalid JSON value") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var fraction = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1; fraction += 1 }
            guard fraction > 0 else { throw error("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            var exponent = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1; exponent += 1 }
            guard exponent > 0 else { throw error("invalid number") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw error("invalid \\u escape")
        }
        index += 4
        return v
    }

    mutating func string() throws(JSONError) -> String {
        index += 1 // the opening quote
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                // Invalid UTF-8 is refused rather than repaired: names and TOML must arrive as sent.
                guard let text = String(validating: out, as: UTF8.self) else { throw error("string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw error("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("lone surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let s = Unicode.Scalar(scalar) else { throw error("lone surrogate in \\u escape") }
                    out.append(contentsOf: Array(String(Character(s)).utf8))
                default: throw error("invalid escape in string")
                }
            default:
                guard byte >= 0x20 else { throw error("control character in string") }
                out.append(byte)
            }
        }
    }
}
