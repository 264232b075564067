// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import TactusArithmetic
import TactusBase
import TactusMusic
import TactusTimeline
import TactusInstrument

extension Box {
    /// An earned trainer's step (BoxState.earnTempo): the song plays on at the new tempo from
    /// the downbeat of bar `step.fromBar` (at once when the grid does not reach it yet); the
    /// step goes to the observers (the practice log takes it from the effect).
    func applyEarnedTempo(_ step: TrainerStep, settings: MetronomeSettings) {
        guard let clock = outputClock else { return }
        let heard = Box.frame(heardAt: now, on: clock)
        let downbeat = grid.sample(bar: step.fromBar, beats: .zero, near: heard)
        // Song tempos carry at most 3 decimals (a practice tempo's scaling may add more).
        let bpm = Rational(reducing: Int128((step.toBPM * 1000).rounded()), 1000)
        do {
            try engine.applyDuringSong(settings, tempo: .to(bpm), pattern: false, notBefore: downbeat)
        } catch { report("trainer: \(error)") }
        let at = downbeat.map { clock.outputNanoseconds(ofSample: $0) } ?? now.nanoseconds
        observer?.box(self, didStepTrainer: step, heardAt: MonotonicTime(nanoseconds: at))
    }
}
