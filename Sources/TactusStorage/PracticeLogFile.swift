// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import TactusInstrument
import LinuxHAL
import TactusBase

/// The practice log beside the settings (`practice.toml` in the state folder): minutes
/// played per local day, written atomically like the settings. A file that cannot be used
/// is kept aside (`practice.corrupt-N.toml`), never overwritten.
public struct PracticeLogFile: Sendable {
    public let path: String
    let system: Syscalls

    public init(path: String, system: Syscalls = .live) {
        self.path = path
        self.system = system
    }

    /// Today's date in local time, "YYYY-MM-DD".
    public static func today() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }

    public func load() throws -> PracticeLog {
        guard let bytes = try AtomicFile.read(path, system: system) else { return PracticeLog() }
        return try PracticeLog(parsing: try BoundedFile.text(bytes), file: path)
    }

    /// Adds `seconds` to `day` (default today) and writes the file atomically.
    public func add(seconds: Int64, day: String = PracticeLogFile.today()) throws {
        try change { $0.add(seconds: seconds, day: day) }
    }

    /// Adds a session (its minutes to its day) and writes the file atomically.
    public func add(_ session: PracticeSession) throws {
        try change { $0.add(session) }
    }

    private func change(_ edit: (inout PracticeLog) -> Void) throws {
        var log: PracticeLog
        do { log = try load() } catch {
            _ = try AtomicFile.keepAside(path, system: system)
            log = PracticeLog()
        }
        edit(&log)
        try AtomicFile.write(Array(log.text.utf8), to: path, system: system)
    }
}
