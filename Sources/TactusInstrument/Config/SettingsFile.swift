// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import TactusMusic

/// The settings file: current settings, preferences and presets as TOML.
///
/// ```toml
/// schema = 1
///
/// [current]
/// bpm = 92.5
/// meter = "7/8"
/// beat-unit = "1/8"
/// accents = "Xx.Xx.x"
/// subdivisions = "2,3"
/// volumes = { master = 80, accent = 100, soft = 70, beat = 80, sub2 = 60, ..., poly1 = 60, ... }
/// sound = "woodblock"
/// swing = "66%@4"            # optional, as `render --swing`
/// groove = "3,2,2,3@4*80%"   # optional, as `render --groove`
/// poly = "3,E(3,8)"          # optional, up to four layers, as `render --poly`
///
/// [preferences]
/// momentum = true
/// tap-tolerance = 20
/// screen-dim-seconds = 60
/// footswitch = "start-stop"
///
/// [[preset]]
/// name = "Ballad"
/// bpm = 66
/// ...
/// ```
///
/// `schema` lets later versions migrate older files; a file from a newer version is not
/// guessed at but reported (and kept aside by the store, like any unreadable file).
public enum SettingsFile {
    public static let schemaVersion = 1

    public static func encode(_ saved: SavedState) -> String {
        var root = TOMLTable()
        root["schema"] = .integer(schemaVersion)
        root["current"] = .table(table(for: saved.settings))
        var preferences = TOMLTable()
        preferences["momentum"] = .boolean(saved.preferences.momentum)
        preferences["tap-tolerance"] = .integer(saved.preferences.tapTolerancePercent)
        preferences["screen-dim-seconds"] = .integer(saved.preferences.screenDimSeconds)
        preferences["footswitch"] = .string(saved.preferences.footswitch.rawValue)
        preferences["silent-practice"] = .boolean(saved.preferences.silentPractice)
        preferences["dark-gap"] = .boolean(saved.preferences.darkGap)
        preferences["sync"] = .string(saved.preferences.sync.rawValue)
        preferences["link-start-stop-sync"] = .boolean(saved.preferences.linkStartStopSync)
        preferences["companion"] = .boolean(saved.preferences.companion)
        // The tone's keys only once it differs from the defaults: older files stay as they were.
        let tone = saved.preferences.tone
        if tone != ReferenceTone() {
            preferences["tone-note"] = .string(tone.noteName)
            preferences["tone-a4"] = .integer(tone.reference)
            preferences["tone-timbre"] = .string(tone.timbre.rawValue)
            preferences["tone-volume"] = .integer(tone.volume)
        }
        if let roundTrip = saved.preferences.coachRoundTripMicroseconds { preferences["coach-round-trip-us"] = .integer(roundTrip) }
        if let gain = saved.preferences.coachClickGainDecibels { preferences["coach-click-gain-db"] = .float(gain) }
        // The trainer's keys only once it differs from the defaults (older files stay as they were).
        let trainer = saved.preferences.trainer
        if trainer != Trainer() {
            preferences["trainer-step"] = .integer(trainer.step)
            preferences["trainer-bars"] = .integer(trainer.bars)
            preferences["trainer-window-ms"] = .integer(trainer.windowMilliseconds)
            preferences["trainer-down-bars"] = .integer(trainer.downBars)
        }
        root["preferences"] = .table(preferences)
        if !saved.presets.isEmpty {
            root["preset"] = .array(saved.presets.map { preset in
                var t = TOMLTable()
                t["name"] = .string(preset.name)
                let settings = table(for: preset.settings)
                for key in settings.keys { t[key] = settings[key] }
                return .table(t)
            })
        }
        SongFile.add(saved.library, to: &root)
        if !saved.browsers.isEmpty {
            root["browser"] = .array(saved.browsers.map { browser in
                var t = TOMLTable()
                t["id"] = .integer(browser.id)
                t["name"] = .string(browser.name)
                t["token-sha256"] = .string(browser.tokenHash)
                return .table(t)
            })
        }
        if let map = saved.midiMap {
            var midi = TOMLTable()
            midi["map"] = .table(MIDIConfiguration.table(map))
            root["midi"] = .table(midi)
        }
        return "# Tactus settings, written by the box a moment after each change.\n" + root.tomlDocument()
    }

