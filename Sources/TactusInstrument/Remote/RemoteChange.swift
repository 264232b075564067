// SPDX-License-Identifier: GPL-3.0-or-later
import TactusWire
import TOMLReader
import TactusMusic

/// What the companion (through the control socket) asks of the box. Each goes through the
/// reducer like a turn of the wheel (`Action.remote`).
public enum RemoteRequest: Sendable, Hashable {
    /// New musical settings, already checked (`RemotePatch`).
    case settings(MetronomeSettings)
    /// START/STOP to this state (nothing when it is already so).
    case transport(playing: Bool)
    /// Song mode with this song (of Menu > Songs' choices) chosen from its first section, and START.
    case playSong(String)
    /// The songs and setlist, already checked (`RemotePatch.library`).
    case library(SongLibrary)
    /// Show this pairing code for 60 s (the box drew it at random).
    case showPairingCode(String)
    case pair(code: String, token: String, name: String, client: String = "local")
    case revoke(browser: Int)
    /// The box's own settings (Menu > Settings), already checked; the companion switch is kept.
    case preferences(Preferences)
    /// A sound set the box has just taken into its sounds folder (and its engine).
    case soundAdded(String)
    /// A user sound set removed from the sounds folder (a built-in one cannot be).
    case soundRemoved(String)
    /// The box's own switch (Menu > Settings > Companion, or `simulate --web`); never sent by the web.
    case companion(on: Bool)
    /// The MIDI map, already checked (`RemotePatch.midiMap`); nil: the configuration's again.
    case midiMap([MIDIMapping]?)
    /// Menu > Coach > Calibrate, asked from the companion's Settings page.
    case calibrateCoach
}

/// A `PATCH /api/state` body (fields of the simulator's `state` object) applied to the
/// settings with the same parsers and messages as the settings file and change scripts.
public enum RemotePatch {
    /// The settable fields, as the `state` object names them.
    public static let settable = [WireField.bpm, .meter, .beatUnit, .accents, .subdivisions, .swing, .groove, .poly, .sound, .volume, .playing].map(\.name)

    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The field as the `state` object names it (`beat_unit`, `volume.sub2`).
        public var field: String
        public var value: String
        public var allowed: String
        /// `bpm = 1000 is invalid: allowed a number from 1 to 999`, worded as the TOML readers word it.
        /// A field that is not a plain name (an empty key, spaces, control characters) is
        /// shown quoted and escaped, so the message still says which, on one line.
        public var description: String { "\(Problem.plain(field) ? field : JSONValue.quoted(field)) = \(value) is invalid: \(allowed)" }

