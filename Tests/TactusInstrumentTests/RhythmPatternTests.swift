// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusInstrument
import TactusBase

/// Swing, grooves, Euclidean accents, groupings and poly layers (docs: the notes'
/// rhythm-patterns vectors), checked as exact positions.
@Suite struct RhythmPatternTests {
    func make(_ pairs: [(String, String)]) throws(SettingError) -> MetronomeSettings {
        var s = MetronomeSettings()
        try s.assign(all: pairs.map { (name: $0.0, value: $0.1) })
        return s
    }

    /// Exact sample (48 kHz unless given, halves up) of a position in whole notes.
    func sample(_ offset: Rational, bpm: Rational, beat: Rational = Rational(1, 4), rate: Int64 = 48000) -> Int64 {
        (offset / beat * Rational(rate * 60) / bpm).rounded
    }

    // MARK: swing

    @Test func swingNotationsAreExact() throws {
        let cases: [(String, Rational, String)] = [
            ("66%", Rational(33, 50), "66%"), ("58%", Rational(29, 50), "58%"), ("50%", Rational(1, 2), "50%"),
            ("2:1", Rational(2, 3), "2:1"), ("3:2", Rational(3, 5), "3:2"), ("4:3", Rational(4, 7), "4:3"),
            ("2/3", Rational(2, 3), "2/3"), ("7/12", Rational(7, 12), "7/12"), ("66.5%", Rational(133, 200), "66.5%"),
            ("straight", Rational(1, 2), "straight"), ("septuplet", Rational(4, 7), "septuplet"),
            ("quintuplet", Rational(3, 5), "quintuplet"), ("triplet", Rational(2, 3), "triplet"),
            ("dotted", Rational(3, 4), "dotted"),
        ]
        for (text, p, shown) in cases {
            let swing = try Groove(parsingSwing: text)
            #expect(swing.swingPosition == p, "\(text)")
            #expect(swing.layer == 2)
            #expect(swing.description == shown)
        }
        // MPC 66 % is a label near the triplet, not the triplet.
        #expect(try Groove(parsingSwing: "66%").swingPosition != Rational(2, 3))
        #expect(try Groove(parsingSwing: "2:1@4").layer == 4)
        #expect(try Groove(parsingSwing: "2:1@4").description == "2:1@4")
    }

    @Test func badSwingValuesNameTheValueAndWhatIsAllowed() {
        for text in ["", "66", "0%", "100%", "1:0", "3/2", "2:1@3", "2:1@10", "triplets", "2:1@", "1/20000"] {
            #expect(throws: SettingError.self, "\(text)") { try Groove(parsingSwing: text) }
        }
        do {
            _ = try Groove(parsingSwing: "2:1@3")
        } catch {
            #expect(error.field == "swing")
            #expect(error.value == "2:1@3")
            #expect(error.allowed.contains("2, 4, 6 or 8"))
        }
    }

    @Test func swungEighthsLandOnTheVectors() throws {
        // Layer-2 off-beats of beats 0, 1, 2 at 120 and 137 BPM (the notes' table).
        let table: [(String, [Int64], [Int64])] = [
            ("straight", [12000, 36000, 60000], [10511, 31533, 52555]),
            ("58%", [13920, 37920, 61920], [12193, 33215, 54236]),
            ("66%", [15840, 39840, 63840], [13874, 34896, 55918]),
            ("7/12", [14000, 38000, 62000], [12263, 33285, 54307]),
            ("septuplet", [13714, 37714, 61714], [12013, 33034, 54056]),
            ("quintuplet", [14400, 38400, 62400], [12613, 33635, 54657]),
            ("triplet", [16000, 40000, 64000], [14015, 35036, 56058]),
            ("dotted", [18000, 42000, 66000], [15766, 36788, 57810]),
        ]
        for (swing, at120, at137) in table {
            let pattern = BarPattern(try make([("swing", swing)]))
            let offbeats = pattern.onsets.filter { $0.kind == .subdivision }.prefix(3).map(\.offset)
            #expect(offbeats.map { sample($0, bpm: 120) } == at120, "\(swing)")
            #expect(offbeats.map { sample($0, bpm: 137) } == at137, "\(swing)")
        }
    }

    @Test func sixteenthSwingOnLayerFour() throws {
        let pattern = BarPattern(try make([("swing", "66%@4")]))
        #expect(pattern.onsets.prefix(4).map { sample($0.offset, bpm: 120) } == [0, 7920, 12000, 19920])
        #expect(pattern.onsets.prefix(4).map(\.layer) == [0, 4, 4, 4])
    }

