// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic
/// One click of a song, placed exactly.
public struct SongOnset: Sendable, Hashable {
    public var sample: Int64
    public var kind: OnsetKind
    /// A count-in click (kind is accent on its beat 0, beat otherwise).
    public var isCount: Bool
    public var layer: Int
    /// Bar from the song's bar 0 (the count-in is -N...-1); keeps counting through loops
    /// and, with a setlist advancing on its own, through the following songs.
    public var bar: Int64
    /// Bar within its section, from 0.
    public var barInSection: Int64
    public var beat: Int
    /// Section index in its song (-1 for the count-in).
    public var section: Int
    public var label: String
    /// Index of the song in what is played (0 unless a setlist advances).
    public var song: Int
    /// Silent (gap click or random mute); still an event so LEDs and pendulum can count.
    public var muted: Bool
    /// The section's gain in percent.
    public var gainPercent: Rational
    /// The tempo at this onset (BPM of the section's beat unit).
    public var bpm: Double
    /// The step within its beat or poly span (PatternOnset.index).
    public var index = 0
    /// Poly onsets: the layer's steps and span in beats (0: the bar).
    public var polySteps = 0
    public var polySpanBeats = 0
    /// Only with `markBeats`: not a click but a beat of the grid (muted accents included),
    /// in time order with the clicks; `SongSchedule` keeps these for the timeline.
    public var gridBeat: SongBeat? = nil
}

/// Walks the onsets of one song or of songs played back to back, in time order, every one
/// at the sample where the exact model puts it: sections meet at exact positions
/// (`SampleTime`), never at rounded samples, so nothing drifts, doubles or gaps.
public struct SongTimeline: Sequence, IteratorProtocol {
    public let songs: [Song]
    public let sampleRate: Int
    /// Seed of the random mute.
    public let seed: UInt64

    private var songIndex = 0
    private var sectionIndex = -1 // -1: count-in
    private var countBars = 0
    private var barInSection: Int64 = 0
    private var songBar: Int64 = 0
    private var songBeat: Int64 = 0 // beats from bar 0, for gaps in beats and random mute
    private var timer: SegmentTimer
    private var pattern: BarPattern
    private var pending: [SongOnset] = []
    /// The position (beats from the section start) of each pending onset.
    private var pendingBeats: [Rational] = []
    private var pendingIndex = 0
    /// songBeat at the bar being played.
    private var barSongBeat: Int64 = 0
    /// Live changes, by sample from the song's start, and the next one to apply.
    public let changes: [SongChange]
    private var changeIndex = 0
    private var finished = false
    /// Also place the MIDI clocks (`ticks`), 96 per whole note, on the same time map as the
    /// clicks (ramps, steps, live changes); in order, from the bars walked so far.
    public var includesClocks = false
    public private(set) var ticks: [SongTick] = []
    /// Tests: place every clock through the timer, as for a ramp (the stepping fast path off).
    var placesClocksOneByOne = false
    /// Whole notes from bar 0's downbeat to the start of the current section (or count-in),
    /// and the whole notes of its beat.
    private var sectionWhole = Rational.zero
    private var beatWhole = Rational(1, 4)
    /// The bar being played and the sample of its downbeat.
    public private(set) var barStart: (bar: Int64, sample: Int64) = (0, 0)
    /// Where the next section (or song) begins.
    public private(set) var sectionStart: SampleTime
    /// Also yield a `gridBeat` marker on every beat (the timeline's beats).
    public let markBeats: Bool
    /// Whole notes from bar 0's downbeat to the current section's start (negative in the count-in).
    private var sectionStartWhole = Rational.zero
    /// The accents the current bar plays (a live pattern change replaces them).
    private var accents = AccentPattern([.accent])

