// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic
import TactusBase
import TactusTimeline

/// One onset of the bar, compiled for the render thread: position in grid units, the clip
/// to start and its gain. Plain data only.
struct CompiledOnset: BitwiseCopyable {
    var offset: Int64
    var clip: UnsafePointer<Float>
    var clipFrames: Int
    /// Frames the clip starts before the onset (a spoken word's lead; 0 for clicks).
    var lead: Int
    var gain: Float
    /// gain x the clip's peak.
    var level: Float
    var beat: Int32
    var index: Int32
    var layer: UInt8
    var kind: OnsetKind
    /// Poly onsets: the layer's steps and span in beats (0: the bar), for events.
    var polySteps: UInt8
    var polySpanBeats: UInt8
    /// Which note this is, the same in every program that has it: beat, source (0 beat,
    /// n layer n, 16 + m poly layer m) and step. Lets a change tell a note that moved
    /// (swing, groove) from a new one.
    var key: Int64
    /// Render-thread scratch: the bar in which this onset was already played under an
    /// earlier program (a swung note moved past the change), so it is not played twice.
    var playedInBar: Int64
}

/// An immutable, precomputed description of what to play, built on the control side and
/// handed to the render thread whole. Musical positions are integers on a grid of
/// `gridPerWhole` units per whole note, chosen so every onset of the bar lies on the grid;
/// samples per whole note are an exact fraction. The render thread only multiplies and
/// divides 128-bit integers: no allocation, no accumulation.
final class EngineProgram: @unchecked Sendable {
    let settings: MetronomeSettings
    let playing: Bool
    /// Incremented by every start: a new epoch restarts at bar 0 instead of keeping phase.
    let transportEpoch: UInt64
    /// Identifies the program (and so its settings) in published grid anchors.
    let serial: UInt64
    let gridPerWhole: Int64
    let barGrid: Int64
    let beatGrid: Int64
    /// Samples per whole note = samplesPerWholeNumerator / samplesPerWholeDenominator.
    let samplesPerWholeNumerator: Int64
    let samplesPerWholeDenominator: Int64
    let onsetCount: Int
    let onsets: UnsafeMutablePointer<CompiledOnset>
    /// Onset indices in the order of their keys, for matching notes across a change.
    let byKey: UnsafeMutablePointer<Int32>
    /// When set, the song is played instead of the bar pattern (from its start on each start).
    let song: SongSchedule?
    /// The subdivision onsets of the first beat, in order: after the meter shrank, the rest of
    /// the finishing beat plays them laid back from the next downbeat, one beat at a time.
    let leadIn: UnsafeMutablePointer<Int32>
    let leadInCount: Int
    /// A start placed by an outside timeline (Link, a followed MIDI clock): bar 0's downbeat
    /// at sample `startTwice / 2` instead of the render call that takes the start up. Set
    /// before publishing, then read only.
    var startTwice: Int64?
    /// The start's first position, played late rather than passed over (`ClickEngine.start(atTwice:playsLateFrom:)`).
    var startDueTwice: Int64?
    /// The grid re-placed by an outside timeline while playing: `anchor` on this program's grid,
    /// applied once (the render thread remembers the serial). Set before publishing.
    var alignment: (serial: UInt64, anchor: Anchor, lateWithin: Int64, relocatesClock: Bool)?
    /// The longest clip lead of any onset: the renderer starts onsets this many frames
    /// ahead of the block, so a clip can begin up to its lead before its onset.
    let maxLead: Int64
    /// The reference tone (nil: off); the renderer ramps to it when it takes the program.
    let tone: ToneParameters?
    /// What the render thread sends over MIDI with this program.
    let midiClock: MIDIClockOptions
    /// A song's clock goes on after its last tick at these settings (the tempo, meter and
    /// beat unit of its last beat); made here, on the control side.
    let afterSong: MetronomeSettings?

