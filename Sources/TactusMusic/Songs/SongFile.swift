// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import TactusArithmetic

/// Songs and setlists as TOML, read from settings.toml or from a songs.toml beside it:
///
/// ```toml
/// [[song]]
/// name = "Blue Bossa"
/// count_in = 1              # 0-4 bars or "2beats"
/// loop = false
/// practice_tempo = "100%"   # scales every section tempo
/// trainer_step = 5          # the song's speed trainer: +5 BPM (-20 to 20, 0 off) ...
/// trainer_bars = 4          # ... every 4 bars (1-32); with a window the coach gates it:
/// trainer_window_ms = 10    # up only after 4 bars whose mean and SD are within +-10 ms (1-50)
/// trainer_down_bars = 2     # and down after 2 bars out of it (0-32, 0 never)
///   [[song.section]]
///   label = "intro"
///   bars = 8                # 1-999, or "until-stop" (last section only)
///   meter = "4/4"
///   beat_unit = "1/4"
///   tempo = "120"           # "100-140", "100~140", "100+5/2..140", "120,121,..." or [120, 121]
///   accents = "Xxxx"
///   subdivisions = "2"
///   gap = "2:1"             # play 2 bars, mute 1; "2:1b" in beats
///   random_mute = "25%"     # mute a quarter of the beats at random (seeded)
///   gain = "100%"
///   swing = "2:1"           # swing, groove and poly as the render flags write them
///   groove = "3,2,2,3@4"
///   poly = "3"
/// [setlist]
/// songs = ["Blue Bossa"]
/// advance = "wait"          # or "auto"
/// ```
public enum SongFile {
    static let songKeys = ["name", "count_in", "loop", "practice_tempo", "section"] + trainerKeys
    static let trainerKeys = ["trainer_step", "trainer_bars", "trainer_window_ms", "trainer_down_bars"]
    /// The keys written; a setting's other spellings (`beat-unit`, `SettingName.spellings`)
    /// are read too.
    static let sectionKeys = ["label", "bars", "meter", SettingName.beatUnit.songKey!, "tempo", "accents", "subdivisions", "gap",
                              "random_mute", "gain", "swing", "groove", "poly"]
    static let otherSectionSpellings = SettingName.allCases.filter { $0.songKey != nil }.flatMap(\.spellings)
        .filter { !sectionKeys.contains($0) }

    /// A whole songs.toml.
    public static func decode(_ text: String, file: String) throws(TOMLError) -> SongLibrary {
        let root = TOMLSection(try TOML.parse(text, file: file), file: file)
        try root.rejectUnknownKeys(allowed: ["schema", "song", "setlist"])
        return try library(from: root)
    }

    public static func encode(_ library: SongLibrary) -> String {
        var root = TOMLTable()
        add(library, to: &root)
        return "# Tactus songs and setlist.\n" + root.tomlDocument()
    }

    /// The `[[song]]` and `[setlist]` tables of a document (settings.toml uses this too).
    /// `alsoKnown`: names a setlist may use besides the songs (settings.toml's presets).
    public static func library(from root: TOMLSection, alsoKnown: [String] = []) throws(TOMLError) -> SongLibrary {
        var library = SongLibrary()
        for s in try root.sections("song") {
            let song = try self.song(from: s)
            if library.song(named: song.name) != nil {
                throw s.invalid("name", allowed: "another song already has this name; names must differ")
            }
            library.songs.append(song)
        }
        if let s = try root.section("setlist") {
            try s.rejectUnknownKeys(allowed: ["songs", "advance"])
            var names: [String] = []
            if let value = s.table["songs"] {
                guard let items = value.array, items.allSatisfy({ $0.string != nil }) else {
                    throw s.invalid("songs", allowed: "expected a list of song names in quotes")
                }
                names = items.map { $0.string! }
                for name in names where library.song(named: name) == nil && !alsoKnown.contains(name) {
                    throw s.invalid("songs", allowed: "no [[song]] is named \(TOMLWriter.quoted(name))")
                }
            }
            let advance = try s.string("advance", oneOf: Setlist.Advance.allCases.map(\.rawValue)).flatMap(Setlist.Advance.init) ?? .wait
            library.setlist = Setlist(songs: names, advance: advance)
        }
        return library
    }

    public static func add(_ library: SongLibrary, to root: inout TOMLTable) {
        if !library.songs.isEmpty { root["song"] = .array(library.songs.map { .table(table(for: $0)) }) }
        if let setlist = library.setlist {
            var t = TOMLTable()
            t["songs"] = .array(setlist.songs.map { .string($0) })
            t["advance"] = .string(setlist.advance.rawValue)
            root["setlist"] = .table(t)
        }
    }

    static let percentDecimals = 3

