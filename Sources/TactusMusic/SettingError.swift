// SPDX-License-Identifier: GPL-3.0-or-later
/// A setting that is out of range or cannot be parsed. The message names the field, the
/// value and what is allowed, so every front end (flags, change scripts, config files)
/// can show it as it is.
public struct SettingError: Error, Equatable, Sendable, CustomStringConvertible {
    public let field: String
    public let value: String
    public let allowed: String

    public init(field: String, value: String, allowed: String) {
        self.field = field
        self.value = value
        self.allowed = allowed
    }

    public var description: String { "\(field) '\(value)' is invalid: \(allowed)" }
}
