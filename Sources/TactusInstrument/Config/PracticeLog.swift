// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import TactusMusic

/// Minutes played per day, as kept in the state folder (`practice.toml`):
///
///     # Tactus practice log: minutes played per day (local time)
///     schema = 1
///
///     [minutes]
///     2026-11-23 = 42.5
///
/// Seconds are kept whole; the file holds minutes to 1/60 (two decimals, rounded). Like every
/// file in the state folder it carries a `schema`; a log written before it had one still loads.
public struct PracticeLog: Sendable, Hashable {
    public static let schema: Int64 = 1

    /// Seconds played, by day ("YYYY-MM-DD").
    public private(set) var seconds: [String: Int64] = [:]

    public init() {}

    /// Reads the file's text; a line that cannot be used names its line.
    public init(parsing text: String, file: String) throws(SettingError) {
        let table: TOMLTable
        do { table = try TOML.parse(text, file: file) } catch {
            throw SettingError(field: file, value: "", allowed: "\(error)")
        }
        if let schema = table["schema"] {
            // A newer box's log is refused (and so kept aside by the caller), never rewritten as ours.
            guard let version = schema.integer, version >= 1, version <= PracticeLog.schema else {
                throw SettingError(field: "\(file):\(schema.line): schema", value: "\(schema.content)",
                                   allowed: "1 to \(PracticeLog.schema)")
            }
        }
        guard let days = table["minutes"]?.table else { return }
        for day in days.keys {
            let value = days[day]!
            guard let minutes = value.double, PracticeLog.isDay(day), minutes >= 0, minutes <= 1440 else {
                throw SettingError(field: "\(file):\(value.line): minutes.\(day)", value: "\(value.content)",
                                   allowed: "YYYY-MM-DD = 0 to 1440 minutes")
            }
            seconds[day] = Int64((minutes * 60).rounded())
        }
    }

    static func isDay(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.map(\.count) == [4, 2, 2] && parts.allSatisfy { $0.allSatisfy(\.isNumber) }
    }

    public mutating func add(seconds played: Int64, day: String) {
        seconds[day, default: 0] += max(played, 0)
    }

    public func minutes(on day: String) -> Double { Double(seconds[day] ?? 0) / 60 }

    public var text: String {
        var lines = ["# Tactus practice log: minutes played per day (local time)", "schema = \(PracticeLog.schema)", "", "[minutes]"]
        for day in seconds.keys.sorted() {
            let hundredths = (seconds[day]! * 100 + 30) / 60
            lines.append("\(day) = \(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
