// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import HAL
import LinuxHAL
import TactusStorage
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import SimHAL
import Synchronization
import Testing
@testable import TactusApp
import TactusMusic
import TactusInstrument
import TactusBase

/// Everything the box's parts were asked to do, in order, and whether it happened on the
/// box's control thread.
final class PartsLog: Sendable {
    let entries = Mutex<[(what: String, onControlThread: Bool)]>([])
    let loop = Mutex<ControlLoop?>(nil)

    func record(_ what: String) {
        let onControl = loop.withLock { $0?.isControlThread ?? false }
        entries.withLock { $0.append((what, onControl)) }
    }

    var names: [String] { entries.withLock { $0.map(\.what) } }
    /// The start and stop steps: runs of the same entry once (four indicators switched off
    /// in a row is one step), without what the running box does (frames, buzzer pulses).
    var steps: [String] {
        names.filter { $0 != "display frame" && $0 != "pulse" }.reduce(into: []) { if $0.last != $1 { $0.append($1) } }
    }
}

final class LoggingDisplay: MonochromeDisplay, @unchecked Sendable {
    let width = 128, height = 64
    let log: PartsLog
    init(_ log: PartsLog) { self.log = log }
    func initialize() { log.record("display on") }
    func show(_ frame: Bitmap) { log.record(frame == blankFrame() ? "display blank" : "display frame") }
    func setContrast(_ level: UInt8) {}
    func setSleeping(_ sleeping: Bool) { log.record(sleeping ? "display sleep" : "display wake") }
}

final class LoggingIndicators: IndicatorOutput {
    let log: PartsLog
    init(_ log: PartsLog) { self.log = log }
    func pulse(_ indicator: IndicatorChannel, at start: MonotonicTime, lastingNanoseconds nanoseconds: Int64) { log.record("pulse") }
    func set(_ indicator: IndicatorChannel, on: Bool) { log.record(on ? "indicator on" : "indicators off") }
}

final class LoggingInput: InputEventSource {
    let log: PartsLog
    let lines = ScriptedInput()
    let failStart: Bool
    init(_ log: PartsLog, failStart: Bool = false) { self.log = log; self.failStart = failStart }
    func currentStates() throws(HALError) -> [InputRole: Bool] { try lines.currentStates() }
    func start(_ handler: @escaping @Sendable (LineEdge) -> Void) throws(HALError) {
        log.record("input start")
        if failStart { throw HALError(.busy, "GPIO line in use") }
        try lines.start(handler)
    }
    func stop() { log.record("input stop"); lines.stop() }
}

final class LoggingSink: AudioSink {
    let log: PartsLog
    let sink = OfflineAudioSink()
    init(_ log: PartsLog) { self.log = log }
    func negotiate() throws(HALError) -> AudioFormat { try sink.negotiate() }
    func start(_ renderer: any AudioRenderer) throws(HALError) { log.record("audio start"); try sink.start(renderer) }
    func stop() { log.record("audio stop"); sink.stop() }
    var outputDelayFrames: Int { 0 }
    var xrunCount: Int { 0 }
    var outputPosition: AudioOutputPosition { sink.outputPosition }
}

/// The settings file for real (SettingsStore), each save logged.
final class LoggingStore: SettingsPersistence {
    let log: PartsLog
    let store: SettingsStore
    init(_ log: PartsLog, path: String) { self.log = log; store = SettingsStore(path: path) }
    func save(_ saved: SavedState) throws {
        log.record("save")
        try store.save(saved)
    }
}

struct ServiceUnderTest {
    let service: BoxService
    let log: PartsLog
    let input: LoggingInput
    let clock: ManualClock
    let store: SettingsStore
    let folder: String

    init(failInputStart: Bool = false) throws {
        var template = Array("/tmp/tactus-service-XXXXXX".utf8CString)
        folder = String(cString: mkdtemp(&template)!)
        log = PartsLog()
        input = LoggingInput(log, failStart: failInputStart)
        clock = ManualClock(start: MonotonicTime(nanoseconds: 1_000_000_000))
        let persistence = LoggingStore(log, path: folder + "/settings.toml")
        store = persistence.store
        let audio = try AudioOutput(device: LoggingSink(log), silent: LoggingSink(log))
        let parts = BoxParts(board: testBoard(), configuration: ConfigurationFile(), audio: audio, input: input,
                             display: LoggingDisplay(log), indicators: LoggingIndicators(log), persistence: persistence, clock: clock)
        service = try BoxService(parts: parts, saved: SavedState(), problem: nil, logger: quietLogger)
        log.loop.withLock { $0 = service.loop }
    }

