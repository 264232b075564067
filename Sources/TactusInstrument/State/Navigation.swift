// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
/// What the wheel sets. A short push moves to the next mode on this ring, one push per
/// mode: tempo -> accents -> meter -> subdivisions -> sound -> volumes -> tempo (SPEC 5).
/// Song mode is opened from the menu (Menu > Songs); a short push there returns to tempo. A new mode
/// is one more case here plus its fields in `fields(for:)` and its edits in `FieldEditor`.
/// The rhythm fields (Euclidean accents; swing, groove and poly layers beside the
/// subdivisions) live in RhythmFields.swift.
public enum WheelMode: String, Sendable, Hashable, CaseIterable {
    case tempo, accents, meter, subdivisions, sound, volumes
    /// Songs and practice programs (SongMode.swift).
    case song
    /// The Coach page (Menu > Coach): the wheel sets the tempo, a short push resets the figures.
    case coach

    /// The modes a short push cycles through.
    public static let pushCycle: [WheelMode] = [.tempo, .accents, .meter, .subdivisions, .sound, .volumes]

    public var next: WheelMode {
        guard let index = WheelMode.pushCycle.firstIndex(of: self) else { return .tempo }
        return WheelMode.pushCycle[(index + 1) % WheelMode.pushCycle.count]
    }

    /// The mode's fields, first the one its first screen edits. They sit on a ring that
    /// the wheel turns while held down, so any field is one push-and-turn away.
    /// `songPlaying`: a song plays, so song mode's ring ends with the Coach page.
    public func fields(for settings: MetronomeSettings, songPlaying: Bool = false) -> [Field] {
        switch self {
        case .tempo: [.tempo]
        case .accents: [.accentEvery] + (0..<max(settings.beatCount, 1)).map(Field.beatAccent) + RhythmField.euclidFields(settings).map(Field.rhythm)
        case .meter: [.numerator, .denominator, .beatUnit]
        case .subdivisions: [.subdivisions] + Subdivisions.range.map(Field.layer)
            + (RhythmField.swingFields(settings) + RhythmField.polyFields(settings)).map(Field.rhythm)
        case .sound: [.sound]
        case .volumes:
            [.volume(.master), .volume(.accent)] + (RhythmField.usesSoftAccent(settings) ? [.volume(.soft)] : []) + [.volume(.beat)]
                + settings.soundingLayers.map { .volume(.layer($0)) }
                + settings.poly.layers.indices.map { .volume(.poly($0 + 1)) }
        case .song: [.song, .songSection, .trainerStep, .trainerBars, .trainerWindow, .trainerDown, .gap, .practiceTimer] + (songPlaying ? [.songCoach] : [])
        case .coach: [.tempo]
        }
    }
}

/// A volume the musician sets.
public enum VolumeChannel: Sendable, Hashable {
    case master, accent, beat
    /// The soft accent (group starts, `o`).
    case soft
    /// A subdivision layer, 2...9.
    case layer(Int)
    /// A poly layer, 1...4.
    case poly(Int)

    public var name: String {
        switch self {
        case .master: "master"
        case .accent: "accent"
        case .beat: "beat"
        case .soft: "soft"
        case .layer(let n): "sub\(n)"
        case .poly(let m): "poly\(m)"
        }
    }

    public func value(in volumes: Volumes) -> Int {
        switch self {
        case .master: volumes.master
        case .accent: volumes.accent
        case .beat: volumes.beat
        case .soft: volumes.soft
        case .layer(let n): volumes.layer(n)
        case .poly(let m): volumes.polyLayer(m)
        }
    }
}

/// One thing the wheel can set.
public enum Field: Sendable, Hashable {
    case tempo
    /// "Accent every N beats" (0: none).
    case accentEvery
    /// One beat's accent level, beat from 0.
    case beatAccent(Int)
    case numerator, denominator, beatUnit
    /// The set of layers played at once (none, 2 ... 9, 2+3 ...).
    case subdivisions
    /// One layer, 2...9, on or off.
    case layer(Int)
    case sound
    case volume(VolumeChannel)
    /// Song mode (SongMode.swift): the song, the section to start from or jump to, the
    /// speed trainer's step and interval (and the coach's window and step down that make
    /// it earned), the gap click and the practice timer.
    case song, songSection, trainerStep, trainerBars, trainerWindow, trainerDown, gap, practiceTimer
    /// The Coach page as a field of song mode's ring: judged hits while the song plays.
    case songCoach
    /// Swing, groove, Euclidean accents and poly layers (RhythmFields.swift).
    case rhythm(RhythmField)
}

