// SPDX-License-Identifier: GPL-3.0-or-later
import CLinuxShim
import ClickEngine
import Glibc
import HAL
import TactusInstrument
import Logging
import ServiceLifecycle
import Synchronization
import TactusBase
import TactusTimeline
import MIDIWire

/// The box's own thread: the only thread that ever touches the `Box`. Edges from the input
/// thread, actions from the simulator's keys and work from the service (`perform`) go into
/// one queue and run in the order they were posted; between them the loop sleeps until the
/// box's next wakeup. Nothing else holds the box once it is handed to a loop.
public final class ControlLoop: @unchecked Sendable {
    private let box: Box
    private let clock: any MonotonicClock
    private enum Input {
        case edge(LineEdge)
        case action(Action)
        case work(@Sendable (Box) -> Void)
        case midi(MIDIMessage, MonotonicTime)
    }

    private let queue = WakeQueue<Input>()
    private let state = Mutex<(started: Bool, thread: pthread_t?, stopped: CheckedContinuation<Void, Never>?)>((false, nil, nil))
    /// The control thread's pthread id while it runs (0 before and after).
    private let threadID = Atomic<UInt>(0)

    public init(box: Box, clock: any MonotonicClock) {
        self.box = box
        self.clock = clock
    }

    /// From any thread (the GPIO poll thread). Dropped after `stop()`.
    public func post(_ edge: LineEdge) { _ = queue.post(.edge(edge)) }

    /// MIDI messages posted and not yet handled at most: a flood (10 000 clocks a second, a
    /// sender gone wild) that outruns the control thread is dropped here, so the queue's
    /// memory stays bounded (about 0.4 s of such a flood) and the box keeps up with time.
    public static let midiBacklogLimit = 4096
    private let pendingMIDI = Atomic<Int>(0)
    private let droppedMIDICount = Atomic<Int>(0)

    /// MIDI messages dropped because `midiBacklogLimit` were waiting.
    public var droppedMIDI: Int { droppedMIDICount.load(ordering: .relaxed) }

    /// From any thread (the MIDI input threads), with the message's arrival time. Dropped
    /// after `stop()`, and while `midiBacklogLimit` messages wait.
    public func post(_ message: MIDIMessage, at time: MonotonicTime) {
        guard pendingMIDI.add(1, ordering: .relaxed).newValue <= ControlLoop.midiBacklogLimit else {
            pendingMIDI.subtract(1, ordering: .relaxed)
            droppedMIDICount.add(1, ordering: .relaxed)
            return
        }
        if !queue.post(.midi(message, time)) { pendingMIDI.subtract(1, ordering: .relaxed) }
    }

    /// From any thread (the interactive simulator's keys). Dropped after `stop()`.
    public func post(_ action: Action) { _ = queue.post(.action(action)) }

    /// Work on the box from any thread without waiting for it (the control socket's
    /// requests). Dropped after `stop()`.
    public func post(work: @escaping @Sendable (Box) -> Void) { _ = queue.post(.work(work)) }

    /// Runs `body` on the control thread, after everything posted before it, and returns its
    /// result. Work posted before `start()` runs once the thread is up; none may come after
    /// `stop()` (the box is done then).
    public func perform<T: Sendable>(_ body: @escaping @Sendable (Box) -> T) async -> T {
        await withCheckedContinuation { continuation in
            let queued = queue.post(.work { box in continuation.resume(returning: body(box)) })
            precondition(queued, "ControlLoop.perform after stop(): the box is no longer running")
        }
    }

    /// True on the control thread (tests use it to show who touched the box's parts).
    public var isControlThread: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Starts the control thread (once).
    public func start() {
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        let thread = startThread(name: "tactus-control") { [self] in run() }
        state.withLock { $0.thread = thread }
    }

    /// Handles everything posted so far, then ends the thread and waits for it. Afterwards
    /// `perform` and `post` do nothing (the box is not touched again).
    public func stop() async {
        let thread = state.withLock { $0.thread }
        guard let thread else { return }
        await withCheckedContinuation { continuation in
            state.withLock { $0.stopped = continuation }
            queue.finish()
        }
        pthread_join(thread, nil)
        state.withLock { $0.thread = nil }
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        box.takeOver()
        var finished = false
        while !finished {
            let now = clock.now()
            // Sleep until the next wakeup; input or a stop wakes us earlier. At most 100 ms,
            // so time-based work (screen dimming, saves) never waits on a missed wakeup.
            let wait = min(max((box.nextWakeup?.nanoseconds ?? Int64.max) - now.nanoseconds, 0), 100_000_000)
            let (inputs, ended) = queue.take(waitingNanoseconds: wait)
            for input in inputs {
                switch input {
                case .edge(let edge): box.handle(edge)
                case .action(let action): box.handle(action)
                case .work(let body): body(box)
                case .midi(let message, let time):
                    pendingMIDI.subtract(1, ordering: .relaxed)
                    box.handleMIDI(message, at: time)
                }
            }
            box.advance(to: clock.now())
            finished = ended
        }
        threadID.store(0, ordering: .releasing)
        state.withLock { $0.stopped }?.resume()
    }
}

