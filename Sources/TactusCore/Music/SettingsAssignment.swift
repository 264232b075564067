extension MetronomeSettings {
    /// The names accepted by `assign`, as flags and change scripts spell them.
    public static let assignableNames = ["bpm", "meter", "beat-unit", "accents", "subdivisions", "sound", "volume"]

    /// Sets one field from its text form: `bpm` 92.5, `meter` 7/8, `beat-unit` 1/4.,
    /// `accents` X..x, `subdivisions` 2,3 or none, `sound` NAME, `volume` accent=80,beat=60.
    public mutating func assign(_ name: String, _ value: String) throws(SettingError) {
        switch name {
        case "bpm": tempo = try Tempo(parsing: value)
        case "meter": meter = try Meter(parsing: value)
        case "beat-unit": beatUnit = try BeatUnit(parsing: value)
        case "accents": accents = try AccentPattern(parsing: value)
        case "subdivisions": subdivisions = try Subdivisions(parsing: value)
        case "sound":
            guard !value.isEmpty else { throw SettingError(field: "sound", value: value, allowed: "expected a sound set name or folder") }
            sound = value
        case "volume": try volumes.apply(parsing: value)
        default:
            throw SettingError(field: "setting", value: name, allowed: "names are \(MetronomeSettings.assignableNames.joined(separator: ", "))")
        }
    }
}
