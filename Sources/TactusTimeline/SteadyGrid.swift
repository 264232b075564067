// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic
/// One stretch of the timeline at constant settings, pinned where the engine pinned it
/// (a published `GridAnchor`): where its beats fall on the engine's sample clock, computed
/// with the engine's own rule (`HalfSampleRule`), so every beat lands on the sample its
/// click is played on. A start or a change of settings begins a new one.
public struct SteadyGrid: Sendable, Hashable {
    public let samplesPerBeat: Rational
    /// Bar length in beats; fractional for meters such as 4/5 in quarters (the last beat is cut short).
    public let beatsPerBar: Rational
    /// Beats that start inside a bar.
    public let beatCount: Int
    public let sampleRate: Int
    public let settings: MetronomeSettings
    /// The grid is pinned where the engine pinned it: at sample anchorTwice / 2 (exact), bar
    /// `anchorBar` is `anchorBeats` beats in (exact; negative before a delayed downbeat).
    public let anchorTwice: Int64
    public let anchorBar: Int64
    /// anchorBeats x samplesPerBeat samples, exactly.
    private let lag: HalfSampleRule.Lag
    private let anchorBeatsEstimate: Double

    /// The grid the engine published (`GridAnchor`): from sample `sampleTwice / 2` on, bar
    /// `bar` is `positionNumerator / positionDenominator` whole notes in.
    public init(settings: MetronomeSettings, sampleRate: Int, sampleTwice: Int64, bar: Int64,
                positionNumerator: Int128, positionDenominator: Int128) {
        self.settings = settings
        self.sampleRate = sampleRate
        let samplesPerBeat = Rational(Int64(sampleRate) * 60) / settings.tempo.bpm
        self.samplesPerBeat = samplesPerBeat
        self.beatsPerBar = settings.beatsPerBar
        self.beatCount = max(1, settings.beatCount)
        anchorTwice = sampleTwice
        anchorBar = bar
        // Position in beats x samples per beat = whole notes x samples per whole note.
        let perWhole = samplesPerBeat / settings.beatUnit.wholeNotes
        lag = HalfSampleRule.Lag(numerator: positionNumerator * Int128(perWhole.numerator),
                                 denominator: positionDenominator * Int128(perWhole.denominator))
        anchorBeatsEstimate = Double(positionNumerator) / Double(positionDenominator) / settings.beatUnit.wholeNotes.doubleValue
    }

    /// A grid whose bar 0 starts at `origin` (exact).
    public init(settings: MetronomeSettings, sampleRate: Int, downbeatSample origin: Rational) {
        // Pin it at the whole sample at or before the downbeat: the downbeat is ahead by
        // (origin - floor) samples, i.e. bar 0 is -(origin - floor) / samplesPerWhole whole notes in.
        let floor = origin.floor
        let ahead = origin - Rational(floor)
        let perWhole = Rational(Int64(sampleRate) * 60) / settings.tempo.bpm / settings.beatUnit.wholeNotes
        self.init(settings: settings, sampleRate: sampleRate, sampleTwice: 2 * floor, bar: 0,
                  positionNumerator: -Int128(ahead.numerator) * Int128(perWhole.denominator),
                  positionDenominator: Int128(ahead.denominator) * Int128(perWhole.numerator))
    }

    /// The grid on which beat `beat` of bar `bar` fell at `sample`.
    public init(settings: MetronomeSettings, sampleRate: Int, bar: Int64, beat: Int, atSample sample: Int64) {
        let whole = Rational(Int64(beat)) * settings.beatUnit.wholeNotes
        self.init(settings: settings, sampleRate: sampleRate, sampleTwice: 2 * sample, bar: bar,
                  positionNumerator: Int128(whole.numerator), positionDenominator: Int128(whole.denominator))
    }

