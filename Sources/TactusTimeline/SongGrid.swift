// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic
/// One beat of a song as the engine plays it (count-in, sections, ramps, trainer steps,
/// live changes), made with the song's onsets by `SongTimeline` so it lies on the very
/// sample its click does.
public struct SongBeat: Sendable, Hashable {
    /// Sample from the song's start.
    public var sample: Int64
    /// Whole notes from bar 0's downbeat (the count-in is before it: negative).
    public var wholeNotes: Rational
    public var bar: Int64
    public var beat: Int
    public var level: AccentLevel
    public var bpm: Double
    /// The tempo as this beat ends (the next beat's, inside a ramp; else `bpm`).
    public var bpmAtEnd: Double
    public var isRamping: Bool
    public var section: Int
    public var song: Int
    public var isCount: Bool
    /// Silent (gap click, random mute): the LEDs and the pendulum still count it.
    public var muted: Bool
    public var meter: Meter
    public var beatUnit: BeatUnit
    public var beatCount: Int
    public var accents: AccentPattern

    public init(sample: Int64, wholeNotes: Rational, bar: Int64, beat: Int, level: AccentLevel, bpm: Double, bpmAtEnd: Double,
                isRamping: Bool,
                section: Int, song: Int, isCount: Bool, muted: Bool, meter: Meter, beatUnit: BeatUnit, beatCount: Int,
                accents: AccentPattern) {
        self.sample = sample
        self.wholeNotes = wholeNotes
        self.bar = bar
        self.beat = beat
        self.level = level
        self.bpm = bpm
        self.bpmAtEnd = bpmAtEnd
        self.isRamping = isRamping
        self.section = section
        self.song = song
        self.isCount = isCount
        self.muted = muted
        self.meter = meter
        self.beatUnit = beatUnit
        self.beatCount = beatCount
        self.accents = accents
    }

    /// The beat's length in whole notes (the last beat of a 4/5 bar in quarters is short).
    public var lengthInWholeNotes: Rational {
        let unit = beatUnit.wholeNotes
        let left = meter.wholeNotes - Rational(Int64(beat)) * unit
        return left < unit ? left : unit
    }

    public var sounding: Sounding {
        Sounding(bpm: bpm, exactBPM: isRamping ? nil : Rational(exactly: bpm), isRamping: isRamping, meter: meter,
                 beatUnit: beatUnit, beatCount: beatCount, accents: accents, isCount: isCount, section: section)
    }
}

extension Rational {
    /// A tempo given as a Double that is a decimal with at most three places (120, 92.5), exactly.
    init?(exactly value: Double) {
        guard value.isFinite, abs(value) < 1e12 else { return nil }
        let thousandths = (value * 1000).rounded()
        guard abs(thousandths - value * 1000) < 1e-6 else { return nil }
        self.init(reducing: Int128(Int64(thousandths)), 1000)
    }
}

/// A MIDI clock of a song: clock `k` sits at whole-note position k/96 from bar 0's downbeat
/// (negative in the count-in), placed by the song's own time map with its clicks.
public struct SongTick: Sendable, Hashable, BitwiseCopyable {
    public var k: Int64
    /// Sample from the song's start.
    public var sample: Int64

    public init(k: Int64, sample: Int64) {
        self.k = k
        self.sample = sample
    }
}

/// The beats of a whole song, from its start to where it stops starting clicks; made on
/// the control side with the song's schedule, immutable, shared (never copied) by every
/// reader. Reading it is a binary search: no allocation.
public final class SongBeats: Sendable, Hashable {
    public let beats: [SongBeat]
    /// Sample (from the song's start) where it stops starting clicks.
    public let endSample: Int64
    /// The 1/96-whole-note positions (MIDI clocks) in order, exact on the song's time map
    /// (ramps, steps, meters, count-in); empty when the song was made without them.
    public let ticks: [SongTick]

    public init(beats: [SongBeat], endSample: Int64, ticks: [SongTick] = []) {
        self.beats = beats
        self.endSample = endSample
        self.ticks = ticks
    }

    /// The sample (from the song's start) of tick `k`, or nil when the song has none there.
    public func tickSample(_ k: Int64) -> Int64? {
        // Array subscripts only: `first` goes through Collection and allocates in debug builds.
        guard ticks.count > 0 else { return nil }
        // Ticks are consecutive: a direct index, checked (a song made from a later position may skip).
        let i = k - ticks[0].k
        if i >= 0 && i < Int64(ticks.count) && ticks[Int(i)].k == k { return ticks[Int(i)].sample }
        var low = 0, high = ticks.count
        while low < high {
            let mid = (low + high) / 2
            if ticks[mid].k < k { low = mid + 1 } else { high = mid }
        }
        return low < ticks.count && ticks[low].k == k ? ticks[low].sample : nil
    }

