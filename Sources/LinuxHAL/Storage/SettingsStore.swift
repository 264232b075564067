import TactusCore

/// The settings file on disk: loads with a fallback to defaults, saves atomically.
public struct SettingsStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public struct Loaded: Sendable {
        public var saved: SavedState
        /// Set when the file could not be used: what was wrong and where it was kept.
        /// Log it and show it; the box runs with defaults.
        public var problem: String?
    }

    /// Never fails: a missing file gives defaults; an unreadable, corrupt or invalid one is
    /// renamed aside (never deleted) and reported, and the box starts with defaults.
    public func load() -> Loaded {
        let bytes: [UInt8]?
        do { bytes = try AtomicFile.read(path) } catch {
            return Loaded(saved: SavedState(), problem: "settings not loaded, using defaults: \(error)")
        }
        guard let bytes else { return Loaded(saved: SavedState(), problem: nil) }
        let reason: String
        if let text = String(validating: bytes, as: UTF8.self) {
            do { return Loaded(saved: try SettingsFile.decode(text, file: path), problem: nil) } catch {
                reason = error.description
            }
        } else {
            reason = "\(path): not UTF-8 text"
        }
        do {
            let aside = try AtomicFile.keepAside(path)
            return Loaded(saved: SavedState(), problem: "\(reason); file kept as \(aside), using defaults")
        } catch {
            return Loaded(saved: SavedState(), problem: "\(reason); could not keep it aside (\(error)), using defaults")
        }
    }

    public func save(_ saved: SavedState) throws(StorageError) {
        try AtomicFile.write(Array(SettingsFile.encode(saved).utf8), to: path)
    }
}
