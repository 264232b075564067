// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusInstrument
import TactusScreen
import TactusBase

/// The rhythm fields' pages as golden images: swung pairs, a groove, the Euclidean necklace,
/// m-over-n boxes, and the soft and poly volumes.
@Suite struct RhythmScreenSnapshotTests {
    static func rhythm(_ pairs: [(String, String)], on base: MetronomeSettings = makeSettings()) -> MetronomeSettings {
        var settings = base
        try! settings.assign(all: pairs)
        return settings
    }

    static let cases: [(String, WheelMode, Field, MetronomeSettings)] = [
        ("mode-swing-straight", .subdivisions, .rhythm(.swing), makeSettings()),
        ("mode-swing-septuplet", .subdivisions, .rhythm(.swing), rhythm([("swing", "septuplet")])),
        ("mode-swing-triplet", .subdivisions, .rhythm(.swing), rhythm([("swing", "triplet")])),
        ("mode-swing-percent-66", .subdivisions, .rhythm(.swingPercent), rhythm([("swing", "66%")])),
        ("mode-swing-layer-dotted", .subdivisions, .rhythm(.swingLayer), rhythm([("swing", "dotted@4")])),
        ("mode-groove-samba", .subdivisions, .rhythm(.groove), rhythm([("groove", "3:100,2:60,2:80,3:60")])),
        ("mode-groove-amount", .subdivisions, .rhythm(.grooveAmount), rhythm([("groove", "3,2,2,3*80%")])),
        ("mode-groove-none", .subdivisions, .rhythm(.groove), makeSettings()),
        ("mode-euclid-3-8", .accents, .rhythm(.euclidOnsets), rhythm([("accents", "E(3,8)")], on: makeSettings(meter: "8/8", beatUnit: "1/8"))),
        ("mode-euclid-5-16-rotation", .accents, .rhythm(.euclidRotation), rhythm([("accents", "E(5,16,3)")], on: makeSettings(meter: "16/16", beatUnit: "1/16"))),
        ("mode-euclid-off", .accents, .rhythm(.euclidOnsets), makeSettings(accents: "X.x.")),
        ("mode-poly-3-over-4", .subdivisions, .rhythm(.polyCount(1)), rhythm([("poly", "3")])),
        ("mode-poly-layers", .subdivisions, .rhythm(.polySpan(2)),
         rhythm([("poly", "3,5/2b,E(3,8)")], on: makeSettings(meter: "7/8", beatUnit: "1/8"))),
        ("mode-poly-next", .subdivisions, .rhythm(.polyCount(2)), rhythm([("poly", "5")])),
        ("mode-volume-soft-poly", .volumes, .volume(.poly(1)),
         rhythm([("accents", "3+2+2"), ("poly", "3,2"), ("volume", "soft=70,poly1=45,poly2=90")], on: makeSettings(meter: "7/8", beatUnit: "1/8"))),
    ]

    @Test func rhythmPages() {
        for (name, mode, field, settings) in Self.cases {
            let model = ScreenModel(page: .stopped, settings: settings, marking: "Allegro", wheelMode: mode, field: field)
            Snapshot.assertMatches(ScreenRenderer.render(model), named: name)
        }
    }

    @Test func swingWhilePlayingKeepsTheBeatStrip() {
        let settings = Self.rhythm([("swing", "quintuplet")])
        let timeline = SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: Rational(1000))
        let model = ScreenModel(page: .playing, settings: settings, marking: "Allegro", wheelMode: .subdivisions,
                                field: .rhythm(.swing), grid: BeatGrid(.steady(timeline)))
        Snapshot.assertMatches(ScreenRenderer.render(model, heardSample: 1000 + 24000 * 1.3), named: "playing-mode-swing")
    }
}
