/// Where the beats of the running bar grid fall on the engine's sample clock, computed the
/// way the engine computes them: an exact rational position rounded (halves up) to a sample.
/// The screen asks it "which beat are we in, and how far through" for the sample being
/// heard, so the pendulum and the pulse ring land on the same samples as the clicks.
public struct BeatTimeline: Sendable, Hashable {
    /// Exact sample of bar 0's downbeat (the engine's start position; may be a half sample).
    public let origin: Rational
    public let samplesPerBeat: Rational
    /// Bar length in beats; fractional for meters such as 4/5 in quarters (the last beat is cut short).
    public let beatsPerBar: Rational
    /// Beats that start inside a bar.
    public let beatCount: Int
    public let accents: AccentPattern
    public let sampleRate: Int
    public let settings: MetronomeSettings

    public init(settings: MetronomeSettings, sampleRate: Int, downbeatSample origin: Rational) {
        self.settings = settings
        self.origin = origin
        self.sampleRate = sampleRate
        self.samplesPerBeat = Rational(Int64(sampleRate) * 60) / settings.tempo.bpm
        self.beatsPerBar = settings.beatsPerBar
        self.beatCount = max(1, settings.beatCount)
        self.accents = settings.accents
    }

    /// The grid on which beat `beat` of bar `bar` fell at `sample`: anchored on a beat the
    /// engine reported, so the screen follows what was actually played.
    public init(settings: MetronomeSettings, sampleRate: Int, bar: Int64, beat: Int, atSample sample: Int64) {
        let samplesPerBeat = Rational(Int64(sampleRate) * 60) / settings.tempo.bpm
        let beats = Rational(bar) * settings.beatsPerBar + Rational(Int64(beat))
        self.init(settings: settings, sampleRate: sampleRate, downbeatSample: Rational(sample) - beats * samplesPerBeat)
    }

    /// A beat of the grid and where it lies.
    public struct Position: Sendable, Hashable {
        public var bar: Int64
        /// Beat in the bar, from 0.
        public var beat: Int
        /// Beats since bar 0's downbeat: the pendulum swings one way on even, the other on odd.
        public var beatIndex: Int64
        public var beatSample: Int64
        public var nextBeatSample: Int64
        /// 0 at this beat's sample, approaching 1 at the next beat's.
        public var fraction: Double
        public var level: AccentLevel
    }

    /// The sample of beat `beat` of bar `bar`, rounded like the engine (halves up).
    public func sample(bar: Int64, beat: Int) -> Int64 {
        (origin + (Rational(bar) * beatsPerBar + Rational(Int64(beat))) * samplesPerBeat).rounded
    }

    public var beatSeconds: Double { samplesPerBeat.doubleValue / Double(sampleRate) }

    /// The beat whose sample is at or before `sample` and the progress towards the next one.
    /// Steps are whole samples of the rounded grid, so at a beat's sample the fraction is exactly 0.
    public func position(atSample sample: Double) -> Position {
        let barSamples = (beatsPerBar * samplesPerBeat).doubleValue
        var bar = Int64(((sample - origin.doubleValue) / barSamples).rounded(.down))
        let inBar = sample - origin.doubleValue - Double(bar) * barSamples
        var beat = min(max(Int((inBar / samplesPerBeat.doubleValue).rounded(.down)), 0), beatCount - 1)
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
        return Position(bar: bar, beat: beat, beatIndex: bar * Int64(beatCount) + Int64(beat),
                        beatSample: start, nextBeatSample: end,
                        fraction: (sample - Double(start)) / Double(end - start),
                        level: accents.level(ofBeat: beat))
    }

    private func next(_ bar: Int64, _ beat: Int) -> (Int64, Int) {
        beat + 1 < beatCount ? (bar, beat + 1) : (bar + 1, 0)
    }

    private func previous(_ bar: Int64, _ beat: Int) -> (Int64, Int) {
        beat > 0 ? (bar, beat - 1) : (bar - 1, beatCount - 1)
    }

    /// The grid after a settings change at `sample`, keeping the position in the bar (in whole
    /// notes) as the engine does, so the pendulum continues from where it is at the new speed.
    public func changing(to newSettings: MetronomeSettings, atSample sample: Int64) -> BeatTimeline {
        let beats = (Rational(sample) - origin) / samplesPerBeat
        let bar = (beats / beatsPerBar).floor
        let inBarWhole = (beats - Rational(bar) * beatsPerBar) * settings.beatUnit.wholeNotes
        let newBeatsPerBar = newSettings.beatsPerBar
        var inBarBeats = inBarWhole / newSettings.beatUnit.wholeNotes
        if !(inBarBeats < newBeatsPerBar) {
            // The new bar is shorter than where we are: finish the current beat, then a downbeat.
            let toNextBeat = Rational(inBarBeats.ceiling) - inBarBeats
            inBarBeats = newBeatsPerBar - toNextBeat
            if inBarBeats < .zero { inBarBeats = .zero }
        }
        let newSamplesPerBeat = Rational(Int64(sampleRate) * 60) / newSettings.tempo.bpm
        let newOrigin = Rational(sample) - (Rational(bar) * newBeatsPerBar + inBarBeats) * newSamplesPerBeat
        // A whole sample is precise enough for the screen, and keeps the fraction small however
        // many changes follow one another (a wheel glide sends dozens between two beats).
        return BeatTimeline(settings: newSettings, sampleRate: sampleRate, downbeatSample: Rational(newOrigin.rounded))
    }
}