    static func percentText(_ p: Rational) -> String { p.decimalDescription + "%" }

    static func table(for song: Song) -> TOMLTable {
        var t = TOMLTable()
        t["name"] = .string(song.name)
        switch song.countIn {
        case .bars(let n): t["count_in"] = .integer(n)
        case .twoBeats: t["count_in"] = .string("2beats")
        }
        t["loop"] = .boolean(song.loop)
        t["practice_tempo"] = .string(percentText(song.practiceTempoPercent))
        if let trainer = song.trainer {
            t["trainer_step"] = .integer(trainer.step)
            t["trainer_bars"] = .integer(trainer.bars)
            if trainer.windowMilliseconds > 0 { t["trainer_window_ms"] = .integer(trainer.windowMilliseconds) }
            if trainer.downBars > 0 { t["trainer_down_bars"] = .integer(trainer.downBars) }
        }
        t["section"] = .array(song.sections.map { s in
            var st = TOMLTable()
            st["label"] = .string(s.label)
            st["bars"] = s.bars.map { .integer($0) } ?? .string("until-stop")
            st["meter"] = .string(s.meter.description)
            st[SettingName.beatUnit.songKey!] = .string(s.beatUnit.description)
            st["tempo"] = .string(s.tempo.description)
            st["accents"] = .string(s.accents.description)
            st["subdivisions"] = .string(s.subdivisions.description)
            if let gap = s.gap { st["gap"] = .string(gap.description) }
            if let p = s.randomMute { st["random_mute"] = .string(percentText(p)) }
            st["gain"] = .string(percentText(s.gainPercent))
            if let v = s.swing { st["swing"] = .string(v) }
            if let v = s.groove { st["groove"] = .string(v) }
            if let v = s.poly { st["poly"] = .string(v) }
            return .table(st)
        })
        return t
    }

    /// "80%", "80", 80, 0.8 is not a percent: a bare float is a fraction (klick's volume).
    static func percent(_ section: TOMLSection, _ key: String, range: ClosedRange<Int64>) throws(TOMLError) -> Rational? {
        guard let value = section.table[key] else { return nil }
        let allowed = "expected a percentage from \(range.lowerBound) to \(range.upperBound) such as \"80%\""
        var result: Rational?
        switch value.content {
        case .integer(let i): result = Rational(i)
        case .string(let s):
            let body = s.hasSuffix("%") ? String(s.dropLast()) : s
            if !body.contains("/") { result = Rational(parsing: body) }
        case .float(let d) where d.isFinite:
            result = Rational(parsing: "\(d)").flatMap { $0.multiplied(by: Rational(100)) }
        default: break
        }
        // At most 3 decimals: a practice tempo multiplies every section tempo (also 3
        // decimals), and the product stays exact in the engine's arithmetic.
        guard let p = result, p >= Rational(range.lowerBound), p <= Rational(range.upperBound),
              let places = p.decimalPlaces, places <= percentDecimals else {
            throw section.invalid(key, allowed: allowed + ", with at most \(percentDecimals) decimals")
        }
        return p
    }

    // Swift 6.3.1's optimizer crashes on this function (CopyPropagation, "Found outside of
    // lifetime use") in release builds; it runs once per song file, so it is not optimized.
    @_optimize(none)
    static func song(from s: TOMLSection) throws(TOMLError) -> Song {
        try s.rejectUnknownKeys(allowed: songKeys)
        let name = try s.required(try s.string("name"), "name", allowed: "the song's name in quotes")
        guard !name.isEmpty else { throw s.invalid("name", allowed: "the song's name must not be empty") }
        var song = Song(name: name, sections: [])
        if let value = s.table["count_in"] {
            let shown = value.tomlText
            let text: String? = value.integer.map { "\($0)" } ?? value.string
            do {
                guard let text else { throw SettingError(field: "count_in", value: shown, allowed: "") }
                song.countIn = try CountIn(parsing: text)
            } catch { throw s.invalid("count_in", allowed: "expected 0 to 4 bars, or \"2beats\"") }
        }
        if let loop = try s.bool("loop") { song.loop = loop }
        if let p = try percent(s, "practice_tempo", range: 1...1000) { song.practiceTempoPercent = p }
        song.trainer = try trainer(from: s)
        let sections = try s.sections("section")
        guard !sections.isEmpty else {
            throw s.invalid("section", allowed: "a song needs at least one [[song.section]]")
        }
        for (i, sec) in sections.enumerated() {
            let section = try self.section(from: sec)
            if section.bars == nil && i != sections.count - 1 {
                throw sec.invalid("bars", allowed: "only the last section can play until stopped")
            }
            song.sections.append(section)
        }
        return song
    }

