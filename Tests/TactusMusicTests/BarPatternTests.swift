// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TactusArithmetic
@testable import TactusMusic
import TactusBase

@Suite struct BarPatternTests {
    func make(_ meter: String, _ unit: String, accents: String = "X", layers: String = "none") throws -> MetronomeSettings {
        var s = MetronomeSettings()
        try s.assign("meter", meter)
        try s.assign("beat-unit", unit)
        try s.assign("accents", accents)
        try s.assign("subdivisions", layers)
        return s
    }

    @Test func beatsPerBarFollowTheBeatUnit() throws {
        #expect(try make("7/8", "1/8").beatsPerBar == Rational(7))
        #expect(try make("6/8", "1/4.").beatsPerBar == Rational(2))
        #expect(try make("4/5", "1/4").beatsPerBar == Rational(16, 5))
        #expect(try make("4/5", "1/4").beatCount == 4)
        #expect(try make("3/4", "3/16").beatsPerBar == Rational(4))
    }

    @Test func fractionalLastBeatKeepsOnlyTheSubdivisionsInsideTheBar() throws {
        // 4/5 in quarters: beat 4 lasts 0.2 beat, so only layer 5's first onset (at 3.2) would
        // fall on the next downbeat and is left out; layer 2's 3.5 is outside too.
        let pattern = BarPattern(try make("4/5", "1/4", layers: "2"))
        let offsets = pattern.onsets.map { $0.offset / Rational(1, 4) }
        #expect(offsets == [0, Rational(1, 2), 1, Rational(3, 2), 2, Rational(5, 2), 3])
    }

    @Test func mutedBeatsDisappearButNotTheirSubdivisions() throws {
        let pattern = BarPattern(try make("3/4", "1/4", accents: "X.x", layers: "3"))
        #expect(pattern.onsets.map(\.kind) == [.accent, .subdivision, .subdivision, .subdivision, .subdivision, .beat, .subdivision, .subdivision])
        #expect(pattern.onsets.map(\.beat) == [0, 0, 0, 1, 1, 2, 2, 2])
    }

    @Test func coincidingLayersArePlayedOnceByTheLowest() throws {
        let pattern = BarPattern(try make("1/4", "1/4", layers: "3,6,9"))
        // Thirds (2), sixths not already thirds (1/6, 1/2, 5/6), ninths not thirds (6), plus the beat.
        #expect(pattern.onsets.count == 1 + 2 + 3 + 6)
        let layers = pattern.onsets.map(\.layer)
        let positions = Set(pattern.onsets.map(\.offset))
        #expect(positions.count == pattern.onsets.count)
        #expect(pattern.onsets.first { $0.offset == Rational(1, 12) }?.layer == 3) // 1/3 of a quarter
        #expect(pattern.onsets.first { $0.offset == Rational(1, 8) }?.layer == 6)  // 1/2 of a quarter
        #expect(layers.filter { $0 == 9 }.count == 6) // 1/9, 2/9, 4/9, 5/9, 7/9, 8/9
    }

    @Test func accentEveryN() {
        #expect(AccentPattern.accentEvery(3, beats: 7).description == "XxxXxxX")
        #expect(AccentPattern.accentEvery(0, beats: 4).description == "xxxx")
    }

    @Test func parsingErrorsNameTheFieldValueAndRange() throws {
        #expect(throws: SettingError(field: "bpm", value: "999.9999", allowed: "allowed 1 to 999, at most 3 decimals")) {
            try Tempo(parsing: "999.9999")
        }
        #expect(throws: SettingError.self) { try BeatUnit(parsing: "1/100") }
        #expect(try BeatUnit(parsing: "3/8") == BeatUnit(division: 4, dotted: true))
        #expect(try BeatUnit(parsing: "1/4.").wholeNotes == Rational(3, 8))
        #expect(try Tempo(parsing: "92.5").bpm == Rational(185, 2))
    }
}
