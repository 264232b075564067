// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import TactusBase
import TactusInstrument
import TactusTimeline

/// A remote view that follows the beat (the companion's live view, through the control
/// socket): the grid's beats are announced up to half a second ahead, the new ones since the
/// last announcement, or all of them again from where the grid changed (a start, a change,
/// STOP: an announced beat not listed again is gone).
final class LiveViewFeature: BoxFeature {
    /// The last beat's sample announced.
    private var through: Int64?
    /// The grid changed from this sample on: announce again from there.
    private var changedFrom: Int64?

    func gridChanged(from sample: Int64?, in box: Box) {
        changedFrom = sample.map { min(changedFrom ?? .max, $0) } ?? .min
    }

    func gridPublished(clock: AudioOutputClock, in box: Box) {
        guard let view = box.controlObserver, view.followsBeats else {
            (through, changedFrom) = (nil, nil)
            return
        }
        let heard = Box.frame(heardAt: box.now, on: clock)
        let changed = changedFrom.map { max($0, heard) }
        let from = changed ?? through.map { $0 + 1 } ?? heard
        changedFrom = nil
        let beats = box.state.isPlaying ? upcoming(from: from, heard: heard, clock: clock, in: box) : []
        guard !beats.isEmpty || changed != nil else { return }
        view.box(box, willPlay: beats, from: MonotonicTime(nanoseconds: clock.outputNanoseconds(ofSample: from)))
    }

    /// The grid's beats from `from` to half a second past `heard`.
    private func upcoming(from: Int64, heard: Int64, clock: AudioOutputClock, in box: Box) -> [AnnouncedBeat] {
        guard let first = box.grid.pieces.first?.startSample else { return [] }
        let horizon = heard + Int64(box.engine.renderer.sampleRate) / 2
        var beats: [AnnouncedBeat] = []
        var sample = max(from, first)
        while sample <= horizon, let beat = box.grid.beat(atSample: Double(sample)) {
            if beat.beatSample >= sample {
                guard beat.beatSample <= horizon else { break }
                beats.append(AnnouncedBeat(bar: beat.bar, beat: beat.beat,
                                           time: MonotonicTime(nanoseconds: clock.outputNanoseconds(ofSample: beat.beatSample))))
                through = beat.beatSample
            }
            guard beat.nextBeatSample > sample else { break }
            sample = beat.nextBeatSample
        }
        return beats
    }
}
