// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import ClickEngine
import HAL
import LinuxHAL
import Logging
import TactusApp
import TactusCore

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

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ExitError("--log-level '\(logLevel)' is invalid: allowed trace, debug, info, notice, warning, error, critical")
        }
        let configuration = config == nil ? ConfigurationFile() : try BoxLocations(config: config).configuration()
        let definition = try board.map { try BoardLoader.load($0) } ?? SimulatorBoard.definition(configuration)
        try SimulatorBoard.checkUsable(definition)
        // The command's own input first: a bad flag or script must touch nothing in the
        // state folder (no lock file, no settings file kept aside).
        var parsed: SimulationScript?
        if headless {
            guard let scriptPath = script else { throw ExitError("--headless needs --script FILE") }
            guard let outPath = out else { throw ExitError("--headless needs --out DIR") }
            guard !outPath.isEmpty else { throw ExitError("--out '' is invalid: give a folder for audio.wav, events.jsonl and frames/") }
            let text = try InputFile.text(scriptPath, flag: "--script")
            do { parsed = try SimulationScript(text: text, file: scriptPath) } catch { throw ExitError(error.description) }
        } else {
            guard script == nil, out == nil, !realtime else { throw ExitError("--script, --out and --realtime need --headless") }
        }
        if let state { try BoxLocations.checkFolder(state, flag: "--state") }
        let logger = Log.bootstrap(level: level)
        let persistence: any SettingsPersistence
        var saved = SavedState()
        var problem: String?
        var notice: String?
        var stateLock: StateLock?
        defer { withExtendedLifetime(stateLock) {} }
        if let state {
            let lockProblem: String?
            (stateLock, lockProblem) = try BoxLocations(state: state).lockStateOrPlayUnsaved(configuration)
            let store = SettingsStore(path: "\(state)/settings.toml")
            let loaded = BoxLocations.load(store, lockProblem: lockProblem)
            (saved, problem, notice, persistence) = (loaded.saved, loaded.problem, loaded.notice, store)
        } else {
            persistence = MemoryPersistence()
        }
        let sounds = BoxLocations.userSounds(configuration, sampleRate: definition.audio.sampleRate, logger: logger)

        if let parsed, let outPath = out {
            let files = try SimulationFiles(folder: outPath, format: definition.audio)
            let simulation = try HeadlessSimulation(board: definition, configuration: configuration, saved: saved, problem: problem,
                                                    notice: notice, persistence: persistence, userSounds: sounds, output: files, logger: logger)
            if let input {
                let take = try CoachJob.readTake(input, flag: "--input")
                guard take.sampleRate == definition.audio.sampleRate else {
                    throw ExitError("--input \(Escaped.quoted(input)) is invalid: its rate is \(take.sampleRate) Hz; the board plays at \(definition.audio.sampleRate) Hz")
                }
                simulation.coach = SimulatedCoach(take: CoachJob.firstChannel(take), sampleRate: take.sampleRate)
            }
            let ended = try simulation.run(parsed, pacer: realtime ? RealtimePacer() : nil)
            try files.finish()
            print("Simulated \(ended.decimalDescription) s: \(outPath)/audio.wav, \(outPath)/events.jsonl, \(files.frameCount) frames in \(outPath)/frames/")
        } else {
            guard script == nil, out == nil, input == nil else { throw ExitError("--script, --out and --input need --headless") }
            try await InteractiveSimulation.run(board: definition, configuration: configuration, saved: saved, problem: problem,
                                                notice: notice, persistence: persistence, userSounds: sounds, logger: logger)
        }
    }
}

/// Settings kept in memory only: a simulation without --state leaves no files behind.
final class MemoryPersistence: SettingsPersistence, @unchecked Sendable {
    private(set) var last: SavedState?
    func save(_ saved: SavedState) throws { last = saved }
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
        let outputs = Indicator.allCases.enumerated().map { OutputLineDefinition(indicator: $1, chipLabel: "simulator", line: .offset(10 + $0)) }
        return BoardDefinition(identifier: "simulator", model: "Tactus simulator", inputs: inputs, outputs: outputs,
                               display: DisplayDefinition(controller: .ssd1306, address: I2CAddress(0x3C)!), audio: AudioDefinition())
    }
}

/// audio.wav (32-bit float: exactly the rendered samples), events.jsonl and frames/.
final class SimulationFiles: SimulationOutput {
    let folder: String
    private let encoder: WAVEncoder
    private let wav: OutputFile
    private let events: OutputFile
    private var dataBytes = 0
    private var pending: [UInt8] = []
    private(set) var frameCount = 0

    init(folder: String, format: AudioDefinition) throws {
        self.folder = folder
        do { try FileSystem.createFolders("\(folder)/frames") } catch {
            throw ExitError("--out '\(folder)' cannot be created: \(error)")
        }
        // The board's channel count: the samples are interleaved that way.
        encoder = WAVEncoder(sampleRate: format.sampleRate, channels: format.channels, format: .f32)
        do {
            wav = try OutputFile(creating: "\(folder)/audio.wav")
            try wav.write(encoder.header(dataByteCount: 0))
            events = try OutputFile(creating: "\(folder)/events.jsonl")
        } catch { throw ExitError("--out '\(folder)': cannot create audio.wav and events.jsonl there (\(error))") }
    }

    func audio(_ interleaved: [Float]) throws {
        let before = pending.count
        interleaved.withUnsafeBufferPointer { encoder.encode($0, into: &pending) }
        dataBytes += pending.count - before
        if pending.count >= 1 << 16 { try flush() }
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

    private func flush() throws {
        try wav.write(pending)
        pending.removeAll(keepingCapacity: true)
    }

    func finish() throws {
        try flush()
        try wav.write(encoder.padding(dataByteCount: dataBytes))
        try wav.rewrite(at: 0, encoder.header(dataByteCount: dataBytes))
        try wav.close()
        try events.close()
    }
}
