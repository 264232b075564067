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
