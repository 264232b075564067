// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import HAL
import TactusBase
import TactusInstrument
import TactusMusic
import TactusTimeline

/// The LEDs and the buzzer: a pulse at each onset as it is heard, the wheel's detent ticks
/// and bumps, the buzzer standing in for the clicks in silent practice, and the dark gap
/// (the LEDs and buzzer rest with the muted bars of a gap click).
final class IndicatorFeature: BoxFeature {
    let output: any IndicatorOutput
    private var scheduler: IndicatorScheduler
    private var darkGap = false

    init(output: any IndicatorOutput, settings: IndicatorSettings) {
        self.output = output
        scheduler = IndicatorScheduler(settings: settings)
    }

    func perform(_ effect: Effect, at time: MonotonicTime, in box: Box) {
        switch effect {
        case .darkGap(let on):
            darkGap = on
        case .silentPractice(let on):
            scheduler.settings.buzzerPulses = on
        case .buzzer(let cue, let at):
            let feedback: WheelFeedback = cue == .tick ? .tick : .bump
            emit(scheduler.wheelPulse(feedback, edgeNanoseconds: at.nanoseconds, nowNanoseconds: box.now.nanoseconds),
                 because: .wheel(feedback), in: box)
        default:
            break
        }
    }

    func heard(_ event: OnsetEvent, at time: MonotonicTime, clock: AudioOutputClock, in box: Box) {
        if event.muted && darkGap { return }
        for pulse in scheduler.pulses(onsetSample: event.sample, kind: event.kind, layer: Int(event.layer),
                                      clock: clock, samplesPerBeat: box.grid.samplesPerBeat(atSample: event.sample)) {
            emit(pulse, because: .onset(event.kind), in: box)
        }
    }

    func allOff() {
        for indicator in IndicatorChannel.allCases { output.set(indicator, on: false) }
    }

    private func emit(_ pulse: IndicatorPulse, because reason: PulseReason, in box: Box) {
        output.pulse(pulse.channel, at: MonotonicTime(nanoseconds: pulse.startNanoseconds), lastingNanoseconds: pulse.lengthNanoseconds)
        box.observer?.box(box, didPulse: pulse, because: reason)
    }
}
