/// A small TOML reader and writer for Tactus's configuration, board and settings files.
///
/// Why our own: the files are small, errors must name the file, line, field, value and
/// allowed range (SPEC 7), and no third-party TOML package resolves in our build.
///
/// Supported (TOML 1.0 minus dates and times):
/// - comments, tables `[a.b]`, arrays of tables `[[a]]`, dotted keys `a.b = 1`,
///   bare and quoted keys;
/// - strings: basic `"..."` with escapes (`\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX`),
///   literal `'...'`, multi-line `"""..."""` (with line-ending backslash) and `'''...'''`;
/// - integers: decimal with sign, `_` between digits, hex `0x`, octal `0o`, binary `0b`;
/// - floats: fraction and/or exponent, `inf`, `nan`; booleans;
/// - arrays (multi-line, comments, trailing comma), inline tables `{ a = 1, b.c = 2 }`.
/// Dates and times are rejected with a clear message.
///
/// Public API:
/// - `TOML.parse(_ text: String, file: String) throws(TOMLError) -> TOMLTable`
/// - `TOMLTable`: keys in file order (`keys`), `subscript(key) -> TOMLValue?` (get/set),
///   `line` where the table was opened, `tomlDocument()` writes it back as a TOML file.
/// - `TOMLValue`: `content` (`.string .integer .float .boolean .array .table`), `line`
///   (1-based line where the value starts), accessors `string`, `integer`, `double`,
///   `bool`, `array`, `table`, `typeName`, and `tomlText` (the value as TOML source).
/// - `TOMLSection`: reads typed fields out of a table and throws `TOMLError`s that name
///   the field and value: `string(_:)`, `string(_:oneOf:)`, `integer(_:in:)`,
///   `number(_:in:)`, `bool(_:)`, `section(_:)`, `sections(_:)` (array of tables),
///   `required(_:_:)`, `rejectUnknownKeys(allowed:)`, `invalid(_:allowed:)`.
/// - `TOMLError`: `file`, `line`, `column`, `field`, `value`, `message`; its description
///   reads `board.toml:12: encoder.a = "x" is invalid: expected a line offset 0 to 511`
///   or, for syntax errors, `board.toml:3:7: expected '=' after the key`.

// MARK: - Values

public struct TOMLValue: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        case array([TOMLValue])
        case table(TOMLTable)
    }

    public var content: Content
    /// 1-based line where the value starts in its file; 0 for values built in code.
    public var line: Int

    public init(_ content: Content, line: Int = 0) {
        self.content = content
        self.line = line
    }

    /// Equal when the contents are equal; where a value was written does not matter.
    public static func == (a: TOMLValue, b: TOMLValue) -> Bool { a.content == b.content }

    public static func string(_ s: String) -> TOMLValue { TOMLValue(.string(s)) }
    public static func integer(_ i: Int) -> TOMLValue { TOMLValue(.integer(Int64(i))) }
    public static func float(_ d: Double) -> TOMLValue { TOMLValue(.float(d)) }
    public static func boolean(_ b: Bool) -> TOMLValue { TOMLValue(.boolean(b)) }
    public static func array(_ a: [TOMLValue]) -> TOMLValue { TOMLValue(.array(a)) }
    public static func table(_ t: TOMLTable) -> TOMLValue { TOMLValue(.table(t)) }

    public var string: String? { if case .string(let s) = content { s } else { nil } }
    public var integer: Int64? { if case .integer(let i) = content { i } else { nil } }
    /// Floats, and integers as floats (a BPM of 120 is as good as 120.0).
    public var double: Double? {
        switch content {
        case .float(let d): d
        case .integer(let i): Double(i)
        default: nil
        }
    }
    public var bool: Bool? { if case .boolean(let b) = content { b } else { nil } }
    public var array: [TOMLValue]? { if case .array(let a) = content { a } else { nil } }
    public var table: TOMLTable? { if case .table(let t) = content { t } else { nil } }

    public var typeName: String {
        switch content {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .boolean: "boolean"
        case .array: "array"
        case .table: "table"
        }
    }

    /// The value written as TOML source on one line (tables become inline tables).
    public var tomlText: String {
        switch content {
        case .string(let s): TOMLWriter.quoted(s)
        case .integer(let i): "\(i)"
        case .float(let d): TOMLWriter.float(d)
        case .boolean(let b): b ? "true" : "false"
        case .array(let items): "[" + items.map(\.tomlText).joined(separator: ", ") + "]"
        case .table(let t):
            t.isEmpty ? "{}"
                : "{ " + t.keys.map { "\(TOMLWriter.key($0)) = \(t[$0]!.tomlText)" }.joined(separator: ", ") + " }"
        }
    }
}

