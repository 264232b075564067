// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import HAL
import TactusBase

/// Where LinuxHAL's messages go. Never called from the render thread: audio problems are
/// counted there and reported by the sink's supervisor thread.
public struct HALLog: Sendable {
    public enum Level: String, Sendable { case info, warning, error }

    public let emit: @Sendable (Level, String) -> Void

    public init(_ emit: @escaping @Sendable (Level, String) -> Void) { self.emit = emit }

    public func info(_ message: String) { emit(.info, message) }
    public func warning(_ message: String) { emit(.warning, message) }
    public func error(_ message: String) { emit(.error, message) }

    /// One line per message on standard error (write(2): glibc's `stderr` is not Sendable).
    public static let standardError = HALLog { level, message in
        let line = "tactus: \(level.rawValue): \(message)\n"
        _ = line.withCString { text in Syscalls.retryingEINTR { write(STDERR_FILENO, text, strlen(text)) } }
    }
}

/// The system's CLOCK_MONOTONIC, the clock of GPIO edge timestamps and ALSA positions.
public struct SystemMonotonicClock: MonotonicClock {
    public init() {}

    public func now() -> MonotonicTime { MonotonicTime(nanoseconds: Syscalls.monotonicNanoseconds()) }
}

func errnoDescription(_ code: Int32) -> String {
    String(cString: strerror(code))
}

extension SystemMonotonicClock {
    /// When this process started, on the monotonic clock (from /proc/self/stat, 10 ms
    /// resolution), so the service can say how long its start-up took; nil if unreadable.
    public static func processStart() -> MonotonicTime? {
        guard let file = fopen("/proc/self/stat", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Fields after the command name, which is in parentheses and may contain spaces.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // starttime is field 22 of the whole line: the 20th after the name.
        guard fields.count > 19, let ticks = Int64(fields[19]) else { return nil }
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let monotonicNow = Syscalls.monotonicNanoseconds()
        let ticksPerSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))
        let sinceBoot = ticks * 1_000_000_000 / ticksPerSecond
        let bootNow = Int64(boot.tv_sec) * 1_000_000_000 + Int64(boot.tv_nsec)
        return MonotonicTime(nanoseconds: monotonicNow - (bootNow - sinceBoot))
    }
}
