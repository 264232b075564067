// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusInstrument
import TactusScreen
import Coach

@Suite struct CoachScreenTests {
    /// The Coach page after eight hits over four bars, bar 3 a gap bar: needle at the last
    /// hit (-6 ms), mean +1.5 dragging, SD, shares, one mark per bar (the gap's hollow).
    @Test func theCoachPage() {
        var panel = CoachPanel()
        for (bar, error, gap) in [(0, 4.0, false), (0, 9.0, false), (1, -3.0, false), (1, 12.0, false),
                                  (2, 30.0, false), (2, -14.0, false), (3, 8.0, true), (3, -6.0, true)] {
            panel.add(errorMilliseconds: error, bar: Int64(bar), gap: gap)
        }
        #expect(panel.statistics.summary == "hits 8, mean +5.0 ms, SD 12.5 ms, within 10 ms 62.5 %, within 25 ms 87.5 %")
        #expect(panel.bars.map(\.mean) == [6.5, 4.5, 8, 1] && panel.bars.map(\.gap) == [false, false, false, true])
        var model = ScreenModel(page: .stopped, settings: makeSettings(), marking: "Allegro", wheelMode: .coach, field: .tempo)
        model.coach = panel
        Snapshot.assertMatches(ScreenRenderer.render(model), named: "mode-coach")
        model.coach = CoachPanel()
        Snapshot.assertMatches(ScreenRenderer.render(model), named: "mode-coach-empty")
        // The same page as the last field of song mode's ring (the song's ring mark).
        model.wheelMode = .song
        model.field = .songCoach
        model.coach = panel
        Snapshot.assertMatches(ScreenRenderer.render(model), named: "song-coach")
    }
}