/// A table with its keys in the order they appear in the file.
public struct TOMLTable: Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var storage: [String: TOMLValue] = [:]
    /// 1-based line of the table's header (or of its first key); 0 for the root.
    public var line: Int

    public init(line: Int = 0) { self.line = line }

    public subscript(key: String) -> TOMLValue? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    public var isEmpty: Bool { keys.isEmpty }
    public var count: Int { keys.count }

    /// Equal when the same keys hold the same values; order and lines do not matter.
    public static func == (a: TOMLTable, b: TOMLTable) -> Bool { a.storage == b.storage }

    /// The table written as a TOML document: plain keys first, then one `[section]` per
    /// sub-table and one `[[section]]` per element of an array of tables.
    public func tomlDocument() -> String {
        var out = ""
        TOMLWriter.write(self, path: [], into: &out)
        return out
    }
}

// MARK: - Errors

public struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based line; 0 when unknown.
    public var line: Int
    /// 1-based column (bytes) for syntax errors; nil for field errors.
    public var column: Int?
    /// Dotted path of the field, e.g. `display.address`; nil for syntax errors.
    public var field: String?
    /// The offending value as written in TOML; nil when the field is missing.
    public var value: String?
    /// What went wrong and what is allowed.
    public var message: String

    public init(file: String, line: Int, column: Int? = nil, field: String? = nil, value: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.value = value
        self.message = message
    }

    public var description: String {
        var place = file
        if line > 0 { place += ":\(line)" }
        if let column { place += ":\(column)" }
        switch (field, value) {
        case let (field?, value?): return "\(place): \(field) = \(value) is invalid: \(message)"
        case let (field?, nil): return "\(place): \(field): \(message)"
        default: return "\(place): \(message)"
        }
    }
}

// MARK: - Typed field access with good errors

/// One table of a parsed file, read field by field. Every failure names the file, the
/// line, the dotted field, the value as written and what is allowed.
public struct TOMLSection: Sendable {
    public let file: String
    /// Path from the file's root as shown in messages, e.g. `["display"]` or `["led[1]"]`.
    public let path: [String]
    public let table: TOMLTable

    public init(_ table: TOMLTable, file: String, path: [String] = []) {
        self.file = file
        self.path = path
        self.table = table
    }

    public func field(_ key: String) -> String { (path + [TOMLWriter.key(key)]).joined(separator: ".") }

    public func has(_ key: String) -> Bool { table[key] != nil }

    /// An error about `key` (its value and line when present) with `allowed` as the message.
    public func invalid(_ key: String, allowed: String) -> TOMLError {
        let value = table[key]
        return TOMLError(file: file, line: value?.line ?? table.line, field: field(key),
                         value: value?.tomlText, message: allowed)
    }

    /// Unwraps an optional field, or fails with "missing" and what the field should hold.
    public func required<T>(_ value: T?, _ key: String, allowed: String) throws(TOMLError) -> T {
        guard let value else {
            throw TOMLError(file: file, line: table.line, field: field(key), message: "missing; \(allowed)")
        }
        return value
    }

    public func string(_ key: String) throws(TOMLError) -> String? {
        guard let value = table[key] else { return nil }
        guard let s = value.string else { throw invalid(key, allowed: "expected a string in quotes") }
        return s
    }