/// A queue with a timed wait (a pthread condition on CLOCK_MONOTONIC): Mutex has no wait.
private final class WakeQueue<Element>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var items: [Element] = []
    private var finished = false

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// False (and dropped) after `finish()`.
    func post(_ item: Element) -> Bool {
        pthread_mutex_lock(mutex)
        let open = !finished
        if open { items.append(item) }
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(condition)
        return open
    }

    /// What was posted until now is still taken; nothing after it.
    func finish() {
        pthread_mutex_lock(mutex)
        finished = true
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(condition)
    }

    /// Everything queued, waiting up to `nanoseconds` for something when empty; `ended`
    /// once `finish()` was called and these are the last items.
    func take(waitingNanoseconds nanoseconds: Int64) -> (items: [Element], ended: Bool) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if items.isEmpty && !finished && nanoseconds > 0 {
            var deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let total = Int64(deadline.tv_nsec) + nanoseconds
            deadline.tv_sec += Int(total / 1_000_000_000)
            deadline.tv_nsec = Int(total % 1_000_000_000)
            while items.isEmpty && !finished {
                if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
            }
        }
        defer { items.removeAll(keepingCapacity: true) }
        return (items, finished)
    }
}

/// A named pthread running `body` (Foundation's Thread is not used in TactusApp).
private func startThread(name: String, _ body: @escaping () -> Void) -> pthread_t {
    final class Context {
        let name: String
        let body: () -> Void
        init(_ name: String, _ body: @escaping () -> Void) { self.name = name; self.body = body }
    }
    let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
        let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
        _ = tactus_name_current_thread(context.name)
        context.body()
        return nil
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Context(name, body)).toOpaque()
    let result = pthread_create(&thread, nil, entry, context)
    // Only fails without memory or thread slots, where nothing of the box could run.
    precondition(result == 0, "cannot start the \(name) thread: errno \(result)")
    return thread
}

/// The whole box as one service, started and stopped in one fixed order (README "Start
/// and stop"), with every touch of the box on its control thread:
///
/// start: control thread, indicators off, display initialized, audio playing (silence
///   until START), input edges flowing; then "ready".
/// stop (graceful shutdown: SIGTERM, SIGINT): input stopped (edges already read are still
///   handled), playback stopped, clicks in flight play to their end, audio closed,
///   indicators off, screen blank, settings written (every change up to this moment, the
///   save debounce is not waited for), control thread ended.
public final class BoxService: Service, Sendable {
    /// The only way to the box.
    public let loop: ControlLoop
    private let audio: AudioOutput
    private let renderer: ClickRenderer
    /// What the sinks pull: the engine, recording what it plays when the coach listens (its
    /// click is taken out of the microphone).
    private let audioRenderer: any AudioRenderer
    private let history: SampleHistory?
    private let input: any InputEventSource
    private let capture: (any AudioCapture)?
    private let logger: Logger
    private let clock: any MonotonicClock
    private let model: String
    private let startedAt: MonotonicTime?
    private let soundNoticeOnScreen: Bool
    private let currentPhase = Atomic<UInt8>(Phase.starting.rawValue)

    public enum Phase: UInt8, Sendable {
        case starting, running, stopping, stopped
    }

    /// Makes the box (`BoxAssembly.makeBox`) and hands it to the control loop: nothing else
    /// ever holds it. `startedAt` (the process's start on the same clock, if known) makes
    /// "ready" say how long start-up took.
    public convenience init(parts: BoxParts, saved: SavedState, problem: String?, notice: String? = nil, logger: Logger,
                            startedAt: MonotonicTime? = nil) throws {
        self.init(box: try BoxAssembly.makeBox(parts, saved: saved, problem: problem, notice: notice, logger: logger), parts: parts,
                  logger: logger, startedAt: startedAt)
    }

    init(box: Box, parts: BoxParts, logger: Logger, startedAt: MonotonicTime?) {
        renderer = box.engine.renderer
        // Half a second of round trip at most (as Calibrate), and the canceller's reach.
        let history = parts.capture == nil ? nil : SampleHistory(minimumCapacity: parts.audio.format.sampleRate)
        self.history = history
        audioRenderer = history.map { RecordingRenderer(box.engine.renderer, history: $0, channels: parts.audio.format.channels) }
            ?? box.engine.renderer
        model = parts.board.model
        loop = ControlLoop(box: box, clock: parts.clock)
        audio = parts.audio
        input = parts.input
        capture = parts.capture
        clock = parts.clock
        self.logger = logger
        self.startedAt = startedAt
        soundNoticeOnScreen = parts.soundNoticeOnScreen
    }

