// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Coach
import TactusBase
import TactusInstrument
import TactusTimeline

/// The practice log: each stretch of playing, from START to STOP, with its song, the fastest
/// tempo heard and the coach's figures, added to the log when it stops.
final class PracticeFeature: BoxFeature {
    /// Where the log goes (nil: not kept).
    var store: (any PracticeLogStore)?
    private var startedAt: MonotonicTime?
    private var song = ""
    private var topBPM = 0.0
    /// The coach's hits of the current stretch.
    var coach = CoachStatistics()

    func perform(_ effect: Effect, at time: MonotonicTime, in box: Box) {
        switch effect {
        case .start: if startedAt == nil { startedAt = time }
        case .stop: log(until: time, report: box.report)
        default: break
        }
    }

    func heard(_ event: OnsetEvent, at time: MonotonicTime, clock: AudioOutputClock, in box: Box) {
        guard event.layer == 0 && event.kind.isBeat && !event.isCount && !box.isCalibratingCoach else { return }
        // A song's beats carry its tempo; free play's is the setting's.
        topBPM = max(topBPM, event.bpm > 0 ? event.bpm : box.state.settings.tempo.bpm.doubleValue)
        if box.state.practice.isLoaded, let name = box.state.songView?.name { song = name }
    }

    private func log(until time: MonotonicTime, report: (String) -> Void) {
        guard let started = startedAt else { return }
        startedAt = nil
        let seconds = (time.nanoseconds - started.nanoseconds) / 1_000_000_000
        let (song, bpm, heard) = (self.song, topBPM, coach)
        self.song = ""
        topBPM = 0
        coach = CoachStatistics()
        guard seconds > 0, let store else { return }
        let figures = heard.count == 0 ? nil : CoachFigures(
            hits: heard.count, meanMs: heard.mean, sdMs: heard.standardDeviation,
            within10Percent: heard.shareWithin10 * 100, within25Percent: heard.shareWithin25 * 100)
        do { try store.addPractice(seconds: seconds, song: song, bpm: bpm, coach: figures) } catch { report("practice log: \(error)") }
    }
}
