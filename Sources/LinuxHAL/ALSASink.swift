// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import Glibc
import HAL
import Synchronization
import TactusBase

/// Plays an `AudioRenderer` on an ALSA PCM from a dedicated real-time thread.
///
/// Threads: the caller's (negotiate/start/stop), the render thread (only the renderer,
/// format conversion and ALSA calls: no allocation, locks or logging) and a supervisor
/// thread that reports xruns and reopens the device after it was lost. The open PCM is
/// owned by the render thread while it runs and by the supervisor otherwise.
public final class ALSASink: AudioSink, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var device = "default"
        public var sampleRate = 48000
        public var channels = 2
        public var periodFrames = 128
        public var periodCount = 3
        /// Tried in order; Float first so 'default'/'plug' devices convert with full precision.
        public var sampleFormats: [ALSASampleFormat] = [.float32, .int32, .int16]
        /// SCHED_FIFO priority of the render thread, nil for an ordinary thread.
        public var realtimePriority: Int32? = 70
        /// mlockall() the process so audio never waits on a page fault.
        public var lockMemory = true
        public var retryIntervalNanoseconds: Int64 = 3_000_000_000
        /// A device that accepts no frame for this long is treated as gone (some plugins, like
        /// JACK's, block instead of failing when their server dies).
        public var stallTimeoutNanoseconds: Int64 = 2_000_000_000
        /// ALSA configuration text defining `device`, instead of the system's (tests use it
        /// to describe file and JACK devices without touching ~/.asoundrc).
        public var inlineConfiguration: String?

        public init(device: String = "default") { self.device = device }

        public init(_ definition: AudioDefinition) {
            device = definition.device
            sampleRate = definition.sampleRate
            channels = definition.channels
            periodFrames = definition.periodFrames
            periodCount = definition.periodCount
        }
    }

    /// How the render thread ended up being scheduled.
    public enum ThreadPriority: Equatable, Sendable {
        case notStarted
        case realtime(Int32)
        case normal(reason: String)
    }

    public let configuration: Configuration
    private let log: HALLog
    private let clock = SystemMonotonicClock()

    // Shared with the render thread: atomics only.
    private let stopRequested = Atomic<Bool>(false)
    private let xruns = Atomic<Int>(0)
    private let lastXrunCode = Atomic<Int>(0)
    private let delayFrames = Atomic<Int>(0)
    private let position = PositionSeqlock()

    // Control side only (caller before start, supervisor after), guarded by `control`.
    private let control = Mutex(ControlState())
    private struct ControlState {
        var pcm: ALSAPCM?
        var format: AudioFormat?
        var priority: ThreadPriority = .notStarted
        var memoryLocked = false
        var supervisor: DedicatedThread?
    }

    public init(_ configuration: Configuration, log: HALLog = .standardError) {
        self.configuration = configuration
        self.log = log
    }

    deinit { stop() }

    public func negotiate() throws(HALError) -> AudioFormat {
        let pcm = try ALSAPCM.open(configuration)
        control.withLock {
            $0.pcm = pcm
            $0.format = pcm.format
        }
        log.info("audio: '\(configuration.device)' opened: \(pcm.format), \(pcm.sampleFormat.rawValue)")
        return pcm.format
    }

    /// Keeps trying `negotiate` every retry interval until it works or `shouldContinue` says
    /// stop; logs the reason once per distinct failure. For a service that must come up
    /// without its sound card and play once it is plugged in.
    public func negotiateWhenAvailable(shouldContinue: () -> Bool = { true }) -> AudioFormat? {
        var lastMessage: String?
        while shouldContinue() {
            do {
                let format = try negotiate()
                if lastMessage != nil { log.info("audio: '\(configuration.device)' is available again") }
                return format
            } catch {
                if error.message != lastMessage {
                    log.error("\(error.message); retrying every \(seconds(configuration.retryIntervalNanoseconds))")
                    lastMessage = error.message
                }
                sleepInSlices(configuration.retryIntervalNanoseconds, while: shouldContinue)
            }
        }
        return nil
    }

    public func start(_ renderer: any AudioRenderer) throws(HALError) {
        let (isOpen, format): (Bool, AudioFormat?) = control.withLock { ($0.pcm != nil, $0.format) }
        guard isOpen, let format else {
            throw HALError(.invalidArgument, "audio: start() before negotiate(): the engine needs the device's format first")
        }
        stopRequested.store(false, ordering: .relaxed)
        if configuration.lockMemory {
            if let code = lockAllMemory() {
                log.warning("audio: memory not locked (mlockall: \(errnoDescription(code))): page faults may cause clicks; give the service CAP_IPC_LOCK or LimitMEMLOCK=infinity")
            } else {
                control.withLock { $0.memoryLocked = true }
            }
        }
        // The PCM moves to the supervisor through this box, so no closure keeps it alive after
        // the supervisor lets it go (a dead device must be closed before it is reopened).
        let handoff = PCMHandoff(control.withLock { state -> ALSAPCM? in
            defer { state.pcm = nil }
            return state.pcm
        })
        let supervisor = DedicatedThread()
        let started = supervisor.start(name: "tactus-audio-sv", fifoPriority: nil) { [self] in
            var pcm = handoff.take()
            supervise(&pcm, renderer: renderer, format: format)
        }
        guard case .success = started else {
            throw HALError(.io, "audio: cannot start the supervisor thread")
        }
        control.withLock { $0.supervisor = supervisor }
    }

    private final class PCMHandoff: @unchecked Sendable {
        private var pcm: ALSAPCM?
        init(_ pcm: ALSAPCM?) { self.pcm = pcm }
        func take() -> ALSAPCM? {
            defer { pcm = nil }
            return pcm
        }
    }

    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
        let supervisor = control.withLock { state -> DedicatedThread? in
            defer { state.supervisor = nil; state.pcm = nil }
            return state.supervisor
        }
        supervisor?.join()
    }

    public var outputDelayFrames: Int { delayFrames.load(ordering: .relaxed) }
    public var xrunCount: Int { xruns.load(ordering: .relaxed) }
    public var outputPosition: AudioOutputPosition { position.read() }
    public var threadPriority: ThreadPriority { control.withLock { $0.priority } }
    public var memoryLocked: Bool { control.withLock { $0.memoryLocked } }

    // MARK: supervisor thread

    private enum SessionEnd {
        case stopped
        case lost(reason: String)
    }

    private func supervise(_ pcm: inout ALSAPCM?, renderer: any AudioRenderer, format: AudioFormat) {
        var reportedXruns = xruns.load(ordering: .relaxed)
        var warnedAboutPriority = false
        while !stopRequested.load(ordering: .relaxed) {
            switch runSession(&pcm, renderer: renderer, reportedXruns: &reportedXruns, warnedAboutPriority: &warnedAboutPriority) {
            case .stopped:
                return
            case .lost(let reason):
                // The session and its PCM are closed by now.
                log.error("audio: device '\(configuration.device)' stopped working (\(reason)); retrying every \(seconds(configuration.retryIntervalNanoseconds))")
                pcm = reopen(expecting: format)
            }
        }
    }

    /// Feeds one open PCM until stop or until the device fails; always consumes (closes) it.
    private func runSession(_ pcm: inout ALSAPCM?, renderer: any AudioRenderer,
                            reportedXruns: inout Int, warnedAboutPriority: inout Bool) -> SessionEnd {
        guard let openPCM = pcm else { return .stopped }
        pcm = nil
        let session = RenderSession(pcm: openPCM, renderer: renderer, sink: self)
        let thread = DedicatedThread()
        let started = thread.start(name: "tactus-audio", fifoPriority: configuration.realtimePriority) { session.run() }
        switch started {
        case .success(.fifo(let priority)):
            control.withLock { $0.priority = .realtime(priority) }
        case .success(.normalBecauseDenied(let code)):
            let reason = "SCHED_FIFO refused: \(errnoDescription(code))"
            control.withLock { $0.priority = .normal(reason: reason) }
            if !warnedAboutPriority {
                log.warning("audio: the render thread runs at normal priority (\(reason)): give the service CAP_SYS_NICE or LimitRTPRIO=\(configuration.realtimePriority ?? 70)")
            }
        case .success(.normal):
            control.withLock { $0.priority = .normal(reason: "no real-time priority configured") }
        case .failure(let error):
            log.error("audio: cannot start the render thread (\(error))")
            return .stopped
        }
        warnedAboutPriority = true

        // Watch the render thread: report xruns here, never on the render thread itself,
        // and notice a device that stopped taking frames without saying so.
        var lastFrames = position.read().framesRendered
        var lastProgress = clock.now()
        var stalled = false
        while !stopRequested.load(ordering: .relaxed) && session.failure.load(ordering: .relaxed) == 0 {
            Syscalls.sleep(nanoseconds: 20_000_000)
            reportXruns(&reportedXruns)
            let frames = position.read().framesRendered
            let now = clock.now()
            if frames != lastFrames {
                lastFrames = frames
                lastProgress = now
            } else if now.nanoseconds(since: lastProgress) > configuration.stallTimeoutNanoseconds {
                stalled = true
                break
            }
        }
        session.stopRequested.store(true, ordering: .relaxed)
        thread.join()
        reportXruns(&reportedXruns)
        let failure = session.failure.load(ordering: .relaxed)
        if failure == 0 && !stalled {
            session.drainBriefly()
            return .stopped
        }
        return .lost(reason: stalled ? "it took no audio for \(seconds(configuration.stallTimeoutNanoseconds))" : alsaError(Int32(failure)))
    }

    private func reopen(expecting format: AudioFormat) -> ALSAPCM? {
        var lastMessage: String?
        while !stopRequested.load(ordering: .relaxed) {
            sleepInSlices(configuration.retryIntervalNanoseconds) { !self.stopRequested.load(ordering: .relaxed) }
            if stopRequested.load(ordering: .relaxed) { break }
            do {
                let pcm = try ALSAPCM.open(configuration)
                if pcm.format == format {
                    log.info("audio: device '\(configuration.device)' is back; playing again")
                    return pcm
                }
                let message = "audio: device '\(configuration.device)' came back with \(pcm.format) instead of \(format); waiting for the original format"
                if message != lastMessage { log.error(message); lastMessage = message }
            } catch {
                if error.message != lastMessage { log.error(error.message); lastMessage = error.message }
            }
        }
        return nil
    }

    private func reportXruns(_ reported: inout Int) {
        let count = xruns.load(ordering: .relaxed)
        guard count > reported else { return }
        let code = Int32(lastXrunCode.load(ordering: .relaxed))
        let kind = -code == ESTRPIPE ? "suspend" : "underrun"
        log.warning("audio: \(count - reported) \(kind)(s) recovered on '\(configuration.device)' (\(count) since start); the beat grid continues")
        reported = count
    }

    private func sleepInSlices(_ nanoseconds: Int64, while shouldContinue: () -> Bool) {
        var left = nanoseconds
        while left > 0 && shouldContinue() {
            let slice = min(left, 50_000_000)
            Syscalls.sleep(nanoseconds: slice)
            left -= slice
        }
    }

    // MARK: render thread

    /// One open PCM being fed by the render thread. Buffers are allocated here, before the
    /// thread starts, so the loop itself allocates nothing.
    private final class RenderSession: @unchecked Sendable {
        let pcm: ALSAPCM
        let renderer: any AudioRenderer
        unowned let sink: ALSASink
        let stopRequested = Atomic<Bool>(false)
        /// The negative ALSA error that ended the session, 0 while healthy.
        let failure = Atomic<Int>(0)
        let floats: UnsafeMutablePointer<Float>
        let deviceBytes: UnsafeMutableRawPointer
        /// snd_pcm_status_t, allocated here: the loop reads the status into it every period.
        let status: OpaquePointer?

        init(pcm: ALSAPCM, renderer: any AudioRenderer, sink: ALSASink) {
            self.pcm = pcm
            self.renderer = renderer
            self.sink = sink
            let samples = pcm.format.periodFrames * pcm.format.channels
            floats = .allocate(capacity: samples)
            floats.initialize(repeating: 0, count: samples)
            deviceBytes = .allocate(byteCount: samples * 4, alignment: 16)
            var status: OpaquePointer?
            snd_pcm_status_malloc(&status)
            self.status = status
        }

        deinit {
            floats.deallocate()
            deviceBytes.deallocate()
            if let status { snd_pcm_status_free(status) }
        }

        func run() {
            let handle = pcm.handle
            let period = pcm.format.periodFrames
            let samples = period * pcm.format.channels
            let frameBytes = pcm.format.channels * pcm.sampleFormat.bytesPerSample
            let clock = SystemMonotonicClock()
            // The map from engine samples to when they are heard: this session's own (a new
            // stream starts a new line; the frames written before it were counted by the sink).
            var map = SampleClockFilter(sampleRate: pcm.format.sampleRate)
            var framesWritten = sink.position.read().framesRendered
            let bufferNanoseconds = Int64(pcm.format.bufferFrames) * 1_000_000_000 / Int64(pcm.format.sampleRate)
            while !stopRequested.load(ordering: .relaxed) && !sink.stopRequested.load(ordering: .relaxed) {
                renderer.render(into: floats, frameCount: period)
                let source = convert(samples)
                var written = 0
                while written < period {
                    let result = snd_pcm_writei(handle, source + written * frameBytes, snd_pcm_uframes_t(period - written))
                    if result >= 0 {
                        written += result
                        continue
                    }
                    var code = Int32(result)
                    if code == -EAGAIN {
                        // Device buffer full: wait for room, but look at the stop flag at least every 100 ms.
                        if stopRequested.load(ordering: .relaxed) || sink.stopRequested.load(ordering: .relaxed) { return }
                        let waited = snd_pcm_wait(handle, 100)
                        if waited >= 0 { continue }
                        code = waited
                    }
                    if snd_pcm_recover(handle, code, 1) < 0 {
                        failure.store(Int(code), ordering: .relaxed)
                        return
                    }
                    if code == -EPIPE || code == -ESTRPIPE {
                        sink.lastXrunCode.store(Int(code), ordering: .relaxed)
                        sink.xruns.add(1, ordering: .relaxed)
                        // Frames were lost or silence played: the old line no longer holds.
                        map.reset()
                    }
                }
                framesWritten += Int64(period)
                let measured = measure(clock: clock, bufferNanoseconds: bufferNanoseconds)
                if let measured {
                    sink.delayFrames.store(measured.delay, ordering: .relaxed)
                    if measured.running { map.observe(framesWritten: framesWritten, delayFrames: Int64(measured.delay), at: measured.time) }
                }
                if map.isLocked {
                    // Re-anchored every period at the heard sample the line last took in.
                    sink.position.publish(frames: framesWritten, delay: Int(framesWritten - map.anchorSample), at: map.anchorTime,
                                          nanosecondsPerFrame: map.nanosecondsPerSample)
                } else {
                    // Not running yet (filling the buffer up to the start threshold): the raw reading.
                    sink.position.publish(frames: framesWritten, delay: measured?.delay ?? sink.delayFrames.load(ordering: .relaxed),
                                          at: clock.now(), nanosecondsPerFrame: nil)
                }
            }
        }

        /// The output delay (every frame written and not heard yet, with the latency the
        /// driver adds past its buffer) and the time it held, from one status read: the
        /// kernel's own time of its pointer reading, or the clock around the call when the
        /// device gives none; `running` is false while nothing is heard yet (the buffer still
        /// filling up to the start threshold, or refilling after an xrun).
        private func measure(clock: SystemMonotonicClock, bufferNanoseconds: Int64) -> (delay: Int, time: Int64, running: Bool)? {
            guard let status else { return nil }
            let before = clock.now().nanoseconds
            guard snd_pcm_status(pcm.handle, status) >= 0 else { return nil }
            let after = clock.now().nanoseconds
            let running = snd_pcm_status_get_state(status) == SND_PCM_STATE_RUNNING
            let delay = Int(snd_pcm_status_get_delay(status))
            var stamp = snd_htimestamp_t()
            snd_pcm_status_get_htstamp(status, &stamp)
            let kernel = Int64(stamp.tv_sec) * 1_000_000_000 + Int64(stamp.tv_nsec)
            let time = kernel >= before - bufferNanoseconds && kernel <= after ? kernel : before + (after - before) / 2
            return (delay, time, running)
        }

        /// Converts the rendered floats to the device format; returns what to hand to ALSA.
        private func convert(_ samples: Int) -> UnsafeRawPointer {
            switch pcm.sampleFormat {
            case .float32:
                return UnsafeRawPointer(floats)
            case .int32:
                let out = deviceBytes.assumingMemoryBound(to: Int32.self)
                for i in 0..<samples {
                    let clamped = Double(min(max(floats[i], -1), 1))
                    out[i] = Int32((clamped * 2_147_483_647).rounded())
                }
            case .int16:
                let out = deviceBytes.assumingMemoryBound(to: Int16.self)
                for i in 0..<samples {
                    let clamped = min(max(floats[i], -1), 1)
                    out[i] = Int16((clamped * 32767).rounded())
                }
            }
            return UnsafeRawPointer(deviceBytes)
        }

        /// After an orderly stop: let what was written play out (and reach a capture file),
        /// waiting at most a buffer's time plus a margin, so a wedged device cannot hang stop().
        func drainBriefly() {
            guard snd_pcm_drain(pcm.handle) == -EAGAIN else { return }
            let clock = SystemMonotonicClock()
            let bufferNanoseconds = Int64(pcm.format.bufferFrames) * 1_000_000_000 / Int64(pcm.format.sampleRate)
            let deadline = clock.now().advanced(byNanoseconds: bufferNanoseconds + 200_000_000)
            while snd_pcm_state(pcm.handle) == SND_PCM_STATE_DRAINING && clock.now() < deadline {
                Syscalls.sleep(nanoseconds: 2_000_000)
            }
        }
    }
}