    public func string(_ key: String, oneOf choices: [String]) throws(TOMLError) -> String? {
        guard let s = try string(key) else { return nil }
        guard choices.contains(s) else {
            throw invalid(key, allowed: "allowed " + choices.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        return s
    }

    public func integer(_ key: String, in range: ClosedRange<Int>) throws(TOMLError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let i = value.integer, let n = Int(exactly: i), range.contains(n) else {
            throw invalid(key, allowed: "allowed a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    /// An integer or a float within `range`.
    public func number(_ key: String, in range: ClosedRange<Double>) throws(TOMLError) -> Double? {
        guard let value = table[key] else { return nil }
        guard let d = value.double, range.contains(d) else {
            throw invalid(key, allowed: "allowed a number from \(TOMLWriter.float(range.lowerBound)) to \(TOMLWriter.float(range.upperBound))")
        }
        return d
    }

    public func bool(_ key: String) throws(TOMLError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let b = value.bool else { throw invalid(key, allowed: "allowed true or false") }
        return b
    }

    public func section(_ key: String) throws(TOMLError) -> TOMLSection? {
        guard let value = table[key] else { return nil }
        guard var t = value.table else { throw invalid(key, allowed: "expected a table ([\(field(key))])") }
        if t.line == 0 { t.line = value.line }
        return TOMLSection(t, file: file, path: path + [TOMLWriter.key(key)])
    }

    /// The elements of an array of tables (`[[key]]`), each as a section.
    public func sections(_ key: String) throws(TOMLError) -> [TOMLSection] {
        guard let value = table[key] else { return [] }
        guard let items = value.array else { throw invalid(key, allowed: "expected tables ([[\(field(key))]])") }
        var result: [TOMLSection] = []
        for (i, item) in items.enumerated() {
            guard var t = item.table else {
                throw TOMLError(file: file, line: item.line, field: "\(field(key))[\(i)]", value: item.tomlText,
                                message: "expected a table")
            }
            if t.line == 0 { t.line = item.line }
            result.append(TOMLSection(t, file: file, path: path + ["\(TOMLWriter.key(key))[\(i)]"]))
        }
        return result
    }

    /// Typos must not be ignored silently: a misspelt key would otherwise leave a default.
    public func rejectUnknownKeys(allowed: [String]) throws(TOMLError) {
        for key in table.keys where !allowed.contains(key) {
            throw TOMLError(file: file, line: table[key]?.line ?? table.line, field: field(key),
                            message: "unknown key; allowed keys here: " + allowed.joined(separator: ", "))
        }
    }
}

// MARK: - Parser

public enum TOML {
    /// Parses a whole TOML document. `file` is only used in error messages.
    public static func parse(_ text: String, file: String) throws(TOMLError) -> TOMLTable {
        var parser = TOMLParser(bytes: Array(text.utf8), file: file)
        return try parser.parseDocument()
    }
}

/// Mutable tree used while parsing: header tables and dotted keys extend tables that
/// were opened earlier, which is awkward with value types.
private final class TableNode {
    enum Origin { case implicit, header, dotted, arrayElement }
    enum Entry {
        case value(TOMLValue)
        case table(TableNode)
        case tableArray([TableNode], line: Int)
    }

    var origin: Origin
    var line: Int
    var keys: [String] = []
    var entries: [String: Entry] = [:]

    init(origin: Origin, line: Int) {
        self.origin = origin
        self.line = line
    }

    func set(_ key: String, _ entry: Entry) {
        if entries.updateValue(entry, forKey: key) == nil { keys.append(key) }
    }

    var value: TOMLTable {
        var table = TOMLTable(line: line)
        for key in keys {
            switch entries[key]! {
            case .value(let v): table[key] = v
            case .table(let node): table[key] = TOMLValue(.table(node.value), line: node.line)
            case .tableArray(let nodes, let line):
                table[key] = TOMLValue(.array(nodes.map { TOMLValue(.table($0.value), line: $0.line) }), line: line)
            }
        }
        return table
    }

    /// Line where `entry` was defined, for "first defined at line N" messages.
    static func line(of entry: Entry) -> Int {
        switch entry {
        case .value(let v): v.line
        case .table(let node): node.line
        case .tableArray(_, let line): line
        }
    }
}

private struct TOMLParser {
    let bytes: [UInt8]
    let file: String
    var index = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

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

    // MARK: Document

    mutating func parseDocument() throws(TOMLError) -> TOMLTable {
        let root = TableNode(origin: .header, line: 0)
        var currentTable = root
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStart = 3 }  // UTF-8 byte order mark
        while true {
            try skipBlank()
            guard let c = current else { break }
            if c == UInt8(ascii: "[") {
                currentTable = try parseHeader(root: root)
            } else {
                try parseKeyValue(into: currentTable)
                try expectEndOfLine(after: "the value")
            }
        }
        return root.value
    }

    mutating func parseHeader(root: TableNode) throws(TOMLError) -> TableNode {
        let headerLine = line
        index += 1
        let isArray = current == UInt8(ascii: "[")
        if isArray { index += 1 }
        skipWhitespace()
        let path = try parseKeyPath()
        skipWhitespace()
        guard current == UInt8(ascii: "]") else { throw error("expected ']' to close the table header") }
        index += 1
        if isArray {
            guard current == UInt8(ascii: "]") else { throw error("expected ']]' to close the array-of-tables header") }
            index += 1
        }
        try expectEndOfLine(after: "the table header")

        let shown = path.map(TOMLWriter.key).joined(separator: ".")
        var node = root
        for key in path.dropLast() {
            switch node.entries[key] {
            case nil:
                let child = TableNode(origin: .implicit, line: headerLine)
                node.set(key, .table(child))
                node = child
            case .table(let child):
                node = child
            case .tableArray(let elements, _):
                node = elements[elements.count - 1]
            case .value(let v):
                throw error("[\(shown)]: key '\(key)' already holds a value (line \(v.line)), not a table", line: headerLine)
            }
        }
        let last = path[path.count - 1]
        let existing = node.entries[last]
        if isArray {
            let element = TableNode(origin: .arrayElement, line: headerLine)
            switch existing {
            case nil:
                node.set(last, .tableArray([element], line: headerLine))
            case .tableArray(let elements, let line):
                node.set(last, .tableArray(elements + [element], line: line))
            case let entry?:
                throw error("[[\(shown)]]: '\(last)' is already defined at line \(TableNode.line(of: entry)) and is not an array of tables", line: headerLine)
            }
            return element
        }
        switch existing {
        case nil:
            let table = TableNode(origin: .header, line: headerLine)
            node.set(last, .table(table))
            return table
        case .table(let table) where table.origin == .implicit:
            table.origin = .header
            table.line = headerLine
            return table
        case let entry?:
            throw error("table [\(shown)] is defined twice (first at line \(TableNode.line(of: entry)))", line: headerLine)
        }
    }

    mutating func parseKeyValue(into table: TableNode) throws(TOMLError) {
        let keyLine = line
        let path = try parseKeyPath()
        skipWhitespace()
        guard current == UInt8(ascii: "=") else { throw error("expected '=' after the key") }
        index += 1
        skipWhitespace()
        if atEnd || atNewline || current == UInt8(ascii: "#") { throw error("missing value after '='") }
        let value = try parseValue()
        let shown = path.map(TOMLWriter.key).joined(separator: ".")
        var node = table
        for key in path.dropLast() {
            switch node.entries[key] {
            case nil:
                let child = TableNode(origin: .dotted, line: keyLine)
                node.set(key, .table(child))
                node = child
            case .table(let child) where child.origin == .dotted || child.origin == .implicit:
                node = child
            case let entry?:
                throw error("\(shown): '\(key)' is already defined at line \(TableNode.line(of: entry)) and cannot be extended with a dotted key", line: keyLine)
            }
        }
        let last = path[path.count - 1]
        if let entry = node.entries[last] {
            throw error("duplicate key \(shown) (first defined at line \(TableNode.line(of: entry)))", line: keyLine)
        }
        node.set(last, .value(value))
    }

    // MARK: Keys

    static func isBareKeyByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
    }

    mutating func parseKeyPath() throws(TOMLError) -> [String] {
        var path = [try parseSimpleKey()]
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: ".") else { return path }
            index += 1
            skipWhitespace()
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

    // MARK: Values

    mutating func parseValue() throws(TOMLError) -> TOMLValue {
        let valueLine = line
        guard let c = current else { throw error("missing value") }
        switch c {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"") {
                return TOMLValue(.string(try parseMultilineBasicString()), line: valueLine)
            }
            return TOMLValue(.string(try parseBasicString()), line: valueLine)
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'") {
                return TOMLValue(.string(try parseMultilineLiteralString()), line: valueLine)
            }
            return TOMLValue(.string(try parseLiteralString()), line: valueLine)
        case UInt8(ascii: "["):
            return TOMLValue(.array(try parseArray()), line: valueLine)
        case UInt8(ascii: "{"):
            return TOMLValue(.table(try parseInlineTable()), line: valueLine)
        default:
            return TOMLValue(try parseScalarToken(), line: valueLine)
        }
    }

    mutating func parseArray() throws(TOMLError) -> [TOMLValue] {
        index += 1
        var items: [TOMLValue] = []
        while true {
            try skipBlank()
            if atEnd { throw error("unterminated array: expected ']'") }
            if current == UInt8(ascii: "]") { index += 1; return items }
            items.append(try parseValue())
            try skipBlank()
            if current == UInt8(ascii: ",") { index += 1; continue }
            if current == UInt8(ascii: "]") { index += 1; return items }
            throw error(atEnd ? "unterminated array: expected ']'" : "expected ',' or ']' in the array")
        }
    }

    mutating func parseInlineTable() throws(TOMLError) -> TOMLTable {
        let node = TableNode(origin: .dotted, line: line)
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return node.value }
        while true {
            skipWhitespace()
            if atEnd || atNewline { throw error("an inline table must end with '}' on the same line") }
            try parseKeyValue(into: node)
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if current == UInt8(ascii: "}") { throw error("trailing comma is not allowed in an inline table") }
                continue
            }
            if current == UInt8(ascii: "}") { index += 1; return node.value }
            if atEnd || atNewline { throw error("an inline table must end with '}' on the same line") }
            throw error("expected ',' or '}' in the inline table")
        }
    }

    /// Booleans, numbers, inf/nan: everything up to the next delimiter.
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
        index += 3
        skipFirstNewline()
        var out: [UInt8] = []
        while true {
            guard let c = current else { throw error("unterminated multi-line string: expected '\"\"\"'") }
            if c == UInt8(ascii: "\""), let extra = closingRun(c) {
                guard extra <= 2 else { throw error("too many quotes at the end of a multi-line string") }
                out.append(contentsOf: Array(repeating: c, count: extra))
                index += extra + 3
                break
            }
            if c == UInt8(ascii: "\\") {
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

    mutating func parseMultilineLiteralString() throws(TOMLError) -> String {
        index += 3
        skipFirstNewline()
        var out: [UInt8] = []
        while true {
            guard let c = current else { throw error("unterminated multi-line string: expected \"'''\"") }
            if c == UInt8(ascii: "'"), let extra = closingRun(c) {
                guard extra <= 2 else { throw error("too many quotes at the end of a multi-line string") }
                out.append(contentsOf: Array(repeating: c, count: extra))
                index += extra + 3
                break
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

// MARK: - Writer

public enum TOMLWriter {
    static func key(_ key: String) -> String {
        !key.isEmpty && key.utf8.allSatisfy(TOMLParser.isBareKeyByte) ? key : quoted(key)
    }

    /// A basic string literal. Its escapes are a subset of JSON's, so it is a valid JSON
    /// string too (the simulator's event log uses it).
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func float(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        let text = "\(d)"
        // Swift writes 1e-05 and 5.0: both are valid TOML floats; make sure a dot or an
        // exponent is present so the value reads back as a float.
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    static func isTableArray(_ value: TOMLValue) -> Bool {
        guard let items = value.array, !items.isEmpty else { return false }
        return items.allSatisfy { $0.table != nil }
    }

    static func write(_ table: TOMLTable, path: [String], into out: inout String) {
        for key in table.keys {
            let value = table[key]!
            if value.table != nil || isTableArray(value) { continue }
            out += "\(self.key(key)) = \(value.tomlText)\n"
        }
        for key in table.keys {
            let value = table[key]!
            let childPath = path + [key]
            let header = childPath.map(self.key).joined(separator: ".")
            if let child = value.table {
                if !out.isEmpty { out += "\n" }
                out += "[\(header)]\n"
                write(child, path: childPath, into: &out)
            } else if isTableArray(value) {
                for item in value.array! {
                    if !out.isEmpty { out += "\n" }
                    out += "[[\(header)]]\n"
                    write(item.table!, path: childPath, into: &out)
                }
            }
        }
    }
}
