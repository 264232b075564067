// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic
/// What is sounding at a point of the timeline: the tempo (the song's current tempo while
/// a song plays, not the box's settings), meter and accents of the bar.
public struct Sounding: Sendable, Hashable {
    /// BPM of `beatUnit` at this beat (a ramp's tempo at the beat).
    public var bpm: Double
    /// The tempo exactly, when it is a constant (nil inside a ramp).
    public var exactBPM: Rational?
    /// The tempo moves continuously here (a ramp): shown in tenths.
    public var isRamping: Bool
    public var meter: Meter
    public var beatUnit: BeatUnit
    /// Beats that start in the bar.
    public var beatCount: Int
    public var accents: AccentPattern
    /// Song playback: a count-in beat.
    public var isCount: Bool = false
    /// Song playback: the section (-1 for the count-in or no song).
    public var section: Int = -1

    public init(bpm: Double, exactBPM: Rational?, isRamping: Bool, meter: Meter, beatUnit: BeatUnit, beatCount: Int,
                accents: AccentPattern, isCount: Bool = false, section: Int = -1) {
        self.bpm = bpm
        self.exactBPM = exactBPM
        self.isRamping = isRamping
        self.meter = meter
        self.beatUnit = beatUnit
        self.beatCount = beatCount
        self.accents = accents
        self.isCount = isCount
        self.section = section
    }

    /// The tempo as the screen writes it: exact ("120", "92.5"), or in tenths while it ramps
    /// ("137.4").
    public var tempoText: String {
        if let exactBPM, !isRamping { return exactBPM.decimalDescription }
        let tenths = Int64((bpm * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    /// The Italian marking of the tempo sounding.
    public var marking: TempoMarking { TempoMarking.of(bpm: bpm) }
}

/// A beat of the timeline and where it lies: what the pendulum, beat boxes, pulse ring,
/// LEDs and buzzer need at one sample.
public struct GridBeat: Sendable, Hashable {
    /// Bar counted from the last start (a song's count-in is negative).
    public var bar: Int64
    /// Beat in the bar, from 0.
    public var beat: Int
    /// Consecutive beats since the start: the pendulum swings one way on even, the other on odd.
    public var beatIndex: Int64
    /// The sample this beat is played on, and the next beat's.
    public var beatSample: Int64
    public var nextBeatSample: Int64
    /// 0 at this beat's sample, approaching 1 at the next beat's.
    public var fraction: Double
    public var level: AccentLevel
    /// Seconds per beat at the tempo sounding (sets the pendulum's length).
    public var beatSeconds: Double
    public var sounding: Sounding

    public init(bar: Int64, beat: Int, beatIndex: Int64, beatSample: Int64, nextBeatSample: Int64, fraction: Double,
                level: AccentLevel, beatSeconds: Double, sounding: Sounding) {
        self.bar = bar
        self.beat = beat
        self.beatIndex = beatIndex
        self.beatSample = beatSample
        self.nextBeatSample = nextBeatSample
        self.fraction = fraction
        self.level = level
        self.beatSeconds = beatSeconds
        self.sounding = sounding
    }
}
