// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusMusic
import TactusInstrument
import TactusScreen

/// Menu > Tone as golden images: off at A4 = 440, and sounding C5 at 442 with the organ.
@Suite struct ToneScreenTests {
    static func page(on: Bool, note: Int, reference: Int, timbre: ReferenceTone.Timbre, volume: Int) -> ScreenModel {
        var preferences = Preferences()
        preferences.toneOn = on
        preferences.tone = ReferenceTone(note: note, reference: reference, timbre: timbre, volume: volume)
        return ScreenModel(page: .tone(ToneView(preferences)))
    }

    @Test func tonePages() {
        Snapshot.assertMatches(ScreenRenderer.render(Self.page(on: false, note: 69, reference: 440, timbre: .sine, volume: 50)),
                               named: "menu-tone-off-a4")
        Snapshot.assertMatches(ScreenRenderer.render(Self.page(on: true, note: 72, reference: 442, timbre: .organ, volume: 70)),
                               named: "menu-tone-on-c5-442")
        Snapshot.assertMatches(ScreenRenderer.render(Self.page(on: true, note: 73, reference: 415, timbre: .sine, volume: 100)),
                               named: "menu-tone-on-csharp5-415")
    }

    @Test func theFrequencyShownIsTheEqualTemperedOne() {
        var preferences = Preferences()
        preferences.tone = ReferenceTone(note: 72, reference: 440)
        #expect(ToneView(preferences).hertz == "523.25 Hz")
        preferences.tone = ReferenceTone(note: 60, reference: 415)
        #expect(ToneView(preferences).hertz == "246.76 Hz")
    }
}