    /// Exact sample of bar 0's downbeat (may lie before the anchor; for tests and tools).
    public var origin: Rational {
        Rational(anchorTwice, 2) - Rational(anchorBar) * beatsPerBar * samplesPerBeat
            - Rational(reducing: Int128(lag.whole) * lag.denominator + lag.rest, lag.denominator)
    }

    /// The sample of the position `beats` beats after bar `bar`'s downbeat, rounded like the
    /// engine from the same exact anchor: the very sample the engine plays it on.
    public func sample(bar: Int64, beats: Rational) -> Int64 {
        let travel = (Rational(bar - anchorBar) * beatsPerBar + beats) * samplesPerBeat
        return HalfSampleRule.sample(twice: anchorTwice, travelNumerator: Int128(travel.numerator),
                                     travelDenominator: Int128(travel.denominator), lag: lag)
    }

    /// The sample of beat `beat` of bar `bar`.
    public func sample(bar: Int64, beat: Int) -> Int64 { sample(bar: bar, beats: Rational(Int64(beat))) }

    public var beatSeconds: Double { samplesPerBeat.doubleValue / Double(sampleRate) }

    /// Whole notes since bar 0's downbeat at `sample` on this grid (a float: Link compares
    /// its phase with it to well under a sample).
    public func wholeNotes(atSample sample: Double) -> Double {
        let beats = Double(anchorBar) * beatsPerBar.doubleValue + anchorBeatsEstimate
            + (sample - Double(anchorTwice) / 2) / samplesPerBeat.doubleValue
        return beats * settings.beatUnit.wholeNotes.doubleValue
    }

    /// What this grid plays.
    public var sounding: Sounding {
        Sounding(bpm: settings.tempo.bpm.doubleValue, exactBPM: settings.tempo.bpm, isRamping: false, meter: settings.meter,
                 beatUnit: settings.beatUnit, beatCount: beatCount, accents: settings.accents)
    }

    /// The beat whose sample is at or before `sample` and the progress towards the next one.
    /// Steps are whole samples of the rounded grid, so at a beat's sample the fraction is exactly 0.
    public func beat(atSample sample: Double) -> GridBeat {
        let barBeats = beatsPerBar.doubleValue
        let beats = Double(anchorBar) * barBeats + anchorBeatsEstimate
            + (sample - Double(anchorTwice) / 2) / samplesPerBeat.doubleValue
        var bar = Int64((beats / barBeats).rounded(.down))
        var beat = min(max(Int((beats - Double(bar) * barBeats).rounded(.down)), 0), beatCount - 1)
        // The float estimate can be one beat off next to a boundary; settle it on the integer grid.
        while Double(self.sample(bar: bar, beat: beat)) > sample { (bar, beat) = previous(bar, beat) }
        while true {
            let (nextBar, nextBeat) = next(bar, beat)
            guard Double(self.sample(bar: nextBar, beat: nextBeat)) <= sample else { break }
            (bar, beat) = (nextBar, nextBeat)
        }
        let start = self.sample(bar: bar, beat: beat)
        let (nextBar, nextBeat) = next(bar, beat)
        let end = self.sample(bar: nextBar, beat: nextBeat)
        return GridBeat(bar: bar, beat: beat, beatIndex: bar * Int64(beatCount) + Int64(beat),
                        beatSample: start, nextBeatSample: end,
                        fraction: (sample - Double(start)) / Double(end - start),
                        level: settings.accents.level(ofBeat: beat), beatSeconds: beatSeconds, sounding: sounding)
    }

    private func next(_ bar: Int64, _ beat: Int) -> (Int64, Int) {
        beat + 1 < beatCount ? (bar, beat + 1) : (bar + 1, 0)
    }

    private func previous(_ bar: Int64, _ beat: Int) -> (Int64, Int) {
        beat > 0 ? (bar, beat - 1) : (bar - 1, beatCount - 1)
    }
}

