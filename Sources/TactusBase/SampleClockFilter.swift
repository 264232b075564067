// SPDX-License-Identifier: GPL-3.0-or-later
/// The sample-to-host-time map of an audio output: when engine sample `s` is heard, on the
/// monotonic clock. Fed once per period with what the device says (frames written, the
/// output delay after them, and when that was measured), it keeps a line
/// `time(s) = anchorNanoseconds + (s - anchorSample) x nanosecondsPerSample`.
///
/// - What is heard, not what is written: the pair it takes is (written - delay, time), where
///   the delay is the device's whole output latency (its buffer plus whatever the driver adds
///   for its FIFO, codec or USB transfer, as ALSA's status reports it).
/// - Filtered: the device's crystal runs some ppm off the host clock and each timestamp
///   jitters (the pointer's granularity, the moment it was read), so the line is a
///   second-order delay-locked loop over the pairs (F. Adriaensen, "Using a DLL to filter
///   time", LAC 2005; the loop PipeWire and FFmpeg use). While it locks in, its gains are those
///   of a least-squares line over every pair so far; they narrow to the loop's bandwidth
///   (`bandwidthHertz`, 0.02 Hz: a time constant of about 10 s, so 1 ms of timestamp jitter
///   comes through as about 0.01 ms) and stay there, so the rate keeps following the crystal.
/// - Re-anchored: every pair moves the anchor to that pair's own sample (an integer), with the
///   line's time there, so the sample origin never drifts and the arithmetic stays in small
///   numbers however long it runs.
///
/// Pure arithmetic on stored numbers: safe on the render thread (no allocation, lock or log).
public struct SampleClockFilter: Sendable, Hashable {
    public let sampleRate: Int
    public let bandwidthHertz: Double
    /// A pair further than this from the line is an outlier (a stall between reading the
    /// pointer and the clock): skipped once, and after `outliersBeforeReset` in a row the line
    /// starts again from the latest pair (the device restarted or lost frames).
    public let outlierNanoseconds: Double
    public static let outliersBeforeReset = 3

    public private(set) var anchorSample: Int64 = 0
    public private(set) var anchorNanoseconds: Double = 0
    public private(set) var nanosecondsPerSample: Double
    /// Pairs taken into the line since it (re)started.
    public private(set) var count = 0
    private var outliers = 0

    public init(sampleRate: Int, bandwidthHertz: Double = 0.02, outlierNanoseconds: Double = 5_000_000) {
        precondition(sampleRate > 0 && bandwidthHertz > 0, "sample rate and bandwidth must be positive")
        self.sampleRate = sampleRate
        self.bandwidthHertz = bandwidthHertz
        self.outlierNanoseconds = outlierNanoseconds
        nanosecondsPerSample = 1e9 / Double(sampleRate)
    }

    public var isLocked: Bool { count > 0 }

    /// Forgets the line (a new stream, an xrun: frames written no longer say what is heard).
    public mutating func reset() {
        count = 0
        outliers = 0
        nanosecondsPerSample = 1e9 / Double(sampleRate)
    }

    /// One measurement: `framesWritten` frames handed to the device so far, `delayFrames` of
    /// them not heard yet at monotonic time `nanoseconds`.
    public mutating func observe(framesWritten: Int64, delayFrames: Int64, at nanoseconds: Int64) {
        observe(heardSample: framesWritten - delayFrames, at: nanoseconds)
    }

    /// One measurement: engine sample `sample` is heard at `nanoseconds`.
    public mutating func observe(heardSample sample: Int64, at nanoseconds: Int64) {
        guard count > 0 else { return start(sample, nanoseconds) }
        let step = Double(sample - anchorSample)
        guard step > 0 else {
            // The same position again (a period the pointer did not move in): nothing to learn.
            if step < 0 { start(sample, nanoseconds) }
            return
        }
        let predicted = anchorNanoseconds + step * nanosecondsPerSample
        let error = Double(nanoseconds) - predicted
        if abs(error) > outlierNanoseconds {
            outliers += 1
            if outliers >= Self.outliersBeforeReset { start(sample, nanoseconds) }
            return
        }
        outliers = 0
        count += 1
        // The loop's gains for this step (w = 2 pi B T, b = sqrt 2 w, c = w^2), or the
        // least-squares line's over the `count` pairs so far while those are wider.
        let n = Double(count)
        let w = 2 * Double.pi * bandwidthHertz * step / Double(sampleRate)
        var b = 2 * (2 * n - 1) / (n * (n + 1)), c = 6 / (n * (n + 1))
        if b < 2.0.squareRoot() * w { b = 2.0.squareRoot() * w; c = w * w }
        anchorSample = sample
        anchorNanoseconds = predicted + b * error
        nanosecondsPerSample += c * error / step
    }

    private mutating func start(_ sample: Int64, _ nanoseconds: Int64) {
        reset()
        anchorSample = sample
        anchorNanoseconds = Double(nanoseconds)
        count = 1
    }

    /// When `sample` is heard, on the line (nanoseconds, fractional).
    public func nanoseconds(atSample sample: Int64) -> Double {
        anchorNanoseconds + Double(sample - anchorSample) * nanosecondsPerSample
    }

    /// The anchor's time rounded to a whole nanosecond, for publishing.
    public var anchorTime: MonotonicTime { MonotonicTime(nanoseconds: Int64(anchorNanoseconds.rounded())) }
}
