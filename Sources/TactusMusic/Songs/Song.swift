// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// Bars of count-in before a song's bar 0: 0 to 4 bars, or two beats (klick's `-c 0`).
public enum CountIn: Sendable, Hashable, CustomStringConvertible {
    case bars(Int)
    case twoBeats

    public static let none = CountIn.bars(0)

    public init(parsing text: String, field: String = "count_in") throws(SettingError) {
        if text == "2beats" || text == "2 beats" { self = .twoBeats; return }
        guard let n = Int(text), (0...4).contains(n) else {
            throw SettingError(field: field, value: text, allowed: "expected 0 to 4 bars, or \"2beats\"")
        }
        self = .bars(n)
    }

    public var description: String {
        switch self {
        case .bars(let n): "\(n)"
        case .twoBeats: "2beats"
        }
    }
}

/// One section of a song: its bars, meter, pattern and tempo segment.
public struct SongSection: Sendable, Hashable {
    public static let barRange: ClosedRange<Int> = 1...999

    public var label: String
    /// nil: plays until stopped (only the last section; never a ramp).
    public var bars: Int?
    public var meter: Meter
    public var beatUnit: BeatUnit
    public var tempo: TempoSegment
    public var accents: AccentPattern
    public var subdivisions: Subdivisions
    public var gap: GapPattern?
    /// Percent of beats muted at random (0-100), nil for none.
    public var randomMute: Rational?
    /// Gain in percent, exact (klick's volume 0.5 is 50).
    public var gainPercent: Rational
    /// The rhythm options as written (`swing = "2:1"`, `groove = "3,2,2,3@4"`, `poly = "3"`),
    /// played in the section's bar (`patternSettings`); checked when the file is read.
    public var swing: String?
    public var groove: String?
    public var poly: String?

    public init(label: String = "", bars: Int? = 4, meter: Meter = .common, beatUnit: BeatUnit = .quarter,
                tempo: TempoSegment = .constant(120), accents: AccentPattern = .downbeat,
                subdivisions: Subdivisions = .none, gap: GapPattern? = nil, randomMute: Rational? = nil,
                gainPercent: Rational = 100) {
        self.label = label
        self.bars = bars
        self.meter = meter
        self.beatUnit = beatUnit
        self.tempo = tempo
        self.accents = accents
        self.subdivisions = subdivisions
        self.gap = gap
        self.randomMute = randomMute
        self.gainPercent = gainPercent
    }

    /// The section gain a file may give, in percent.
    public static let gainRange = Rational(0)...Rational(400)

    public var beatsPerBar: Rational { meter.wholeNotes / beatUnit.wholeNotes }
    public var beatCount: Int { Int(beatsPerBar.ceiling) }
    public var lengthInBeats: Rational? { bars.map { Rational(Int64($0)) * beatsPerBar } }

    /// The bar's pattern as the engine plays it (tempo and sound do not matter here).
    public var patternSettings: MetronomeSettings {
        var settings = MetronomeSettings(meter: meter, beatUnit: beatUnit, accents: accents, subdivisions: subdivisions)
        // Checked by `rhythmProblem` when read; a bad one is left out rather than trapping.
        for (key, value) in rhythm { try? settings.assign(key, value) }
        return settings
    }

    /// The rhythm options given, as settings keys and values.
    var rhythm: [(String, String)] {
        [("swing", swing), ("groove", groove), ("poly", poly)].compactMap { key, value in value.map { (key, $0) } }
    }

    /// Why the section's swing, groove or poly cannot be played in its bar, or nil.
    public var rhythmProblem: SettingError? {
        var settings = MetronomeSettings(meter: meter, beatUnit: beatUnit, accents: accents, subdivisions: subdivisions)
        do {
            for (key, value) in rhythm { try settings.assign(key, value) }
            try settings.validate()
        } catch { return error }
        return nil
    }
}

/// A song: sections played in order, optionally looped, after an optional count-in.
public struct Song: Sendable, Hashable {
    public var name: String
    public var countIn: CountIn
    public var loop: Bool
    /// Scales every section tempo (100 = as written).
    public var practiceTempoPercent: Rational
    public var sections: [SongSection]
    /// The song's own speed trainer (`trainer_*` keys), used instead of the box's fields.
    public var trainer: Trainer?

    public init(name: String, countIn: CountIn = .none, loop: Bool = false, practiceTempoPercent: Rational = 100,
                sections: [SongSection], trainer: Trainer? = nil) {
        self.name = name
        self.trainer = trainer
        self.countIn = countIn
        self.loop = loop
        self.practiceTempoPercent = practiceTempoPercent
        self.sections = sections
    }

    /// A preset becomes a one-section song that plays until stopped (with its swing and
    /// poly layers; a section has no groove, sound or volumes).
    public init(preset: Preset, name: String? = nil) {
        let s = preset.settings
        var section = SongSection(
            label: preset.name, bars: nil, meter: s.meter, beatUnit: s.beatUnit, tempo: .constant(s.tempo.bpm),
            accents: s.accents, subdivisions: s.subdivisions)
        section.swing = s.swing?.description
        section.groove = s.groove?.description
        section.poly = s.poly.layers.isEmpty ? nil : s.poly.description
        self.init(name: name ?? preset.name, sections: [section])
    }

    /// Some section mutes beats at random (events then carry the seed).
    public var usesRandomMute: Bool { sections.contains { $0.randomMute != nil } }

    /// True when the song never ends by itself.
    public var isEndless: Bool { loop || sections.contains { $0.bars == nil } }
}

public struct Setlist: Sendable, Hashable {
    public enum Advance: String, Sendable, Hashable, CaseIterable {
        /// Stop after each song; START plays the next.
        case wait
        /// The next song starts exactly where the last one ends.
        case auto
    }

    public var songs: [String]
    public var advance: Advance

    public init(songs: [String], advance: Advance = .wait) {
        self.songs = songs
        self.advance = advance
    }
}

/// Songs and the setlist: in settings.toml or in a songs.toml beside it.
public struct SongLibrary: Sendable, Hashable {
    public var songs: [Song]
    public var setlist: Setlist?

    public init(songs: [Song] = [], setlist: Setlist? = nil) {
        self.songs = songs
        self.setlist = setlist
    }

    public func song(named name: String) -> Song? { songs.first { $0.name == name } }

    /// Presets that have no song of their name yet become one-section songs. Presets that
    /// share a name (a hand-edited file) all stay choosable: the later ones as "Name (2)"...
    public mutating func migrate(presets: [Preset]) {
        let songNames = Set(songs.map(\.name))
        var presetNames: Set<String> = []
        for preset in presets where !songNames.contains(preset.name) {
            var name = preset.name
            var n = 1
            while presetNames.contains(name) || (n > 1 && songNames.contains(name)) {
                n += 1
                name = "\(preset.name) (\(n))"
            }
            presetNames.insert(name)
            songs.append(Song(preset: preset, name: name))
        }
    }

    /// The setlist's songs in its order (a name may appear more than once); names that
    /// match no song are left out.
    public var setlistSongs: [Song] { (setlist?.songs ?? []).compactMap(song(named:)) }

    /// The songs to choose from: the setlist's in its order, then the others in file order.
    public var playOrder: [Song] {
        let listed = Set(setlist?.songs ?? [])
        return setlistSongs + songs.filter { !listed.contains($0.name) }
    }
}