    /// The song's `trainer_*` keys: `trainer_step` is needed for the others to mean anything.
    static func trainer(from s: TOMLSection) throws(TOMLError) -> Trainer? {
        guard let step = try s.integer("trainer_step", in: Trainer.stepRange) else {
            if let key = trainerKeys.first(where: { s.table[$0] != nil }) {
                throw s.invalid(key, allowed: "\(key) needs trainer_step (-20 to 20 BPM) in the same song")
            }
            return nil
        }
        var trainer = Trainer(step: step)
        if let bars = try s.integer("trainer_bars", in: Trainer.barsRange) { trainer.bars = bars }
        if let window = try s.integer("trainer_window_ms", in: Trainer.windowRange) { trainer.windowMilliseconds = window }
        if let down = try s.integer("trainer_down_bars", in: Trainer.downBarsRange) {
            guard trainer.windowMilliseconds > 0 || down == 0 else {
                throw s.invalid("trainer_down_bars", allowed: "steps down only with trainer_window_ms (1 to 50 ms) in the same song")
            }
            trainer.downBars = down
        }
        return trainer
    }

    static func section(from s: TOMLSection) throws(TOMLError) -> SongSection {
        try s.rejectUnknownKeys(allowed: sectionKeys, alsoAccepted: otherSectionSpellings)
        var section = SongSection()
        func check<T>(_ key: String, _ parse: () throws(SettingError) -> T) throws(TOMLError) -> T {
            do { return try parse() } catch { throw s.invalid(key, allowed: error.allowed) }
        }
        if let label = try s.string("label") { section.label = label }
        if let value = s.table["bars"] {
            if value.string == "until-stop" {
                section.bars = nil
            } else {
                section.bars = try s.integer("bars", in: SongSection.barRange)
            }
        }
        if let text = try s.string("meter") { section.meter = try check("meter") { () throws(SettingError) in try Meter(parsing: text) } }
        let beatUnitKey = SettingName.beatUnit.spellings.first { s.table[$0] != nil } ?? SettingName.beatUnit.songKey!
        if let text = try s.string(beatUnitKey) {
            section.beatUnit = try check(beatUnitKey) { () throws(SettingError) in try BeatUnit(parsing: text) }
        } else {
            section.beatUnit = try check("meter") { () throws(SettingError) in try BeatUnit(division: section.meter.denominator) }
        }
        if let value = s.table["tempo"] {
            switch value.content {
            case .string(let text):
                section.tempo = try check("tempo") { () throws(SettingError) in try TempoSegment(parsing: text) }
            case .integer(let i):
                section.tempo = try check("tempo") { () throws(SettingError) in try TempoSegment(parsing: "\(i)") }
            case .float(let d) where d.isFinite:
                section.tempo = try check("tempo") { () throws(SettingError) in try TempoSegment(parsing: "\(d)") }
            case .array(let items):
                let texts = items.map { item -> String in
                    if let i = item.integer { return "\(i)" }
                    if let d = item.double { return "\(d)" }
                    return "x"
                }
                section.tempo = try check("tempo") { () throws(SettingError) in try TempoSegment(parsing: texts.joined(separator: ",")) }
            default:
                throw s.invalid("tempo", allowed: TempoSegment.syntax)
            }
        }
        if let text = try s.string("accents") {
            section.accents = try check("accents") { () throws(SettingError) in try AccentPattern(parsing: text) }
        }
        if let text = try s.string("subdivisions") {
            section.subdivisions = try check("subdivisions") { () throws(SettingError) in try Subdivisions(parsing: text) }
        }
        if let text = try s.string("gap") {
            section.gap = try check("gap") { () throws(SettingError) in try GapPattern(parsing: text) }
        }
        if let p = try percent(s, "random_mute", range: 0...100) { section.randomMute = p }
        if let p = try percent(s, "gain", range: SongSection.gainRange.lowerBound.numerator...SongSection.gainRange.upperBound.numerator) { section.gainPercent = p }
        section.swing = try s.string("swing")
        section.groove = try s.string("groove")
        section.poly = try s.string("poly")
        if let problem = section.rhythmProblem {
            throw s.invalid(["groove", "poly"].contains(problem.field) ? problem.field : "swing", allowed: problem.allowed)
        }
        // What the tempo needs from the section's length.
        switch section.tempo {
        case .rampTime, .rampBeats:
            if section.bars == nil { throw s.invalid("tempo", allowed: "a ramp needs a number of bars, not until-stop") }
        case .perBeat(let list):
            guard let bars = section.bars, list.count == bars * section.beatCount else {
                throw s.invalid("tempo", allowed: "one tempo per beat: \(section.bars.map { "\($0 * section.beatCount)" } ?? "a number of bars and") values for \(section.bars.map(String.init) ?? "?") bars of \(section.beatCount) beats")
            }
        default: break
        }
        return section
    }
}