    /// The largest settings file the box reads (and so writes: a change that would make a
    /// larger one is refused where it comes in). 64 songs of 256 sections each, 32 paired
    /// browsers and the rest encode to well under this (issue 32).
    public static let maximumBytes = 4 << 20

    public static func decode(_ text: String, file: String) throws(TOMLError) -> SavedState {
        let root = TOMLSection(try TOML.parse(text, file: file, limits: .init(maxBytes: maximumBytes, maxDepth: 32)), file: file)
        try root.rejectUnknownKeys(allowed: ["schema", "current", "preferences", "preset", "song", "setlist", "browser", "midi"])
        let schema = try root.required(try root.integer("schema", in: 1...Int.max), "schema",
                                       allowed: "the file format version, \(schemaVersion)")
        guard schema <= schemaVersion else {
            throw root.invalid("schema", allowed: "this version of Tactus reads schema \(schemaVersion) or older")
        }
        var saved = SavedState()
        if let current = try root.section("current") { saved.settings = try settings(from: current) }
        if let p = try root.section("preferences") {
            try p.rejectUnknownKeys(allowed: ["momentum", "tap-tolerance", "screen-dim-seconds", "footswitch", "silent-practice", "dark-gap",
                                              "tone-note", "tone-a4", "tone-timbre", "tone-volume",
                                              "sync", "link-start-stop-sync", "companion", "coach-round-trip-us", "coach-click-gain-db",
                                              "trainer-step", "trainer-bars", "trainer-window-ms", "trainer-down-bars"])
            if let v = try p.integer("trainer-step", in: Trainer.stepRange) { saved.preferences.trainer.step = v }
            if let v = try p.integer("trainer-bars", in: Trainer.barsRange) { saved.preferences.trainer.bars = v }
            if let v = try p.integer("trainer-window-ms", in: Trainer.windowRange) { saved.preferences.trainer.windowMilliseconds = v }
            if let v = try p.integer("trainer-down-bars", in: Trainer.downBarsRange) { saved.preferences.trainer.downBars = v }
            if let v = try p.string("tone-note") {
                guard let (note, _) = ReferenceTone.parse(v) else { throw p.invalid("tone-note", allowed: "allowed a note from C4 to B5, e.g. \"A4\" or \"C#5\"") }
                saved.preferences.tone.note = note
            }
            if let v = try p.integer("tone-a4", in: ReferenceTone.referenceRange) { saved.preferences.tone.reference = v }
            if let v = try p.string("tone-timbre", oneOf: ReferenceTone.Timbre.allCases.map(\.rawValue)) {
                saved.preferences.tone.timbre = ReferenceTone.Timbre(rawValue: v)!
            }
            if let v = try p.integer("tone-volume", in: ReferenceTone.volumeRange) { saved.preferences.tone.volume = v }
            if let v = try p.bool("silent-practice") { saved.preferences.silentPractice = v }
            if let v = try p.bool("dark-gap") { saved.preferences.darkGap = v }
            if let v = try p.string("sync", oneOf: SyncSource.allCases.map(\.rawValue)) { saved.preferences.sync = SyncSource(rawValue: v)! }
            if let v = try p.bool("link-start-stop-sync") { saved.preferences.linkStartStopSync = v }
            if let v = try p.bool("companion") { saved.preferences.companion = v }
            if let v = try p.bool("momentum") { saved.preferences.momentum = v }
            if let v = try p.integer("coach-round-trip-us", in: Preferences.coachRoundTripRange) { saved.preferences.coachRoundTripMicroseconds = v }
            if let v = try p.number("coach-click-gain-db", in: Preferences.coachClickGainRange) { saved.preferences.coachClickGainDecibels = v }
            if let v = try p.integer("tap-tolerance", in: TapTempo.toleranceRange) { saved.preferences.tapTolerancePercent = v }
            if let v = try p.integer("screen-dim-seconds", in: Preferences.screenDimRange) { saved.preferences.screenDimSeconds = v }
            if let v = try p.string("footswitch", oneOf: FootswitchFunction.allCases.map(\.rawValue)) {
                saved.preferences.footswitch = FootswitchFunction(rawValue: v)!
            }
        }
        saved.presets = try presets(from: root)
        saved.library = try SongFile.library(from: root, alsoKnown: saved.presets.map(\.name))
        saved.browsers = try browsers(from: root)
        saved.midiMap = try midiMap(from: root)
        return saved
    }

