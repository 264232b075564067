// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Glibc
import HAL
import TactusBase
import LinuxHAL
import TactusStorage
import Logging
import TactusApp
import TactusInstrument

extension SettingsStore: SettingsPersistence {}

/// The practice log lives beside the settings file, in the state folder.
extension SettingsStore: PracticeLogStore {
    public func addPractice(seconds: Int64, song: String, bpm: Double, coach: CoachFigures?) throws {
        // Not our folder (no lock) or an unreadable settings file: nothing is written.
        if refusesSaves { throw SystemError("save the practice log beside", path, errno: EACCES) }
        try PracticeLogFile(path: SettingsStore.practiceLogPath(besides: path))
            .add(PracticeSession(day: PracticeLogFile.today(), song: song, seconds: seconds, bpm: bpm, coach: coach))
    }
}

/// Flags shared by `run` and `simulate`: where the configuration, board and state are.
struct BoxLocations {
    var config: String?
    var board: String?
    var state: String?

    static let defaultConfig = "/etc/tactus/config.toml"

    /// The configuration file; a missing file at the default place means defaults.
    func configuration() throws -> ConfigurationFile {
        let path = config ?? BoxLocations.defaultConfig
        guard FileSystem.exists(path) else {
            if config != nil { throw ExitError("--config '\(path)' does not exist") }
            return ConfigurationFile()
        }
        let text = try InputFile.text(path, flag: "--config")
        do { return try ConfigurationFile.parse(text, file: path) } catch { throw ExitError(error.description) }
    }

    /// The board when neither --board nor the configuration names one: says so, instead of
    /// blaming a --board flag that was never given.
    func defaultBoard(_ fallback: String) throws -> BoardDefinition {
        guard FileSystem.exists(fallback) else {
            let configPath = config ?? BoxLocations.defaultConfig
            let missing = FileSystem.exists(configPath) ? "no board in \(configPath)" : "no configuration file \(configPath)"
            throw ExitError("no board file: no --board flag, \(missing), and the default board file \(fallback) does not exist; "
                            + "give --board NAME (pi4b, pi5, pi3bplus, pi-zero-2w) or --board path/to/board.toml, or set board = \"pi4b\" in \(configPath)")
        }
        return try BoardLoader.load(fallback, origin: "the default board file (no --board flag, no board in the configuration)")
    }

    func boardDefinition(_ configuration: ConfigurationFile, fallback: String = "/etc/tactus/board.toml") throws -> BoardDefinition {
        var board = if let flag = self.board {
            try BoardLoader.load(flag)
        } else if let named = configuration.board {
            try BoardLoader.load(named, origin: "\(configuration.boardSource ?? "configuration"): board")
        } else {
            try defaultBoard(fallback)
        }
        if let device = configuration.audioDevice { board.audio.device = device }
        if let rate = configuration.audioSampleRate { board.audio.sampleRate = rate }
        if let frames = configuration.audioPeriodFrames { board.audio.periodFrames = frames }
        if let periods = configuration.audioPeriods { board.audio.periodCount = periods }
        return board
    }

    func settingsPath(_ configuration: ConfigurationFile) -> String {
        state.map { "\($0)/settings.toml" } ?? configuration.settingsFile
    }

    /// The lock, or when it cannot be created (a root-owned tactus.lock left by `sudo
    /// tactus ...`, a read-only state folder) nil and why: an appliance plays anyway,
    /// without saving, and says so on the screen. Another running tactus holding the lock
    /// still stops this one (two boxes on one state folder and sound card).
    func lockStateOrPlayUnsaved(_ configuration: ConfigurationFile) throws(ExitError) -> (lock: StateLock?, problem: String?) {
        if let state { try BoxLocations.checkFolder(state, flag: "--state") }
        let path = settingsPath(configuration)
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        do { return (try StateLock(folder: folder.isEmpty ? "/" : folder), nil) } catch {
            if case .held = error { throw ExitError("\(error)", code: 1) }
            return (nil, "\(error); playing without saving settings")
        }
    }

    /// The settings as loaded, with a lock problem (if any) joined to its problem and
    /// shown as the notice.
    static func load(_ store: SettingsStore, lockProblem: String?) -> SettingsStore.Loaded {
        var loaded = store.load(readOnly: lockProblem != nil)
        if let lockProblem {
            loaded.problem = [lockProblem, loaded.problem].compactMap { $0 }.joined(separator: "; ")
            loaded.notice = "State folder not writable: playing, changes not saved"
        }
        return loaded
    }

    /// `flag` must name an existing folder.
    static func checkFolder(_ path: String, flag: String) throws(ExitError) {
        var info = stat()
        guard !path.isEmpty, stat(path, &info) == 0 else {
            throw ExitError("\(flag) \(Escaped.quoted(path)) is invalid: no such folder; allowed an existing folder")
        }
        guard FileKind(mode: info.st_mode) == .directory else {
            throw ExitError("\(flag) \(Escaped.quoted(path)) is invalid: it is \(FileKind(mode: info.st_mode).name); allowed an existing folder")
        }
    }

    /// Each folder under the sounds folder with accent.wav, beat.wav and sub.wav is a sound
    /// set named after the folder, and each installed voice set (voice-LANG) one more; a bad
    /// one is reported and skipped, never fatal.
    static func userSounds(_ configuration: ConfigurationFile, sampleRate: Int, logger: Logger) -> [SoundSet] {
        var sets: [SoundSet] = []
        if let folder = configuration.soundsFolder, let names = FileSystem.entries(of: folder) {
            for name in names.sorted() where !BuiltInSounds.names.contains(name) {
                do {
                    sets.append(try SoundFolder.load("\(folder)/\(name)", name: name, sampleRate: sampleRate))
                } catch {
                    logger.warning("sound set \(folder)/\(name) skipped: \(error.message)")
                }
            }
        }
        // The spoken counts `make voices` built (installed, or ./voices beside a checkout);
        // a user's folder of the same name wins.
        for (name, folder) in SoundFolder.installedVoices() where !sets.contains(where: { $0.name == name }) {
            do {
                sets.append(try SoundFolder.load(folder, name: name, sampleRate: sampleRate))
            } catch {
                logger.warning("voice set \(folder) skipped: \(error.message)")
            }
        }
        return sets
    }
}

enum Log {
    /// swift-log to stderr (journald keeps it under systemd).
    static func bootstrap(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "tactus")
    }
}
