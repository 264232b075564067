// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// The one timeline: where beat x is on the engine's sample clock, and what is played there,
/// for every program the engine plays — constant settings (and every live change to them),
/// songs with ramps and sections, the trainer's steps, the count-in, live changes during a
/// song. The render thread publishes where it pinned each program (`GridAnchor`, lock free);
/// the control side turns each anchor into a piece (`ClickEngine.gridPiece(for:)`) and
/// appends it here. Everything that shows, sends or judges the beat reads this: the screen
/// (pendulum, beat boxes, song strip, the tempo page's "what is sounding"), the LEDs and
/// buzzer, and from the next issues MIDI clock, Link, the coach and the web beat view.
///
/// Reading (`beat(atSample:)`, `sample(bar:beats:)`, `sample(wholeNotes:)`,
/// `sounding(atSample:)`) never allocates: integer arithmetic, binary searches, and the
/// half-sample rule (`HalfSampleRule`) that the renderer plays onsets with. Pieces are
/// immutable; a reader on another thread is handed a copy of the value.
public struct BeatGrid: Sendable, Hashable {
    /// A stretch of the timeline, from the sample its anchor was published for.
    public enum Piece: Sendable, Hashable {
        case steady(SteadyGrid)
        case song(SongGrid)

        /// The engine sample of grid position `k / perWhole` of a whole note from bar 0's
        /// downbeat (MIDI clock: perWhole 96), by the piece's own rule (`HalfSampleRule` on a
        /// steady grid; a song's own ticks): what `BeatGrid.sample(tick:perWhole:near:)` reads.
        /// No allocation: the render thread places the MIDI clock with it.
        public func sample(tick k: Int64, perWhole: Int64 = 96) -> Int64? {
            switch self {
            case .steady(let grid):
                return grid.sample(bar: 0, beats: Rational(k, perWhole) / grid.settings.beatUnit.wholeNotes)
            case .song(let grid):
                // MIDI clocks: the song's own ticks (none past its end).
                if perWhole == 96 && grid.beats.ticks.count > 0 {
                    guard let sample = grid.beats.tickSample(k) else { return nil }
                    return grid.origin + sample
                }
                return grid.sample(wholeNotes: Rational(k, perWhole))
            }
        }

        /// The first tick (k / perWhole of a whole note from bar 0) on or after engine sample
        /// `sample`, and its engine sample; nil past a song's last tick. (A struct, not a tuple:
        /// no type metadata to instantiate on the render thread.)
        public func firstTick(atOrAfter sample: Int64, perWhole: Int64 = 96) -> SongTick? {
            switch self {
            case .steady(let grid):
                // Estimated with floats, then settled on the exact samples.
                var k = Int64((grid.wholeNotes(atSample: Double(sample)) * Double(perWhole)).rounded(.down))
                while let s = self.sample(tick: k, perWhole: perWhole), s >= sample { k -= 1 }
                while let s = self.sample(tick: k, perWhole: perWhole), s < sample { k += 1 }
                guard let s = self.sample(tick: k, perWhole: perWhole) else { return nil }
                return SongTick(k: k, sample: s)
            case .song(let grid):
                guard perWhole == 96, let tick = grid.beats.firstTick(atOrAfter: sample - grid.origin) else { return nil }
                return SongTick(k: tick.k, sample: grid.origin + tick.sample)
            }
        }

        /// The engine sample from which this piece holds (a song's: its start).
        public var startSample: Int64 {
            switch self {
            case .steady(let grid): Rational.floorDivide(grid.anchorTwice, 2)
            case .song(let grid): grid.origin
            }
        }
    }

    /// Oldest first; the piece in effect at a sample is the last appended whose start is
    /// not after it (a live change in a song replaces the piece with one from the same start).
    public private(set) var pieces: [Piece] = []

    public init() {}
    public init(_ piece: Piece) { pieces = [piece] }

    public var isEmpty: Bool { pieces.isEmpty }

    /// The engine's sample rate (nil while empty).
    public var sampleRate: Int? {
        switch pieces.first {
        case .steady(let grid): grid.sampleRate
        case .song(let grid): grid.sampleRate
        case nil: nil
        }
    }

    /// A new anchor from the engine (start, change).
    public mutating func append(_ piece: Piece) { pieces.append(piece) }

    /// Drops the pieces no longer in effect at `sample` (the sample being heard).
    public mutating func forget(before sample: Int64) {
        guard pieces.count > 1, let inEffect = pieces.lastIndex(where: { $0.startSample <= sample }), inEffect > 0 else { return }
        pieces.removeFirst(inEffect)
    }

    public mutating func removeAll() { pieces.removeAll() }

    /// The piece in effect at `sample` (the first one before any starts).
    public func piece(atSample sample: Double) -> Piece? {
        pieces.last { Double($0.startSample) <= sample } ?? pieces.first
    }

    /// The beat at or before `sample` and the progress towards the next one: at a beat's
    /// own sample the fraction is exactly 0.
    public func beat(atSample sample: Double) -> GridBeat? {
        switch piece(atSample: sample) {
        case .steady(let grid): grid.beat(atSample: sample)
        case .song(let grid): grid.beat(atSample: sample)
        case nil: nil
        }
    }

    /// Tempo, meter and accents sounding at `sample`.
    public func sounding(atSample sample: Double) -> Sounding? { beat(atSample: sample)?.sounding }

    /// Samples per beat at `sample` (exact under constant settings; a song's beat as played).
    public func samplesPerBeat(atSample sample: Int64) -> Rational? {
        switch piece(atSample: Double(sample)) {
        case .steady(let grid): return grid.samplesPerBeat
        case .song(let grid):
            guard let beat = grid.beat(atSample: Double(sample)) else { return nil }
            return Rational(beat.nextBeatSample - beat.beatSample)
        case nil: return nil
        }
    }

    /// The engine sample of the position `beats` beats after bar `bar`'s downbeat, on the
    /// piece in effect at `near` (a sample close to it, e.g. the one being heard): exact
    /// (the sample the engine plays it on) under constant settings; in a song, exact on
    /// beats and within a sample between them.
    public func sample(bar: Int64, beats: Rational, near: Int64) -> Int64? {
        switch piece(atSample: Double(near)) {
        case .steady(let grid): return grid.sample(bar: bar, beats: beats)
        case .song(let grid):
            guard let first = grid.beats.beats.first(where: { $0.bar == bar }) else { return nil }
            return grid.sample(wholeNotes: first.wholeNotes - Rational(Int64(first.beat)) * first.beatUnit.wholeNotes
                               + beats * first.beatUnit.wholeNotes)
        case nil: return nil
        }
    }

    /// The engine sample of grid position `k / perWhole` of a whole note from bar 0's
    /// downbeat (MIDI clock: perWhole 96 is 24 per quarter note), on the piece in effect at
    /// `near`. Under constant settings bars are counted in the current meter.
    public func sample(tick k: Int64, perWhole: Int64 = 96, near: Int64) -> Int64? {
        piece(atSample: Double(near))?.sample(tick: k, perWhole: perWhole)
    }

    public func sample(wholeNotes: Rational, near: Int64) -> Int64? {
        switch piece(atSample: Double(near)) {
        case .steady(let grid):
            let beats = wholeNotes / grid.settings.beatUnit.wholeNotes
            return grid.sample(bar: 0, beats: beats)
        case .song(let grid): return grid.sample(wholeNotes: wholeNotes)
        case nil: return nil
        }
    }
}