func seconds(_ nanoseconds: Int64) -> String {
    let value = Double(nanoseconds) / 1e9
    return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
}

/// Frames rendered, output delay and the time of measurement, published together by the
/// render thread without locks and read consistently by any thread (a sequence lock).
final class PositionSeqlock: Sendable {
    private let sequence = Atomic<UInt64>(0)
    private let frames = Atomic<Int64>(0)
    private let delay = Atomic<Int>(0)
    private let time = Atomic<Int64>(0)

    /// The device's frame period as Double bits, 0 for the nominal one.
    private let period = Atomic<UInt64>(0)

    /// Single writer: the render thread.
    func publish(frames newFrames: Int64, delay newDelay: Int, at instant: MonotonicTime, nanosecondsPerFrame: Double?) {
        let start = sequence.load(ordering: .relaxed)
        sequence.store(start &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        frames.store(newFrames, ordering: .relaxed)
        delay.store(newDelay, ordering: .relaxed)
        time.store(instant.nanoseconds, ordering: .relaxed)
        period.store(nanosecondsPerFrame?.bitPattern ?? 0, ordering: .relaxed)
        sequence.store(start &+ 2, ordering: .releasing)
    }

    func read() -> AudioOutputPosition {
        while true {
            let before = sequence.load(ordering: .acquiring)
            let bits = period.load(ordering: .relaxed)
            let snapshot = AudioOutputPosition(framesRendered: frames.load(ordering: .relaxed),
                                               delayFrames: delay.load(ordering: .relaxed),
                                               timestamp: MonotonicTime(nanoseconds: time.load(ordering: .relaxed)),
                                               nanosecondsPerFrame: bits == 0 ? nil : Double(bitPattern: bits))
            atomicMemoryFence(ordering: .acquiring)
            if before & 1 == 0 && sequence.load(ordering: .relaxed) == before { return snapshot }
        }
    }
}
