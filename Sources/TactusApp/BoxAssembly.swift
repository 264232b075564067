import ClickEngine
import HAL
import Logging
import TactusCore

/// What a box is made of. `tactus run` fills it with LinuxHAL parts, `tactus simulate`
/// with SimHAL parts; everything after this point is the same code.
public struct BoxParts {
    public var board: BoardDefinition
    public var configuration: ConfigurationFile
    public var audio: AudioOutput
    public var input: any InputEventSource
    public var display: (any MonochromeDisplay)?
    public var indicators: any IndicatorOutput
    public var persistence: any SettingsPersistence
    public var clock: any MonotonicClock
    /// Sound sets loaded from the sounds folder, besides the built-in ones.
    public var userSounds: [SoundSet]

    public init(board: BoardDefinition, configuration: ConfigurationFile, audio: AudioOutput, input: any InputEventSource,
                display: (any MonochromeDisplay)?, indicators: any IndicatorOutput, persistence: any SettingsPersistence,
                clock: any MonotonicClock, userSounds: [SoundSet] = []) {
        self.board = board
        self.configuration = configuration
        self.audio = audio
        self.input = input
        self.display = display
        self.indicators = indicators
        self.persistence = persistence
        self.clock = clock
        self.userSounds = userSounds
    }
}

public enum BoxAssembly {
    /// The engine for the negotiated format and the box around it, with the saved state
    /// (or defaults and the problem, when the settings file was unusable). `tactus run` does
    /// not call this itself: `BoxService` does, and hands the box to its control loop.
    public static func makeBox(_ parts: BoxParts, saved: SavedState, problem: String?, logger: Logger) throws -> Box {
        let format = parts.audio.format
        let soundNames = BuiltInSounds.names + parts.userSounds.map(\.name)
        var saved = saved
        var problem = problem
        if !soundNames.contains(saved.settings.sound) {
            problem = [problem, "sound '\(saved.settings.sound)' is gone; using \(BuiltInSounds.defaultName)"].compactMap { $0 }.joined(separator: "; ")
            saved.settings.sound = BuiltInSounds.defaultName
        }
        let engine = try ClickEngine(sampleRate: format.sampleRate, channels: format.channels,
                                     maxFrameCount: max(format.periodFrames, 1) * 4, settings: MetronomeSettings())
        for set in parts.userSounds { engine.register(set) }
        let now = parts.clock.now()
        let lines = (try? parts.input.currentStates()) ?? [:]
        let state = try BoxState(saved: saved, problem: problem, soundNames: soundNames,
                                 encoderStepsPerDetent: parts.board.encoder.stepsPerDetent,
                                 reverseEncoder: parts.board.encoder.reverse,
                                 encoderContacts: (lines[.encoderA] ?? false, lines[.encoderB] ?? false),
                                 buttonTiming: parts.configuration.buttonTiming, at: now)
        if let problem { logger.warning("settings: \(problem)") }
        return Box(board: parts.board, state: state, engine: engine, audio: parts.audio, display: parts.display,
                   indicators: parts.indicators, persistence: parts.persistence, at: now,
                   report: { logger.warning("\($0)") }, inform: { logger.info("\($0)") })
    }
}
