// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase

/// A value the JSON writer can write. Strings are escaped (`"`, `\`, control characters;
/// other Unicode as it is, UTF-8), numbers written exactly, nil as `null`.
public protocol JSONWritable {
    func writeJSON(to out: inout String)
}

/// The one JSON writer of the box and the companion: an object's members built in order,
/// `{"a":1,"b":"x"}`, with no whitespace (one line on the socket).
public struct JSONObject: JSONWritable, Sendable, Hashable, CustomStringConvertible {
    /// The members without braces, comma-separated.
    public private(set) var members = ""

    public init() {}
    public init(_ build: (inout JSONObject) -> Void) { build(&self) }

    public var isEmpty: Bool { members.isEmpty }

    /// Adds one member (keys are not checked for repeats: readers take the last).
    public mutating func add(_ key: WireField, _ value: some JSONWritable) { add(key.name, value) }

    /// A member whose name is data (a day of the practice log, a volume's layer).
    public mutating func add(_ key: String, _ value: some JSONWritable) {
        if !members.isEmpty { members += "," }
        JSONString.write(key, to: &members)
        members += ":"
        value.writeJSON(to: &members)
    }

    /// Adds `value`'s member only when there is one (nil adds nothing, unlike `null`).
    public mutating func add(_ key: WireField, ifPresent value: (some JSONWritable)?) {
        if let value { add(key, value) }
    }

    /// The members of `other` after these.
    public mutating func append(_ other: JSONObject) {
        guard !other.members.isEmpty else { return }
        if !members.isEmpty { members += "," }
        members += other.members
    }

    public func writeJSON(to out: inout String) { out += "{" + members + "}" }

    /// The object's JSON text.
    public var text: String { "{" + members + "}" }
    public var description: String { text }
}

/// A number written as given (a fixed decimal such as "92.5", an exact tempo). Text that is
/// not a JSON number ("nan", "inf") is written as `null`: the line stays JSON.
public struct JSONNumber: JSONWritable, Sendable, Hashable {
    public let text: String
    public init(_ text: String) { self.text = JSONNumber.isValid(text) ? text : "null" }
    public func writeJSON(to out: inout String) { out += text }

    /// Whether `text` is a JSON number (`-`? digits, `.` digits, exponent).
    public static func isValid(_ text: String) -> Bool { (try? JSONValue.parse(text)).map { if case .number = $0 { true } else { false } } ?? false }
}

/// Raw JSON text already written by this writer (an object kept as text, a relayed value).
public struct JSONText: JSONWritable, Sendable, Hashable {
    public let text: String
    public init(_ text: String) { self.text = text }
    public func writeJSON(to out: inout String) { out += text }
}

extension String: JSONWritable {
    public func writeJSON(to out: inout String) { JSONString.write(self, to: &out) }
}
extension Substring: JSONWritable {
    public func writeJSON(to out: inout String) { JSONString.write(String(self), to: &out) }
}
extension Bool: JSONWritable {
    public func writeJSON(to out: inout String) { out += self ? "true" : "false" }
}
extension Int: JSONWritable {
    public func writeJSON(to out: inout String) { out += String(self) }
}
extension Int64: JSONWritable {
    public func writeJSON(to out: inout String) { out += String(self) }
}
extension Int32: JSONWritable {
    public func writeJSON(to out: inout String) { out += String(self) }
}
extension UInt64: JSONWritable {
    public func writeJSON(to out: inout String) { out += String(self) }
}
extension Optional: JSONWritable where Wrapped: JSONWritable {
    public func writeJSON(to out: inout String) {
        if let value = self { value.writeJSON(to: &out) } else { out += "null" }
    }
}
extension Array: JSONWritable where Element: JSONWritable {
    public func writeJSON(to out: inout String) {
        out += "["
        for (i, element) in enumerated() {
            if i > 0 { out += "," }
            element.writeJSON(to: &out)
        }
        out += "]"
    }
}
extension JSONValue: JSONWritable {
    public func writeJSON(to out: inout String) { out += json }
}
extension WireCommand: JSONWritable {
    public func writeJSON(to out: inout String) { JSONString.write(name, to: &out) }
}
extension WireEvent: JSONWritable {
    public func writeJSON(to out: inout String) { JSONString.write(name, to: &out) }
}

extension JSONString {
    /// `text` quoted and escaped onto `out`.
    static func write(_ text: String, to out: inout String) { out += quoted(text) }
}
