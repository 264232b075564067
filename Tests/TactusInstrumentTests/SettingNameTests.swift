// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TactusMusic
@testable import TactusInstrument
import TactusBase

/// One typed list of setting names; every place accepts every spelling, and writes its own.
@Suite struct SettingNameTests {
    @Test func everySpellingNamesOneSetting() {
        #expect(SettingName(spelling: "volume") == .volume)
        #expect(SettingName(spelling: "volumes") == .volume)
        #expect(SettingName(spelling: "beat-unit") == .beatUnit)
        #expect(SettingName(spelling: "beat_unit") == .beatUnit)
        #expect(SettingName(spelling: "tempo") == nil)
        #expect(SettingName.names == ["bpm", "meter", "beat-unit", "accents", "subdivisions", "volume", "sound", "swing", "groove", "poly"])
        #expect(SettingsFile.settingsKeys == ["bpm", "meter", "beat-unit", "accents", "subdivisions", "volumes", "sound", "swing", "groove", "poly"])
        #expect(SettingName.beatUnit.songKey == "beat_unit" && SettingName.volume.songKey == nil)
    }

    @Test func flagsAndScriptsTakeTheFileSpellingsToo() throws {
        var settings = MetronomeSettings()
        try settings.assign("volumes", "accent=80")
        try settings.assign("beat_unit", "1/8")
        #expect(settings.volumes.accent == 80)
        #expect(settings.beatUnit == (try BeatUnit(parsing: "1/8")))
        #expect(throws: SettingError.self) { try settings.assign("tempo", "100") }
    }

    @Test func settingsFilesLoadEitherSpellingAndWriteTheirOwn() throws {
        let text = "schema = 1\n[current]\nbpm = 90\nmeter = \"6/8\"\nbeat_unit = \"1/4.\"\n[current.volume]\naccent = 70\n"
        let saved = try SettingsFile.decode(text, file: "s.toml")
        #expect(saved.settings.beatUnit == (try BeatUnit(parsing: "1/4.")))
        #expect(saved.settings.volumes.accent == 70)
        let written = SettingsFile.encode(saved)
        #expect(written.contains("beat-unit = \"1/4.\"") && written.contains("[current.volumes]"))
        #expect(!written.contains("beat_unit") && !written.contains("[current.volume]"))
        #expect(try SettingsFile.decode(written, file: "s.toml").settings == saved.settings)
    }

    @Test func aSettingGivenTwiceUnderTwoSpellingsIsAnError() {
        let text = "schema = 1\n[current]\nbeat-unit = \"1/4\"\nbeat_unit = \"1/8\"\n"
        do {
            _ = try SettingsFile.decode(text, file: "s.toml")
            Issue.record("accepted both spellings")
        } catch {
            #expect(error.description.contains("the same setting as 'beat-unit'"), "\(error.description)")
        }
    }

    @Test func songSectionsTakeTheHyphenSpellingToo() throws {
        let text = "[[song]]\nname = \"A\"\n[[song.section]]\nbars = 2\nmeter = \"6/8\"\nbeat-unit = \"1/4.\"\ntempo = 100\n"
        let library = try SongFile.decode(text, file: "songs.toml")
        #expect(library.songs[0].sections[0].beatUnit == (try BeatUnit(parsing: "1/4.")))
        #expect(SongFile.encode(library).contains("beat_unit = \"1/4.\""))
    }
}