    @Test func aSwungNoteOnATupletOnsetPlaysOnce() throws {
        // Triplet swing on layer 2 plus layer 3: 0 (beat), 1/3 (layer 3), 2/3 (layer 2) once.
        let pattern = BarPattern(try make([("swing", "triplet"), ("subdivisions", "3")]))
        let beat0 = pattern.onsets.filter { $0.beat == 0 }
        #expect(beat0.map { $0.offset / Rational(1, 4) } == [0, Rational(1, 3), Rational(2, 3)])
        #expect(beat0.map(\.layer) == [0, 3, 2])
        // The tempered positions coincide with that tuplet layer for every name.
        for (name, layer) in [("septuplet", 7), ("quintuplet", 5), ("dotted", 4)] {
            let p = BarPattern(try make([("swing", name), ("subdivisions", "\(layer)")]))
            let positions = p.onsets.map(\.offset)
            #expect(Set(positions).count == positions.count)
            #expect(p.onsets.count == 4 * layer, "\(name)") // the swung 8th is one of the tuplet's onsets
        }
    }

    @Test func straightSwingAndZeroGrooveChangeNothing() throws {
        for (layers, shaping) in [("2", ("swing", "straight")), ("2", ("swing", "50%")), ("4", ("groove", "3,2,2,3*0")),
                                  ("2,3", ("swing", "1:1")), ("8", ("groove", "5,3@8*0%"))] {
            let plain = BarPattern(try make([("meter", "7/8"), ("beat-unit", "1/8"), ("subdivisions", layers)]))
            let shaped = BarPattern(try make([("meter", "7/8"), ("beat-unit", "1/8"), ("subdivisions", layers), shaping]))
            #expect(plain.onsets == shaped.onsets, "\(shaping)")
        }
    }

    @Test func swingImpliesItsLayer() throws {
        let s = try make([("swing", "2:1")])
        #expect(s.soundingLayers == [2])
        #expect(BarPattern(s).onsets.count == 8)
    }

    // MARK: grooves

    @Test func grooveWeightsGiveTheTarget() throws {
        let samba = try Groove(parsingGroove: "3,2,2,3")
        #expect(samba.target == [0, Rational(3, 10), Rational(1, 2), Rational(7, 10)])
        #expect(samba.layer == 4)
        #expect(samba.amount == 1)
        let half = try Groove(parsingGroove: "3,2,2,3@8*50%")
        #expect(half.layer == 8)
        #expect(half.positions == [0, Rational(11, 40), Rational(1, 2), Rational(29, 40)])
        #expect(half.description == "3,2,2,3@8*50%")
        #expect(try Groove(parsingGroove: "2,1*9999/10000").amount == Rational(9999, 10000))
        let gains = try Groove(parsingGroove: "3:100,2:60,2:80,3:60")
        #expect(gains.gains == [100, 60, 80, 60])
        #expect(gains.description == "3,2:60,2:80,3:60")
        // Per-step gains reach the onsets of the layer.
        let pattern = BarPattern(try make([("groove", "3:100,2:60,2:80,3:60")]))
        #expect(pattern.onsets.prefix(4).map(\.gain) == [100, 60, 80, 60])
        #expect(pattern.onsets.prefix(4).map { $0.offset / Rational(1, 4) } == [0, Rational(3, 10), Rational(1, 2), Rational(7, 10)])
    }

    @Test func grooveAmountsAboveOneAreCheckedForReordering() throws {
        // 2:1 (w1 = 2/3) at 150 % puts the second note at 3/4: allowed.
        #expect(try Groove(parsingGroove: "2,1*150%").positions[1] == Rational(3, 4))
        // 9,1 (w1 = 9/10): at 125 % p1 = 1/2 + 5/4 * 2/5 = 1, the next pair's start: rejected.
        #expect(throws: SettingError.self) { try Groove(parsingGroove: "9,1*125%") }
        #expect(try Groove(parsingGroove: "9,1*124%").positions[1] < 1)
        do {
            _ = try Groove(parsingGroove: "9,1*130%")
            Issue.record("expected a reordering error")
        } catch {
            #expect(error.field == "groove")
            #expect(error.allowed == "an amount of 130 % reorders the notes; this groove allows less than 125 %")
        }
        for bad in ["3,2,2,3@6", "3,2,2,3*151%", "3,2,2,3*-1%", "3", "1,2,3,4,5,6,7,8,9,1", "3,0", "3,2:101", "a,b", "3,2@"] {
            #expect(throws: SettingError.self, "\(bad)") { try Groove(parsingGroove: bad) }
        }
    }

