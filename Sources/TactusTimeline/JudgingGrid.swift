// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic

/// A position of the grid a player's hit is judged against, on the one timeline.
public struct JudgedPosition: Sendable, Hashable {
    /// The engine sample the timeline places it on.
    public var sample: Int64
    public var bar: Int64
    public var beat: Int
    /// The position's number within its bar on this grid, from 0.
    public var index: Int
    /// Its bar's clicks are muted (a gap).
    public var gap: Bool

    public init(sample: Int64, bar: Int64, beat: Int, index: Int, gap: Bool) {
        self.sample = sample
        self.bar = bar
        self.beat = beat
        self.index = index
        self.gap = gap
    }
}

/// The coach's grid, read from the one timeline (`BeatGrid`), never from a formula of its
/// own: every beat (a muted one too) and the sounding subdivision layers of its bar (the
/// bar's pattern as `BarPattern` lays it out, poly layers left out), or with `perWholeNote`
/// every 1/N note, straight. Each position's sample is the timeline's
/// (`BeatGrid.sample(bar:beats:near:)`, a song's `sample(wholeNotes:near:)`).
public struct JudgingGrid: Sendable {
    /// `--grid 1/N`, `[coach] grid = "1/N"`: N (nil: the beat and the sounding layers).
    public let perWholeNote: Int?
    /// The songs a song piece of the timeline plays (their sections' patterns).
    public var songs: [Song]
    /// Positions in one bar by the settings of its pattern (few distinct settings per session).
    private var patterns: [MetronomeSettings: [(inBeats: Rational, beat: Int)]] = [:]

    public init(perWholeNote: Int? = nil, songs: [Song] = []) {
        self.perWholeNote = perWholeNote
        self.songs = songs
    }

    /// Layers per beat of a 1/N grid with `beatUnit` (1 to 9), or nil when N does not divide
    /// the beat that way.
    public static func layer(perWholeNote n: Int, beatUnit: BeatUnit) -> Int? {
        let perBeat = beatUnit.wholeNotes * Rational(Int64(n))
        guard perBeat.denominator == 1, (1...9).contains(perBeat.numerator) else { return nil }
        return Int(perBeat.numerator)
    }

    /// The nearest position to engine sample `sample` (the earlier on an exact tie) and half
    /// the distance to its nearer neighbour; nil on an empty timeline. A hit further from its
    /// position than that half step lies outside the grid (before its start, after its end).
    public mutating func nearest(toSample sample: Double, on grid: BeatGrid) -> (position: JudgedPosition, halfStep: Double)? {
        guard let start = grid.pieces.first?.startSample else { return nil }
        let firstSample = start
        guard let here = grid.beat(atSample: max(sample, Double(firstSample))) else { return nil }
        var candidates = positions(in: here, on: grid)
        if let next = grid.beat(atSample: Double(here.nextBeatSample)), next.beatSample > here.beatSample,
           let first = positions(in: next, on: grid).first {
            candidates.append(first)
        }
        candidates.removeAll { $0.sample < firstSample }
        guard !candidates.isEmpty else { return nil }
        var best = 0
        for i in candidates.indices.dropFirst()
        where abs(Double(candidates[i].sample) - sample) < abs(Double(candidates[best].sample) - sample) {
            best = i
        }
        var step = Double.infinity
        if best > 0 { step = Double(candidates[best].sample - candidates[best - 1].sample) }
        if best + 1 < candidates.count { step = min(step, Double(candidates[best + 1].sample - candidates[best].sample)) }
        if !step.isFinite, let spb = grid.samplesPerBeat(atSample: candidates[best].sample) { step = spb.doubleValue }
        return (candidates[best], step / 2)
    }

    /// The positions of one beat, in time order, the beat's own first.
    private mutating func positions(in beat: GridBeat, on grid: BeatGrid) -> [JudgedPosition] {
        let near = beat.beatSample
        var settings: MetronomeSettings
        var gap = false
        var songBeat: SongBeat?
        switch grid.piece(atSample: Double(near)) {
        case .steady(let steady): settings = steady.settings
        case .song(let song):
            let table = song.beats.beats
            guard table.indices.contains(Int(beat.beatIndex)) else { return [] }
            let b = table[Int(beat.beatIndex)]
            songBeat = b
            gap = b.muted
            if b.section >= 0, songs.indices.contains(b.song), songs[b.song].sections.indices.contains(b.section) {
                settings = songs[b.song].sections[b.section].patternSettings
            } else {
                // The count-in: its beats alone.
                settings = MetronomeSettings()
                settings.meter = b.meter
                settings.beatUnit = b.beatUnit
                settings.subdivisions = .none
            }
        case nil: return []
        }
        let bar = pattern(settings).enumerated().filter { $0.element.beat == beat.beat }
        return bar.compactMap { index, position in
            let sample: Int64?
            if let songBeat {
                sample = grid.sample(wholeNotes: songBeat.wholeNotes + (position.inBeats - Rational(Int64(beat.beat))) * songBeat.beatUnit.wholeNotes,
                                     near: near)
            } else {
                sample = grid.sample(bar: beat.bar, beats: position.inBeats, near: near)
            }
            return sample.map { JudgedPosition(sample: $0, bar: beat.bar, beat: beat.beat, index: index, gap: gap) }
        }
    }

    /// Every position of a bar with these settings, in beats from its downbeat: the bar's
    /// pattern with every beat sounding and no poly layers (a 1/N grid: that layer alone).
    private mutating func pattern(_ settings: MetronomeSettings) -> [(inBeats: Rational, beat: Int)] {
        if let known = patterns[settings] { return known }
        var grid = settings
        grid.accents = AccentPattern(Array(repeating: .normal, count: max(1, settings.beatCount)))
        grid.poly = .none
        if let n = perWholeNote {
            grid.swing = nil
            grid.groove = nil
            let layer = JudgingGrid.layer(perWholeNote: n, beatUnit: settings.beatUnit) ?? 1
            grid.subdivisions = layer > 1 ? ((try? Subdivisions([layer])) ?? .none) : .none
        }
        let bar = BarPattern(grid)
        let positions = bar.onsets.filter { $0.kind != .poly }.map { ($0.offset / bar.beatLength, $0.beat) }
        patterns[settings] = positions
        return positions
    }
}
