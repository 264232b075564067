// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import ClickEngine
import Glibc
import HAL
import LinuxHAL
import TactusStorage
import Logging
import ServiceLifecycle
import TactusApp
import TactusSimulation
import TactusInstrument
import TactusScreen
import Synchronization
import TactusBase

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "The whole box without the hardware: in the terminal, or headless from a script.",
        discussion: """
            Interactive: the screen in the terminal, keys for the wheel and buttons, sound on the ALSA default device.
            Headless: --headless --script FILE --out DIR runs on simulated time and writes DIR/audio.wav,
            DIR/events.jsonl and DIR/frames/<milliseconds>.pbm. With --realtime it runs at real speed on the real
            clock (events then carry mono, CLOCK_MONOTONIC seconds); SIGTERM or SIGINT end it as 'end' does.
            """
    )

    @Flag(help: "Run a script on simulated time instead of the terminal.") var headless = false
    @Flag(help: "Run the headless script at real speed on the real clock (no sound device).") var realtime = false
    @Option(help: "The input script (headless).") var script: String?
    @Option(help: "Folder for audio.wav, events.jsonl and frames/ (headless).") var out: String?
    @Option(help: "Board file or name (default: pi4b's wiring).") var board: String?
    @Option(help: "Configuration file (default: none).") var config: String?
    @Option(help: "State folder for settings.toml (default: settings are not saved).") var state: String?
    @Option(help: "A take (WAV) the box's input hears from simulated time 0: hits in events.jsonl (headless).") var input: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "warning"
    @Option(help: "Sync source: internal, midi or link (link needs --realtime when headless).") var sync: String?
    @Option(help: "Start the browser companion (tactus-web) against the simulated box on ADDR:PORT, e.g. 127.0.0.1:8080.")
    var web: String?
    @Option(help: "Serve the simulated box's control socket here (default: none; with --web, /run/tactus/control.sock when this user may and no box serves it, else /tmp/tactus-UID/control.sock, else a private temporary folder).")
    var control: String?

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ExitError("--log-level '\(logLevel)' is invalid: allowed trace, debug, info, notice, warning, error, critical")
        }
        let source = try SyncOption.parse(sync)
        if source == .link && headless && !realtime {
            throw ExitError("--sync link needs --realtime: a Link session runs on the real clock, not on simulated time")
        }
        let configuration = config == nil ? ConfigurationFile() : try BoxLocations(config: config).configuration()
        let definition = try board.map { try BoardLoader.load($0) } ?? SimulatorBoard.definition(configuration)
        try SimulatorBoard.checkUsable(definition)
        let webAddress: ListenAddress? = try web.map { text in
            guard let address = ListenAddress(text) else {
                throw ExitError("--web '\(text)' is invalid: allowed an IPv4 address and port such as 127.0.0.1:8080")
            }
            return address
        }
        // The command's own input first: a bad flag or script must touch nothing in the
        // state folder (no lock file, no settings file kept aside).
        let headlessInput = try checkedHeadlessInput()
        if let state { try BoxLocations.checkFolder(state, flag: "--state") }
        if headless, !realtime, webAddress != nil || control != nil {
            throw ExitError("--web and --control need the simulation in real time: interactive, or --headless --realtime")
        }
        let logger = Log.bootstrap(level: level)
        var (stateLock, loaded) = try loadState(configuration)
        defer { withExtendedLifetime(stateLock) {} }
        if let source { loaded.saved.preferences.sync = source }
        let start = SimulationStart(board: definition, configuration: configuration, loaded: loaded,
                                    userSounds: BoxLocations.userSounds(configuration, sampleRate: definition.audio.sampleRate, logger: logger),
                                    web: webAddress, control: control, practicePath: state.map { "\($0)/practice.toml" }, logger: logger)
        if let headlessInput {
            try await runHeadless(start, script: headlessInput.script, take: headlessInput.take)
        } else {
            try await InteractiveSimulation.run(start)
        }
    }

    /// The script and the take of a headless run (nil when interactive), checked.
    private func checkedHeadlessInput() throws -> (script: SimulationScript, take: DecodedAudio?)? {
        guard headless else {
            guard script == nil, out == nil, input == nil, !realtime else { throw ExitError("--script, --out, --input and --realtime need --headless") }
            return nil
        }
        guard let scriptPath = script else { throw ExitError("--headless needs --script FILE") }
        guard out != nil || realtime else { throw ExitError("--headless needs --out DIR (or --realtime, which may run without one)") }
        guard out != "" else { throw ExitError("--out '' is invalid: give a folder for audio.wav, events.jsonl and frames/") }
        let text = try InputFile.text(scriptPath, flag: "--script")
        let parsed: SimulationScript
        do { parsed = try SimulationScript(text: text, file: scriptPath) } catch { throw ExitError(error.description) }
        return (parsed, try input.map { try CoachJob.readTake($0, flag: "--input") })
    }

    /// The settings of `--state` (locked for this process), or defaults kept in memory.
    private func loadState(_ configuration: ConfigurationFile) throws -> (StateLock?, LoadedState) {
        guard let state else { return (nil, LoadedState(saved: SavedState(), persistence: MemoryPersistence())) }
        let (stateLock, lockProblem) = try BoxLocations(state: state).lockStateOrPlayUnsaved(configuration)
        let store = SettingsStore(path: "\(state)/settings.toml")
        let loaded = BoxLocations.load(store, lockProblem: lockProblem)
        return (stateLock, LoadedState(saved: loaded.saved, problem: loaded.problem, notice: loaded.notice, persistence: store))
    }

    /// The script on simulated time (or paced on the real clock), with the control socket
    /// or the companion beside it when asked: one service that ends the run at `end`.
    private func runHeadless(_ start: SimulationStart, script parsed: SimulationScript, take: DecodedAudio?) async throws {
        let definition = start.board
        // In real time without --out (a box for the companion or `tactus ctl` alone), the
        // outputs go to a private temporary folder, removed when the run ends.
        let scratch = out == nil ? try SimulateCommand.scratchFolder() : nil
        defer { if let scratch { SimulateCommand.remove(scratch) } }
        let outPath = out ?? scratch!
        let files = try SimulationFiles(folder: outPath, format: definition.audio)
        // On the real clock the box has a Link session (used when Sync is Link), its times
        // counted from the pacer's origin.
        let pacer = realtime ? RealtimePacer() : nil
        let link = pacer.flatMap { pacer in AbletonLink(tempo: 120, origin: { pacer.originNanoseconds }) }
        let simulation = try HeadlessSimulation(board: definition, configuration: start.configuration, saved: start.loaded.saved,
                                                problem: start.loaded.problem, notice: start.loaded.notice,
                                                persistence: start.loaded.persistence, userSounds: start.userSounds, output: files,
                                                link: link, logger: start.logger)
        if let take {
            guard take.sampleRate == definition.audio.sampleRate else {
                throw ExitError("--input \(Escaped.quoted(input ?? "")) is invalid: its rate is \(take.sampleRate) Hz; the board plays at \(definition.audio.sampleRate) Hz")
            }
            simulation.coach = SimulatedCoach(take: CoachJob.firstChannel(take), sampleRate: take.sampleRate)
        }
        var root = BoxRoot(logger: start.logger)
        let summary: (folder: String, toStandardError: Bool)? = scratch != nil ? nil : (outPath, start.web != nil)
        root.add(HeadlessRun(simulation: simulation, script: parsed, pacer: pacer, files: files, summary: summary), endsTheRun: true)
        // The control socket's requests run between the simulation's steps, on its thread.
        let queue = ControlQueue()
        let listening = try await start.serveControl(post: queue.post, pump: { queue.drain(simulation.box) }) { code in
            SimulatedCompanion.switchOn(simulation.box, code: code)
        }
        // The companion starts before the run; the pacer takes its origin when the run
        // begins, so the beats' CLOCK_MONOTONIC times are offset by it from then on.
        if let listening {
            root.stopAtTheEnd(listening.stop)
            if let pacer {
                simulation.betweenSteps = { box in
                    (box.controlObserver as? ControlHub)?.clockOffset = pacer.originNanoseconds
                    queue.drain(box)
                }
            }
        }
        // SIGTERM and SIGINT end a paced run as `end` does (the pacer's own handlers).
        try await root.run(signals: [])
    }
}

