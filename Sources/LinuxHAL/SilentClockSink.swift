// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import HAL
import TactusBase
import Synchronization

/// An audio sink with no device that still runs in real time: it renders one period per
/// period of the monotonic clock and throws the samples away. The box plays on it while its
/// sound device is missing, so the engine's onsets keep driving the LEDs, buzzer and screen.
public final class SilentClockSink: AudioSink, @unchecked Sendable {
    public let format: AudioFormat
    private let thread = DedicatedThread()
    private let stopRequested = Atomic<Bool>(false)
    private let position = PositionSeqlock()
    private let running = Mutex(false)

    public init(format: AudioFormat) { self.format = format }

    public func negotiate() throws(HALError) -> AudioFormat { format }

    public func start(_ renderer: any AudioRenderer) throws(HALError) {
        try running.withLock { (running) throws(HALError) in
            guard !running else { return }
            stopRequested.store(false, ordering: .relaxed)
            let format = format
            // The priority a sound card's render thread asks for (ALSASink): its periods and
            // the MIDI clocks placed in them are on time with the cores busy.
            let result = thread.start(name: "tactus-silent", fifoPriority: ALSASink.Configuration().realtimePriority) { [self] in
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: format.periodFrames * format.channels)
                defer { buffer.deallocate() }
                let clock = SystemMonotonicClock()
                let periodNanoseconds = Int64(format.periodFrames) * 1_000_000_000 / Int64(format.sampleRate)
                // Each period is rendered a period before it is "heard", and heard from its
                // scheduled start, not from when this thread happened to run: a steady line as a
                // sound card's, so what is timed by it (MIDI clock out, LEDs) is never placed
                // in the past by this thread's wakeup latency (it was: MIDI clocks 2.4 ms late
                // at the median, bunched by the period).
                var deadline = clock.now().nanoseconds + periodNanoseconds
                while !stopRequested.load(ordering: .relaxed) {
                    renderer.render(into: buffer, frameCount: format.periodFrames)
                    position.publish(frames: position.read().framesRendered + Int64(format.periodFrames), delay: format.periodFrames,
                                     at: MonotonicTime(nanoseconds: deadline), nanosecondsPerFrame: nil)
                    Syscalls.sleep(untilNanoseconds: deadline)
                    deadline += periodNanoseconds
                }
            }
            if case .failure(let error) = result { throw HALError(.io, "cannot start the silent audio clock: \(error)") }
            running = true
        }
    }

    public func stop() {
        running.withLock { running in
            guard running else { return }
            stopRequested.store(true, ordering: .relaxed)
            thread.join()
            running = false
        }
    }

    public var outputDelayFrames: Int { 0 }
    public var xrunCount: Int { 0 }
    public var outputPosition: AudioOutputPosition { position.read() }
}
