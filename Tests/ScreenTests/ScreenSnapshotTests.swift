import Testing
import TactusCore

/// The screens as golden images. A frame is a function of the model and the heard sample,
/// so each case names both.
@Suite struct ScreenSnapshotTests {
    static let markings = ["Adagio", "Allegretto", "Allegro", "Andante", "Grave", "Largo", "Lento", "Moderato", "Presto", "Vivace"]

    /// The playing screen `beats` beats (fractional) after bar 0's downbeat.
    static func playing(_ settings: MetronomeSettings, marking: String, beats: Double) -> (ScreenModel, Double) {
        let timeline = BeatTimeline(settings: settings, sampleRate: 48000, downbeatSample: Rational(1000))
        let whole = Int64(beats.rounded(.down))
        let bar = whole / Int64(timeline.beatCount), beat = Int(whole % Int64(timeline.beatCount))
        let start = timeline.sample(bar: bar, beat: beat)
        let next = timeline.position(atSample: Double(start)).nextBeatSample
        let heard = Double(start) + (beats - Double(whole)) * Double(next - start)
        return (ScreenModel(page: .playing, settings: settings, marking: marking, timeline: timeline), heard)
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
        let marking = ["60": "Larghetto", "100": "Andante", "120": "Allegro", "240": "Prestissimo", "999": "Prestissimo"][c.bpm]!
        let (model, heard) = Self.playing(makeSettings(bpm: c.bpm), marking: marking, beats: c.beats)
        Snapshot.assertMatches(ScreenRenderer.render(model, heardSample: heard), named: c.name)
    }

    @Test func playingOddMeterFractionalTempoAndLayers() {
        let (model, heard) = Self.playing(makeSettings(bpm: "92.5", meter: "7/8", beatUnit: "1/8", accents: "X.x.Xxx", subdivisions: "2,3"),
                                          marking: "Moderato", beats: 4.05)
        Snapshot.assertMatches(ScreenRenderer.render(model, heardSample: heard), named: "playing-92.5-7-8-layers")
    }

    @Test func playingManyBeatsShowsNumbers() {
        let (model, heard) = Self.playing(makeSettings(bpm: "150", meter: "17/16", beatUnit: "1/16"), marking: "Allegro", beats: 12.6)
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
        let cases: [(String, ScreenWheelMode, Int, MetronomeSettings)] = [
            ("mode-accents", .accents, 2, settings),
            ("mode-meter-numerator", .meter, 0, settings),
            ("mode-meter-denominator", .meter, 1, settings),
            ("mode-beat-unit-eighth", .beatUnit, 0, settings),
            ("mode-subdivisions", .subdivisions, 3, withVolumes),
            ("mode-sound", .sound, 0, settings),
            ("mode-volume", .volume, 2, withVolumes),
        ]
        for (name, mode, focus, settings) in cases {
            let model = ScreenModel(page: .stopped, settings: settings, marking: "Allegro", wheelMode: mode, focus: focus, soundSets: sounds)
            Snapshot.assertMatches(ScreenRenderer.render(model), named: name)
        }
    }

    @Test func beatUnitsAsNotes() {
        for (name, unit) in [("mode-beat-unit-dotted-quarter", "1/4."), ("mode-beat-unit-triplet-eighth", "1/12"),
                             ("mode-beat-unit-whole", "1/1"), ("mode-beat-unit-sixteenth", "1/16")] {
            let model = ScreenModel(page: .stopped, settings: makeSettings(beatUnit: unit), wheelMode: .beatUnit)
            Snapshot.assertMatches(ScreenRenderer.render(model), named: name)
        }
    }

    @Test func accentsBeyondOnePage() {
        let model = ScreenModel(page: .stopped, settings: makeSettings(meter: "21/8", beatUnit: "1/8", accents: "X..x..x..X..x..x..X.."),
                                wheelMode: .accents, focus: 18)
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
        #expect(ScreenModel(page: .dimmed).contrast < ScreenModel(page: .stopped).contrast)
    }

    @Test func pendulumFramesAreDrawnWhereTheMathSaysAtEveryBeat() {
        // On each beat sample the bob's centre pixel is at the computed end, left on even beats.
        let settings = makeSettings(bpm: "137")
        let timeline = BeatTimeline(settings: settings, sampleRate: 48000, downbeatSample: .zero)
        let model = ScreenModel(page: .playing, settings: settings, timeline: timeline)
        let geometry = Pendulum.Geometry.mainScreen
        let length = Pendulum.drawnLength(beatSeconds: timeline.beatSeconds, geometry: geometry)
        #expect(length == 23)  // 137 BPM: a 0.1906 m pendulum x 120 px/m = 22.9
        for k in 0..<8 {
            let frame = ScreenRenderer.render(model, heardSample: Double(timeline.sample(bar: Int64(k / 4), beat: k % 4)))
            let end = Pendulum.bobCenter(swing: k % 2 == 0 ? -1 : 1, length: length, geometry: geometry)
            let other = Pendulum.bobCenter(swing: k % 2 == 0 ? 1 : -1, length: length, geometry: geometry)
            #expect(frame[end.x, end.y] && frame[end.x - 3, end.y] && frame[end.x + 3, end.y])
            #expect(!frame[other.x, other.y])
        }
    }
}