/// What both simulations start from: the board, the configuration, the loaded state and
/// where the control socket and the companion go.
struct SimulationStart {
    let board: BoardDefinition
    let configuration: ConfigurationFile
    let loaded: LoadedState
    let userSounds: [SoundSet]
    let web: ListenAddress?
    let control: String?
    let practicePath: String?
    let logger: Logger

    /// The companion (`--web`: tactus-web against a control socket) or the control socket
    /// alone (`--control`), or nothing.
    func serveControl(post: @escaping ControlSocketLink.Post, pump: (() -> Void)?,
                      switchOn: (String) async -> Void) async throws -> ControlServing? {
        if let web {
            let companion = try await SimulatedCompanion.start(post: post, listen: web, practicePath: practicePath,
                                                               soundsFolder: configuration.soundsFolder, sampleRate: board.audio.sampleRate,
                                                               control: control, pump: pump, switchOn: switchOn)
            return ControlServing(stop: { companion.stop() }, companionLine: companion.line)
        }
        guard let control else { return nil }
        do {
            let link = try ControlSocketLink(path: control, post: post,
                                             files: LinuxControlFiles(practicePath: nil, soundsFolder: nil, sampleRate: board.audio.sampleRate),
                                             configuration: CompanionConfiguration(listen: configuration.webListen))
            return ControlServing(stop: { link.stop() }, companionLine: nil)
        } catch { throw ExitError("--control '\(control)': \(error)", code: 1) }
    }
}