    /// `songs` play back to back (a setlist with `advance = "auto"`); only the first one's
    /// count-in is played, the next song's bar 0 is the last one's end.
    public init(songs: [Song], sampleRate: Int, seed: UInt64 = 0, start: SampleTime = SampleTime(0), changes: [SongChange] = [],
                markBeats: Bool = false) {
        precondition(!songs.isEmpty && songs.allSatisfy { !$0.sections.isEmpty })
        self.songs = songs
        self.markBeats = markBeats
        self.changes = changes.sorted { $0.sample < $1.sample }
        self.sampleRate = sampleRate
        self.seed = seed
        sectionStart = start
        let first = songs[0].sections[0]
        pattern = BarPattern(first.patternSettings)
        timer = SegmentTimer(segment: .constant(1), start: start, lengthInBeats: nil, beatsPerBar: 1, sampleRate: sampleRate)
        switch songs[0].countIn {
        case .bars(let n): countBars = n
        case .twoBeats: countBars = 1
        }
        if countBars > 0 {
            beginCountIn()
        } else {
            beginSection(0)
        }
    }

    public init(song: Song, sampleRate: Int, seed: UInt64 = 0) {
        self.init(songs: [song], sampleRate: sampleRate, seed: seed)
    }

    private func tempoScale(_ song: Song) -> Rational { song.practiceTempoPercent / Rational(100) }

    private mutating func beginCountIn() {
        let song = songs[0]
        let first = song.sections[0]
        let t0 = first.tempo.scaled(by: tempoScale(song)).startTempo
        let beatsPerBar: Rational = song.countIn == .twoBeats ? Rational(2) : first.beatsPerBar
        sectionIndex = -1
        songBar = -Int64(countBars)
        beatWhole = first.beatUnit.wholeNotes
        sectionWhole = Rational.zero - Rational(Int64(countBars)) * beatsPerBar * beatWhole
        barInSection = 0
        sectionStartWhole = -Rational(Int64(countBars)) * beatsPerBar * first.beatUnit.wholeNotes
        accents = AccentPattern((0..<beatsPerBar.ceiling).map { $0 == 0 && song.countIn != .twoBeats ? .accent : .normal })
        timer = SegmentTimer(segment: .constant(t0), start: sectionStart, lengthInBeats: Rational(Int64(countBars)) * beatsPerBar,
                             beatsPerBar: beatsPerBar, sampleRate: sampleRate)
    }

    private mutating func beginSection(_ index: Int) {
        let song = songs[songIndex]
        let section = song.sections[index]
        sectionIndex = index
        barInSection = 0
        beatWhole = section.beatUnit.wholeNotes
        pattern = BarPattern(section.patternSettings)
        accents = section.patternSettings.accents
        timer = SegmentTimer(segment: section.tempo.scaled(by: tempoScale(song)), start: sectionStart,
                             lengthInBeats: section.lengthInBeats, beatsPerBar: section.beatsPerBar, sampleRate: sampleRate)
    }

    /// Moves to the next section, loop or song at the end of the current one; false when
    /// everything has been played.
    private mutating func endSection() -> Bool {
        sectionWhole = sectionWhole + timer.length! * beatWhole
        if sectionIndex == -1 {
            sectionStart = timer.time(atBeat: timer.length!)
            sectionStartWhole = .zero
            songBar = 0
            beginSection(0)
            return true
        }
        let song = songs[songIndex]
        sectionStart = timer.time(atBeat: timer.length!)
        sectionStartWhole = sectionStartWhole + timer.length! * song.sections[sectionIndex].beatUnit.wholeNotes
        if sectionIndex + 1 < song.sections.count {
            beginSection(sectionIndex + 1)
            return true
        }
        if song.loop {
            beginSection(0)
            return true
        }
        guard songIndex + 1 < songs.count else { return false }
        songIndex += 1
        beginSection(0)
        return true
    }

