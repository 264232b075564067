// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Glibc
import HAL
import TactusBase
import LinuxHAL
import Logging
import TactusApp
import TactusCore

extension SettingsStore: SettingsPersistence {}

/// The practice log lives beside the settings file, in the state folder.
extension SettingsStore: PracticeLogStore {
    public func addPractice(seconds: Int64) throws {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        try PracticeLogFile(path: (folder.isEmpty ? "." : folder) + "/practice.toml").add(seconds: seconds)
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

    func boardDefinition(_ configuration: ConfigurationFile, fallback: String = "/etc/tactus/board.toml") throws -> BoardDefinition {
        var board = if let flag = self.board {
            try BoardLoader.load(flag)
        } else if let named = configuration.board {
            try BoardLoader.load(named, origin: "\(configuration.boardSource ?? "configuration"): board")
        } else {
            try BoardLoader.load(fallback)
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

    /// The lock on the folder of the settings file: one box per state folder, so two
    /// instances never write the same settings. Held until the process exits.
    func lockState(_ configuration: ConfigurationFile) throws(ExitError) -> StateLock {
        if let state { try BoxLocations.checkFolder(state, flag: "--state") }
        let path = settingsPath(configuration)
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        do { return try StateLock(folder: folder.isEmpty ? "/" : folder) } catch {
            throw ExitError("\(error)", code: 1)
        }
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
    /// set named after the folder; a bad one is reported and skipped, never fatal.
    static func userSounds(_ configuration: ConfigurationFile, sampleRate: Int, logger: Logger) -> [SoundSet] {
        guard let folder = configuration.soundsFolder,
              let names = FileSystem.entries(of: folder) else { return [] }
        var sets: [SoundSet] = []
        for name in names.sorted() where !BuiltInSounds.names.contains(name) {
            do {
                sets.append(try SoundFolder.load("\(folder)/\(name)", name: name, sampleRate: sampleRate))
            } catch {
                logger.warning("sound set \(folder)/\(name) skipped: \(error.message)")
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