extension Field {
    /// The field's name in the event log: `tempo`, `accent-every`, `beat-3` (from 1),
    /// `numerator`, `denominator`, `beat-unit`, `subdivisions`, `layer-2`, `sound`,
    /// `volume-master`, `volume-sub2` ...
    public var name: String {
        switch self {
        case .tempo: "tempo"
        case .accentEvery: "accent-every"
        case .beatAccent(let beat): "beat-\(beat + 1)"
        case .numerator: "numerator"
        case .denominator: "denominator"
        case .beatUnit: "beat-unit"
        case .subdivisions: "subdivisions"
        case .layer(let n): "layer-\(n)"
        case .sound: "sound"
        case .volume(let channel): "volume-\(channel.name)"
        case .song: "song"
        case .songSection: "section"
        case .trainerStep: "trainer-step"
        case .trainerBars: "trainer-bars"
        case .trainerWindow: "trainer-window"
        case .trainerDown: "trainer-down"
        case .gap: "gap"
        case .practiceTimer: "practice-timer"
        case .songCoach: "coach"
        case .rhythm(let field): field.name
        }
    }
}

/// Where the wheel is: the mode and the field within it.
public struct Navigation: Sendable, Hashable {
    public internal(set) var mode = WheelMode.tempo
    /// The field's place on the mode's ring.
    public internal(set) var fieldIndex = 0
    /// A song plays: the Coach page is on song mode's ring (kept by the reducer).
    var songPlaying = false

    public init(mode: WheelMode = .tempo, fieldIndex: Int = 0) {
        self.mode = mode
        self.fieldIndex = fieldIndex
    }

    public func field(for settings: MetronomeSettings) -> Field {
        let fields = mode.fields(for: settings, songPlaying: songPlaying)
        return fields[min(fieldIndex, fields.count - 1)]
    }

    /// Short push: the next mode, at its first field.
    mutating func nextMode() {
        mode = mode.next
        fieldIndex = 0
    }

    /// A mode chosen in the menu, at its first field.
    mutating func open(_ mode: WheelMode) {
        self.mode = mode
        fieldIndex = 0
    }

    /// Double push: back to tempo.
    mutating func home() {
        mode = .tempo
        fieldIndex = 0
    }

    /// Push and turn: the next or previous field on the mode's ring (wrapping). False when
    /// the mode has only one field.
    mutating func turnFields(by direction: Int, settings: MetronomeSettings) -> Bool {
        let count = mode.fields(for: settings, songPlaying: songPlaying).count
        guard count > 1 else { return false }
        fieldIndex = ((min(fieldIndex, count - 1) + direction) % count + count) % count
        return true
    }

    /// Keeps the index inside the ring when the ring shrank (fewer beats or layers, the song
    /// stopped).
    mutating func clamp(to settings: MetronomeSettings, songPlaying: Bool) {
        self.songPlaying = songPlaying
        fieldIndex = min(fieldIndex, mode.fields(for: settings, songPlaying: songPlaying).count - 1)
    }
}

/// How each field steps with the wheel and how it reads.
public enum FieldEditor {
    /// Every beat unit the wheel offers, plain and dotted: 1/1, 1/1. ... 1/99, 1/99.
    public static let beatUnits: [BeatUnit] = BeatUnit.range.flatMap { d in
        [try! BeatUnit(division: d), try! BeatUnit(division: d, dotted: true)]
    }

    /// All sets of layers, fewest layers first: none, 2 ... 9, 2+3, 2+4 ...
    public static let subdivisionChoices: [Subdivisions] = {
        let layers = Array(Subdivisions.range)
        let sets = (0..<(1 << layers.count)).map { mask in layers.indices.filter { mask & (1 << $0) != 0 }.map { layers[$0] } }
        return sets.sorted { $0.count != $1.count ? $0.count < $1.count : $0.lexicographicallyPrecedes($1) }
            .map { try! Subdivisions($0) }
    }()

    public static let volumeStep = 5

    /// "Accent every N" when the pattern is one, else nil (edited per beat).
    public static func accentEvery(_ settings: MetronomeSettings) -> Int? {
        let beats = settings.beatCount
        return (0...beats).first { n in
            let pattern = AccentPattern.accentEvery(n, beats: beats)
            return (0..<beats).allSatisfy { pattern.level(ofBeat: $0) == settings.accents.level(ofBeat: $0) }
        }
    }