    @Test func swingAndGrooveNeedDifferentLayers() throws {
        #expect(throws: SettingError.self) { try make([("swing", "2:1@4"), ("groove", "3,2,2,3")]) }
        let both = try make([("swing", "2:1"), ("groove", "3,2,2,3")])
        #expect(both.soundingLayers == [2, 4])
    }

    // MARK: Euclid

    static let hmtTable: [(Int, Int, String)] = [
        (1, 2, "x."), (1, 4, "x..."), (2, 3, "xx."), (2, 5, "x.x.."), (3, 4, "xxx."), (3, 5, "x.x.x"),
        (3, 7, "x.x.x.."), (3, 8, "x..x..x."), (4, 7, "x.x.x.x"), (4, 9, "x.x.x.x.."), (4, 11, "x..x..x..x."),
        (4, 12, "x..x..x..x.."), (5, 6, "xxxxx."), (5, 7, "x.xx.xx"), (5, 8, "x.xx.xx."), (5, 9, "x.x.x.x.x"),
        (5, 11, "x.x.x.x.x.."), (5, 12, "x..x.x..x.x."), (5, 13, "x..x.x..x.x.."), (5, 16, "x..x..x..x..x..."),
        (6, 7, "xxxxxx."), (7, 8, "xxxxxxx."), (7, 12, "x.xx.x.xx.x."), (7, 16, "x..x.x.x..x.x.x."),
        (9, 16, "x.xx.x.x.xx.x.x."), (11, 24, "x..x.x.x.x.x..x.x.x.x.x."), (13, 24, "x.xx.x.x.x.x.xx.x.x.x.x."),
        (0, 8, "........"), (8, 8, "xxxxxxxx"),
    ]

    @Test func euclideanPatternsMatchHmt() {
        for (k, n, text) in RhythmPatternTests.hmtTable {
            #expect(Euclid.text(k, n) == text, "E(\(k),\(n))")
        }
        #expect(Euclid.text(3, 8, rotation: 2) == ".x..x.x.")
        // Toussaint's printed forms are reachable as E(n-1, n, n-2).
        #expect(Euclid.text(2, 3, rotation: 1) == "x.x")
        #expect(Euclid.text(7, 8, rotation: 6) == "x.xxxxxx")
    }

    @Test func euclideanPropertiesForEveryKAndNUpTo99() {
        /// Whether b is a rotation of a (same necklace).
        func sameNecklace(_ a: [Bool], _ b: [Bool]) -> Bool {
            let n = a.count
            return (0..<n).contains { r in (0..<n).allSatisfy { a[($0 + r) % n] == b[$0] } }
        }
        for n in 1...99 {
            for k in 0...n {
                let p = Euclid.pattern(k, n)
                #expect(p.count == n)
                #expect(p.filter { $0 }.count == k)
                if k >= 1 { #expect(p[0]) }
                if k >= 1 {
                    let onsets = p.indices.filter { p[$0] }
                    let gaps = Set(onsets.indices.map { i in
                        ((i + 1 < onsets.count ? onsets[i + 1] : onsets[0] + n) - onsets[i])
                    })
                    #expect(gaps.count <= 2 && (gaps.max()! - gaps.min()! <= 1), "E(\(k),\(n)) gaps \(gaps)")
                }
                // E(n-k, n) and the complement of E(k, n) are the same necklace.
                let complement = p.map { !$0 }
                #expect(sameNecklace(Euclid.pattern(n - k, n), complement), "E(\(k),\(n))")
                for r in [1, n / 2, n - 1] where r < n && r > 0 {
                    #expect(Euclid.pattern(k, n, rotation: r) == (0..<n).map { p[($0 + r) % n] })
                }
            }
        }
    }

    // MARK: accents

    @Test func euclideanAccents() throws {
        let s = try make([("meter", "8/8"), ("beat-unit", "1/8"), ("accents", "E(3,8)")])
        #expect(s.accents.symbols == "XxxXxxXx")
        #expect(s.accents.description == "E(3,8)")
        let pattern = BarPattern(s)
        #expect(pattern.onsets.filter { $0.kind == .accent }.map { sample($0.offset, bpm: 120, beat: Rational(1, 8)) } == [0, 72000, 144000])
        #expect(pattern.onsets.filter { $0.kind == .beat }.count == 5)
        #expect(try AccentPattern(parsing: "E(3,8,2).").symbols == ".X..X.X.")
        #expect(try AccentPattern(parsing: "E(3,8,2).").description == "E(3,8,2).")
        // Pad / cut: E(3,8) in 4/4 plays its first four steps; E(3,4) in 8/8 leaves 4 normal.
        #expect(BarPattern(try make([("accents", "E(3,8)")])).onsets.map(\.kind) == [.accent, .beat, .beat, .accent])
        #expect(BarPattern(try make([("meter", "8/8"), ("beat-unit", "1/8"), ("accents", "E(3,4)")])).onsets.map(\.kind)
                == [.accent, .accent, .accent, .beat, .beat, .beat, .beat, .beat])
        for bad in ["E(9,8)", "E(3,0)", "E(3,8,8)", "E(3,100)", "E(3)", "E(a,8)", "E(3,8"] {
            #expect(throws: SettingError.self, "\(bad)") { try AccentPattern(parsing: bad) }
        }
    }