        static func plain(_ name: String) -> Bool {
            !name.isEmpty && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0) }
        }
    }

    /// The new settings and, if asked, the transport state; or the first problem.
    public static func apply(_ patch: JSONValue, to current: MetronomeSettings, soundNames: [String])
        throws(Problem) -> (settings: MetronomeSettings, playing: Bool?) {
        guard case .object(let members) = patch else {
            throw Problem(field: "body", value: patch.json, allowed: "allowed a JSON object of settable fields: \(settable.joined(separator: ", "))")
        }
        var s = current
        var playing: Bool?
        // The meter first: it sets the beat unit a `beat_unit` in the same patch may change.
        let ordered = members.filter { $0.key == "meter" } + members.filter { $0.key != "meter" }
        for (key, value) in ordered {
            func assign(_ name: String, _ text: String) throws(Problem) {
                do { try s.assign(name, text) } catch { throw Problem(field: key, value: value.json, allowed: error.allowed) }
            }
            switch key {
            case "bpm":
                guard case .number(let n) = value else { throw Problem(field: key, value: value.json, allowed: "allowed a number from 1 to 999, e.g. 120 or 92.5") }
                try assign("bpm", n)
            case "meter", "beat_unit", "accents", "subdivisions", "poly":
                guard let text = value.stringValue else { throw Problem(field: key, value: value.json, allowed: "allowed a string, as the state shows it") }
                try assign(key == "beat_unit" ? "beat-unit" : key, text)
            case "swing", "groove":
                if value == .null { try assign(key, "none"); continue }
                guard let text = value.stringValue else { throw Problem(field: key, value: value.json, allowed: "allowed a string, as the state shows it, or null") }
                try assign(key, text)
            case "sound":
                guard let text = value.stringValue, soundNames.contains(text) else {
                    throw Problem(field: key, value: value.json, allowed: "allowed one of \(soundNames.joined(separator: ", "))")
                }
                s.sound = text
            case "volume":
                guard case .object(let volumes) = value else { throw Problem(field: key, value: value.json, allowed: "allowed an object of volumes, e.g. {\"master\":80}") }
                for (name, level) in volumes {
                    if name == "poly" {
                        guard case .array(let levels) = level, levels.count <= PolyLayer.maximumLayers else {
                            throw Problem(field: "volume.poly", value: level.json, allowed: "allowed a list of at most \(PolyLayer.maximumLayers) percentages")
                        }
                        for (i, l) in levels.enumerated() {
                            guard let v = l.intValue, Volumes.range.contains(v) else {
                                throw Problem(field: "volume.poly", value: l.json, allowed: "allowed a whole number from 0 to 100")
                            }
                            try? s.volumes.set("poly\(i + 1)", to: v)
                        }
                        continue
                    }
                    guard Volumes.names.contains(name) else {
                        throw Problem(field: "volume.\(name)", value: level.json, allowed: "allowed the volumes \(Volumes.names.joined(separator: ", "))")
                    }
                    guard let v = level.intValue, Volumes.range.contains(v) else {
                        throw Problem(field: "volume.\(name)", value: level.json, allowed: "allowed a whole number from 0 to 100")
                    }
                    try? s.volumes.set(name, to: v)
                }
            case "playing":
                guard let b = value.boolValue else { throw Problem(field: key, value: value.json, allowed: "allowed true or false") }
                playing = b
            default:
                throw Problem(field: key, value: value.json, allowed: "not settable: allowed \(settable.joined(separator: ", "))")
            }
        }
        // A new meter with the old grouping: as on the box, the accents follow the bar.
        if members.contains(where: { $0.key == "meter" || $0.key == "beat_unit" }), !members.contains(where: { $0.key == "accents" }) {
            s.fitAccentsToBar()
        }
        do { try s.validate() } catch {
            let field = error.field == "beat-unit" ? "beat_unit" : error.field
            throw Problem(field: field, value: JSONValue.quoted(error.value), allowed: error.allowed)
        }
        return (s, playing)
    }

    /// The box's settings as the companion names them (the settings file's keys with `_`).
    public static let preferenceKeys = [WireField.momentum, .tapTolerance, .screenDimSeconds, .footswitch, .silentPractice, .darkGap,
                                        .sync, .linkStartStopSync, .toneNote, .toneA4, .toneTimbre, .toneVolume,
                                        .trainerStep, .trainerBars, .trainerWindowMs, .trainerDownBars].map(\.name)

    public static func json(_ p: Preferences) -> JSONObject {
        JSONObject {
            $0.add(.momentum, p.momentum)
            $0.add(.tapTolerance, p.tapTolerancePercent)
            $0.add(.screenDimSeconds, p.screenDimSeconds)
            $0.add(.footswitch, p.footswitch.rawValue)
            $0.add(.silentPractice, p.silentPractice)
            $0.add(.darkGap, p.darkGap)
            $0.add(.sync, p.sync.rawValue)
            $0.add(.linkStartStopSync, p.linkStartStopSync)
            $0.add(.toneNote, p.tone.noteName)
            $0.add(.toneA4, p.tone.reference)
            $0.add(.toneTimbre, p.tone.timbre.rawValue)
            $0.add(.toneVolume, p.tone.volume)
            $0.add(.companion, p.companion)
            $0.add(.trainerStep, p.trainer.step)
            $0.add(.trainerBars, p.trainer.bars)
            $0.add(.trainerWindowMs, p.trainer.windowMilliseconds)
            $0.add(.trainerDownBars, p.trainer.downBars)
        }
    }

    /// A `PATCH /api/preferences` body read by the settings file's own `[preferences]`
    /// reader, so the checks and their words are the file's.
    public static func preferences(_ patch: JSONValue, to current: Preferences) throws(Problem) -> Preferences {
        guard case .object(let members) = patch else {
            throw Problem(field: "body", value: patch.json, allowed: "allowed a JSON object of \(preferenceKeys.joined(separator: ", "))")
        }
        var lines: [String] = []
        for (key, value) in members {
            if key == "companion" { throw Problem(field: key, value: value.json, allowed: "allowed only at the box (Menu > Settings > Companion), never remotely") }
            guard preferenceKeys.contains(key) else { throw Problem(field: key, value: value.json, allowed: "not settable: allowed \(preferenceKeys.joined(separator: ", "))") }
            let text: String = switch value {
            case .bool(let b): b ? "true" : "false"
            case .number(let n): n
            case .string(let s): JSONValue.quoted(s)
            default: value.json
            }
            lines.append("\(key.replacing("_", with: "-")) = \(text)")
        }
        let saved: SavedState
        do { saved = try SettingsFile.decode("schema = 1\n[preferences]\n" + lines.joined(separator: "\n") + "\n", file: "preferences") } catch {
            let field = (error.field ?? "preferences").replacing("preferences.", with: "").replacing("-", with: "_")
            throw Problem(field: field, value: error.value ?? "", allowed: error.message)
        }
        var p = current
        let keys = Set(members.map(\.key))
        if keys.contains("momentum") { p.momentum = saved.preferences.momentum }
        if keys.contains("tap_tolerance") { p.tapTolerancePercent = saved.preferences.tapTolerancePercent }
        if keys.contains("screen_dim_seconds") { p.screenDimSeconds = saved.preferences.screenDimSeconds }
        if keys.contains("footswitch") { p.footswitch = saved.preferences.footswitch }
        if keys.contains("silent_practice") { p.silentPractice = saved.preferences.silentPractice }
        if keys.contains("dark_gap") { p.darkGap = saved.preferences.darkGap }
        if keys.contains("sync") { p.sync = saved.preferences.sync }
        if keys.contains("link_start_stop_sync") { p.linkStartStopSync = saved.preferences.linkStartStopSync }
        if keys.contains("tone_note") { p.tone.note = saved.preferences.tone.note }
        if keys.contains("tone_a4") { p.tone.reference = saved.preferences.tone.reference }
        if keys.contains("tone_timbre") { p.tone.timbre = saved.preferences.tone.timbre }
        if keys.contains("tone_volume") { p.tone.volume = saved.preferences.tone.volume }
        if keys.contains("trainer_step") { p.trainer.step = saved.preferences.trainer.step }
        if keys.contains("trainer_bars") { p.trainer.bars = saved.preferences.trainer.bars }
        if keys.contains("trainer_window_ms") { p.trainer.windowMilliseconds = saved.preferences.trainer.windowMilliseconds }
        if keys.contains("trainer_down_bars") { p.trainer.downBars = saved.preferences.trainer.downBars }
        return p
    }

    /// A songs TOML file (`[[song]]`s and a `[setlist]`) checked as the box checks its
    /// settings file; the error names the line and field as the reader does.
    public static func library(fromTOML text: String, file: String = "songs.toml") throws(TOMLError) -> SongLibrary {
        guard text.utf8.count <= 1 << 20 else { throw TOMLError(file: file, line: 0, message: "larger than 1 MiB") }
        let root = TOMLSection(try TOML.parse(text, file: file), file: file)
        try root.rejectUnknownKeys(allowed: ["song", "setlist"])
        return try SongFile.library(from: root)
    }

    /// A `[midi.map]` table (TOML) read by the settings file's reader (the configuration's
    /// `[midi.map]` reader), so the checks and their words are the files'; the error names
    /// the line and key.
    public static func midiMap(fromTOML text: String, file: String = "midi-map.toml") throws(TOMLError) -> [MIDIMapping] {
        guard text.utf8.count <= 1 << 16 else { throw TOMLError(file: file, line: 0, message: "larger than 64 KiB") }
        let root = TOMLSection(try TOML.parse(text, file: file), file: file)
        try root.rejectUnknownKeys(allowed: ["midi"])
        return try SettingsFile.midiMap(from: root) ?? []
    }

    /// The map as the `[midi.map]` table `midiMap(fromTOML:)` reads.
    public static func toml(_ map: [MIDIMapping]) -> String {
        var midi = TOMLTable()
        midi["map"] = .table(MIDIConfiguration.table(map))
        var root = TOMLTable()
        root["midi"] = .table(midi)
        return root.tomlDocument()
    }

    /// The library as a songs TOML file (what `GET /api/songs` returns).
    public static func toml(_ library: SongLibrary) -> String {
        var root = TOMLTable()
        SongFile.add(library, to: &root)
        return "# Tactus songs and setlist\n" + root.tomlDocument()
    }
}
