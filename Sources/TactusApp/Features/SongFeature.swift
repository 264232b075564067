// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import TactusBase
import TactusInstrument
import TactusTimeline

/// A song as it is heard: each beat (and count-in beat) moves the song's view on (section,
/// bar, tempo, which song of a setlist), and a song that ends by itself stops the box once
/// its end is heard (an endless one is only scheduled an hour ahead: that is no end).
final class SongFeature: BoxFeature {
    func heard(_ event: OnsetEvent, at time: MonotonicTime, clock: AudioOutputClock, in box: Box) {
        guard box.state.practice.isLoaded && (event.kind.isBeat || event.isCount) else { return }
        box.perform(box.state.handle(.songProgress(section: Int(event.section), bar: event.bar, bpm: event.bpm,
                                                   song: Int(event.song), beat: Int(event.beat), at: box.now)), at: box.now)
    }

    func advance(_ box: Box) {
        guard box.state.practice.isLoaded, box.state.isPlaying, let song = box.engine.song,
              !song.songs.contains(where: \.isEndless), let end = box.engine.songEndSample,
              let heard = box.heardSample(at: box.now), heard >= end else { return }
        box.perform(box.state.handle(.songEnded(at: box.now)), at: box.now)
    }
}