/// Consecutive ticks (k / perWhole of a whole note from bar 0) of a steady grid, stepped by
/// integer additions: tick k's exact time plus half a sample is `sample + rest / denominator`,
/// and one tick adds the same exact amount. The very samples `SteadyGrid.sample(bar:beats:)`
/// gives (the half-sample rule), without a rational reduction per tick: the MIDI clock walks
/// it on the render thread. Bitwise, no allocation.
public struct TickLine: Sendable, Hashable, BitwiseCopyable {
    public private(set) var k: Int64
    public private(set) var sample: Int64
    private var rest: Int128
    private let denominator: Int128
    private let stepWhole: Int64
    private let stepRest: Int128

    init(k: Int64, sample: Int64, rest: Int128, denominator: Int128, stepWhole: Int64, stepRest: Int128) {
        (self.k, self.sample, self.rest, self.denominator) = (k, sample, rest, denominator)
        (self.stepWhole, self.stepRest) = (stepWhole, stepRest)
    }

    /// On to tick k + 1.
    @inline(__always)
    public mutating func advance() {
        k += 1
        sample += stepWhole
        rest += stepRest
        if rest >= denominator {
            rest -= denominator
            sample += 1
        }
    }
}

extension SteadyGrid {
    /// The ticks from `k` on (perWhole per whole note, from bar 0's downbeat), or nil when
    /// the common denominator would not fit in 125 bits (the caller then places each tick
    /// with `sample(bar:beats:)`).
    public func tickLine(from k: Int64, perWhole: Int64 = 96) -> TickLine? {
        // time(k) + 1/2 = (anchorTwice + 1) / 2 - barTravel - lag + k step (HalfSampleRule).
        guard perWhole > 0,
              let barTravel = Rational(anchorBar).multiplied(by: beatsPerBar)?.multiplied(by: samplesPerBeat),
              let perWholeNote = samplesPerBeat.divided(by: settings.beatUnit.wholeNotes),
              let step = perWholeNote.divided(by: Rational(perWhole)) else { return nil }
        func lcm(_ a: Int128, _ b: Int128) -> Int128? {
            let (product, overflow) = (a / Rational.gcd(a, b)).multipliedReportingOverflow(by: b)
            return overflow ? nil : product
        }
        guard let d1 = lcm(2, Int128(barTravel.denominator)), let d2 = lcm(d1, Int128(step.denominator)),
              let d = lcm(d2, lag.denominator), d < (1 << 125) else { return nil }
        func times(_ a: Int128, _ b: Int128) -> Int128? {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? nil : product
        }
        guard let half = times(Int128(anchorTwice) + 1, d / 2),
              let travel = times(Int128(barTravel.numerator), d / Int128(barTravel.denominator)),
              let lagWhole = times(Int128(lag.whole), d),
              let lagRest = times(lag.rest, d / lag.denominator),
              let stepN = times(Int128(step.numerator), d / Int128(step.denominator)),
              let kStep = times(Int128(k), stepN) else { return nil }
        let (n1, o1) = half.subtractingReportingOverflow(travel)
        let (n2, o2) = n1.subtractingReportingOverflow(lagWhole)
        let (n3, o3) = n2.subtractingReportingOverflow(lagRest)
        let (n, o4) = n3.addingReportingOverflow(kStep)
        guard !(o1 || o2 || o3 || o4) else { return nil }
        let whole = Rational.floorDivide(n, d)
        let stepWhole = Rational.floorDivide(stepN, d)
        guard let sample = Int64(exactly: whole), let stepSamples = Int64(exactly: stepWhole) else { return nil }
        let line = TickLine(k: k, sample: sample, rest: n - whole * d, denominator: d, stepWhole: stepSamples,
                            stepRest: stepN - stepWhole * d)
        // The same rule as every other reader: checked once on the first tick.
        guard sample == self.sample(bar: 0, beats: Rational(k, perWhole) / settings.beatUnit.wholeNotes) else { return nil }
        return line
    }
}
