// SPDX-License-Identifier: GPL-3.0-or-later

/// The musical settings by name: one list for flags, change scripts, the settings file and
/// song sections, which used to keep three string lists that disagreed (`volume` vs
/// `volumes`, `beat-unit` vs `beat_unit`). Each place writes its own spelling, and every
/// place accepts all of them, so old files and scripts keep loading.
public enum SettingName: String, CaseIterable, Sendable {
    case bpm, meter
    case beatUnit = "beat-unit"
    case accents, subdivisions, volume, sound, swing, groove, poly

    /// The spelling of flags (`--beat-unit`), change scripts and messages.
    public var name: String { rawValue }

    /// The key written in settings.toml and presets: `volumes` is a table of channels there.
    public var settingsFileKey: String { self == .volume ? "volumes" : rawValue }

    /// The key written in a song section, whose keys use underscores (`count_in`, `beat_unit`).
    /// Song sections have no `bpm` (`tempo`, which ramps), `sound` or `volume` (`gain`).
    public var songKey: String? {
        switch self {
        case .bpm, .sound, .volume: nil
        default: rawValue.replacingHyphens
        }
    }

    /// Every spelling accepted on input: the name, the settings-file key, the underscore form.
    public var spellings: [String] {
        var all = [rawValue]
        for other in [settingsFileKey, rawValue.replacingHyphens] where !all.contains(other) { all.append(other) }
        return all
    }

    /// The setting a spelling names (any of `spellings`), or nil.
    public init?(spelling: String) {
        guard let found = SettingName.allCases.first(where: { $0.spellings.contains(spelling) }) else { return nil }
        self = found
    }

    /// The names as flags and scripts spell them, for messages.
    public static var names: [String] { allCases.map(\.rawValue) }
}

private extension String {
    var replacingHyphens: String { String(map { $0 == "-" ? "_" : $0 }) }
}
