// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusInstrument
import TactusScreen
import TactusBase

/// The screens as golden images. A frame is a function of the model and the heard sample,
/// so each case names both.
@Suite struct ScreenSnapshotTests {
    static let markings = ["Adagio", "Allegretto", "Allegro", "Andante", "Grave", "Largo", "Lento", "Moderato", "Presto", "Vivace"]

    /// The playing screen `beats` beats (fractional) after bar 0's downbeat; the marking is
    /// the tempo's own (`TempoMarking.of`), as the box computes it.
    static func playing(_ settings: MetronomeSettings, beats: Double) -> (ScreenModel, Double) {
        let marking = TempoMarking.of(settings.tempo).name
        let timeline = SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: Rational(1000))
        let whole = Int64(beats.rounded(.down))
        let bar = whole / Int64(timeline.beatCount), beat = Int(whole % Int64(timeline.beatCount))
        let start = timeline.sample(bar: bar, beat: beat)
        let next = timeline.beat(atSample: Double(start)).nextBeatSample
        let heard = Double(start) + (beats - Double(whole)) * Double(next - start)
        return (ScreenModel(page: .playing, settings: settings, marking: marking, grid: BeatGrid(.steady(timeline))), heard)
    }

    struct PendulumCase: Sendable, CustomTestStringConvertible {
        var name: String
        var bpm: String
        var beats: Double
        var testDescription: String { name }
    }

    static let pendulumCases = [
        PendulumCase(name: "playing-120-downbeat", bpm: "120", beats: 0),
        PendulumCase(name: "playing-120-beat0.25", bpm: "120", beats: 0.25),
        PendulumCase(name: "playing-120-beat0.5", bpm: "120", beats: 0.5),
        PendulumCase(name: "playing-120-beat1.1", bpm: "120", beats: 1.1),
        PendulumCase(name: "playing-120-beat1.75", bpm: "120", beats: 1.75),
        PendulumCase(name: "playing-240-beat4.2", bpm: "240", beats: 4.2),
        PendulumCase(name: "playing-240-beat5.5", bpm: "240", beats: 5.5),
        PendulumCase(name: "playing-60-beat2.3", bpm: "60", beats: 2.3),
        PendulumCase(name: "playing-100-beat0.1", bpm: "100", beats: 0.1),
        PendulumCase(name: "playing-999-beat3", bpm: "999", beats: 3),
    ]

    @Test(arguments: pendulumCases)
    func pendulumPhases(_ c: PendulumCase) {
        let (model, heard) = Self.playing(makeSettings(bpm: c.bpm), beats: c.beats)
        Snapshot.assertMatches(ScreenRenderer.render(model, heardSample: heard), named: c.name)
    }

    @Test func playingOddMeterFractionalTempoAndLayers() {
        let (model, heard) = Self.playing(makeSettings(bpm: "92.5", meter: "7/8", beatUnit: "1/8", accents: "X.x.Xxx", subdivisions: "2,3"), beats: 4.05)
        Snapshot.assertMatches(ScreenRenderer.render(model, heardSample: heard), named: "playing-92.5-7-8-layers")
    }

    @Test func playingManyBeatsShowsNumbers() {
        let (model, heard) = Self.playing(makeSettings(bpm: "150", meter: "17/16", beatUnit: "1/16"), beats: 12.6)
        Snapshot.assertMatches(ScreenRenderer.render(model, heardSample: heard), named: "playing-17-16")
    }

    @Test func stoppedTempo() {
        let model = ScreenModel(page: .stopped, settings: makeSettings(bpm: "72", meter: "3/4"), marking: "Adagio")
        Snapshot.assertMatches(ScreenRenderer.render(model), named: "stopped-tempo")
    }

    @Test func modePages() {
        let settings = makeSettings(bpm: "120", meter: "6/8", beatUnit: "1/8", accents: "X.xXxx", subdivisions: "2,3,5")
        var volumes = Volumes()
        try! volumes.apply(parsing: "master=70,accent=100,beat=55,sub2=80,sub3=40,sub5=100,sub7=20")
        var withVolumes = settings
        withVolumes.volumes = volumes
        let sounds = ScreenChoice(title: "", entries: ["woodblock", "beep", "clave", "cowbell", "rimshot"], position: 2)
        let cases: [(String, WheelMode, Field, MetronomeSettings)] = [
            ("mode-accents", .accents, .beatAccent(2), settings),
            ("mode-accents-every", .accents, .accentEvery, settings),
            ("mode-meter-numerator", .meter, .numerator, settings),
            ("mode-meter-denominator", .meter, .denominator, settings),
            ("mode-beat-unit-eighth", .meter, .beatUnit, settings),
            ("mode-subdivisions", .subdivisions, .subdivisions, withVolumes),
            ("mode-subdivisions-layer3", .subdivisions, .layer(3), withVolumes),
            ("mode-sound", .sound, .sound, settings),
            ("mode-volume", .volumes, .volume(.beat), withVolumes),
            ("mode-volume-layer5", .volumes, .volume(.layer(5)), withVolumes),
        ]
        for (name, mode, field, settings) in cases {
            let model = ScreenModel(page: .stopped, settings: settings, marking: "Allegro", wheelMode: mode, field: field, soundSets: sounds)
            Snapshot.assertMatches(ScreenRenderer.render(model), named: name)
        }
    }

    @Test func beatUnitsAsNotes() {
        for (name, unit) in [("mode-beat-unit-dotted-quarter", "1/4."), ("mode-beat-unit-triplet-eighth", "1/12"),
                             ("mode-beat-unit-whole", "1/1"), ("mode-beat-unit-sixteenth", "1/16")] {
            let model = ScreenModel(page: .stopped, settings: makeSettings(beatUnit: unit), wheelMode: .meter, field: .beatUnit)
            Snapshot.assertMatches(ScreenRenderer.render(model), named: name)
        }
    }

    @Test func accentsBeyondOnePage() {
        let model = ScreenModel(page: .stopped, settings: makeSettings(meter: "21/8", beatUnit: "1/8", accents: "X..x..x..X..x..x..X.."),
                                wheelMode: .accents, field: .beatAccent(18))
        Snapshot.assertMatches(ScreenRenderer.render(model), named: "mode-accents-page2")
    }

    @Test func menuRingTurnsWithTheKnob() {
        for (name, position) in [("menu-markings", 2.0), ("menu-markings-turning", 2.4), ("menu-markings-first", 0.0)] {
            let model = ScreenModel(page: .menu(ScreenChoice(title: "Marking", entries: Self.markings, position: position)))
            Snapshot.assertMatches(ScreenRenderer.render(model), named: name)
        }
    }

    @Test func dimmedScreenIsSparseAndMoves() {
        let first = ScreenRenderer.render(ScreenModel(page: .dimmed, settings: makeSettings(bpm: "120")))
        let later = ScreenRenderer.render(ScreenModel(page: .dimmed, settings: makeSettings(bpm: "120"), dimStep: 3))
        Snapshot.assertMatches(first, named: "dimmed")
        #expect(first != later)
        #expect(first.litPixelCount == later.litPixelCount)
        // Under 2 % of the panel lit.
        #expect(first.litPixelCount < 128 * 64 / 50)
    }

    @Test func anIdleBoxDimsItsScreenAndContrast() throws {
        var state = try BoxState(at: .seconds(100))
        let awake = ScreenPresenter.model(for: state, grid: nil)
        _ = state.handle(.tick(at: .seconds(160)))
        let dimmed = ScreenPresenter.model(for: state, grid: nil)
        #expect(awake.page == .stopped && awake.contrast == 0xCF)
        #expect(dimmed.page == .dimmed && dimmed.contrast == 0x01)
    }

    @Test func pendulumFramesAreDrawnWhereTheMathSaysAtEveryBeat() {
        // On each beat sample the bob's centre pixel is at the computed end, left on even beats.
        let settings = makeSettings(bpm: "137")
        let timeline = SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: .zero)
        let model = ScreenModel(page: .playing, settings: settings, grid: BeatGrid(.steady(timeline)))
        let geometry = Pendulum.Geometry.mainScreen
        let length = Pendulum.drawnLength(beatSeconds: timeline.beatSeconds, geometry: geometry)
        #expect(length == 28)
        for k in 0..<8 {
            let frame = ScreenRenderer.render(model, heardSample: Double(timeline.sample(bar: Int64(k / 4), beat: k % 4)))
            let end = Pendulum.bobCenter(swing: k % 2 == 0 ? -1 : 1, length: length, geometry: geometry)
            let other = Pendulum.bobCenter(swing: k % 2 == 0 ? 1 : -1, length: length, geometry: geometry)
            #expect(frame[end.x, end.y] && frame[end.x - 3, end.y] && frame[end.x + 3, end.y])
            #expect(!frame[other.x, other.y])
        }
    }

    @Test func pendulumLengthFollowsTempoOverTheWholeRange() {
        let geometry = Pendulum.Geometry.mainScreen
        func length(_ bpm: Double) -> Int { Pendulum.drawnLength(beatSeconds: 60 / bpm, geometry: geometry) }
        #expect([30, 60, 120, 240, 480].map(length) == [49, 40, 30, 21, 15])
        // The real length at 120 BPM (0.248 m at 120 px/m)...
        #expect(length(120) == Int((Pendulum.lengthMeters(periodSeconds: 1) * 120).rounded()))
        // ...and no clamping: every 25 % faster is shorter, from 20 to 600 BPM.
        var bpm = 20.0
        var lengths: [Int] = []
        while bpm <= 600 { lengths.append(length(bpm)); bpm *= 1.25 }
        #expect(zip(lengths, lengths.dropFirst()).allSatisfy { $0 > $1 }, "\(lengths)")
        #expect(lengths.first! <= geometry.maximumLength && lengths.last! >= geometry.minimumLength)
    }

    @Test func theBobWaitsAtTheEndWhereTheFirstClickFindsIt() {
        let settings = makeSettings(bpm: "120")
        let stopped = ScreenRenderer.render(ScreenModel(page: .stopped, settings: settings, marking: "Allegro"))
        let timeline = SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: Rational(4800))
        let first = ScreenRenderer.render(ScreenModel(page: .playing, settings: settings, marking: "Allegro", grid: BeatGrid(.steady(timeline))),
                                          heardSample: 4800)
        let length = Pendulum.drawnLength(beatSeconds: 0.5, geometry: .mainScreen)
        let bob = Pendulum.bobCenter(swing: -1, length: length, geometry: .mainScreen)
        #expect(bob.x < Pendulum.Geometry.mainScreen.pivot.x - 20)
        #expect(stopped[bob.x, bob.y] && first[bob.x, bob.y])
        // The pendulum half is the same picture (below the stopped page's mode icon): no jump
        // when the first click sounds, only the accent's ring starting at the pivot.
        for y in 8..<64 { for x in 69..<128 { #expect(stopped[x, y] == first[x, y] || PulseRingPixel.isRing(x, y)) } }
    }

    @Test func noticesAreDrawnAndNeverHideTheBeat() {
        let settings = makeSettings(bpm: "120")
        let timeline = SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: .zero)
        let problem = Notice("Settings not saved: disk full", kind: .problem, at: .zero)
        let news = Notice("Saved as Preset 1", kind: .info, at: .zero)
        for (name, notice) in [("notice-problem-playing", problem), ("notice-info-playing", news)] {
            let with = ScreenModel(page: .playing, settings: settings, marking: "Allegro", grid: BeatGrid(.steady(timeline)), notice: notice)
            let without = ScreenModel(page: .playing, settings: settings, marking: "Allegro", grid: BeatGrid(.steady(timeline)))
            for heard in [0.0, 6000, 18000, 30000] {
                let a = ScreenRenderer.render(with, heardSample: heard), b = ScreenRenderer.render(without, heardSample: heard)
                // The pendulum's half is untouched by the notice.
                for y in 0..<64 { for x in ScreenRenderer.pendulumArea.x..<128 { #expect(a[x, y] == b[x, y]) } }
            }
            Snapshot.assertMatches(ScreenRenderer.render(with, heardSample: 6000), named: name)
        }
        let stopped = ScreenModel(page: .stopped, settings: settings, marking: "Allegro",
                                  notice: Notice("Bad settings file kept aside (corrupt-1), using defaults", kind: .problem, at: .zero))
        Snapshot.assertMatches(ScreenRenderer.render(stopped), named: "notice-corrupt-settings")
        let menu = ScreenModel(page: .menu(ScreenChoice(title: "Presets", entries: ["Save current", "Preset 1", "Back"], position: 0)),
                               settings: settings, notice: news)
        Snapshot.assertMatches(ScreenRenderer.render(menu), named: "notice-preset-saved-menu")
    }

    /// While playing a long notice keeps to the left half and loses no word: it grows up the
    /// column, breaks a long file name across lines, and pages through what does not fit.
    @Test func aLongNoticeWhilePlayingLosesNoWord() {
        let settings = makeSettings(bpm: "120")
        let grid = BeatGrid(.steady(SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: .zero)))
        let text = "Bad settings file kept aside (settings.toml.corrupt-20261125-183000), using defaults: line 3 is not TOML"
        let width = ScreenRenderer.pendulumArea.x - 2 - 4
        let lines = ScreenRenderer.wrap(text, width: width)
        #expect(lines.allSatisfy { SmallFont.width(of: $0) <= width })
        // Every character is on some line, in order: nothing cut, no "..".
        #expect(lines.joined().filter { $0 != " " } == text.filter { $0 != " " })
        #expect(lines.count > 7)
        let notice = Notice(text, kind: .problem, at: .zero)
        var pages: [Bitmap] = []
        for page in 0..<3 {
            var model = ScreenModel(page: .playing, settings: settings, grid: grid, notice: notice)
            model.noticePage = page
            let frame = ScreenRenderer.render(model, heardSample: 6000)
            let without = ScreenRenderer.render(ScreenModel(page: .playing, settings: settings, grid: grid), heardSample: 6000)
            for y in 0..<64 { for x in ScreenRenderer.pendulumArea.x..<128 { #expect(frame[x, y] == without[x, y]) } }
            pages.append(frame)
        }
        #expect(pages[0] != pages[1])
        #expect(pages[2] == pages[0]) // two pages, then round again
        Snapshot.assertMatches(pages[0], named: "notice-long-playing-page1")
        Snapshot.assertMatches(pages[1], named: "notice-long-playing-page2")
        // The box pages on its own: the reducer's deadline brings the next page up.
        #expect(notice.page(at: MonotonicTime(nanoseconds: 1_999_999_999)) == 0)
        #expect(notice.page(at: MonotonicTime(nanoseconds: 2_000_000_000)) == 1)
    }

    @Test func everyPageKeepsTheBeatVisibleWhilePlaying() {
        let settings = makeSettings(bpm: "120", subdivisions: "2")
        let timeline = SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: .zero)
        let pages: [(WheelMode, Field, ScreenModel.Page)] = [
            (.accents, .accentEvery, .playing), (.meter, .numerator, .playing), (.subdivisions, .subdivisions, .playing),
            (.sound, .sound, .playing), (.volumes, .volume(.master), .playing),
            (.tempo, .tempo, .menu(ScreenChoice(title: "Menu", entries: ["Tempo markings", "Presets", "Settings", "Back"], position: 0))),
        ]
        for (mode, field, page) in pages {
            let model = ScreenModel(page: page, settings: settings, marking: "Allegro", wheelMode: mode, field: field,
                                    soundSets: ScreenChoice(title: "", entries: ["woodblock", "beep"], position: 0), grid: BeatGrid(.steady(timeline)))
            // A quarter and three quarters into the beat: the strip's bob has moved.
            let early = ScreenRenderer.render(model, heardSample: 6000), late = ScreenRenderer.render(model, heardSample: 18000)
            #expect(early != late, "\(mode) \(field)")
            let strip = ScreenRenderer.beatStrip
            for y in 0..<64 { for x in 0..<128 where !strip.contains(x, y) && y > 4 { #expect(early[x, y] == late[x, y]) } }
        }
        let model = ScreenModel(page: .playing, settings: settings, marking: "Allegro", wheelMode: .volumes, field: .volume(.layer(2)),
                                grid: BeatGrid(.steady(timeline)))
        Snapshot.assertMatches(ScreenRenderer.render(model, heardSample: 6000), named: "playing-mode-volume-layer2")
        let menu = ScreenModel(page: .menu(ScreenChoice(title: "Tempo markings", entries: Self.markings, position: 2)),
                               settings: settings, grid: BeatGrid(.steady(timeline)))
        let frame = ScreenRenderer.render(menu, heardSample: 6000)
        Snapshot.assertMatches(frame, named: "playing-menu-markings")
        // The title stays whole beside the strip.
        let alone = ScreenRenderer.render(ScreenModel(page: menu.page, settings: settings))
        for y in 0..<10 { for x in 40..<128 { #expect(frame[x, y] == alone[x, y]) } }
    }

    @Test func menuValuesAreNeverCutAndEditingShows() {
        let entries = ["Momentum", "Tap tolerance", "Screen dim", "Footswitch", "Silent practice", "Back"]
        let values: [String?] = ["on", "20%", "60 s", "start", "off", nil]
        for (name, position, editing) in [("menu-settings-silent", 4.0, false), ("menu-settings-silent-editing", 4.0, true),
                                          ("menu-settings-turning", 1.5, false)] {
            let choice = ScreenChoice(title: "Settings", entries: entries, values: values, position: position, editing: editing)
            Snapshot.assertMatches(ScreenRenderer.render(ScreenModel(page: .menu(choice))), named: name)
        }
        // No entry is drawn in the title's band.
        let choice = ScreenChoice(title: "Settings", entries: entries, values: values, position: 4)
        let frame = ScreenRenderer.render(ScreenModel(page: .menu(choice)))
        let titleLeft = 123 - SmallFont.width(of: "Settings") - 4
        for y in 0..<10 { for x in 0..<titleLeft { #expect(!frame[x, y], "pixel \(x),\(y) in the title band") } }
    }
}

/// Pixels the accent's pulse ring may light around the pivot on the downbeat.
enum PulseRingPixel {
    static func isRing(_ x: Int, _ y: Int) -> Bool {
        let pivot = Pendulum.Geometry.mainScreen.pivot
        let dx = x - pivot.x, dy = y - pivot.y
        return dx * dx + dy * dy <= 8 * 8
    }
}