    /// The bar's onsets, made in one go (a bar is small).
    private mutating func fillBar() -> Bool {
        pending.removeAll(keepingCapacity: true)
        pendingBeats.removeAll(keepingCapacity: true)
        pendingIndex = 0
        while true {
            if let length = timer.length, Rational(barInSection) * timer.beatsPerBar >= length {
                // A change before the section's end still moves that end.
                applyChanges(before: length, inclusive: false)
                guard endSection() else { return false }
                continue
            }
            break
        }
        let barStart = Rational(barInSection) * timer.beatsPerBar
        applyChanges(before: barStart, inclusive: true)
        self.barStart = (songBar, timer.onset(atBeat: barStart))
        barSongBeat = songBeat
        appendOnsets(of: pattern, from: nil)
        if sectionIndex >= 0 { songBeat += Int64(songs[songIndex].sections[sectionIndex].beatCount) }
        barInSection += 1
        songBar += 1
        return true
    }

    /// Adds the current bar's onsets (at and after position `from`, when given) to `pending`.
    private mutating func appendOnsets(of pattern: BarPattern, from: BigFraction?) {
        let first = pending.count
        // The timer's cursor only goes forward: the clocks use their own copy of it.
        var clockTimer = timer
        appendClicks(of: pattern, from: from)
        if markBeats { insertBeatMarks(from: from, after: first) }
        if includesClocks { appendTicks(from: from, timer: &clockTimer) }
    }

    /// The bar's MIDI clocks (at and after `from`) onto `ticks`: clock k at whole-note
    /// position k/96 from bar 0's downbeat, placed by the same timer as the bar's clicks.
    private mutating func appendTicks(from: BigFraction?, timer: inout SegmentTimer) {
        let barStart = Rational(barInSection) * timer.beatsPerBar
        var barEnd = barStart + timer.beatsPerBar
        if let length = timer.length, length < barEnd { barEnd = length }
        var k = ((sectionWhole + barStart * beatWhole) * Rational(96)).ceiling
        if from == nil && !placesClocksOneByOne { return appendTicksStepping(from: k, barEnd: barEnd, timer: &timer) }
        while true {
            let x = (Rational(k, 96) - sectionWhole) / beatWhole
            guard x < barEnd else { break }
            defer { k += 1 }
            if let from, BigFraction(x) < from { continue }
            ticks.append(SongTick(k: k, sample: timer.onset(atBeat: x)))
        }
    }

    /// `appendTicks` where the tempo is constant (constant sections, each step of a stepped
    /// or per-beat tempo), without a rational per clock: the clocks are evenly spaced there,
    /// so clock j's time is the piece's first one's plus j steps, added as integers over one
    /// denominator (at most 2^62: then every clock's time is exact, the same `SampleTime` the
    /// timer gives, rounded halves up the same way). Ramps, inexact times and denominators
    /// past 2^62 place their clocks one by one through the timer.
    private mutating func appendTicksStepping(from k0: Int64, barEnd: Rational, timer: inout SegmentTimer) {
        let kEnd = ((sectionWhole + barEnd * beatWhole) * Rational(96)).ceiling
        var k = k0
        while k < kEnd {
            let x = (Rational(k, 96) - sectionWhole) / beatWhole
            guard let (t, end) = timer.constantPiece(atBeat: x) else {
                ticks.append(SongTick(k: k, sample: timer.onset(atBeat: x)))
                k += 1
                continue
            }
            let pieceEnd = end.map { Swift.min(((sectionWhole + $0 * beatWhole) * Rational(96)).ceiling, kEnd) } ?? kEnd
            // One clock is 1 / (96 beatWhole) beats: P / (96 beatWhole t) samples.
            let p = Int128(timer.perMinute.numerator) * Int128(beatWhole.denominator) * Int128(t.denominator)
            let q = Int128(timer.perMinute.denominator) * 96 * Int128(beatWhole.numerator) * Int128(t.numerator)
            let first = timer.time(atBeat: x)
            if pieceEnd > k + 1, first.isExact, let step = Rational(exactly: p, q) {
                let (d1, d2) = (Int128(first.fractionDenominator), Int128(step.denominator))
                let d = d1 / Rational.gcd(d1, d2) * d2
                if d <= 1 << 62 {
                    let den = Int64(d)
                    var whole = first.whole
                    var n = first.fractionNumerator * (den / first.fractionDenominator)
                    let stepWhole = step.floor
                    let stepN = (step.numerator - stepWhole * step.denominator) * (den / step.denominator)
                    while k < pieceEnd {
                        ticks.append(SongTick(k: k, sample: whole + (2 * n >= den ? 1 : 0)))
                        whole += stepWhole
                        n += stepN
                        if n >= den { n -= den; whole += 1 }
                        k += 1
                    }
                    continue
                }
            }
            ticks.append(SongTick(k: k, sample: timer.onset(atBeat: x)))
            k += 1
        }
    }