/// What `serveControl` started: how to stop it, and the companion's printed line.
struct ControlServing {
    let stop: @Sendable () -> Void
    let companionLine: String?
}

/// The settings a simulation starts with and where its changes go.
struct LoadedState {
    var saved: SavedState
    var problem: String?
    var notice: String?
    var persistence: any SettingsPersistence
}

/// The headless simulation as the run's one box service: the script to its end, the save
/// `run` does when it stops, the outputs closed and summed up.
private final class HeadlessRun: Service, @unchecked Sendable {
    // Touched by the one task that runs it.
    private let simulation: HeadlessSimulation
    private let script: SimulationScript
    private let pacer: RealtimePacer?
    private let files: SimulationFiles
    /// Where the summary line goes (nil: a scratch folder, no line).
    private let summary: (folder: String, toStandardError: Bool)?

    init(simulation: HeadlessSimulation, script: SimulationScript, pacer: RealtimePacer?, files: SimulationFiles,
         summary: (folder: String, toStandardError: Bool)?) {
        self.simulation = simulation
        self.script = script
        self.pacer = pacer
        self.files = files
        self.summary = summary
    }

    func run() async throws {
        let ended = try simulation.run(script, pacer: pacer)
        // At `end` and on SIGTERM or SIGINT (which end a paced run), as `run` does when it stops:
        // the debounced save may still be waiting.
        simulation.box.saveNow()
        if let pacer, pacer.worstLateness > 5_000_000 {
            FileSystem.writeStandardError("tactus: warning: the real-time run fell up to \(pacer.worstLateness / 1_000_000) ms behind the clock (a busy machine)\n")
        }
        try files.finish()
        guard let summary else { return }
        let line = "Simulated \(ended.decimalDescription) s: \(summary.folder)/audio.wav, \(summary.folder)/events.jsonl, \(files.frameCount) frames in \(summary.folder)/frames/"
        // With --web, the companion's line is the only one on standard output.
        if summary.toStandardError { FileSystem.writeStandardError(line + "\n") } else { print(line) }
    }
}

