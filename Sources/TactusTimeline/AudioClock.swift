// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// Ties the engine's sample clock to the monotonic clock at the output: one measurement of
/// "engine clock W and output delay d at monotonic time t" (ALSA's snd_pcm_delay after a
/// write) means engine sample W - d is being heard at t. Everything the user sees or feels
/// (screen, LEDs, buzzer) is placed with this, never with a timer of its own, so it stays
/// locked to the sound.
public struct AudioOutputClock: Sendable, Hashable {
    public var sampleRate: Int
    /// The engine's sample clock (frames rendered so far) at the measurement.
    public var engineSample: Int64
    /// Frames handed to the output but not yet heard at the measurement.
    public var outputDelayFrames: Int64
    /// Monotonic time of the measurement, in nanoseconds.
    public var nanoseconds: Int64

    public init(sampleRate: Int, engineSample: Int64, outputDelayFrames: Int64, nanoseconds: Int64) {
        precondition(sampleRate > 0, "sample rate must be positive")
        self.sampleRate = sampleRate
        self.engineSample = engineSample
        self.outputDelayFrames = outputDelayFrames
        self.nanoseconds = nanoseconds
    }

    /// The engine sample leaving the output at the measurement.
    public var heardSample: Int64 { engineSample - outputDelayFrames }

    /// The (fractional) engine sample being heard at monotonic time `time`.
    public func heardSample(atNanoseconds time: Int64) -> Double {
        Double(heardSample) + Double(time - nanoseconds) * Double(sampleRate) / 1e9
    }

    /// When engine sample `sample` is heard: the first nanosecond at or after it (exact
    /// integer math), so a frame drawn for that moment shows the sample itself, not the one
    /// before (the beat's frame shows the beat).
    public func outputNanoseconds(ofSample sample: Int64) -> Int64 {
        let numerator = Int128(sample - heardSample) * 1_000_000_000
        let rate = Int128(sampleRate)
        return nanoseconds - Int64(Rational.floorDivide(-numerator, rate))
    }
}
