// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic

/// The reference tone as the render thread plays it: plain values, compiled on the control side.
struct ToneParameters: BitwiseCopyable, Equatable {
    /// Cycles per sample: frequency / sample rate.
    var increment: Double
    /// Peak of the waveform (the tone's volume; 100 % peaks at `ToneSource.fullScale`).
    var amplitude: Double
    var organ: Bool

    init(_ tone: ReferenceTone, sampleRate: Int) {
        increment = tone.frequency / Double(sampleRate)
        amplitude = ToneSource.fullScale * Double(tone.volume) / 100
        organ = tone.timbre == .organ
    }
}

/// An oscillator that never clicks: it starts, stops and changes level along linear ramps of
/// `rampSeconds`, and changes note (or timbre) by ramping down, switching at silence and
/// ramping up again. The phase is a Double in cycles advanced by a constant increment per
/// sample, so the frequency is exact to far below 0.001 Hz over hours; every frame depends
/// only on the frames before, so any block size renders the same samples.
struct ToneSource {
    static let rampSeconds = 0.005
    /// The tone's peak at 100 %: -6 dBFS, well under the limiter's ceiling even with the
    /// organ's harmonics (its waveform is normalized to peak 1).
    static let fullScale = 0.5
    /// Peak of sin x + sin 2x / 4 + sin 3x / 10: the organ waveform is divided by it.
    static let organPeak = 1.0832412170372605

    private let rampFrames: Double
    private var phase = 0.0
    private var increment = 0.0
    private var organ = false
    private var gain = 0.0
    private var target = 0.0
    private var slope = 0.0
    /// The tone to switch to once the gain reaches 0 (a new note or timbre).
    private var pending = ToneParameters?.none

    init(sampleRate: Int) {
        rampFrames = max(1, (ToneSource.rampSeconds * Double(sampleRate)).rounded())
        // Static constants are initialized lazily (swift_once: a lock, maybe an allocation)
        // on first use: touch every one the render thread reads here, on the control side.
        _ = SoundMath.sinCycles(0.3) + ToneSource.organPeak + ToneSource.fullScale
    }

    /// Something to mix: sounding, ramping or about to start.
    var isActive: Bool { gain > 0 || target > 0 || pending != nil }

    /// Frames until silence when it is ramping out for good; Int.max while it sounds on.
    var framesUntilSilent: Int {
        guard isActive else { return 0 }
        guard target == 0, pending == nil, slope > 0 else { return .max }
        return Int((gain / slope).rounded(.up)) + 1
    }

    /// The most the tone can add to any frame from now until its next change.
    var levelBound: Float { Float(max(gain, target, pending?.amplitude ?? 0)) }

    /// A new tone (nil: off). Takes effect from the next frame, through a ramp.
    mutating func set(_ tone: ToneParameters?) {
        guard let tone else {
            pending = nil
            rampTo(0)
            return
        }
        if !isActive {
            (increment, organ, phase) = (tone.increment, tone.organ, 0)
            rampTo(tone.amplitude)
        } else if tone.increment == increment && tone.organ == organ && pending == nil {
            rampTo(tone.amplitude)
        } else {
            pending = tone
            rampTo(0)
        }
    }

    private mutating func rampTo(_ value: Double) {
        target = value
        slope = abs(target - gain) / rampFrames
    }

    /// Adds `count` frames of the tone into `mix`.
    mutating func render(into mix: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count {
            if gain != target {
                gain = gain < target ? min(gain + slope, target) : max(gain - slope, target)
            } else if gain == 0, let next = pending {
                (increment, organ, pending) = (next.increment, next.organ, nil)
                rampTo(next.amplitude)
            }
            if gain > 0 { mix[i] += Float(gain * wave()) }
            phase += increment
            if phase >= 1 { phase -= 1 }
        }
    }

    /// The next `count` frames added into `mix` without moving the oscillator: the limiter's
    /// look-ahead.
    func peek(into mix: UnsafeMutablePointer<Float>, count: Int) {
        var copy = self
        copy.render(into: mix, count: count)
    }

    @inline(__always)
    private func wave() -> Double {
        let s = SoundMath.sinCycles(phase)
        guard organ else { return s }
        return (s + 0.25 * SoundMath.sinCycles(2 * phase) + 0.1 * SoundMath.sinCycles(3 * phase)) / ToneSource.organPeak
    }
}