    /// Moves `field` one step in `direction`; false at a limit (nothing changed).
    public static func adjust(_ field: Field, by direction: Int, in settings: inout MetronomeSettings, soundNames: [String]) -> Bool {
        func step(_ value: Int, in range: ClosedRange<Int>, by amount: Int = 1) -> Int? {
            let new = min(max(value + direction * amount, range.lowerBound), range.upperBound)
            return new == value ? nil : new
        }
        switch field {
        case .tempo, .song, .songSection, .trainerStep, .trainerBars, .trainerWindow, .trainerDown, .gap, .practiceTimer, .songCoach:
            return false
        case .accentEvery:
            guard let n = step(accentEvery(settings) ?? 0, in: 0...settings.beatCount) else { return false }
            settings.accents = .accentEvery(n, beats: settings.beatCount)
        case .beatAccent(let beat):
            var levels = (0..<max(settings.beatCount, settings.accents.levels.count, beat + 1)).map(settings.accents.level(ofBeat:))
            let cycle: [AccentLevel] = [.accent, .soft, .normal, .muted]
            let index = cycle.firstIndex(of: levels[beat]) ?? 2
            levels[beat] = cycle[(index + (direction > 0 ? 1 : cycle.count - 1)) % cycle.count]
            settings.accents = AccentPattern(levels)
        case .numerator, .denominator:
            let m = settings.meter
            guard let v = step(field == .numerator ? m.numerator : m.denominator, in: Meter.range),
                  let meter = try? field == .numerator ? Meter(v, m.denominator) : Meter(m.numerator, v)
            else { return false }
            // As everywhere: a new meter counts in 1/denominator.
            settings.setMeter(meter)
            settings.fitAccentsToBar()
        case .beatUnit:
            let index = beatUnits.firstIndex(of: settings.beatUnit) ?? 6
            guard let i = step(index, in: 0...(beatUnits.count - 1)) else { return false }
            settings.beatUnit = beatUnits[i]
            settings.fitAccentsToBar()
        case .subdivisions:
            let index = subdivisionChoices.firstIndex(of: settings.subdivisions) ?? 0
            guard let i = step(index, in: 0...(subdivisionChoices.count - 1)) else { return false }
            settings.subdivisions = subdivisionChoices[i]
        case .layer(let n):
            var layers = settings.subdivisions.layers
            let on = layers.contains(n)
            // Clockwise turns a layer on, counter-clockwise off.
            guard on != (direction > 0) else { return false }
            if on { layers.removeAll { $0 == n } } else { layers = (layers + [n]).sorted() }
            guard let subdivisions = try? Subdivisions(layers) else { return false }
            settings.subdivisions = subdivisions
        case .sound:
            let index = soundNames.firstIndex(of: settings.sound)
            guard let index else {
                // A sound that is not offered (a preset's folder that went away): back on the list.
                guard let first = soundNames.first else { return false }
                settings.sound = first
                return true
            }
            guard let i = step(index, in: 0...(soundNames.count - 1)) else { return false }
            settings.sound = soundNames[i]
        case .volume(let channel):
            guard let v = step(channel.value(in: settings.volumes), in: Volumes.range, by: volumeStep) else { return false }
            try? settings.volumes.set(channel.name, to: v)
        case .rhythm(let field):
            return field.adjust(by: direction, in: &settings)
        }
        return true
    }

    /// A short label for the field ("beat 3", "sub2 volume").
    public static func label(_ field: Field) -> String {
        switch field {
        case .tempo: "tempo"
        case .accentEvery: "accent every"
        case .beatAccent(let beat): "beat \(beat + 1)"
        case .numerator: "beats per bar"
        case .denominator: "note value"
        case .beatUnit: "beat unit"
        case .subdivisions: "subdivisions"
        case .layer(let n): "layer \(n)"
        case .sound: "sound"
        case .volume(let channel): "\(channel.name) volume"
        case .song, .songSection, .trainerStep, .trainerBars, .trainerWindow, .trainerDown, .gap, .practiceTimer, .songCoach: SongFields.label(field)
        case .rhythm(let field): field.label
        }
    }

    /// The field's value as text.
    public static func value(_ field: Field, in settings: MetronomeSettings) -> String {
        switch field {
        case .tempo: settings.tempo.description
        case .accentEvery: accentEvery(settings).map(String.init) ?? "custom"
        case .beatAccent(let beat): "\(settings.accents.level(ofBeat: beat))"
        case .numerator, .denominator: settings.meter.description
        case .beatUnit: settings.beatUnit.description
        case .subdivisions: settings.subdivisions.description
        case .layer(let n): settings.subdivisions.layers.contains(n) ? "on" : "off"
        case .sound: settings.sound
        case .volume(let channel): "\(channel.value(in: settings.volumes))%"
        case .song, .songSection, .trainerStep, .trainerBars, .trainerWindow, .trainerDown, .gap, .practiceTimer, .songCoach: ""
        case .rhythm(let field): field.value(in: settings)
        }
    }
}