    /// The grid's beats of the current bar (at and after `from`), merged in time order into
    /// the clicks appended from index `first` on (a mark goes before a click at its position).
    private mutating func insertBeatMarks(from: BigFraction?, after first: Int) {
        let barStart = Rational(barInSection) * timer.beatsPerBar
        let song = songs[sectionIndex == -1 ? 0 : songIndex]
        let section = song.sections[Swift.max(sectionIndex, 0)]
        let count = sectionIndex == -1 && song.countIn == .twoBeats ? 2 : section.beatCount
        let unit = section.beatUnit.wholeNotes
        let meter = sectionIndex == -1 && song.countIn == .twoBeats ? (try? Meter(2, section.meter.denominator)) ?? section.meter : section.meter
        var clicks = Array(zip(pending[first...], pendingBeats[first...]))
        pending.removeSubrange(first...)
        pendingBeats.removeSubrange(first...)
        var c = 0
        for beat in 0..<count {
            let x = barStart + Rational(Int64(beat))
            guard x < barStart + timer.beatsPerBar else { break }
            if let length = timer.length, x >= length { break }
            if let from, BigFraction(x) < from { continue }
            while c < clicks.count && clicks[c].1 < x {
                pending.append(clicks[c].0)
                pendingBeats.append(clicks[c].1)
                c += 1
            }
            let beatIndex = barSongBeat + Int64(beat)
            var muted = false
            if sectionIndex >= 0 {
                if let gap = section.gap, gap.isMuted(gap.unit == GapPattern.Unit.bars ? songBar : beatIndex) { muted = true }
                if let p = section.randomMute, RandomMute(percent: p, seed: seed).isMuted(beat: beatIndex) { muted = true }
            }
            let bpm = timer.tempo(atBeat: x)
            let mark = SongBeat(sample: 0, wholeNotes: sectionStartWhole + x * unit, bar: songBar, beat: beat,
                                level: accents.level(ofBeat: beat), bpm: bpm, bpmAtEnd: tempoAtEnd(ofBeatAt: x, bpm: bpm),
                                isRamping: timer.segment.isRamp,
                                section: sectionIndex, song: sectionIndex == -1 ? 0 : songIndex, isCount: sectionIndex == -1,
                                muted: muted, meter: meter, beatUnit: section.beatUnit, beatCount: count, accents: accents)
            pending.append(SongOnset(sample: timer.onset(atBeat: x), kind: .beat, isCount: sectionIndex == -1, layer: 0, bar: songBar,
                                     barInSection: barInSection, beat: beat, section: sectionIndex,
                                     label: sectionIndex == -1 ? "count-in" : section.label, song: mark.song, muted: true,
                                     gainPercent: 0, bpm: bpm, gridBeat: mark))
            pendingBeats.append(x)
        }
        while c < clicks.count {
            pending.append(clicks[c].0)
            pendingBeats.append(clicks[c].1)
            c += 1
        }
        clicks.removeAll()
    }