    /// Where the service is: running from "ready" until the stop begins; stopped once the
    /// control thread has ended (also after a failed start).
    public var phase: Phase { Phase(rawValue: currentPhase.load(ordering: .acquiring))! }

    public func run() async throws {
        loop.start()
        await loop.perform { box in
            box.indicatorsOff()
            box.initializeDisplay()
        }
        do {
            try audio.start(audioRenderer)
            try input.start { [loop] in loop.post($0) }
        } catch {
            audio.stop()
            await loop.perform { box in
                box.indicatorsOff()
                box.blankDisplay()
            }
            await loop.stop()
            currentPhase.store(Phase.stopped.rawValue, ordering: .releasing)
            throw error
        }
        if let problem = audio.deviceProblem {
            logger.error("audio: \(problem); playing silently (LEDs, buzzer and screen keep the beat), retrying every 3 s")
            if soundNoticeOnScreen { loop.post(Action.part("Sound device", working: false, at: clock.now())) }
        } else {
            logger.info("audio: \(audio.format)")
        }
        startCoachInput()
        let took = startedAt.map { " in \((clock.now().nanoseconds - $0.nanoseconds) / 1_000_000) ms" } ?? ""
        logger.info("ready\(took): \(model)")
        currentPhase.store(Phase.running.rawValue, ordering: .releasing)

        await cancelWhenGracefulShutdown { [self] in await retryAudioDevice() }
        try? await gracefulShutdown()
        currentPhase.store(Phase.stopping.rawValue, ordering: .releasing)
        await shutDown()
        currentPhase.store(Phase.stopped.rawValue, ordering: .releasing)
    }

    /// The coach's microphone: hits go to the control loop as `coachHit(at:)` (stamped on
    /// the capture thread, judged on the box's thread); what becomes of the device is a
    /// notice. The metronome never depends on it. Each judged hit is one log line (on the
    /// box's thread, never the capture thread): the machine-readable trace of live hits
    /// that the VM suite's scenario 24 checks against the take's known offsets.
    private func startCoachInput() {
        guard let capture else { return }
        let listener = CoachListener(sampleRate: audio.format.sampleRate, output: history.map { ($0, audio) })
        loop.post(work: { box in
            box.coachInputAvailable = true
            box.coachListener = listener
        })
        capture.start(listener, status: { [loop] status in
            loop.post(work: { $0.coachInput(status) })
        }, poll: { [loop, logger] in
            while let fit = listener.fits.pop() {
                logger.debug("coach: click at engine sample \(fit.onset): lag \(fit.lag) (predicted \(fit.predicted)), match \(Int(fit.match * 1000)) of 1000, gain \(fit.gain)")
            }
            for time in listener.drain() {
                loop.post(work: { box in
                    guard let hit = box.coachHit(at: time) else { return }
                    logger.info("\(Self.coachHitLine(hit))")
                })
            }
        })
    }

    /// `coach: hit bar B beat N index I error_ms E` (E to 0.01 ms, negative = early).
    static func coachHitLine(_ hit: CoachHit) -> String {
        let hundredths = Int((hit.errorMilliseconds * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        let fraction = magnitude % 100 < 10 ? "0\(magnitude % 100)" : "\(magnitude % 100)"
        return "coach: hit bar \(hit.position.bar) beat \(hit.position.beat) index \(hit.position.index) error_ms \(sign)\(magnitude / 100).\(fraction)"
    }

    private func retryAudioDevice() async {
        var lastProblem = audio.deviceProblem?.description
        while !audio.isOnDevice {
            try? await Task.sleep(for: .seconds(3))
            if Task.isCancelled { return }
            switch audio.retryDevice(audioRenderer) {
            case .success:
                logger.info("audio: device is back, playing on it")
                loop.post(Action.part("Sound device", working: true, at: clock.now()))
            case .failure(let error) where error.description != lastProblem:
                logger.error("audio: \(error)")
                lastProblem = error.description
            case .failure: break
            }
        }
    }

    private func shutDown() async {
        // No new edges; those read until now are queued ahead of everything below.
        input.stop()
        capture?.stop()
        await loop.perform { $0.stopPlayback() }
        // Clicks already sounding play to their end (at most a clip's length, 1 s at most here).
        for _ in 0..<100 where renderer.activeVoiceCount > 0 { try? await Task.sleep(for: .milliseconds(10)) }
        audio.stop()
        await loop.perform { box in
            box.indicatorsOff()
            box.blankDisplay()
            box.saveNow()
        }
        logger.info("settings saved")
        await loop.stop()
    }
}
