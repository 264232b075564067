// SPDX-License-Identifier: GPL-3.0-or-later
extension MetronomeSettings {
    /// Sets one field from its text form: `bpm` 92.5, `meter` 7/8, `beat-unit` 1/4.,
    /// `accents` X..x, E(3,8) or 3+2+2, `subdivisions` 2,3 or none, `sound` NAME,
    /// `volume` accent=80,beat=60, `swing` 66%@4, `groove` 3,2,2,3@4*80%, `poly` 3,E(3,8).
    /// Checks that span fields (a grouping against the meter) are left to `validate()`.
    /// A meter also sets the beat unit to 1/denominator, as `--meter` does: assign a
    /// `beat-unit` after it (`inAssignmentOrder`) to count in another unit.
    public mutating func assign(_ name: SettingName, _ value: String) throws(SettingError) {
        switch name {
        case .bpm: tempo = try Tempo(parsing: value)
        case .meter: setMeter(try Meter(parsing: value))
        case .beatUnit: beatUnit = try BeatUnit(parsing: value)
        case .accents: accents = try AccentPattern(parsing: value)
        case .subdivisions: subdivisions = try Subdivisions(parsing: value)
        case .sound:
            guard !value.isEmpty else { throw SettingError(field: "sound", value: value, allowed: "expected a sound set name or folder") }
            sound = value
        case .volume: try volumes.apply(parsing: value)
        case .swing: swing = (value == "none" || value == "off") ? nil : try Groove(parsingSwing: value)
        case .groove: groove = (value == "none" || value == "off") ? nil : try Groove(parsingGroove: value)
        case .poly: poly = try PolyLayers(parsing: value)
        }
    }

    /// `assign` by any spelling of the name (`SettingName.spellings`).
    public mutating func assign(_ name: String, _ value: String) throws(SettingError) {
        guard let setting = SettingName(spelling: name) else {
            throw SettingError(field: "setting", value: name, allowed: "names are \(SettingName.names.joined(separator: ", "))")
        }
        try assign(setting, value)
    }

    /// Applies several assignments, then checks the result as a whole (so `accents=3+2+2
    /// meter=7/8` works in either order).
    public mutating func assign(all assignments: [(name: String, value: String)]) throws(SettingError) {
        var next = self
        for (name, value) in MetronomeSettings.inAssignmentOrder(assignments.map { ($0.name, $0.value) }) { try next.assign(name, value) }
        try next.validate()
        self = next
    }
}

extension MetronomeSettings {
    /// The meter rule everywhere (flags, change scripts, the settings file, the box): a new
    /// meter counts in 1/denominator unless a beat unit is given in the same change. A unit
    /// chosen later stays until the meter changes again.
    public mutating func setMeter(_ newMeter: Meter, beatUnit unit: BeatUnit? = nil) {
        meter = newMeter
        if let unit {
            beatUnit = unit
        } else if let unit = try? BeatUnit(division: newMeter.denominator) {
            beatUnit = unit
        }
    }

    /// The assignments of one change with `meter` first, so a `beat-unit` in the same change
    /// is applied after the meter has set its default unit.
    public static func inAssignmentOrder(_ assignments: [(String, String)]) -> [(String, String)] {
        assignments.filter { SettingName(spelling: $0.0) == .meter } + assignments.filter { SettingName(spelling: $0.0) != .meter }
    }
}
