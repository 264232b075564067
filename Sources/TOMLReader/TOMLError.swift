// SPDX-License-Identifier: GPL-3.0-or-later
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

    /// One line: control characters in the file name, value or message are escaped.
    public var description: String { oneLine(rawDescription) }

    private var rawDescription: String {
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