    @Test func groupingsAccentEachGroupStart() throws {
        let s = try make([("meter", "7/8"), ("beat-unit", "1/8"), ("accents", "3+2+2")])
        #expect(s.accents.symbols == "Xxxoxox")
        #expect(s.accents.description == "3+2+2")
        #expect(BarPattern(s).onsets.map(\.kind) == [.accent, .beat, .beat, .soft, .beat, .soft, .beat])
        #expect(try make([("meter", "6/8"), ("beat-unit", "1/8"), ("accents", "3+3")]).accents.symbols == "Xxxoxx")
        // Order of assignments does not matter; the check is on the whole.
        #expect(try make([("accents", "3+2+2"), ("meter", "7/8"), ("beat-unit", "1/8")]).accents.description == "3+2+2")
        do {
            _ = try make([("meter", "4/4"), ("accents", "3+2+2")])
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "accents '3+2+2' is invalid: the groups add up to 7 but the bar has 4 beats; they must be equal")
        }
        #expect(try AccentPattern(parsing: "Xo.x").levels == [.accent, .soft, .muted, .normal])
    }

    // MARK: poly

    @Test func polyLayersAreExact() throws {
        let three = BarPattern(try make([("poly", "3"), ("accents", ".xxx")]))
        #expect(three.onsets.filter { $0.kind == .poly }.map { sample($0.offset, bpm: 137) } == [0, 28029, 56058])
        #expect(three.onsets.filter { $0.kind == .poly }.map(\.index) == [0, 1, 2])
        let five = BarPattern(try make([("poly", "5")]))
        // Onset 0 is the downbeat's: played once, by the accent.
        #expect(five.onsets.filter { $0.kind == .poly }.map { sample($0.offset, bpm: 120) } == [19200, 38400, 57600, 76800])
        #expect(five.onsets.filter { $0.kind == .poly }.map { sample($0.offset, bpm: 137) } == [16818, 33635, 50453, 67270])
        // 4/5 in quarters: 3 over the bar at 16i/15 beats.
        let odd = BarPattern(try make([("meter", "4/5"), ("beat-unit", "1/4"), ("poly", "3")]))
        #expect(odd.onsets.filter { $0.kind == .poly }.map { $0.offset / Rational(1, 4) } == [Rational(16, 15), Rational(32, 15)])
        // N/Kb restarts every K beats; E(k,n) sounds only on its onsets.
        let span = BarPattern(try make([("poly", "3/2b"), ("accents", "....")]))
        #expect(span.onsets.map { $0.offset / Rational(1, 4) } == [0, Rational(2, 3), Rational(4, 3), 2, Rational(8, 3), Rational(10, 3)])
        let euclid = BarPattern(try make([("poly", "E(3,8)"), ("accents", "....")]))
        #expect(euclid.onsets.map { $0.offset / Rational(1, 4) } == [0, Rational(3, 2), 3])
    }

    @Test func polyCoincidencesPlayOnceByTheMostImportantKind() throws {
        // 3 over the bar with triplet swing: 8/3 beats is the swung 8th of beat 2.
        let s = try make([("poly", "3,6"), ("swing", "triplet")])
        let pattern = BarPattern(s)
        let at = { (beats: Rational) in pattern.onsets.filter { $0.offset == beats * Rational(1, 4) } }
        #expect(at(Rational(8, 3)).map(\.kind) == [.subdivision])
        #expect(at(Rational(4, 3)).map { [$0.kind == .poly ? 1 : 0, $0.layer] } == [[1, 1]])
        #expect(at(Rational(2, 3)).map(\.layer) == [2]) // poly 6 at 2/3 beat is the swung 8th
        #expect(pattern.onsets.filter { $0.kind == .poly && $0.layer == 2 }.map(\.index) == [5]) // 6 over 4: only 3 1/3 beats is new
        let positions = pattern.onsets.map(\.offset)
        #expect(positions == positions.sorted() && Set(positions).count == positions.count)
        #expect(throws: SettingError.self) { try make([("poly", "3,4,5,6,7")]) }
        for bad in ["0", "100", "3/0b", "3/2", "3b", "E(3,8", "x"] {
            #expect(throws: SettingError.self, "\(bad)") { try PolyLayers(parsing: bad) }
        }
        #expect(try PolyLayers(parsing: "3,5/2b,E(3,8,1)").description == "3,5/2b,E(3,8,1)")
    }

    // MARK: grid

    @Test func theWorstCaseGridFits() throws {
        let s = try make([("meter", "97/89"), ("beat-unit", "3/166"), ("subdivisions", "2,3,4,5,6,7,8,9"),
                          ("groove", "4,3@8*9999/10000")])
        #expect(s.groove!.positions[1] == Rational(79999, 140000))
        let grid = try #require(BarPattern(s).gridDenominator)
        #expect(grid == 24_820_320_000)
        // Well inside the limit, even refined by 2^20 over a bar of 99 whole notes.
        let (scaled, overflow) = (grid << 20).multipliedReportingOverflow(by: 99)
        #expect(!overflow && scaled > 0)
        // A combination finer than that is refused with one clear line, not trapped.
        #expect(throws: SettingError.self) {
            try make([("meter", "97/89"), ("beat-unit", "3/166"), ("subdivisions", "2,3,4,5,6,7,8,9"),
                      ("groove", "4,3@8*9999/10000"), ("poly", "97,83,79,73")])
        }
    }
}

