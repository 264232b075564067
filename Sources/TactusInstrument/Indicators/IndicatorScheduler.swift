// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusArithmetic
import TactusMusic
import TactusTimeline
/// One planned pulse on the monotonic clock.
public struct IndicatorPulse: Sendable, Hashable, CustomStringConvertible {
    public var channel: IndicatorChannel
    public var startNanoseconds: Int64
    public var lengthNanoseconds: Int64

    public init(channel: IndicatorChannel, startNanoseconds: Int64, lengthNanoseconds: Int64) {
        self.channel = channel
        self.startNanoseconds = startNanoseconds
        self.lengthNanoseconds = lengthNanoseconds
    }

    public var description: String { "\(channel.rawValue) @\(startNanoseconds) ns for \(lengthNanoseconds) ns" }
}

/// What the wheel tells the hand through the buzzer.
public enum WheelFeedback: Sendable, Hashable {
    /// The tempo crossed a half step: letting go now changes the result.
    case tick
    /// The value hit its limit (1 or 999 BPM, the end of a list).
    case bump
}

/// Pulse lengths and switches. A longer pulse is a brighter flash or a stronger buzz, so
/// accent, beat and subdivision can be told apart without looking.
public struct IndicatorSettings: Sendable, Hashable {
    public var ledAccentNanoseconds: Int64 = 90_000_000
    public var ledBeatNanoseconds: Int64 = 60_000_000
    public var ledSubdivisionNanoseconds: Int64 = 30_000_000
    public var buzzerAccentNanoseconds: Int64 = 12_000_000
    public var buzzerBeatNanoseconds: Int64 = 6_000_000
    public var buzzerSubdivisionNanoseconds: Int64 = 3_000_000
    /// Silent practice: the buzzer pulses with the clicks (usually with the sound muted).
    public var buzzerPulses = false
    public var buzzerSubdivisions = true
    public var tickNanoseconds: Int64 = 1_000_000
    public var bumpNanoseconds: Int64 = 15_000_000
    /// A pulse lasts at most this share of the time to the next onset of its kind, so fast
    /// tempi still blink instead of merging into a steady light.
    public var maximumShareOfSpacing = Rational(1, 2)
    /// Never shorter than this, even when capped: a shorter flash is not seen.
    public var minimumNanoseconds: Int64 = 1_000_000

    public init() {}
}

/// Turns the engine's onset events into LED and buzzer pulses placed at the moment the
/// onset is heard (its sample plus the output delay, via `AudioOutputClock`), not when it
/// was rendered. Pure: it plans; the HAL's indicator output does the timing.
public struct IndicatorScheduler: Sendable, Hashable {
    public var settings: IndicatorSettings

    public init(settings: IndicatorSettings = IndicatorSettings()) { self.settings = settings }

    /// The pulses for one onset. `layer` is the subdivision layer (0 for beats);
    /// `samplesPerBeat` (from the timeline, `BeatGrid`) caps pulse lengths at fast tempi.
    public func pulses(onsetSample: Int64, kind: OnsetKind, layer: Int, clock: AudioOutputClock,
                       samplesPerBeat: Rational?) -> [IndicatorPulse] {
        let start = clock.outputNanoseconds(ofSample: onsetSample)
        var cap = Int64.max
        if let samplesPerBeat {
            let perOnset = kind == .subdivision && layer > 1 ? samplesPerBeat / Rational(Int64(layer)) : samplesPerBeat
            let nanoseconds = perOnset * settings.maximumShareOfSpacing * Rational(1_000_000_000) / Rational(Int64(clock.sampleRate))
            cap = max(settings.minimumNanoseconds, nanoseconds.floor)
        }
        let (led, ledLength, buzzLength, buzz): (IndicatorChannel, Int64, Int64, Bool) = switch kind {
        case .accent: (.accentLED, settings.ledAccentNanoseconds, settings.buzzerAccentNanoseconds, settings.buzzerPulses)
        case .soft: (.accentLED, settings.ledBeatNanoseconds, settings.buzzerBeatNanoseconds, settings.buzzerPulses)
        case .beat: (.beatLED, settings.ledBeatNanoseconds, settings.buzzerBeatNanoseconds, settings.buzzerPulses)
        case .subdivision, .poly: (.subdivisionLED, settings.ledSubdivisionNanoseconds, settings.buzzerSubdivisionNanoseconds,
                            settings.buzzerPulses && settings.buzzerSubdivisions)
        }
        var pulses = [IndicatorPulse(channel: led, startNanoseconds: start, lengthNanoseconds: min(ledLength, cap))]
        if buzz {
            pulses.append(IndicatorPulse(channel: .buzzer, startNanoseconds: start, lengthNanoseconds: min(buzzLength, cap)))
        }
        return pulses
    }

    /// The wheel's buzz: as soon as possible, which is the edge's own time when the control
    /// loop is on time and `now` when it is late (a pulse in the past would be lost).
    public func wheelPulse(_ feedback: WheelFeedback, edgeNanoseconds: Int64, nowNanoseconds: Int64) -> IndicatorPulse {
        IndicatorPulse(channel: .buzzer, startNanoseconds: max(edgeNanoseconds, nowNanoseconds),
                       lengthNanoseconds: feedback == .tick ? settings.tickNanoseconds : settings.bumpNanoseconds)
    }
}