    /// The tempo as the beat at `x` ends: a ramp's tempo one beat on (or at the section's
    /// end); steps and constants hold through the beat.
    private mutating func tempoAtEnd(ofBeatAt x: Rational, bpm: Double) -> Double {
        guard timer.segment.isRamp else { return bpm }
        var end = x + .one
        if let length = timer.length, length < end { end = length }
        return timer.tempo(atBeat: end)
    }

    /// Adds the current bar's clicks (at and after position `from`, when given) to `pending`.
    private mutating func appendClicks(of pattern: BarPattern, from: BigFraction?) {
        let barStart = Rational(barInSection) * timer.beatsPerBar
        if sectionIndex == -1 {
            let song = songs[0]
            let beats = song.countIn == .twoBeats ? 2 : song.sections[0].beatCount
            for beat in 0..<beats {
                let x = barStart + Rational(Int64(beat))
                guard x < barStart + timer.beatsPerBar else { break }
                if let from, BigFraction(x) < from { continue }
                pendingBeats.append(x)
                pending.append(SongOnset(sample: timer.onset(atBeat: x), kind: beat == 0 && song.countIn != .twoBeats ? .accent : .beat,
                                         isCount: true, layer: 0, bar: songBar, barInSection: barInSection, beat: beat,
                                         section: -1, label: "count-in", song: 0, muted: false, gainPercent: 100,
                                         bpm: timer.tempo(atBeat: x)))
            }
        } else {
            let section = songs[songIndex].sections[sectionIndex]
            let unit = section.beatUnit.wholeNotes
            let barMuted = section.gap.map { $0.unit == .bars && $0.isMuted(songBar) } ?? false
            for onset in pattern.onsets {
                let x = barStart + onset.offset / unit
                if let from, BigFraction(x) < from { continue }
                let beatIndex = barSongBeat + Int64(onset.beat)
                var muted = barMuted
                if let gap = section.gap, gap.unit == .beats, gap.isMuted(beatIndex) { muted = true }
                if let p = section.randomMute, RandomMute(percent: p, seed: seed).isMuted(beat: beatIndex) { muted = true }
                pendingBeats.append(x)
                pending.append(SongOnset(sample: timer.onset(atBeat: x), kind: onset.kind, isCount: false, layer: onset.layer,
                                         bar: songBar, barInSection: barInSection, beat: onset.beat, section: sectionIndex,
                                         label: section.label, song: songIndex, muted: muted,
                                         gainPercent: section.gainPercent, bpm: timer.tempo(atBeat: x), index: onset.index))
                if onset.kind == .poly {
                    (pending[pending.count - 1].polySteps, pending[pending.count - 1].polySpanBeats) = pattern.poly.eventShape(layer: onset.layer)
                }
            }
        }
    }

    /// Applies the live changes that happen before position `x` of the current section (at
    /// `x` too when `inclusive`): nothing of the bar at `x` is made yet.
    private mutating func applyChanges(before x: Rational, inclusive: Bool) {
        while changeIndex < changes.count {
            let change = changes[changeIndex]
            let position = timer.position(atSample: change.sample)
            let limit = BigFraction(x)
            guard position < limit || (inclusive && !(limit < position)) else { return }
            apply(change, at: position)
            changeIndex += 1
        }
    }

    /// Re-seats the section at the change: a new tempo continues from the exact position
    /// `position` reached at the change's sample; a new pattern replaces the section's.
    private mutating func apply(_ change: SongChange, at position: BigFraction) {
        if let tempo = change.tempo {
            let t: Rational = switch tempo {
            case .to(let t): t
            case .hold: timer.tempo(atSample: change.sample)
            }
            // The section's position 0 at the new tempo: origin + x P / t is x's time.
            let p = BigFraction(timer.perMinute)
            let origin = (BigFraction(change.sample) - position * p / BigFraction(t)).sampleTime
            timer = SegmentTimer(segment: .constant(t), start: origin, lengthInBeats: timer.length,
                                 beatsPerBar: timer.beatsPerBar, sampleRate: sampleRate)
        }
        if let settings = change.pattern, sectionIndex >= 0 {
            let section = songs[songIndex].sections[sectionIndex]
            var bar = settings
            (bar.meter, bar.beatUnit) = (section.meter, section.beatUnit)
            let candidate = BarPattern(bar)
            if candidate.gridDenominator != nil {
                pattern = candidate
                accents = bar.accents
            }
        }
    }

