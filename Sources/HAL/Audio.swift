// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// The engine's side of the audio contract.
///
/// Called only on the audio thread. Fills `frameCount` interleaved frames of the negotiated
/// channel count with floats in -1...1; never allocates, locks, logs or blocks.
public protocol AudioRenderer: AnyObject, Sendable {
    func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int)
}

/// What the output device accepted. The engine is built for this format before playback starts.
public struct AudioFormat: Equatable, Sendable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    /// Frames per render call.
    public var periodFrames: Int
    /// Frames the device buffers in total (the latency ceiling).
    public var bufferFrames: Int

    public init(sampleRate: Int, channels: Int, periodFrames: Int, bufferFrames: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }

    public var description: String {
        "\(sampleRate) Hz, \(channels) ch, period \(periodFrames), buffer \(bufferFrames) frames"
    }
}

/// Where playback is: the frame the engine will render next, how many of the frames already
/// handed over are still waiting to be heard, and when frame `framesRendered - delayFrames`
/// is heard. A device sink publishes its filtered map here (`SampleClockFilter`: the
/// timestamp is the line's time at that frame, `nanosecondsPerFrame` the device's measured
/// rate); a simulated one publishes exact values and no rate (the nominal one).
///
/// Engine frame `f` is heard at `timestamp + (f - (framesRendered - delayFrames)) x nanosecondsPerFrame`.
public struct AudioOutputPosition: Equatable, Sendable {
    public var framesRendered: Int64
    public var delayFrames: Int
    public var timestamp: MonotonicTime
    /// The device's frame period on the monotonic clock, nil for exactly 1 s / sample rate.
    public var nanosecondsPerFrame: Double?

    public init(framesRendered: Int64, delayFrames: Int, timestamp: MonotonicTime, nanosecondsPerFrame: Double? = nil) {
        self.framesRendered = framesRendered
        self.delayFrames = delayFrames
        self.timestamp = timestamp
        self.nanosecondsPerFrame = nanosecondsPerFrame
    }

    /// The monotonic instant at which engine frame `frame` leaves the output.
    public func instant(ofFrame frame: Int64, sampleRate: Int) -> MonotonicTime {
        let framesAhead = frame - (framesRendered - Int64(delayFrames))
        if let nanosecondsPerFrame {
            return timestamp.advanced(byNanoseconds: Int64((Double(framesAhead) * nanosecondsPerFrame).rounded()))
        }
        return timestamp.advanced(byNanoseconds: framesAhead * 1_000_000_000 / Int64(sampleRate))
    }
}

/// An audio output that pulls samples from a renderer on its own thread.
public protocol AudioSink: AnyObject, Sendable {
    /// Opens the device and fixes the format; call before `start`.
    func negotiate() throws(HALError) -> AudioFormat
    /// Starts pulling from `renderer` with the negotiated format.
    func start(_ renderer: any AudioRenderer) throws(HALError)
    /// Stops pulling and closes the device. Safe to call more than once.
    func stop()
    /// Frames handed over but not yet heard, as last measured.
    var outputDelayFrames: Int { get }
    /// Under- and overruns recovered since `start`.
    var xrunCount: Int { get }
    var outputPosition: AudioOutputPosition { get }
}

/// Where captured audio goes, on the capture thread: it must not allocate, lock or log.
public protocol CaptureConsumer: AnyObject, Sendable {
    /// One block of the input's first channel; `firstSampleAt`: the CLOCK_MONOTONIC time
    /// (nanoseconds) its first sample reached the converter.
    func capture(_ samples: UnsafeBufferPointer<Float>, firstSampleAt nanoseconds: Int64)
}

/// What became of the capture device (reported from the capture's supervisor, never from
/// the capture thread).
public enum CaptureStatus: Sendable, Equatable {
    /// Capturing at `sampleRate` (first open, or back after a problem).
    case working(sampleRate: Int)
    case missing(String)
    case busy(String)
    /// It stopped delivering audio while capturing (unplugged, or a read failed).
    case lost(String)
}

/// An audio input (the coach's microphone): opened and read on its own threads; a device
/// that is missing, busy or vanishes is reported and retried, never fatal.
public protocol AudioCapture: AnyObject, Sendable {
    /// Starts the supervisor (which opens and reopens the device) and the capture thread.
    /// `status` and `poll` run on the supervisor thread (`poll` about every 5 ms).
    func start(_ consumer: any CaptureConsumer, status: @escaping @Sendable (CaptureStatus) -> Void,
               poll: @escaping @Sendable () -> Void)
    /// Stops and closes the device. Safe to call more than once.
    func stop()
}