    init(settings: MetronomeSettings, sounds: SoundSet, sampleRate: Int, playing: Bool, transportEpoch: UInt64, serial: UInt64 = 0,
         song: SongSchedule? = nil, tone: ToneParameters? = nil, midiClock: MIDIClockOptions = MIDIClockOptions()) {
        self.serial = serial
        self.tone = tone
        self.midiClock = midiClock
        afterSong = song.flatMap { EngineProgram.settings(after: $0, base: settings) }
        self.settings = settings
        self.song = song
        self.playing = playing
        self.transportEpoch = transportEpoch
        var pattern = BarPattern(settings)
        if pattern.gridDenominator == nil {
            // Front ends refuse such settings (MetronomeSettings.validate); should one slip
            // through, play the plain bar rather than overflow.
            var plain = settings
            (plain.swing, plain.groove, plain.poly) = (nil, nil, .none)
            pattern = BarPattern(plain)
        }
        let grid = pattern.gridDenominator!
        gridPerWhole = grid
        barGrid = pattern.barLength.numerator * (grid / pattern.barLength.denominator)
        beatGrid = pattern.beatLength.numerator * (grid / pattern.beatLength.denominator)
        // samples per whole note = rate * 60 / (bpm * beat unit in whole notes)
        let perWhole = Rational(Int64(sampleRate) * 60) / (settings.tempo.bpm * pattern.beatLength)
        samplesPerWholeNumerator = perWhole.numerator
        samplesPerWholeDenominator = perWhole.denominator

        let volumes = settings.volumes
        let master = Float(volumes.master) / 100
        onsetCount = pattern.onsets.count
        onsets = .allocate(capacity: max(onsetCount, 1))
        let words = EngineProgram.words(pattern, sounds: sounds, grid: grid, barGrid: barGrid,
                                        samplesPerWhole: Double(perWhole.numerator) / Double(perWhole.denominator))
        var longestLead = 0
        var polyOrdinal = [Int64](repeating: 0, count: PolyLayer.maximumLayers + 1)
        var keys: [Int64] = []
        keys.reserveCapacity(onsetCount)
        for (index, onset) in pattern.onsets.enumerated() {
            let key: Int64
            if onset.kind == .poly {
                key = (0xFFFF << 32) | (Int64(16 + onset.layer) << 24) | polyOrdinal[onset.layer]
                polyOrdinal[onset.layer] += 1
            } else {
                key = (Int64(onset.beat) << 32) | (Int64(onset.layer) << 24) | Int64(onset.index)
            }
            keys.append(key)
            var clip: Clip
            let volume: Int
            switch onset.kind {
            case .accent: (clip, volume) = (sounds.accent, volumes.accent)
            case .soft: (clip, volume) = (sounds.accent, volumes.soft)
            case .beat: (clip, volume) = (sounds.beat, volumes.beat)
            case .subdivision: (clip, volume) = (sounds.subdivision, volumes.layer(onset.layer))
            case .poly: (clip, volume) = (sounds.poly, volumes.polyLayer(onset.layer))
            }
            if let word = words[index] { clip = word }
            longestLead = max(longestLead, clip.lead)
            let shape = onset.kind == .poly ? pattern.poly.eventShape(layer: onset.layer) : (0, 0)
            (onsets + index).initialize(to: CompiledOnset(
                offset: onset.offset.numerator * (grid / onset.offset.denominator),
                clip: clip.samples, clipFrames: clip.frameCount, lead: clip.lead,
                gain: master * Float(volume) / 100 * Float(onset.gain) / 100,
                level: master * Float(volume) / 100 * Float(onset.gain) / 100 * clip.peak,
                beat: Int32(onset.beat), index: Int32(onset.index), layer: UInt8(onset.layer), kind: onset.kind,
                polySteps: UInt8(shape.0), polySpanBeats: UInt8(clamping: shape.1), key: key, playedInBar: .min))
        }
        maxLead = Int64(longestLead)
        let (compiled, beatLength) = (onsets, beatGrid)
        let firstBeatSubdivisions = (0..<onsetCount).filter {
            compiled[$0].kind == .subdivision && compiled[$0].beat == 0 && compiled[$0].offset > 0 && compiled[$0].offset < beatLength
        }
        leadInCount = firstBeatSubdivisions.count
        leadIn = .allocate(capacity: max(leadInCount, 1))
        for (position, index) in firstBeatSubdivisions.enumerated() { leadIn[position] = Int32(index) }
        byKey = .allocate(capacity: max(onsetCount, 1))
        for (position, index) in (0..<onsetCount).sorted(by: { keys[$0] < keys[$1] }).enumerated() {
            byKey[position] = Int32(index)
        }
    }