    /// `[midi.map]`, the MIDI map edited at the companion (read as the configuration's is).
    static func midiMap(from root: TOMLSection) throws(TOMLError) -> [MIDIMapping]? {
        guard let midi = try root.section("midi") else { return nil }
        try midi.rejectUnknownKeys(allowed: ["map"])
        return try midi.section("map").map { section throws(TOMLError) in try MIDIConfiguration.map(from: section) } ?? []
    }

    /// The companion's paired browsers (`[[browser]]`): a number used once, the name shown
    /// on the box, and the token's SHA-256 in lowercase hex.
    static func browsers(from root: TOMLSection) throws(TOMLError) -> [PairedBrowser] {
        var browsers: [PairedBrowser] = []
        for section in try root.sections("browser") {
            try section.rejectUnknownKeys(allowed: ["id", "name", "token-sha256"])
            let id = try section.required(try section.integer("id", in: 1...Int(Int32.max)), "id", allowed: "the browser's number, 1 or more")
            guard !browsers.contains(where: { $0.id == id }) else { throw section.invalid("id", allowed: "a number no other browser has") }
            let name = try section.required(try section.string("name"), "name", allowed: "the browser's name in quotes")
            let hash = try section.required(try section.string("token-sha256"), "token-sha256", allowed: "64 lowercase hex digits")
            guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw section.invalid("token-sha256", allowed: "64 lowercase hex digits")
            }
            browsers.append(PairedBrowser(id: id, name: name, tokenHash: hash))
        }
        return browsers
    }

    /// The `[[preset]]` tables of a document, checked as the box checks them.
    public static func presets(from root: TOMLSection) throws(TOMLError) -> [Preset] {
        var presets: [Preset] = []
        for section in try root.sections("preset") {
            let name = try section.required(try section.string("name"), "name", allowed: "the preset's name in quotes")
            presets.append(Preset(name: name, settings: try settings(from: section, extraKeys: ["name"])))
        }
        return presets
    }

    /// Every song a document offers, as the box sees them: its `[[song]]`s and `[setlist]`,
    /// then its presets as one-section songs (a settings.toml or a songs TOML file alike).
    public static func songLibrary(from root: TOMLSection) throws(TOMLError) -> SongLibrary {
        let presets = try presets(from: root)
        var library = try SongFile.library(from: root, alsoKnown: presets.map(\.name))
        library.migrate(presets: presets)
        return library
    }

    /// The keys written (`SettingName.settingsFileKey`); reading also takes every other
    /// spelling of a setting (`volume`, `beat_unit`), so hand-written and old files load.
    static let settingsKeys = SettingName.allCases.map(\.settingsFileKey)
    static let otherSettingsSpellings = SettingName.allCases.flatMap(\.spellings).filter { !settingsKeys.contains($0) }

    /// The key `setting` has in `section` (whichever spelling the file used); an error when
    /// the file gives the same setting under two spellings.
    static func key(_ setting: SettingName, in section: TOMLSection) throws(TOMLError) -> String {
        let present = setting.spellings.filter { section.table[$0] != nil }
        if present.count > 1 {
            throw section.invalid(present[1], allowed: "the same setting as '\(present[0])': give it once")
        }
        return present.first ?? setting.settingsFileKey
    }

    static func table(for s: MetronomeSettings) -> TOMLTable {
        var t = TOMLTable()
        t["bpm"] = s.tempo.bpm.isInteger ? .integer(Int(s.tempo.bpm.numerator)) : .float(s.tempo.bpm.doubleValue)
        t["meter"] = .string(s.meter.description)
        t[SettingName.beatUnit.settingsFileKey] = .string(s.beatUnit.description)
        t["accents"] = .string(s.accents.description)
        t["subdivisions"] = .string(s.subdivisions.description)
        var volumes = TOMLTable()
        volumes["master"] = .integer(s.volumes.master)
        volumes["accent"] = .integer(s.volumes.accent)
        volumes["beat"] = .integer(s.volumes.beat)
        for n in Subdivisions.range { volumes["sub\(n)"] = .integer(s.volumes.layer(n)) }
        volumes["soft"] = .integer(s.volumes.soft)
        for m in 1...PolyLayer.maximumLayers { volumes["poly\(m)"] = .integer(s.volumes.polyLayer(m)) }
        t[SettingName.volume.settingsFileKey] = .table(volumes)
        t["sound"] = .string(s.sound)
        // Written only when set, so files stay as they were for those who never use them.
        if let swing = s.swing { t["swing"] = .string(swing.description) }
        if let groove = s.groove { t["groove"] = .string(groove.description) }
        if !s.poly.layers.isEmpty { t["poly"] = .string(s.poly.description) }
        return t
    }

    /// Reads musical settings with the model's own validation; its messages become
    /// file errors with the line.
    public static func settings(from section: TOMLSection, extraKeys: [String] = []) throws(TOMLError) -> MetronomeSettings {
        try section.rejectUnknownKeys(allowed: extraKeys + settingsKeys, alsoAccepted: otherSettingsSpellings)
        var s = MetronomeSettings()
        func check<T>(_ key: String, _ parse: () throws(SettingError) -> T) throws(TOMLError) -> T {
            do { return try parse() } catch { throw section.invalid(key, allowed: error.allowed) }
        }
        if let value = section.table["bpm"] {
            // A float's shortest decimal form ("92.5") is read back exactly as a rational.
            let text: String? = switch value.content {
            case .integer(let i): "\(i)"
            case .float(let d) where d.isFinite: "\(d)"
            default: nil
            }
            s.tempo = try check("bpm") { () throws(SettingError) in
                guard let text else { throw SettingError(field: "bpm", value: value.tomlText, allowed: "allowed a number from 1 to 999, e.g. 120 or 92.5") }
                return try Tempo(parsing: text)
            }
        }
        // A meter without a beat unit counts in 1/denominator, as everywhere else.
        if let text = try section.string("meter") { s.setMeter(try check("meter") { () throws(SettingError) in try Meter(parsing: text) }) }
        let beatUnitKey = try key(.beatUnit, in: section)
        if let text = try section.string(beatUnitKey) {
            s.beatUnit = try check(beatUnitKey) { () throws(SettingError) in try BeatUnit(parsing: text) }
        }
        if let text = try section.string("accents") {
            s.accents = try check("accents") { () throws(SettingError) in try AccentPattern(parsing: text) }
        }
        if let text = try section.string("subdivisions") {
            s.subdivisions = try check("subdivisions") { () throws(SettingError) in try Subdivisions(parsing: text) }
        }
        if let volumes = try section.section(try key(.volume, in: section)) {
            let names = Volumes.names
            try volumes.rejectUnknownKeys(allowed: names)
            for name in names {
                if let v = try volumes.integer(name, in: Volumes.range) { try? s.volumes.set(name, to: v) }
            }
        }
        if let sound = try section.string("sound") {
            guard !sound.isEmpty else { throw section.invalid("sound", allowed: "a sound set's name or folder") }
            s.sound = sound
        }
        for setting in [SettingName.swing, .groove, .poly] {
            if let text = try section.string(setting.settingsFileKey) {
                try check(setting.settingsFileKey) { () throws(SettingError) in try s.assign(setting, text) }
            }
        }
        // What spans fields (a grouping against the meter, the grid) is checked on the whole.
        do { try s.validate() } catch {
            let field = try SettingName(spelling: error.field).map { setting throws(TOMLError) in try key(setting, in: section) }
            throw section.invalid(field ?? "accents", allowed: error.allowed)
        }
        return s
    }
}