    /// A change inside the bar being played: what has played stays; what is still to play
    /// (at or after the change's sample) is made again from the exact position reached.
    private mutating func applyInBar(_ change: SongChange) {
        let position = timer.position(atSample: change.sample)
        let toPlay = Array(pending[pendingIndex...])
        let toPlayBeats = Array(pendingBeats[pendingIndex...])
        pending.removeSubrange(pendingIndex...)
        pendingBeats.removeSubrange(pendingIndex...)
        // The bar's clocks still to come are placed again too, with the clicks (else they
        // would keep the old time map until the bar ends, then come out all at once).
        let keptTicks = includesClocks ? dropTicks(from: position) : ticks.count
        apply(change, at: position)
        // Due in the half sample before the change (exactly before its position): not yet
        // played, so played now, on the change's sample.
        for (onset, x) in zip(toPlay, toPlayBeats) where BigFraction(x) < position {
            var late = onset
            late.sample = change.sample
            pending.append(late)
            pendingBeats.append(x)
        }
        let kept = pending.count
        if change.pattern != nil && sectionIndex >= 0 {
            // The counters already point at the next bar.
            barInSection -= 1
            songBar -= 1
            appendOnsets(of: pattern, from: position)
            barInSection += 1
            songBar += 1
        } else {
            for (onset, x) in zip(toPlay, toPlayBeats) where !(BigFraction(x) < position) {
                var moved = onset
                moved.sample = timer.onset(atBeat: x)
                moved.bpm = timer.tempo(atBeat: x)
                if moved.gridBeat != nil {
                    moved.gridBeat!.bpm = moved.bpm
                    moved.gridBeat!.bpmAtEnd = tempoAtEnd(ofBeatAt: x, bpm: moved.bpm)
                    moved.gridBeat!.isRamping = timer.segment.isRamp
                }
                pending.append(moved)
                pendingBeats.append(x)
            }
            if includesClocks {
                barInSection -= 1
                var clockTimer = timer
                appendTicks(from: position, timer: &clockTimer)
                barInSection += 1
            }
        }
        for i in kept..<pending.count where pending[i].sample < change.sample { pending[i].sample = change.sample }
        for i in keptTicks..<ticks.count where ticks[i].sample < change.sample { ticks[i].sample = change.sample }
    }

    /// Drops the clocks at or after beat position `position` of the section (the bar being
    /// played is the last one walked); returns how many are kept.
    private mutating func dropTicks(from position: BigFraction) -> Int {
        var kept = ticks.count
        while kept > 0 {
            let x = (Rational(ticks[kept - 1].k, 96) - sectionWhole) / beatWhole
            if BigFraction(x) < position { break }
            kept -= 1
        }
        ticks.removeSubrange(kept...)
        return kept
    }

    public mutating func next() -> SongOnset? {
        while true {
            while pendingIndex >= pending.count {
                if finished { return nil }
                if !fillBar() { finished = true; return nil }
            }
            if changeIndex < changes.count && pending[pendingIndex].sample >= changes[changeIndex].sample {
                applyInBar(changes[changeIndex])
                changeIndex += 1
                continue
            }
            defer { pendingIndex += 1 }
            return pending[pendingIndex]
        }
    }

    /// The exact time at which the song (or songs) ends: nil while still playing (walk
    /// the timeline first) or when it never ends.
    public var endTime: SampleTime? { finished ? sectionStart : nil }
}
