// SPDX-License-Identifier: GPL-3.0-or-later
/// TOMLReader: a small TOML reader and writer for Tactus's configuration, board and settings files.
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
/// - `TOML.parse(_ text: String, file: String, limits:) throws(TOMLError) -> TOMLTable`
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