extension SimulateCommand {
    /// A private folder for a real-time run's outputs when no --out is given.
    static func scratchFolder() throws -> String {
        var template = Array("/tmp/tactus-realtime-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ExitError("cannot make a temporary folder in /tmp for the run's outputs", code: 1) }
        return String(cString: made)
    }

    /// Removes that folder: audio.wav, events.jsonl and frames/.
    static func remove(_ folder: String) {
        for name in FileSystem.entries(of: "\(folder)/frames") ?? [] { unlink("\(folder)/frames/\(name)") }
        rmdir("\(folder)/frames")
        for name in FileSystem.entries(of: folder) ?? [] { unlink("\(folder)/\(name)") }
        rmdir(folder)
    }
}

/// Settings kept in memory only: a simulation without --state leaves no files behind.
final class MemoryPersistence: SettingsPersistence, Sendable {
    private let saved = Mutex<SavedState?>(nil)
    var last: SavedState? { saved.withLock { $0 } }
    func save(_ saved: SavedState) throws { self.saved.withLock { $0 = saved } }
}

/// The Pi boards' wiring, for simulating without a board file at hand.
enum SimulatorBoard {
    /// A board the simulation can drive: scripts and keys turn the wheel (encoder A and B)
    /// and press buttons, so a board without them is refused, not silently half-working.
    static func checkUsable(_ board: BoardDefinition) throws {
        let missing = [InputRole.encoderA, .encoderB].filter { board.input($0) == nil }
        guard missing.isEmpty else {
            let names = missing.map { "[inputs.\($0.rawValue)]" }.joined(separator: " and ")
            throw ExitError("board '\(board.identifier)' cannot be simulated: it has no \(names); the wheel needs encoder_a and encoder_b")
        }
    }

    /// The configuration's board (an error there is reported, never replaced), else pi4b's
    /// board file when one is found, else the same wiring built in.
    static func definition(_ configuration: ConfigurationFile) throws -> BoardDefinition {
        if let named = configuration.board {
            return try BoardLoader.load(named, origin: "\(configuration.boardSource ?? "configuration"): board")
        }
        if let board = try? BoardLoader.load("pi4b") { return board }
        let inputs = InputRole.allCases.enumerated().map { InputLineDefinition(role: $1, chipLabel: "simulator", line: .offset($0)) }
        let outputs = IndicatorChannel.allCases.enumerated().map { OutputLineDefinition(indicator: $1, chipLabel: "simulator", line: .offset(10 + $0)) }
        return BoardDefinition(identifier: "simulator", model: "Tactus simulator", inputs: inputs, outputs: outputs,
                               display: DisplayDefinition(controller: .ssd1306, address: I2CAddress(0x3C)!), audio: AudioDefinition())
    }
}

/// audio.wav (32-bit float: exactly the rendered samples), events.jsonl and frames/.
final class SimulationFiles: SimulationOutput {
    let folder: String
    private let wav: OutputFile
    private var writer: WAVStreamWriter<SystemError>
    private let events: OutputFile
    private(set) var frameCount = 0

    init(folder: String, format: AudioDefinition) throws {
        self.folder = folder
        do { try FileSystem.createFolders("\(folder)/frames") } catch {
            throw ExitError("--out '\(folder)' cannot be created: \(error)")
        }
        // The board's channel count: the samples are interleaved that way.
        let encoder = WAVEncoder(sampleRate: format.sampleRate, channels: format.channels, format: .f32)
        do {
            let wav = try OutputFile(creating: "\(folder)/audio.wav")
            self.wav = wav
            writer = try WAVStreamWriter(encoder, write: wav.write, rewrite: wav.rewrite)
            events = try OutputFile(creating: "\(folder)/events.jsonl")
        } catch { throw ExitError("--out '\(folder)': cannot create audio.wav and events.jsonl there (\(error))") }
    }

    func audio(_ interleaved: [Float]) throws {
        try interleaved.withUnsafeBufferPointer { samples throws(SystemError) in try writer.append(samples) }
    }

    func event(_ line: String) throws { try events.write(Array((line + "\n").utf8)) }

    func frame(_ frame: Bitmap, milliseconds: Int64) throws {
        var name = String(max(milliseconds, 0))
        while name.count < 8 { name = "0" + name }
        let file = try OutputFile(creating: "\(folder)/frames/\(name).pbm")
        try file.write(Array(PBM.encode(frame).utf8))
        try file.close()
        frameCount += 1
    }

    func finish() throws {
        try writer.finish()
        try wav.close()
        try events.close()
    }
}

/// `--sync internal|link` (run and simulate): overrides the saved Menu > Settings > Sync.
enum SyncOption {
    static func parse(_ value: String?) throws -> SyncSource? {
        guard let value else { return nil }
        guard let source = SyncSource(rawValue: value) else {
            throw ExitError("--sync '\(value)' is invalid: allowed \(SyncSource.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return source
    }
}
