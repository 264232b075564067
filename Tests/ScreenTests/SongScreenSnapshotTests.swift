// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusTimeline
import TactusInstrument
import TactusScreen
import TactusBase

/// The song page: stopped (song, start section, its tempo), playing a ramp (section, bar
/// of section, the tempo with tenths) with the beat strip, and a practice field.
@Suite struct SongScreenSnapshotTests {
    @Test func songPages() {
        let settings = makeSettings(bpm: "120")
        let stopped = SongView(name: "Blue Bossa", section: "intro", bar: "-", bpm: "100", program: "", playing: false,
                               fieldValue: "Blue Bossa")
        let playing = SongView(name: "Blue Bossa", section: "head", bar: "3/8", bpm: "117.3", program: "+5/4 gap 2:1 20 min",
                               playing: true, fieldValue: "head")
        let timeline = SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: .zero)
        let cases: [(String, Field, SongView, SteadyGrid?)] = [
            ("mode-song-stopped", .song, stopped, nil),
            ("mode-song-playing", .songSection, playing, timeline),
            ("mode-song-trainer", .trainerStep, SongView(name: "As set", section: "as set", bar: "-", bpm: "120",
                                                         program: "+5/4", playing: false, fieldValue: "+5 BPM"), nil),
            // The earned trainer (issue 31): the coach's window and the step down, then the program line playing.
            ("mode-song-trainer-window", .trainerWindow, SongView(name: "As set", section: "as set", bar: "-", bpm: "120",
                                                                 program: "+5/4 10ms", playing: false, fieldValue: "+-10 ms"), nil),
            ("mode-song-trainer-down", .trainerDown, SongView(name: "As set", section: "as set", bar: "-", bpm: "120",
                                                             program: "+5/4 10ms down 2", playing: false, fieldValue: "after 2 bars"), nil),
            ("mode-song-earned-playing", .song, SongView(name: "Earn", section: "groove", bar: "7", bpm: "130",
                                                         program: "+10/2 10ms down 2", playing: true, fieldValue: "Earn"), timeline),
            ("mode-song-gap", .gap, SongView(name: "As set", section: "as set", bar: "-", bpm: "120",
                                              program: "gap 2:1", playing: false, fieldValue: "2:1"), nil),
        ]
        for (name, field, song, timeline) in cases {
            var model = ScreenModel(page: timeline == nil ? .stopped : .playing, settings: settings, marking: "Allegro",
                                    wheelMode: .song, field: field, grid: timeline.map { BeatGrid(.steady($0)) })
            model.song = song
            Snapshot.assertMatches(ScreenRenderer.render(model, heardSample: 6000), named: name)
        }
    }
}
