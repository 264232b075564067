/// Everything that decides what the metronome plays. A plain value: the control side
/// edits it, the engine compiles it into a schedule.
public struct MetronomeSettings: Sendable, Hashable {
    public var tempo: Tempo
    public var meter: Meter
    public var beatUnit: BeatUnit
    public var accents: AccentPattern
    public var subdivisions: Subdivisions
    public var volumes: Volumes
    /// A built-in sound set's name, or a folder holding accent.wav, beat.wav and sub.wav.
    public var sound: String

    public init(
        tempo: Tempo = Tempo(clampingWholeBPM: 120),
        meter: Meter = .common,
        beatUnit: BeatUnit = .quarter,
        accents: AccentPattern = .downbeat,
        subdivisions: Subdivisions = .none,
        volumes: Volumes = Volumes(),
        sound: String = "woodblock"
    ) {
        self.tempo = tempo
        self.meter = meter
        self.beatUnit = beatUnit
        self.accents = accents
        self.subdivisions = subdivisions
        self.volumes = volumes
        self.sound = sound
    }

    /// Bar length in beats: (numerator/denominator) / beat unit. May be fractional (4/5 in
    /// quarters is 3.2 beats); the last beat is then cut short by the next downbeat.
    public var beatsPerBar: Rational { meter.wholeNotes / beatUnit.wholeNotes }

    /// Beats that start inside the bar: the ones that can be accented.
    public var beatCount: Int { Int(beatsPerBar.ceiling) }
}
