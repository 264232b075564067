// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
import TactusTimeline
import TactusBase

/// One onset of a song, placed on the control side: its exact sample from the song's
/// start and everything the render thread needs to play and report it.
struct ScheduledOnset: BitwiseCopyable {
    var sample: Int64
    var clip: UnsafePointer<Float>
    var clipFrames: Int
    /// Frames the clip starts before the onset (a spoken word's lead; 0 for clicks).
    var lead: Int
    var gain: Float
    /// The clip's peak times its gain: the limiter's bound.
    var level: Float
    var bar: Int64
    var beat: Int32
    var layer: UInt8
    var kind: OnsetKind
    var section: Int16
    var song: Int16
    var isCount: Bool
    var muted: Bool
    var bpm: Double
    var index: Int32
    var polySteps: UInt8
    var polySpanBeats: UInt8
}

/// A song (or songs played back to back) compiled into one immutable table: the exact
/// model (`SongTimeline`) decides every sample here, on the control side; the render
/// thread only compares integers and walks a cursor, so any block size renders the same.
public final class SongSchedule: @unchecked Sendable {
    /// Refuses to build more than this many onsets (about 40 MB).
    public static let maximumOnsets = 1_000_000

    public let songs: [Song]
    public let seed: UInt64
    /// Live changes so far (samples from the song's start).
    public let changes: [SongChange]
    /// Sound and volumes from each sample on (the first from 0).
    let mixes: [SongMix]
    let bars: Int64?
    let samples: Int64?
    /// The onsets before this sample are those of the schedule it was made from by a live
    /// change (the same, at the same index): the render thread keeps its cursor.
    let sameBefore: Int64?
    /// Sample (from the song's start) where starting clicks stops: the song's end, bar N's
    /// downbeat, or the requested end.
    public let endSample: Int64
    let count: Int
    let onsets: UnsafeMutablePointer<ScheduledOnset>
    /// Every beat of the song (muted ones too) and its MIDI clocks, on the samples its clicks
    /// are played on: the timeline's piece while it plays (`ClickEngine.gridPiece(for:)`).
    public let beats: SongBeats
    /// The longest clip lead of any onset (see `EngineProgram.maxLead`).
    let maxLead: Int64

    public struct TooLong: Error, CustomStringConvertible {
        public var description: String {
            "the song has more than \(SongSchedule.maximumOnsets) clicks before its end; give --bars or --seconds"
        }
    }

    /// `bars`: stop at the downbeat of the song's bar N; `samples`: stop there; neither:
    /// at the song's end (an endless song needs one of them).
    convenience init(songs: [Song], seed: UInt64, sounds: SoundSet, volumes: Volumes, sampleRate: Int,
                     bars: Int64?, samples: Int64?) throws(TooLong) {
        try self.init(songs: songs, seed: seed, mixes: [SongMix(sample: 0, sounds: sounds, volumes: volumes)], changes: [],
                      sampleRate: sampleRate, bars: bars, samples: samples, sameBefore: nil)
    }

    /// The same song with one more live change at `change.sample` (not before the last one),
    /// playing `mix` from there.
    func changed(_ change: SongChange, mix: SongMix, sampleRate: Int) throws(TooLong) -> SongSchedule {
        try SongSchedule(songs: songs, seed: seed, mixes: mixes + [mix], changes: changes + [change],
                         sampleRate: sampleRate, bars: bars, samples: samples, sameBefore: change.sample)
    }

