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
            let result = thread.start(name: "tactus-silent", fifoPriority: nil) { [self] in
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: format.periodFrames * format.channels)
                defer { buffer.deallocate() }
                let clock = SystemMonotonicClock()
                let periodNanoseconds = Int64(format.periodFrames) * 1_000_000_000 / Int64(format.sampleRate)
                var deadline = clock.now().nanoseconds
                while !stopRequested.load(ordering: .relaxed) {
                    renderer.render(into: buffer, frameCount: format.periodFrames)
                    position.publish(addingFrames: Int64(format.periodFrames), delay: 0, at: clock.now())
                    deadline += periodNanoseconds
                    Syscalls.sleep(untilNanoseconds: deadline)
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