    /// A voice set's word for each onset of the bar, or nil where the click plays: numbers
    /// on beats, syllables on layers 2-4; a syllable that would not end before the next
    /// spoken word starts (the bar repeating) gives way to the click. Numbers never do.
    /// Each syllable is judged against the words as first chosen, so the outcome does not
    /// depend on the order of the walk (the bar wraps: its last syllable's next word may be
    /// one that itself gave way, e.g. with beat 1 muted).
    static func words(_ pattern: BarPattern, sounds: SoundSet, grid: Int64, barGrid: Int64, samplesPerWhole: Double) -> [Clip?] {
        let chosen = pattern.onsets.map { WordChoice.word(sounds, kind: $0.kind, layer: $0.layer, beat: $0.beat, index: $0.index) }
        guard sounds.voice != nil else { return chosen }
        let perGrid = samplesPerWhole / Double(grid)
        let time = pattern.onsets.map { Double($0.offset.numerator * (grid / $0.offset.denominator)) * perGrid }
        let bar = Double(barGrid) * perGrid
        let spoken = chosen.indices.filter { chosen[$0] != nil }
        guard spoken.count > 1 else { return chosen }
        var words = chosen
        for (k, i) in spoken.enumerated() where pattern.onsets[i].kind == .subdivision {
            let j = spoken[(k + 1) % spoken.count]
            guard let clip = chosen[i], let next = chosen[j] else { continue }
            let nextStart = time[j] + (j <= i ? bar : 0) - Double(next.lead)
            if WordChoice.givesWay(onset: time[i], clip: clip, nextStart: nextStart) { words[i] = nil }
        }
        return words
    }

    deinit {
        onsets.deallocate()
        byKey.deallocate()
        leadIn.deallocate()
    }

}

extension EngineProgram {
    /// The settings a song's clock goes on at after its last tick: its last beat's tempo
    /// (to a thousandth), meter and beat unit.
    static func settings(after song: SongSchedule, base: MetronomeSettings) -> MetronomeSettings? {
        guard let last = song.beats.beats.last else { return nil }
        var settings = base
        guard let tempo = try? Tempo(Rational(Int64((last.bpmAtEnd * 1000).rounded()), 1000)) else { return nil }
        settings.tempo = tempo
        settings.meter = last.meter
        settings.beatUnit = last.beatUnit
        return settings
    }

    /// The timeline's piece for this program pinned at `anchor` (what the render thread
    /// publishes): the steady grid of its settings, or its song's beats and ticks. The one
    /// builder for `ClickEngine.gridPiece(for:)` and the render thread's MIDI clock.
    static func piece(settings: MetronomeSettings, song: SongSchedule?, sampleRate: Int, anchor: GridAnchor) -> BeatGrid.Piece {
        if let song {
            return .song(SongGrid(beats: song.beats, origin: Rational.floorDivide(anchor.sampleTwice, 2), sampleRate: sampleRate))
        }
        return .steady(SteadyGrid(settings: settings, sampleRate: sampleRate, sampleTwice: anchor.sampleTwice, bar: anchor.bar,
                                  positionNumerator: anchor.positionNumerator, positionDenominator: anchor.positionDenominator))
    }
}
