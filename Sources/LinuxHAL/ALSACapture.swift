// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import Glibc
import HAL
import Synchronization
import TactusBase

/// Reads an ALSA capture device (the coach's microphone, `[coach] input`) on a dedicated
/// thread and hands each period's first channel to a `CaptureConsumer`.
///
/// Threads, as ALSASink's: the capture thread (only ALSA reads, format conversion and the
/// consumer: no allocation, locks or logging) and a supervisor that opens the device,
/// reports what became of it (missing, busy, lost, working), reopens it every retry
/// interval, and calls `poll` every 5 ms. The metronome never waits on any of this.
public final class ALSACapture: AudioCapture, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var device: String
        public var sampleRate = 48000
        public var periodFrames = 256
        /// 16 periods (85 ms at 48 kHz): a capture buffer adds no latency (each period is read
        /// as soon as it is full), and a long one rides out a stalled thread without losing input.
        public var periodCount = 16
        public var sampleFormats: [ALSASampleFormat] = [.float32, .int32, .int16]
        public var retryIntervalNanoseconds: Int64 = 3_000_000_000
        /// A device that delivers nothing for this long is lost (a wedged USB device).
        public var stallTimeoutNanoseconds: Int64 = 2_000_000_000
        public init(device: String) { self.device = device }
    }

    public let configuration: Configuration
    private let log: HALLog
    private let stopRequested = Atomic<Bool>(false)
    private let supervisor = Mutex<DedicatedThread?>(nil)

    public init(_ configuration: Configuration, log: HALLog = .standardError) {
        self.configuration = configuration
        self.log = log
    }

    deinit { stop() }

    public func start(_ consumer: any CaptureConsumer, status: @escaping @Sendable (CaptureStatus) -> Void,
                      poll: @escaping @Sendable () -> Void) {
        stopRequested.store(false, ordering: .relaxed)
        let thread = DedicatedThread()
        let started = thread.start(name: "tactus-capt-sv", fifoPriority: nil) { [self] in
            supervise(consumer, status: status, poll: poll)
        }
        if case .success = started { supervisor.withLock { $0 = thread } } else {
            status(.lost("capture device '\(configuration.device)': cannot start its thread"))
        }
    }

    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
        supervisor.withLock { thread -> DedicatedThread? in
            defer { thread = nil }
            return thread
        }?.join()
    }

    private var stopping: Bool { stopRequested.load(ordering: .relaxed) }

    // MARK: supervisor

    private func supervise(_ consumer: any CaptureConsumer, status: @Sendable (CaptureStatus) -> Void,
                           poll: () -> Void) {
        var lastReport: CaptureStatus?
        // Each distinct status once (logged and reported), not every retry.
        func report(_ s: CaptureStatus) {
            guard s != lastReport else { return }
            lastReport = s
            switch s {
            case .working: break
            case .missing(let m), .busy(let m), .lost(let m):
                log.error("\(m); retrying every \(seconds(configuration.retryIntervalNanoseconds))")
            }
            status(s)
        }
        while !stopping {
            let session: CaptureSession
            do {
                session = try CaptureSession(configuration, consumer: consumer)
            } catch {
                report(error.kind == .busy ? .busy(error.message) : .missing(error.message))
                wait(configuration.retryIntervalNanoseconds, poll: poll)
                continue
            }
            report(.working(sampleRate: session.sampleRate))
            log.info("coach: capturing from '\(configuration.device)' at \(session.sampleRate) Hz, \(session.channels) channel(s), \(session.sampleFormat.rawValue)")
            let thread = DedicatedThread()
            guard case .success = thread.start(name: "tactus-capture", fifoPriority: 60, { session.run() }) else {
                report(.lost("capture device '\(configuration.device)': cannot start the capture thread"))
                return
            }
            // Watch the capture thread; a device that stops delivering without an error is lost too.
            var lastFrames = session.frames.load(ordering: .relaxed)
            var lastProgress = SystemMonotonicClock().now()
            var stalled = false
            while !stopping && session.failure.load(ordering: .relaxed) == 0 {
                Syscalls.sleep(nanoseconds: 5_000_000)
                poll()
                let frames = session.frames.load(ordering: .relaxed)
                let now = SystemMonotonicClock().now()
                if frames != lastFrames {
                    (lastFrames, lastProgress) = (frames, now)
                } else if now.nanoseconds(since: lastProgress) > configuration.stallTimeoutNanoseconds {
                    stalled = true
                    break
                }
            }
            session.stopRequested.store(true, ordering: .relaxed)
            thread.join()
            poll()
            if stopping { return }
            let failure = Int32(session.failure.load(ordering: .relaxed))
            let reason = stalled ? "it delivered no audio for \(seconds(configuration.stallTimeoutNanoseconds))" : alsaError(failure)
            report(.lost("capture device '\(configuration.device)' stopped working (\(reason))"))
            wait(configuration.retryIntervalNanoseconds, poll: poll)
        }
    }

    private func wait(_ nanoseconds: Int64, poll: () -> Void) {
        var left = nanoseconds
        while left > 0 && !stopping {
            Syscalls.sleep(nanoseconds: min(left, 5_000_000))
            poll()
            left -= 5_000_000
        }
    }

    /// The message for a failed open of capture device `device`.
    public static func openError(_ device: String, _ code: Int32) -> HALError {
        ALSAPCM.openError("capture device '\(device)'", code,
                          missing: "plug in the microphone or interface, or list the devices with `arecord -L` and set [coach] input")
    }

    // MARK: capture thread

    /// One open capture PCM and the thread reading it. Buffers are allocated here, before
    /// the thread starts, so the loop allocates nothing.
    final class CaptureSession: @unchecked Sendable {
        let handle: OpaquePointer
        let sampleRate: Int
        let channels: Int
        let periodFrames: Int
        let sampleFormat: ALSASampleFormat
        let consumer: any CaptureConsumer
        let stopRequested = Atomic<Bool>(false)
        /// The negative ALSA error that ended the session, 0 while healthy.
        let failure = Atomic<Int>(0)
        /// Frames read so far (the supervisor's stall watch).
        let frames = Atomic<Int64>(0)
        private let deviceBytes: UnsafeMutableRawPointer
        private let mono: UnsafeMutablePointer<Float>

        init(_ configuration: Configuration, consumer: any CaptureConsumer) throws(HALError) {
            _ = tactus_alsa_silence_errors()
            var pcm: OpaquePointer?
            let opened = snd_pcm_open(&pcm, configuration.device, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
            guard opened >= 0, let pcm else { throw ALSACapture.openError(configuration.device, opened) }
            let negotiated: (rate: Int, channels: Int, period: Int, format: ALSASampleFormat)
            do { negotiated = try CaptureSession.configure(pcm, configuration) } catch {
                snd_pcm_close(pcm)
                throw error
            }
            handle = pcm
            (sampleRate, channels, periodFrames, sampleFormat) = negotiated
            self.consumer = consumer
            deviceBytes = .allocate(byteCount: periodFrames * channels * 4, alignment: 16)
            mono = .allocate(capacity: periodFrames)
            mono.initialize(repeating: 0, count: periodFrames)
        }

        deinit {
            snd_pcm_drop(handle)
            snd_pcm_close(handle)
            deviceBytes.deallocate()
            mono.deallocate()
        }

        private static func configure(_ pcm: OpaquePointer, _ request: Configuration) throws(HALError)
            -> (Int, Int, Int, ALSASampleFormat) {
            var hw: OpaquePointer?
            snd_pcm_hw_params_malloc(&hw)
            guard let hw else { throw HALError(.io, "ALSA: out of memory for hardware parameters") }
            defer { snd_pcm_hw_params_free(hw) }
            let device = request.device
            func check(_ result: Int32, _ what: String) throws(HALError) {
                if result < 0 { throw HALError(.unsupported, errno: -result, "capture device '\(device)' refuses \(what): \(alsaError(result))") }
            }
            try check(snd_pcm_hw_params_any(pcm, hw), "any configuration")
            try check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access")
            guard let format = request.sampleFormats.first(where: { snd_pcm_hw_params_test_format(pcm, hw, $0.alsa) == 0 }) else {
                throw HALError(.unsupported, "capture device '\(device)' delivers none of the sample formats \(request.sampleFormats.map(\.rawValue).joined(separator: ", ")): use a 'plughw:' device, which converts")
            }
            try check(snd_pcm_hw_params_set_format(pcm, hw, format.alsa), "format \(format.rawValue)")
            // Mono if it can; otherwise the fewest channels it offers (the first one is used).
            var channels: UInt32 = 1
            try check(snd_pcm_hw_params_set_channels_near(pcm, hw, &channels), "mono or the fewest channels")
            var rate = UInt32(request.sampleRate)
            var direction: Int32 = 0
            try check(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &direction), "a rate near \(request.sampleRate) Hz")
            // Hits are timed at the box's rate: a device that cannot run at it needs 'plughw:'.
            guard Int(rate) == request.sampleRate else {
                throw HALError(.unsupported, "capture device '\(device)' cannot run at \(request.sampleRate) Hz (nearest \(rate) Hz): use a 'plughw:' device, which converts")
            }
            var period = snd_pcm_uframes_t(request.periodFrames)
            direction = 0
            try check(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &direction), "a period near \(request.periodFrames) frames")
            var buffer = snd_pcm_uframes_t(request.periodFrames * request.periodCount)
            try check(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer), "a buffer near \(request.periodFrames * request.periodCount) frames")
            try check(snd_pcm_hw_params(pcm, hw), "the negotiated hardware parameters")
            snd_pcm_hw_params_get_period_size(hw, &period, &direction)
            try check(snd_pcm_prepare(pcm), "preparing")
            return (Int(rate), Int(channels), Int(period), format)
        }

        func run() {
            let clock = SystemMonotonicClock()
            let frameBytes = channels * sampleFormat.bytesPerSample
            if snd_pcm_start(handle) < 0 && snd_pcm_state(handle) != SND_PCM_STATE_RUNNING {
                failure.store(-Int(EIO), ordering: .relaxed)
                return
            }
            while !stopRequested.load(ordering: .relaxed) {
                var got = 0
                while got < periodFrames {
                    let result = snd_pcm_readi(handle, deviceBytes + got * frameBytes, snd_pcm_uframes_t(periodFrames - got))
                    if result >= 0 { got += result; continue }
                    var code = Int32(result)
                    if code == -EAGAIN {
                        if stopRequested.load(ordering: .relaxed) { return }
                        let waited = snd_pcm_wait(handle, 100)
                        if waited >= 0 { continue }
                        code = waited
                    }
                    // An overrun loses input, not the device: recover and read on.
                    if snd_pcm_recover(handle, code, 1) < 0 || (code != -EPIPE && code != -ESTRPIPE) {
                        failure.store(Int(code), ordering: .relaxed)
                        return
                    }
                    _ = snd_pcm_start(handle)
                }
                // The last frame read entered the converter `delay` frames ago (the frames
                // captured since); the block's first frame a period before it.
                var delay: snd_pcm_sframes_t = 0
                if snd_pcm_delay(handle, &delay) < 0 { delay = 0 }
                let now = clock.now().nanoseconds
                let first = now - Int64(delay + periodFrames) * 1_000_000_000 / Int64(sampleRate)
                convertFirstChannel()
                consumer.capture(UnsafeBufferPointer(start: mono, count: periodFrames), firstSampleAt: first)
                frames.add(Int64(periodFrames), ordering: .relaxed)
            }
        }

        private func convertFirstChannel() {
            switch sampleFormat {
            case .float32:
                let input = deviceBytes.assumingMemoryBound(to: Float.self)
                for i in 0..<periodFrames { mono[i] = input[i * channels] }
            case .int32:
                let input = deviceBytes.assumingMemoryBound(to: Int32.self)
                for i in 0..<periodFrames { mono[i] = Float(Double(input[i * channels]) / 2_147_483_648) }
            case .int16:
                let input = deviceBytes.assumingMemoryBound(to: Int16.self)
                for i in 0..<periodFrames { mono[i] = Float(input[i * channels]) / 32768 }
            }
        }
    }
}
