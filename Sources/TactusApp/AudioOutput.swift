// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import HAL
import TactusBase
import Synchronization

extension ClickRenderer: AudioRenderer {}

/// The engine's way out: the board's sound device when it is there, otherwise a silent
/// stand-in paced by the clock, so the LEDs, the buzzer and the pendulum keep the beat
/// while the device is missing. Switches back to the device when it returns.
public final class AudioOutput: AudioClockSource, @unchecked Sendable {
    public let device: any AudioSink
    public let silent: any AudioSink
    public let format: AudioFormat
    /// Which sink plays: 0 none, 1 the device, 2 the silent one. An atomic, not a lock: the
    /// MIDI clock thread reads the position too (start, retry and stop run on one thread).
    private let active = Atomic<UInt8>(0)
    /// Engine frames rendered by sinks used before the active one: each sink counts from 0,
    /// the engine's clock does not.
    private let framesBefore = Atomic<Int64>(0)
    private let onDevice = Atomic<Bool>(false)

    /// Negotiates with the device; when it is missing, the format is the silent sink's (the
    /// board's configured one) and `deviceProblem` says why.
    public init(device: any AudioSink, silent: any AudioSink) throws(HALError) {
        self.device = device
        self.silent = silent
        do {
            format = try device.negotiate()
            deviceProblem = nil
        } catch {
            format = try silent.negotiate()
            deviceProblem = error
        }
    }

    /// Why the device could not be opened at start, if it could not.
    public let deviceProblem: HALError?

    public var isOnDevice: Bool { onDevice.load(ordering: .relaxed) }

    public var outputPosition: AudioOutputPosition? {
        let which = active.load(ordering: .acquiring)
        guard which != 0 else { return nil }
        var position = which == 1 ? device.outputPosition : silent.outputPosition
        position.framesRendered += framesBefore.load(ordering: .relaxed)
        return position
    }

    /// Starts the renderer on the device, or on the silent sink when the device is missing.
    public func start(_ renderer: any AudioRenderer) throws(HALError) {
        if deviceProblem == nil {
            try device.start(renderer)
            active.store(1, ordering: .releasing)
            onDevice.store(true, ordering: .relaxed)
        } else {
            try silent.start(renderer)
            active.store(2, ordering: .releasing)
        }
    }

    /// One attempt to move from the silent sink to the device. True when playing on the device.
    public func retryDevice(_ renderer: any AudioRenderer) -> Result<Bool, HALError> {
        guard !isOnDevice else { return .success(true) }
        do {
            let found = try device.negotiate()
            guard found.sampleRate == format.sampleRate, found.channels == format.channels else {
                device.stop()
                return .failure(HALError(.unsupported, "the audio device came back as \(found), but the engine runs at \(format); restart tactus to use it"))
            }
            // The silent sink's thread is joined before the device's starts: one render thread at a time.
            silent.stop()
            framesBefore.add(silent.outputPosition.framesRendered, ordering: .relaxed)
            do {
                try device.start(renderer)
            } catch {
                try? silent.start(renderer)
                return .failure(error)
            }
            active.store(1, ordering: .releasing)
            onDevice.store(true, ordering: .relaxed)
            return .success(true)
        } catch {
            return .failure(error)
        }
    }

    public func stop() {
        switch active.exchange(0, ordering: .acquiringAndReleasing) {
        case 1: device.stop()
        case 2: silent.stop()
        default: break
        }
        onDevice.store(false, ordering: .relaxed)
    }
}

/// The engine as the sinks pull it, each block's first channel kept in `history` for the
/// live coach (what the box played, to take its click out of the microphone).
public final class RecordingRenderer: AudioRenderer, @unchecked Sendable {
    let renderer: ClickRenderer
    let history: SampleHistory
    let channels: Int

    public init(_ renderer: ClickRenderer, history: SampleHistory, channels: Int) {
        self.renderer = renderer
        self.history = history
        self.channels = channels
    }

    public func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) {
        renderer.render(into: buffer, frameCount: frameCount)
        guard frameCount > 0 else { return }
        history.write(buffer, stride: channels, count: frameCount, at: renderer.sampleClock - Int64(frameCount))
    }
}
