// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import Devices
import HAL
import TactusBase
import LinuxHAL
import TactusStorage
import Logging
import ServiceLifecycle
import TactusApp
import TactusInstrument
import UnixSignals
import TactusInstrument
import UnixSignals

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "The box's service: GPIO controls, OLED, LEDs, buzzer and clicks on ALSA (what systemd starts).",
        discussion: "Stops gracefully on SIGTERM or SIGINT: clicks in flight finish, settings are saved, the screen is cleared and the LEDs turned off."
    )

    @Option(help: "Configuration file (default /etc/tactus/config.toml; missing means defaults).") var config: String?
    @Option(help: "Board file or name such as pi4b (default: the configuration's board, else /etc/tactus/board.toml).") var board: String?
    @Option(help: "State folder holding settings.toml (default: the configuration's settings_file, /var/lib/tactus/settings.toml).")
    var state: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"
    @Option(help: "Sync source for this run: internal, midi or link (default: the saved Menu > Settings > Sync).") var sync: String?
    @Option(help: "The control socket for `tactus ctl` and the companion (empty: none).") var control = ControlSocketLink.defaultPath

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ExitError("--log-level '\(logLevel)' is invalid: allowed trace, debug, info, notice, warning, error, critical")
        }
        let source = try SyncOption.parse(sync)
        let locations = BoxLocations(config: config, board: board, state: state)
        let configuration = try locations.configuration()
        let definition = try locations.boardDefinition(configuration)
        let (stateLock, lockProblem) = try locations.lockStateOrPlayUnsaved(configuration)
        defer { withExtendedLifetime(stateLock) {} }
        let logger = Log.bootstrap(level: level)
        let hal = HALLog { severity, message in
            switch severity {
            case .info: logger.info("\(message)")
            case .warning: logger.warning("\(message)")
            case .error: logger.error("\(message)")
            }
        }
        let store = SettingsStore(path: locations.settingsPath(configuration))
        var parts = try Self.hardwareParts(definition, configuration: configuration, persistence: store, log: hal, logger: logger)
        var loaded = BoxLocations.load(store, lockProblem: lockProblem)
        if let source { loaded.saved.preferences.sync = source }
        let midi = MIDISetup(configuration.midi, log: hal)
        parts.midiSender = midi.sender
        let service: BoxService
        do {
            service = try BoxService(parts: parts, saved: loaded.saved, problem: loaded.problem, notice: loaded.notice, logger: logger,
                                     startedAt: SystemMonotonicClock.processStart())
        } catch {
            midi.stop()
            throw ExitError("\(error)", code: 1)
        }
        midi.startInput({ [loop = service.loop] message, nanoseconds in
            loop.post(message, at: MonotonicTime(nanoseconds: nanoseconds))
        }, log: hal)
        logger.info("tactus run: \(definition.model) (\(definition.identifier)), settings \(store.path)")
        var root = BoxRoot(logger: logger)
        root.stopAtTheEnd { midi.stop(log: hal) }
        root.add(service)
        // The control socket is for `tactus ctl` and the companion; without it the box still plays.
        if !control.isEmpty {
            let files = LinuxControlFiles(practicePath: SettingsStore.practiceLogPath(besides: store.path), soundsFolder: configuration.soundsFolder,
                                          sampleRate: parts.audio.format.sampleRate)
            do {
                let link = try ControlSocketLink(path: control, loop: service.loop, files: files,
                                                 configuration: CompanionConfiguration(listen: configuration.webListen))
                root.stopAtTheEnd { link.stop() }
                logger.info("control socket: \(control)")
            } catch { logger.error("control socket \(control): \(error); tactus ctl and the companion cannot reach the box") }
        }
        do { try await root.run(signals: [.sigterm, .sigint]) } catch {
            throw ExitError("\(error)", code: 1)
        }
        logger.info("stopped")
    }

    /// The box's parts on the board: GPIO (fatal without it: it is the box's controls), the
    /// display (retried while missing), ALSA with the silent clock behind it, Link and the
    /// coach's input.
    static func hardwareParts(_ definition: BoardDefinition, configuration: ConfigurationFile, persistence: SettingsStore,
                              log hal: HALLog, logger: Logger) throws -> BoxParts {
        let clock = SystemMonotonicClock()
        let inputs: LinuxGPIOInputs
        let outputs: LinuxGPIOOutputs
        do {
            inputs = try LinuxGPIOInputs(definition.inputs, log: hal)
            outputs = try LinuxGPIOOutputs(definition.outputs)
        } catch {
            throw ExitError("GPIO: \(error)", code: 1)
        }
        let display: (any MonochromeDisplay)? = definition.display.map { display in
            ResilientDisplay(ReopeningI2CDisplay(display), clock: clock) { status in
                switch status {
                case .working: logger.info("display: working")
                case .unavailable(let error): logger.error("display: \(error); running without it, retrying every 5 s")
                }
            }
        }
        let audioFormat = AudioFormat(sampleRate: definition.audio.sampleRate, channels: definition.audio.channels,
                                      periodFrames: definition.audio.periodFrames,
                                      bufferFrames: definition.audio.periodFrames * definition.audio.periodCount)
        let audio: AudioOutput
        do {
            audio = try AudioOutput(device: ALSASink(ALSASink.Configuration(definition.audio), log: hal),
                                    silent: SilentClockSink(format: audioFormat))
        } catch { throw ExitError("audio: \(error)", code: 1) }
        return BoxParts(board: definition, configuration: configuration, audio: audio, input: inputs, display: display,
                        indicators: outputs, persistence: persistence, clock: clock,
                        userSounds: BoxLocations.userSounds(configuration, sampleRate: audio.format.sampleRate, logger: logger),
                        link: AbletonLink(tempo: 120),
                        capture: configuration.coachInput.map { device in
                            var capture = ALSACapture.Configuration(device: device)
                            capture.sampleRate = audio.format.sampleRate
                            return ALSACapture(capture, log: hal)
                        })
    }
}
