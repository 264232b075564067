// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import Synchronization
import TactusBase

/// An audio sink with no device: the caller pulls samples when it wants them, so tests and
/// `tactus render` get exactly what the live path would play, as fast as the CPU allows.
public final class OfflineAudioSink: AudioSink {
    private struct State {
        var renderer: (any AudioRenderer)?
        var framesRendered: Int64 = 0
        var buffer: [Float] = []
        /// When the last period was rendered: the moment the position was measured.
        var renderedAt: MonotonicTime?
    }

    public let format: AudioFormat
    /// The output delay to report, standing in for a device's buffer.
    public let simulatedDelayFrames: Int
    private let clock: any MonotonicClock
    private let state = Mutex(State())

    public init(format: AudioFormat = AudioFormat(sampleRate: 48000, channels: 2, periodFrames: 128, bufferFrames: 384),
                simulatedDelayFrames: Int = 0, clock: any MonotonicClock = ManualClock()) {
        self.format = format
        self.simulatedDelayFrames = simulatedDelayFrames
        self.clock = clock
    }

    public func negotiate() throws(HALError) -> AudioFormat { format }

    public func start(_ renderer: any AudioRenderer) throws(HALError) {
        state.withLock {
            $0.renderer = renderer
            $0.buffer = [Float](repeating: 0, count: format.periodFrames * format.channels)
        }
    }

    public func stop() { state.withLock { $0.renderer = nil } }

    /// Renders `frameCount` frames in period-sized calls, as the live sink would, and returns
    /// them interleaved. Empty when not started.
    public func pull(frameCount: Int) -> [Float] {
        state.withLock { state in
            guard let renderer = state.renderer else { return [] }
            var output: [Float] = []
            output.reserveCapacity(frameCount * format.channels)
            var left = frameCount
            while left > 0 {
                let frames = min(left, format.periodFrames)
                state.buffer.withUnsafeMutableBufferPointer { renderer.render(into: $0.baseAddress!, frameCount: frames) }
                output += state.buffer[0..<(frames * format.channels)]
                left -= frames
                state.framesRendered += Int64(frames)
            }
            state.renderedAt = clock.now()
            return output
        }
    }

    public var outputDelayFrames: Int { simulatedDelayFrames }
    public var xrunCount: Int { 0 }

    public var outputPosition: AudioOutputPosition {
        state.withLock {
            AudioOutputPosition(framesRendered: $0.framesRendered, delayFrames: simulatedDelayFrames, timestamp: $0.renderedAt ?? clock.now())
        }
    }
}