    init(songs: [Song], seed: UInt64, mixes: [SongMix], changes: [SongChange], sampleRate: Int,
         bars: Int64?, samples: Int64?, sameBefore: Int64?) throws(TooLong) {
        self.songs = songs
        self.seed = seed
        self.mixes = mixes
        self.changes = changes
        self.bars = bars
        self.samples = samples
        self.sameBefore = sameBefore
        var table: [ScheduledOnset] = []
        var beats: [SongBeat] = []
        // With a voice set: each onset's word (nil: its click) and its set's voice.
        var words: [Clip?] = []
        var voices: [VoiceWords?] = []
        var timeline = SongTimeline(songs: songs, sampleRate: sampleRate, seed: seed, changes: changes, markBeats: true)
        timeline.includesClocks = true
        var end: Int64?
        var mixIndex = 0
        while true {
            guard let o = timeline.next() else {
                end = timeline.endTime?.rounded
                break
            }
            if let bars, o.bar >= bars { end = timeline.barStart.bar == o.bar ? timeline.barStart.sample : o.sample; break }
            if let samples, o.sample >= samples { end = samples; break }
            guard table.count < SongSchedule.maximumOnsets && beats.count < SongSchedule.maximumOnsets else { throw TooLong() }
            if var beat = o.gridBeat {
                beat.sample = o.sample
                beats.append(beat)
                continue
            }
            while mixIndex + 1 < mixes.count && mixes[mixIndex + 1].sample <= o.sample { mixIndex += 1 }
            let (sounds, volumes) = (mixes[mixIndex].sounds, mixes[mixIndex].volumes)
            let master = Float(volumes.master) / 100
            let clip: Clip
            let volume: Int
            switch o.kind {
            case .accent: (clip, volume) = (sounds.accent, volumes.accent)
            case .beat: (clip, volume) = (sounds.beat, volumes.beat)
            case .subdivision: (clip, volume) = (sounds.subdivision, volumes.layer(o.layer))
            case .soft: (clip, volume) = (sounds.accent, volumes.soft)
            case .poly: (clip, volume) = (sounds.poly, volumes.polyLayer(o.layer))
            }
            words.append(o.muted ? nil : WordChoice.word(sounds, kind: o.kind, layer: o.layer, beat: o.beat, index: o.index))
            voices.append(sounds.voice)
            table.append(ScheduledOnset(
                sample: o.sample, clip: clip.samples, clipFrames: clip.frameCount, lead: 0,
                gain: master * Float(volume) / 100 * Float(o.gainPercent.doubleValue / 100),
                level: master * Float(volume) / 100 * Float(o.gainPercent.doubleValue / 100) * clip.peak,
                bar: o.bar, beat: Int32(o.beat), layer: UInt8(o.layer), kind: o.kind,
                section: Int16(clamping: o.section), song: Int16(clamping: o.song), isCount: o.isCount, muted: o.muted, bpm: o.bpm,
                index: Int32(o.index), polySteps: UInt8(o.polySteps), polySpanBeats: UInt8(clamping: o.polySpanBeats)))
        }
        SongSchedule.speak(&table, words: &words, voices: voices)
        maxLead = Int64(table.reduce(0) { max($0, $1.lead) })
        let endSample = end ?? samples ?? (table.last.map { $0.sample + 1 } ?? 0)
        self.endSample = endSample
        self.beats = SongBeats(beats: beats.filter { $0.sample < endSample }, endSample: endSample,
                               ticks: timeline.ticks.filter { $0.sample < endSample })
        count = table.count
        onsets = .allocate(capacity: max(count, 1))
        if count > 0 { table.withUnsafeBufferPointer { onsets.initialize(from: $0.baseAddress!, count: count) } }
    }

    deinit { onsets.deallocate() }

    /// Puts a voice set's words in place of the clicks: the count-in's last two beats say
    /// its two words ("ready", "go"), the beats before count; a syllable that would not end
    /// before the next spoken word starts gives way to the click (numbers never do).
    private static func speak(_ table: inout [ScheduledOnset], words: inout [Clip?], voices: [VoiceWords?]) {
        var i = 0
        while i < table.count {
            guard table[i].isCount else { i += 1; continue }
            var end = i
            while end < table.count && table[end].isCount { end += 1 }
            // The run i..<end is one count-in; its last two clicks get the count-in words.
            if let voice = voices[i], voice.countIn.count == 2 {
                for (k, index) in (max(i, end - 2)..<end).reversed().enumerated() where !table[index].muted {
                    words[index] = voice.countIn[1 - k]
                }
            }
            i = end
        }
        // Each syllable is judged against the words as first chosen (as EngineProgram.words).
        let chosen = words
        let spoken = chosen.indices.filter { chosen[$0] != nil }
        for (k, i) in spoken.enumerated() where table[i].kind == .subdivision && k + 1 < spoken.count {
            let j = spoken[k + 1]
            guard let clip = chosen[i], let next = chosen[j] else { continue }
            if WordChoice.givesWay(onset: Double(table[i].sample), clip: clip, nextStart: Double(table[j].sample) - Double(next.lead)) {
                words[i] = nil
            }
        }
        for i in spoken {
            guard let word = words[i] else { continue }
            let gain = table[i].gain
            table[i].clip = word.samples
            table[i].clipFrames = word.frameCount
            table[i].lead = word.lead
            table[i].level = gain * word.peak
        }
    }

    /// Index of the first onset at or after `sample` (render thread: no allocation).
    func firstIndex(atOrAfter sample: Int64) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if onsets[mid].sample < sample { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The label of a section of the first song (events name it).
    public func label(song: Int = 0, section: Int) -> String {
        guard section >= 0, song < songs.count, section < songs[song].sections.count else { return section < 0 ? "count-in" : "" }
        return songs[song].sections[section].label
    }
}

/// The sound set and volumes a song plays from a sample on.
struct SongMix {
    var sample: Int64
    var sounds: SoundSet
    var volumes: Volumes
}
