// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import HAL
import TactusBase
import Logging
import TactusMusic
import TactusInstrument

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
    /// The Ableton Link session for Sync: Link (none: the setting has no effect).
    public var link: (any LinkSession)?
    /// Where the engine's MIDI messages go (`tactus run`: the MIDI clock thread), if anywhere.
    public var midiSender: (any MIDISender)?
    /// The coach's audio input (`[coach] input`; none: the coach hears no microphone).
    public var capture: (any AudioCapture)?
    /// A missing sound device is said on the box's screen (a notice). The terminal simulator
    /// says it in its own status line instead, so the screen stays visible.
    public var soundNoticeOnScreen = true

    public init(board: BoardDefinition, configuration: ConfigurationFile, audio: AudioOutput, input: any InputEventSource,
                display: (any MonochromeDisplay)?, indicators: any IndicatorOutput, persistence: any SettingsPersistence,
                clock: any MonotonicClock, userSounds: [SoundSet] = [], link: (any LinkSession)? = nil,
                capture: (any AudioCapture)? = nil) {
        self.link = link
        self.capture = capture
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
    /// `notice`: the problem as the screen shows it (the log gets `problem` whole).
    public static func makeBox(_ parts: BoxParts, saved: SavedState, problem: String?, notice: String? = nil,
                               logger: Logger) throws -> Box {
        let format = parts.audio.format
        var soundNames = BuiltInSounds.names + parts.userSounds.map(\.name)
        var problem = problem
        var notice = notice ?? problem
        var userSounds = parts.userSounds
        let wanted = saved.settings.sound
        if !soundNames.contains(wanted) {
            // The saved sound did not load (a folder removed or broken): it plays as the
            // default for this run only. The setting keeps its name, so the sound is back
            // once its folder loads again.
            problem = [problem, "sound '\(wanted)' could not be loaded; playing \(BuiltInSounds.defaultName) in its place until it loads again"]
                .compactMap { $0 }.joined(separator: "; ")
            notice = [notice, "Sound \(wanted) missing: playing \(BuiltInSounds.defaultName)"].compactMap { $0 }.joined(separator: "; ")
            if let standIn = BuiltInSounds.make(BuiltInSounds.defaultName, sampleRate: format.sampleRate) {
                userSounds.append(SoundSet(name: wanted, accent: standIn.accent, beat: standIn.beat, subdivision: standIn.subdivision))
                soundNames.append(wanted)
            }
        }
        var saved = saved
        if !soundNames.contains(saved.settings.sound) { saved.settings.sound = BuiltInSounds.defaultName }
        let engine = try ClickEngine(sampleRate: format.sampleRate, channels: format.channels,
                                     maxFrameCount: max(format.periodFrames, 1) * 4, settings: MetronomeSettings())
        for set in userSounds { engine.register(set) }
        let now = parts.clock.now()
        let lines = (try? parts.input.currentStates()) ?? [:]
        let state = try BoxState(saved: saved, problem: notice, soundNames: soundNames,
                                 encoderStepsPerDetent: parts.board.encoder.stepsPerDetent,
                                 reverseEncoder: parts.board.encoder.reverse,
                                 encoderContacts: (lines[.encoderA] ?? false, lines[.encoderB] ?? false),
                                 buttonTiming: parts.configuration.buttonTiming, at: now)
        if let problem { logger.warning("settings: \(problem)") }
        let box = Box(board: parts.board, state: state, engine: engine, audio: parts.audio, display: parts.display,
                      indicators: parts.indicators, persistence: parts.persistence, at: now,
                      report: { logger.warning("\($0)") }, inform: { logger.info("\($0)") })
        box.link = parts.link
        box.coachTuning = CoachTuning(perWholeNote: parts.configuration.coachGrid,
                                      midiOffsetNanoseconds: Int64(parts.configuration.coachMIDIOffsetMilliseconds) * 1_000_000,
                                      midi: parts.configuration.coachMIDI)
        box.midiConfiguration = parts.configuration.midi
        box.midiSender = parts.midiSender
        // A settings file on disk keeps the practice log beside it.
        box.practiceLog = parts.persistence as? any PracticeLogStore
        return box
    }
}
