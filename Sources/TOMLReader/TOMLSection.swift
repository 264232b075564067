// SPDX-License-Identifier: GPL-3.0-or-later
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
    /// `alsoAccepted`: other spellings that are read but not listed in the message.
    public func rejectUnknownKeys(allowed: [String], alsoAccepted: [String] = []) throws(TOMLError) {
        for key in table.keys where !allowed.contains(key) && !alsoAccepted.contains(key) {
            throw TOMLError(file: file, line: table[key]?.line ?? table.line, field: field(key),
                            message: "unknown key; allowed keys here: " + allowed.joined(separator: ", "))
        }
    }
}