@Suite struct RhythmSettingsFileTests {
    @Test func rhythmSettingsRoundTripAndOldFilesStillLoad() throws {
        var s = MetronomeSettings()
        try s.assign(all: [("meter", "7/8"), ("beat-unit", "1/8"), ("accents", "3+2+2"), ("swing", "66%@4"),
                           ("groove", "3:100,2:60,2,3@8*80%"), ("poly", "3,5/2b,E(3,8,1)"), ("volume", "soft=55,poly2=33")])
        let text = SettingsFile.encode(SavedState(settings: s))
        #expect(text.contains("swing = \"66%@4\""))
        #expect(text.contains("groove = \"3,2:60,2,3@8*80%\""))
        #expect(text.contains("poly = \"3,5/2b,E(3,8,1)\""))
        #expect(text.contains("accents = \"3+2+2\""))
        let back = try SettingsFile.decode(text, file: "settings.toml")
        #expect(back.settings == s)
        // A file without the new keys loads as before: no swing, groove or poly.
        let old = try SettingsFile.decode("schema = 1\n[current]\nbpm = 92.5\naccents = \"Xx.\"\n", file: "old.toml")
        #expect(old.settings.swing == nil && old.settings.groove == nil && old.settings.poly.layers.isEmpty)
        #expect(old.settings.volumes.soft == 70)
    }

    @Test func badRhythmSettingsNameFileLineAndValue() {
        do {
            _ = try SettingsFile.decode("schema = 1\n[current]\nmeter = \"4/4\"\naccents = \"3+2+2\"\n", file: "s.toml")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("s.toml:4"), "\(error)")
            #expect(error.description.contains("the groups add up to 7 but the bar has 4 beats"), "\(error)")
        }
        do {
            _ = try SettingsFile.decode("schema = 1\n[current]\nswing = \"2:1@5\"\n", file: "s.toml")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("s.toml:3"), "\(error)")
            #expect(error.description.contains("2, 4, 6 or 8"), "\(error)")
        }
    }

    @Test func theBoxTurnsAGroupingIntoPlainAccentsWhenTheMeterChanges() throws {
        var s = MetronomeSettings()
        try s.assign(all: [("meter", "7/8"), ("beat-unit", "1/8"), ("accents", "3+2+2")])
        s.meter = try Meter(8, 8)
        s.fitAccentsToBar()
        #expect(s.accents.description == "Xxxoxox")
        #expect(throws: Never.self) { try s.validate() }
    }
}
