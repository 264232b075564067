// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
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
    /// Swing on one even layer (nil: none). The swung layer sounds even when it is not
    /// among `subdivisions`.
    public var swing: Groove?
    /// A groove on one layer (nil: none); it sounds like a swung layer does.
    public var groove: Groove?
    /// Up to four polyrhythm layers.
    public var poly: PolyLayers = .none

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

    /// The subdivision layers that sound: the chosen ones plus the swung or grooved layer.
    public var soundingLayers: [Int] {
        var layers = Set(subdivisions.layers)
        if let swing { layers.insert(swing.layer) }
        if let groove { layers.insert(groove.layer) }
        return layers.sorted()
    }

    /// The groove or swing acting on `layer`, if any.
    public func shaping(ofLayer layer: Int) -> Groove? {
        if let swing, swing.layer == layer { return swing }
        if let groove, groove.layer == layer { return groove }
        return nil
    }

    /// After a meter or beat-unit change on the box: a grouping that no longer fills the bar
    /// becomes the plain accents it stood for (pad / cut), so the settings stay valid.
    public mutating func fitAccentsToBar() {
        if (try? accents.check(beatCount: beatCount)) == nil { accents = AccentPattern(accents.levels) }
    }

    /// Checks what no single field can check alone: a grouping must fill the bar, swing and
    /// groove need different layers, and the bar must fit the engine's exact grid.
    public func validate() throws(SettingError) {
        try accents.check(beatCount: beatCount)
        if let swing, let groove, swing.layer == groove.layer {
            throw SettingError(field: "groove", value: groove.description,
                               allowed: "layer \(groove.layer) is already swung (swing \(swing)); a groove needs another layer")
        }
        let pattern = BarPattern(self)
        guard let grid = pattern.gridDenominator else {
            let (field, value) = poly.layers.isEmpty
                ? (groove != nil ? ("groove", groove!.description) : swing != nil ? ("swing", swing!.description) : ("subdivisions", subdivisions.description))
                : ("poly", poly.description)
            throw SettingError(field: field, value: value,
                               allowed: "with meter \(meter), beat unit \(beatUnit) and the other layers the bar's onsets need more than \(BarPattern.maximumGridDenominator) steps per whole note to stay exact; choose fewer or simpler layers")
        }
        _ = grid
        guard pattern.onsets.count <= BarPattern.maximumOnsets else {
            throw SettingError(field: poly.layers.isEmpty ? "subdivisions" : "poly", value: poly.layers.isEmpty ? subdivisions.description : poly.description,
                               allowed: "the bar would hold \(pattern.onsets.count) onsets; at most \(BarPattern.maximumOnsets)")
        }
    }
}
