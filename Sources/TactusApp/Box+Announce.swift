// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import TactusBase
import TactusTimeline

extension Box {
    /// Announces the grid's beats up to half a second ahead to a remote view: the new ones
    /// since the last call, or all of them from where the grid changed.
    func announceBeats(clock: AudioOutputClock) {
        guard let controlObserver, controlObserver.followsBeats else {
            announcement = Announcement()
            return
        }
        let heard = Int64(clock.heardSample(atNanoseconds: now.nanoseconds).rounded(.down))
        let changed = announcement.changedFrom.map { max($0, heard) }
        let from = changed ?? announcement.through.map { $0 + 1 } ?? heard
        announcement.changedFrom = nil
        var beats: [AnnouncedBeat] = []
        let horizon = heard + Int64(engine.renderer.sampleRate) / 2
        if state.isPlaying, let first = grid.pieces.first?.startSample {
            var sample = max(from, first)
            while sample <= horizon, let beat = grid.beat(atSample: Double(sample)) {
                if beat.beatSample >= sample {
                    guard beat.beatSample <= horizon else { break }
                    beats.append(AnnouncedBeat(bar: beat.bar, beat: beat.beat, time: MonotonicTime(nanoseconds: clock.outputNanoseconds(ofSample: beat.beatSample))))
                    announcement.through = beat.beatSample
                }
                guard beat.nextBeatSample > sample else { break }
                sample = beat.nextBeatSample
            }
        }
        guard !beats.isEmpty || changed != nil else { return }
        controlObserver.box(self, willPlay: beats, from: MonotonicTime(nanoseconds: clock.outputNanoseconds(ofSample: from)))
    }
}
