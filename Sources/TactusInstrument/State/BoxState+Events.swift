// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusMusic

/// The sub-reducers of what the box hears of itself and the world: its parts, songs, the
/// coach and sync (BoxState.handle dispatches to them).
extension BoxState {
    mutating func reduceSystem(_ event: SystemEvent) -> [Effect] {
        switch event {
        case .saveFailed(let message, _): show("Settings not saved: \(message)", .problem)
        case .part(let name, let working, _): show(working ? "\(name) is back" : "\(name) missing", working ? .info : .problem)
        }
        return []
    }

    mutating func reduceSong(_ event: SongEvent) -> [Effect] {
        switch event {
        case .progress(let section, let bar, let bpm, let song, let beat, _):
            return songProgress(song: song, section: section, bar: bar, beat: beat, bpm: bpm)
        case .ended: return songEnded()
        case .midiControl(let control, _): return midiControl(control)
        }
    }

    mutating func reduceCoach(_ event: CoachEvent) -> [Effect] {
        switch event {
        case .hit(let error, let bar, let gap, _): coachHit(errorMilliseconds: error, bar: bar, gap: gap)
        case .input(let text, let problem, _): show(text, problem ? .problem : .info)
        case .calibrated(let outcome, _): return coachCalibrated(outcome)
        }
        return []
    }

    /// Sync: the source, a followed MIDI clock, the Link session.
    mutating func reduceSync(_ event: SyncEvent) -> [Effect] {
        switch event {
        case .source(let source, _):
            saved.preferences.sync = source
        case .linkStartStopSync(let on, _):
            saved.preferences.linkStartStopSync = on
        case .linkPeers(let count, _):
            let before = linkPeers
            linkPeers = count
            if count != before {
                let peers = count == 1 ? "1 peer" : "\(count) peers"
                show(count > before ? "Link: a peer joined, \(peers)" : "Link: a peer left, \(peers)", .info)
            }
        case .linkTempo(let tempo, _), .clockTempo(let tempo, _):
            // A peer's tempo becomes the box's; the wheel goes on from it.
            if saved.settings.tempo != tempo {
                saved.settings.tempo = tempo
                self.tempo.set(tempo)
            }
        case .linkNotice(let text, _), .notice(let text, _):
            show(text, .info)
        case .midiSync(let view, _):
            midiSync = view
        case .transport(let playing, let origin, _):
            return setPlaying(playing, from: origin)
        }
        return []
    }
}
