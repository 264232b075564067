// SPDX-License-Identifier: GPL-3.0-or-later
/// The byte-level half of the parser: characters, whitespace and comments, keys,
/// strings and scalar tokens (numbers, booleans).
extension TOMLParser {
    // MARK: Characters

    var atEnd: Bool { index >= bytes.count }
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }
    func peek(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }

    mutating func advance() {
        if bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        index += 1
    }

    func error(_ message: String) -> TOMLError {
        TOMLError(file: file, line: line, column: index - lineStart + 1, message: message)
    }

    func error(_ message: String, line: Int) -> TOMLError {
        TOMLError(file: file, line: line, message: message)
    }

    mutating func skipWhitespace() {
        while let c = current, c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") { index += 1 }
    }

    var atNewline: Bool {
        current == UInt8(ascii: "\n") || (current == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n"))
    }

    mutating func consumeNewline() {
        if current == UInt8(ascii: "\r") { index += 1 }
        advance()
    }

    mutating func skipComment() throws(TOMLError) {
        guard current == UInt8(ascii: "#") else { return }
        while !atEnd && !atNewline {
            if let c = current, c < 0x20 && c != UInt8(ascii: "\t") || c == 0x7F {
                throw error("control character \(hex(c)) in a comment")
            }
            index += 1
        }
    }

    /// Whitespace, comments and newlines, as allowed between array elements.
    mutating func skipBlank() throws(TOMLError) {
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "#") { try skipComment() }
            if atNewline { consumeNewline(); continue }
            return
        }
    }

    mutating func expectEndOfLine(after what: String) throws(TOMLError) {
        skipWhitespace()
        try skipComment()
        if atEnd { return }
        guard atNewline else { throw error("unexpected text after \(what); expected the end of the line") }
        consumeNewline()
    }

    func hex(_ c: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(c >> 4)]) + String(digits[Int(c & 15)])
    }

    // MARK: Keys

    static func isBareKeyByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
    }

    /// A dotted key; `depth` is the level of the table it starts in.
    mutating func parseKeyPath(depth: Int) throws(TOMLError) -> [String] {
        try checkDepth(depth + 1)
        var path = [try parseSimpleKey()]
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: ".") else { return path }
            index += 1
            skipWhitespace()
            try checkDepth(depth + path.count + 1)
            path.append(try parseSimpleKey())
        }
    }

    mutating func parseSimpleKey() throws(TOMLError) -> String {
        switch current {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"") { throw error("a key cannot be a multi-line string") }
            return try parseBasicString()
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'") { throw error("a key cannot be a multi-line string") }
            return try parseLiteralString()
        default:
            let start = index
            while let c = current, TOMLParser.isBareKeyByte(c) { index += 1 }
            guard index > start else {
                if let c = current, !atNewline { throw error("expected a key, found '\(String(decoding: [c], as: UTF8.self))'") }
                throw error("expected a key")
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }

    mutating func parseScalarToken() throws(TOMLError) -> TOMLValue.Content {
        let start = index
        while let c = current,
              TOMLParser.isBareKeyByte(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
        {
            index += 1
        }
        let token = String(decoding: bytes[start..<index], as: UTF8.self)
        if token.isEmpty {
            throw error("expected a value (string in quotes, number, true/false, array or inline table)")
        }
        switch token {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        let scalars = Array(token.utf8)
        if scalars.count >= 7, scalars[4] == UInt8(ascii: "-"), scalars[0..<4].allSatisfy(TOMLParser.isDigit)
            || token.contains(":")
        {
            index = start
            throw error("dates and times are not supported here")
        }
        if let number = TOMLParser.number(token) { return number }
        index = start
        if token.first!.isLetter {
            throw error("unexpected '\(token)'; strings must be in quotes, booleans are true or false")
        }
        throw error("invalid number '\(token)'")
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    static func isHexDigit(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
    }

    /// Digits of `radix` with `_` only between two digits; returns them without underscores.
    static func digits(_ bytes: ArraySlice<UInt8>, isDigit: (UInt8) -> Bool) -> String? {
        guard let first = bytes.first, let last = bytes.last, isDigit(first), isDigit(last) else { return nil }
        var out: [UInt8] = []
        var previousWasDigit = false
        for c in bytes {
            if c == UInt8(ascii: "_") {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
            } else {
                guard isDigit(c) else { return nil }
                out.append(c)
                previousWasDigit = true
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func number(_ token: String) -> TOMLValue.Content? {
        let b = Array(token.utf8)
        if b.count > 2, b[0] == UInt8(ascii: "0") {
            let radix: Int?
            let check: (UInt8) -> Bool
            switch b[1] {
            case UInt8(ascii: "x"): radix = 16; check = isHexDigit
            case UInt8(ascii: "o"): radix = 8; check = { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
            case UInt8(ascii: "b"): radix = 2; check = { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: "1") }
            default: radix = nil; check = isDigit
            }
            if let radix {
                guard let text = digits(b[2...], isDigit: check), let value = Int64(text, radix: radix) else { return nil }
                return .integer(value)
            }
        }
        var i = 0
        var sign: [UInt8] = []
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            if b[i] == UInt8(ascii: "-") { sign = [UInt8(ascii: "-")] }
            i += 1
        }
        var end = i
        while end < b.count, isDigit(b[end]) || b[end] == UInt8(ascii: "_") { end += 1 }
        guard let whole = digits(b[i..<end], isDigit: isDigit) else { return nil }
        if whole.count > 1 && whole.hasPrefix("0") { return nil }  // leading zeros are not allowed
        if end == b.count {
            guard let value = Int64(String(decoding: sign, as: UTF8.self) + whole) else { return nil }
            return .integer(value)
        }
        var text = String(decoding: sign, as: UTF8.self) + whole
        i = end
        if b[i] == UInt8(ascii: ".") {
            i += 1
            end = i
            while end < b.count, isDigit(b[end]) || b[end] == UInt8(ascii: "_") { end += 1 }
            guard let fraction = digits(b[i..<end], isDigit: isDigit) else { return nil }
            text += "." + fraction
            i = end
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            var exponentSign = ""
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                exponentSign = b[i] == UInt8(ascii: "-") ? "-" : ""
                i += 1
            }
            guard let exponent = digits(b[i...], isDigit: isDigit) else { return nil }
            text += "e" + exponentSign + exponent
            i = b.count
        }
        guard i == b.count, let value = Double(text), value.isFinite else { return nil }
        return .float(value)
    }

    // MARK: Strings

    mutating func checkStringByte(_ c: UInt8) throws(TOMLError) {
        if (c < 0x20 && c != UInt8(ascii: "\t")) || c == 0x7F {
            throw error(c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r")
                ? "unterminated string: a string in single quotes or double quotes must end on the same line"
                : "control character \(hex(c)) in a string; write it as an escape such as \\n or \\u0001")
        }
    }

    mutating func parseBasicString() throws(TOMLError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard let c = current else { throw error("unterminated string: expected '\"'") }
            if c == UInt8(ascii: "\"") { index += 1; break }
            if c == UInt8(ascii: "\\") {
                try parseEscape(into: &out)
                continue
            }
            try checkStringByte(c)
            out.append(c)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(TOMLError) {
        index += 1
        guard let e = current else { throw error("unterminated escape sequence") }
        index += 1
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "e"): out.append(0x1B)
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let length = e == UInt8(ascii: "u") ? 4 : 8
            guard index + length <= bytes.count, bytes[index..<index + length].allSatisfy(TOMLParser.isHexDigit),
                  let code = UInt32(String(decoding: bytes[index..<index + length], as: UTF8.self), radix: 16),
                  let scalar = Unicode.Scalar(code)
            else { throw error("invalid unicode escape; expected \\u and 4 or \\U and 8 hex digits of a valid code point") }
            index += length
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            index -= 1
            throw error("invalid escape '\\\(String(decoding: [e], as: UTF8.self))'; allowed \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX")
        }
    }

    mutating func parseLiteralString() throws(TOMLError) -> String {
        index += 1
        let start = index
        while true {
            guard let c = current else { throw error("unterminated string: expected \"'\"") }
            if c == UInt8(ascii: "'") { break }
            try checkStringByte(c)
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        index += 1
        return text
    }

    /// A newline right after the opening delimiter is not part of the string.
    mutating func skipFirstNewline() {
        if atNewline { consumeNewline() }
    }

    /// At a run of quote bytes: returns how many belong to the content when the run closes
    /// the string (up to two quotes may sit right before the closing three), or nil.
    func closingRun(_ quote: UInt8) -> Int? {
        var run = 0
        while peek(run) == quote { run += 1 }
        return run >= 3 ? run - 3 : nil
    }

    mutating func parseMultilineBasicString() throws(TOMLError) -> String {
        try parseMultilineString(quote: UInt8(ascii: "\""), escapes: true)
    }

    mutating func parseMultilineLiteralString() throws(TOMLError) -> String {
        try parseMultilineString(quote: UInt8(ascii: "'"), escapes: false)
    }

    /// A multi-line string after its opening three quotes: basic (`escapes`: backslash
    /// escapes and line-ending backslashes) or literal (every byte as written).
    private mutating func parseMultilineString(quote: UInt8, escapes: Bool) throws(TOMLError) -> String {
        index += 3
        skipFirstNewline()
        var out: [UInt8] = []
        while true {
            guard let c = current else {
                let closing = String(repeating: Character(Unicode.Scalar(quote)), count: 3)
                throw error("unterminated multi-line string: expected \(quote == UInt8(ascii: "'") ? "\"\(closing)\"" : "'\(closing)'")")
            }
            if c == quote, let extra = closingRun(c) {
                guard extra <= 2 else { throw error("too many quotes at the end of a multi-line string") }
                out.append(contentsOf: Array(repeating: c, count: extra))
                index += extra + 3
                break
            }
            if escapes && c == UInt8(ascii: "\\") {
                // Line-ending backslash: drop it and all whitespace and newlines after it.
                var look = index + 1
                while look < bytes.count, bytes[look] == UInt8(ascii: " ") || bytes[look] == UInt8(ascii: "\t") { look += 1 }
                if look < bytes.count, bytes[look] == UInt8(ascii: "\n") || bytes[look] == UInt8(ascii: "\r") {
                    index = look
                    while let w = current, w == UInt8(ascii: " ") || w == UInt8(ascii: "\t") || atNewline {
                        if atNewline { consumeNewline() } else { index += 1 }
                    }
                    continue
                }
                try parseEscape(into: &out)
                continue
            }
            if atNewline {
                out.append(UInt8(ascii: "\n"))
                consumeNewline()
                continue
            }
            try checkStringByte(c)
            out.append(c)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
