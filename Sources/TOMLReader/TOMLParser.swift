// SPDX-License-Identifier: GPL-3.0-or-later
// MARK: - Parser

public enum TOML {
    /// Bounds on what one document may hold. Every file Tactus reads is small; the bounds
    /// turn a hostile file (10 000 nested arrays in 20 KB) into one error instead of a
    /// stack overflow in the parser or in the values' destructors.
    public struct Limits: Sendable, Equatable {
        /// Largest document in bytes (UTF-8).
        public var maxBytes: Int
        /// Deepest nesting: each table level, dotted-key part, array and inline table counts one.
        public var maxDepth: Int

        public init(maxBytes: Int, maxDepth: Int) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }

        /// 1 MiB and 32 levels: the box's own files are a few KB and 4 levels deep.
        public static let standard = Limits(maxBytes: 1 << 20, maxDepth: 32)
    }

    /// Parses a whole TOML document. `file` is only used in error messages.
    public static func parse(_ text: String, file: String, limits: Limits = .standard) throws(TOMLError) -> TOMLTable {
        let count = text.utf8.count
        guard count <= limits.maxBytes else {
            throw TOMLError(file: file, line: 0, message: "the file is \(count) bytes; allowed at most \(limits.maxBytes)")
        }
        var parser = TOMLParser(bytes: Array(text.utf8), file: file, maxDepth: limits.maxDepth)
        return try parser.parseDocument()
    }
}

/// Mutable tree used while parsing: header tables and dotted keys extend tables that
/// were opened earlier, which is awkward with value types.
final class TableNode {
    enum Origin { case implicit, header, dotted, arrayElement }
    enum Entry {
        case value(TOMLValue)
        case table(TableNode)
        case tableArray([TableNode], line: Int)
    }

    var origin: Origin
    var line: Int
    /// Nesting level: 0 for the document, one more per table below it.
    let depth: Int
    var keys: [String] = []
    var entries: [String: Entry] = [:]

    init(origin: Origin, line: Int, depth: Int) {
        self.origin = origin
        self.line = line
        self.depth = depth
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

struct TOMLParser {
    let bytes: [UInt8]
    let file: String
    let maxDepth: Int
    var index = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8], file: String, maxDepth: Int) {
        self.bytes = bytes
        self.file = file
        self.maxDepth = maxDepth
    }

    /// Fails once nesting goes past `maxDepth`, before anything deeper is built.
    func checkDepth(_ depth: Int) throws(TOMLError) {
        guard depth <= maxDepth else {
            throw error("nested too deeply: tables, dotted keys, arrays and inline tables may nest at most \(maxDepth) levels")
        }
    }

    // MARK: Document

    mutating func parseDocument() throws(TOMLError) -> TOMLTable {
        let root = TableNode(origin: .header, line: 0, depth: 0)
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
        let path = try parseKeyPath(depth: 0)
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
                let child = TableNode(origin: .implicit, line: headerLine, depth: node.depth + 1)
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
            let element = TableNode(origin: .arrayElement, line: headerLine, depth: node.depth + 1)
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
            let table = TableNode(origin: .header, line: headerLine, depth: node.depth + 1)
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
        let path = try parseKeyPath(depth: table.depth)
        skipWhitespace()
        guard current == UInt8(ascii: "=") else { throw error("expected '=' after the key") }
        index += 1
        skipWhitespace()
        if atEnd || atNewline || current == UInt8(ascii: "#") { throw error("missing value after '='") }
        let value = try parseValue(depth: table.depth + path.count)
        let shown = path.map(TOMLWriter.key).joined(separator: ".")
        var node = table
        for key in path.dropLast() {
            switch node.entries[key] {
            case nil:
                let child = TableNode(origin: .dotted, line: keyLine, depth: node.depth + 1)
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

    // MARK: Values

    /// `depth`: the nesting level the value sits at (its key's level).
    mutating func parseValue(depth: Int) throws(TOMLError) -> TOMLValue {
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
            return TOMLValue(.array(try parseArray(depth: depth)), line: valueLine)
        case UInt8(ascii: "{"):
            return TOMLValue(.table(try parseInlineTable(depth: depth)), line: valueLine)
        default:
            return TOMLValue(try parseScalarToken(), line: valueLine)
        }
    }

    mutating func parseArray(depth: Int) throws(TOMLError) -> [TOMLValue] {
        try checkDepth(depth + 1)
        index += 1
        var items: [TOMLValue] = []
        while true {
            try skipBlank()
            if atEnd { throw error("unterminated array: expected ']'") }
            if current == UInt8(ascii: "]") { index += 1; return items }
            items.append(try parseValue(depth: depth + 1))
            try skipBlank()
            if current == UInt8(ascii: ",") { index += 1; continue }
            if current == UInt8(ascii: "]") { index += 1; return items }
            throw error(atEnd ? "unterminated array: expected ']'" : "expected ',' or ']' in the array")
        }
    }

    mutating func parseInlineTable(depth: Int) throws(TOMLError) -> TOMLTable {
        try checkDepth(depth + 1)
        let node = TableNode(origin: .dotted, line: line, depth: depth)
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
}
