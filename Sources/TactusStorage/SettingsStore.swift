// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization
import TactusInstrument
import LinuxHAL
import TactusBase

/// The settings file on disk: loads with a fallback to defaults, saves atomically.
///
/// A file that exists but cannot be used is never overwritten: it is renamed aside
/// (`settings.corrupt-N.toml`) before the box starts with defaults, and when even that
/// fails (a root-owned file in a folder we may not change) saving is refused for the
/// whole run, with a message that says why.
public final class SettingsStore: Sendable {
    public let path: String
    let system: Syscalls
    /// Set by `load()` when the file on disk must be kept as it is.
    private let refuseSaves = Mutex(false)

    public init(path: String, system: Syscalls = .live) {
        self.path = path
        self.system = system
    }

    public struct Loaded: Sendable {
        public var saved: SavedState
        /// Set when the file could not be used: what was wrong and where it was kept.
        /// Log it and show it; the box runs with defaults.
        public var problem: String?
        /// The same, short enough for the screen.
        public var notice: String?
    }

    /// Never fails: a missing file gives defaults; an unreadable, corrupt, invalid, huge,
    /// deeply nested or non-regular one (FIFO, device) is renamed aside (never deleted)
    /// and reported, and the box starts with defaults. Leftover temporary files of a save
    /// that was killed are removed first.
    ///
    /// `readOnly` (the state folder could not be locked, so another process may own it):
    /// nothing in the folder is touched, the file is only read, and saving is refused for
    /// the whole run.
    public func load(readOnly: Bool = false) -> Loaded {
        if readOnly { refuseSaves.withLock { $0 = true } }
        if !readOnly {
            AtomicFile.removeLeftovers(of: path)
            // The practice log beside it is saved the same way: a power cut during its save
            // leaves partials too.
            AtomicFile.removeLeftovers(of: SettingsStore.practiceLogPath(besides: path))
        }
        let reason: String
        do {
            guard let bytes = try AtomicFile.read(path, limit: SettingsFile.maximumBytes, system: system) else { return Loaded(saved: .firstStart) }
            let text = try BoundedFile.text(bytes)
            do { return Loaded(saved: try SettingsFile.decode(text, file: path)) } catch {
                reason = error.description
            }
        } catch {
            reason = "\(path): \(error)"
        }
        if readOnly {
            return Loaded(saved: SavedState(), problem: "\(reason); left as it is (the state folder is not locked), using defaults",
                          notice: "Bad settings file left as it is, using defaults")
        }
        do {
            let aside = try AtomicFile.keepAside(path, system: system)
            // "corrupt-1" of settings.corrupt-1.toml: the whole name does not fit on the screen.
            let name = aside.split(separator: ".").dropLast().last.map(String.init) ?? aside
            return Loaded(saved: SavedState(), problem: "\(reason); file kept as \(aside), using defaults",
                          notice: "Bad settings file kept aside (\(name)), using defaults")
        } catch {
            let why = "\(reason); could not keep it aside (\(error)), so it is left as it is and changes will not be saved; using defaults"
            refuseSaves.withLock { $0 = true }
            return Loaded(saved: SavedState(), problem: why, notice: "Settings file unreadable: left as it is, changes not saved")
        }
    }

    /// `practice.toml` in the settings file's folder.
    public static func practiceLogPath(besides settingsPath: String) -> String {
        let folder = settingsPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return (settingsPath.contains("/") ? (folder.isEmpty ? "" : folder) + "/" : "") + "practice.toml"
    }

    /// True when this run never writes the file (see `load`).
    public var refusesSaves: Bool { refuseSaves.withLock { $0 } }

    public func save(_ saved: SavedState) throws(SystemError) {
        // The file could not be read nor kept aside at start, or the folder is not ours
        // (no lock): writing would destroy it.
        if refuseSaves.withLock({ $0 }) { throw SystemError("save over the unreadable", path, errno: EACCES) }
        let bytes = Array(SettingsFile.encode(saved).utf8)
        // Never a file the next start would set aside (the limits where changes come in keep below it).
        guard bytes.count <= SettingsFile.maximumBytes else { throw SystemError("save (larger than 4 MiB)", path, errno: EFBIG) }
        try AtomicFile.write(bytes, to: path, system: system)
    }
}