    func removeFolder() {
        unlink(folder + "/settings.toml")
        rmdir(folder)
    }

    func waitUntilRunning() async throws {
        for _ in 0..<2000 where service.phase == .starting { try await Task.sleep(for: .milliseconds(1)) }
        try #require(service.phase == .running)
    }

    /// One clockwise detent, its last edge now; then the clock moves on by `after`.
    func turnOneDetent(thenAdvanceNanoseconds after: Int64) {
        let end = clock.now()
        let steps: [(InputRole, Bool)] = [(.encoderB, true), (.encoderA, true), (.encoderB, false), (.encoderA, false)]
        for (index, (role, active)) in steps.enumerated() {
            input.lines.inject(role, active: active, at: end.advanced(byNanoseconds: Int64(index - 3) * 100_000_000))
        }
        clock.advance(byNanoseconds: after)
    }

    var savedTempo: Tempo? { store.load().saved.settings.tempo }
}

@Suite(.serialized) struct BoxServiceTests {
    static let startSteps = ["indicators off", "display on", "audio start", "input start"]
    /// Input first (edges already read are still handled), then playback and audio, then the
    /// outputs, then the settings with every change up to this moment.
    static let stopSteps = ["input stop", "audio stop", "indicators off", "display blank", "display sleep", "save"]

    @Test func startsAndStopsInItsOrderTouchingTheBoxOnlyOnTheControlThread() async throws {
        let box = try ServiceUnderTest()
        defer { box.removeFolder() }
        try await testGracefulShutdown { trigger in
            async let running: Void = box.service.run()
            try await box.waitUntilRunning()
            #expect(box.log.steps == Self.startSteps)
            box.turnOneDetent(thenAdvanceNanoseconds: 1_000_000)
            trigger.triggerGracefulShutdown()
            try await running
        }
        #expect(box.service.phase == .stopped)
        #expect(box.log.steps == Self.startSteps + Self.stopSteps)
        // Indicators, screen and settings were only ever touched from the control thread.
        let offThread = box.log.entries.withLock { $0.filter { !$0.what.hasPrefix("audio") && !$0.what.hasPrefix("input") && !$0.onControlThread } }
        #expect(offThread.map(\.what) == [])
    }

    /// The save debounce is 2 s; a detent completed 1 ms before the stop is in the file.
    @Test func aChangeOneMillisecondBeforeTheStopIsInTheSavedFile() async throws {
        let box = try ServiceUnderTest()
        defer { box.removeFolder() }
        try await testGracefulShutdown { trigger in
            async let running: Void = box.service.run()
            try await box.waitUntilRunning()
            box.turnOneDetent(thenAdvanceNanoseconds: 1_000_000)
            trigger.triggerGracefulShutdown()
            try await running
        }
        #expect(box.log.names.filter { $0 == "save" }.count == 1) // only the stop saved (no debounce ran)
        #expect(box.savedTempo == Tempo(clampingWholeBPM: 121))
    }

    /// SIGTERM, as systemd sends it: ServiceGroup turns it into the graceful shutdown.
    @Test func sigtermStopsGracefullyAndSavesTheLastChange() async throws {
        let box = try ServiceUnderTest()
        defer { box.removeFolder() }
        let group = ServiceGroup(configuration: .init(services: [.init(service: box.service)], gracefulShutdownSignals: [.sigterm],
                                                      logger: quietLogger))
        async let running: Void = group.run()
        // ServiceGroup traps the signal before it starts its services.
        try await box.waitUntilRunning()
        box.turnOneDetent(thenAdvanceNanoseconds: 1_000_000)
        kill(getpid(), SIGTERM)
        try await running
        #expect(box.service.phase == .stopped)
        #expect(box.log.steps == Self.startSteps + Self.stopSteps)
        #expect(box.savedTempo == Tempo(clampingWholeBPM: 121))
    }

    /// A part that fails to start undoes what started before it, in reverse, and the error
    /// reaches the caller; nothing is saved (nothing changed).
    @Test func aFailedStartUndoesTheStartedParts() async throws {
        let box = try ServiceUnderTest(failInputStart: true)
        defer { box.removeFolder() }
        await #expect(throws: HALError.self) {
            try await testGracefulShutdown { _ in try await box.service.run() }
        }
        #expect(box.service.phase == .stopped)
        #expect(box.log.steps
            == Self.startSteps + ["audio stop", "indicators off", "display blank", "display sleep"])
    }
}

let quietLogger: Logger = {
    var logger = Logger(label: "test")
    logger.logLevel = .error
    return logger
}()