    /// The first tick whose sample (from the song's start) is at or after `sample`, or nil.
    public func firstTick(atOrAfter sample: Int64) -> SongTick? {
        var low = 0, high = ticks.count
        while low < high {
            let mid = (low + high) / 2
            if ticks[mid].sample < sample { low = mid + 1 } else { high = mid }
        }
        return low < ticks.count ? ticks[low] : nil
    }

    public static func == (a: SongBeats, b: SongBeats) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Index of the last beat at or before `sample` (from the song's start), or nil before the first.
    public func index(atOrBefore sample: Int64) -> Int? {
        var low = 0, high = beats.count
        while low < high {
            let mid = (low + high) / 2
            if beats[mid].sample <= sample { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }

    /// Index of the last beat at or before whole-note position `wholeNotes`, or nil.
    func index(atOrBeforeWholeNotes wholeNotes: Rational) -> Int? {
        var low = 0, high = beats.count
        while low < high {
            let mid = (low + high) / 2
            if beats[mid].wholeNotes <= wholeNotes { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }
}

/// A song as a piece of the timeline: its beats, started at engine sample `origin`.
public struct SongGrid: Sendable, Hashable {
    public let beats: SongBeats
    public let origin: Int64
    public let sampleRate: Int

    public init(beats: SongBeats, origin: Int64, sampleRate: Int) {
        self.beats = beats
        self.origin = origin
        self.sampleRate = sampleRate
    }

    /// The beat at or before engine sample `sample` (the first, at fraction 0, before the
    /// song starts), or nil for a song without beats.
    public func beat(atSample sample: Double) -> GridBeat? {
        let table = beats.beats
        guard !table.isEmpty else { return nil }
        let relative = sample - Double(origin)
        let i = beats.index(atOrBefore: Int64(relative.rounded(.down))) ?? 0
        let this = table[i]
        var next = i + 1 < table.count ? table[i + 1].sample : beats.endSample
        if next <= this.sample {
            // The last beat before the end: as long as a beat at its tempo.
            next = this.sample + max(1, Int64((60 / this.bpm * Double(sampleRate)).rounded()))
        }
        let fraction = min(max((relative - Double(this.sample)) / Double(next - this.sample), 0), 1)
        return GridBeat(bar: this.bar, beat: this.beat, beatIndex: Int64(i), beatSample: origin + this.sample,
                        nextBeatSample: origin + next, fraction: fraction, level: this.level,
                        beatSeconds: 60 / this.bpm, sounding: this.sounding)
    }

    /// The engine sample of the position `wholeNotes` whole notes from bar 0's downbeat
    /// (negative: in the count-in), or nil outside the song. Exact on every beat (the
    /// beat's own sample); between two beats the position is placed by the tempo at both
    /// (linear in time within a beat, as a ramp linear in time is), so it lies within one
    /// sample of the exact model.
    public func sample(wholeNotes: Rational) -> Int64? {
        // A MIDI clock's position: the song's own tick, exact.
        let ticks = wholeNotes * Rational(96)
        if ticks.denominator == 1, let sample = beats.tickSample(Int64(ticks.numerator)) { return origin + sample }
        let table = beats.beats
        guard let i = beats.index(atOrBeforeWholeNotes: wholeNotes) else { return nil }
        let this = table[i]
        if this.wholeNotes == wholeNotes { return origin + this.sample }
        // The next beat, or the song's end after the last one.
        let (nextSample, nextWhole) = i + 1 < table.count
            ? (table[i + 1].sample, table[i + 1].wholeNotes)
            : (beats.endSample, this.wholeNotes + this.lengthInWholeNotes)
        guard wholeNotes < nextWhole, nextSample > this.sample else { return nil }
        // Share of the beat's length in whole notes, then its time by the tempo at both ends.
        let share = ((wholeNotes - this.wholeNotes) / (nextWhole - this.wholeNotes)).doubleValue
        let b0 = this.bpm, b1 = this.bpmAtEnd
        // Position f(u) = (2 b0 u + (b1 - b0) u^2) / (b0 + b1) for time share u; solved for u.
        let u = share * (b0 + b1) / (b0 + (b0 * b0 + share * (b1 * b1 - b0 * b0)).squareRoot())
        let span = Double(nextSample - this.sample)
        return origin + this.sample + Int64((u * span + 0.5).rounded(.down))
    }
}
