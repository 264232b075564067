// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusScreen
import ClickEngine
import TactusBase

func makeSettings(bpm: String = "120", meter: String = "4/4", beatUnit: String = "1/4", accents: String = "X",
                  subdivisions: String = "none") -> MetronomeSettings {
    MetronomeSettings(tempo: try! Tempo(parsing: bpm), meter: try! Meter(parsing: meter),
                      beatUnit: try! BeatUnit(parsing: beatUnit), accents: try! AccentPattern(parsing: accents),
                      subdivisions: try! Subdivisions(parsing: subdivisions))
}

@Suite struct PendulumTests {
    let geometry = Pendulum.Geometry.mainScreen

    @Test func lengthFollowsTheRealPendulum() {
        // 60 BPM: a two-second period, the "seconds pendulum", g / pi^2 = 0.99362 m.
        #expect(abs(Pendulum.lengthMeters(periodSeconds: 2) - 9.806_65 / (ScreenMath.pi * ScreenMath.pi)) < 1e-12)
        #expect(abs(Pendulum.lengthMeters(periodSeconds: 2) - 0.993_621) < 1e-6)
        #expect(Pendulum.periodSeconds(beatSeconds: 0.5) == 1)
        // Quartering: half the period, a quarter of the length.
        #expect(abs(Pendulum.lengthMeters(periodSeconds: 1) * 4 - Pendulum.lengthMeters(periodSeconds: 2)) < 1e-12)
    }

    @Test(arguments: [
        (bpm: 1.0, pixels: 58),
        (bpm: 20.0, pixels: 52),
        (bpm: 80.0, pixels: 36),
        (bpm: 100.0, pixels: 33),
        (bpm: 120.0, pixels: 30),   // the real length: 0.24841 m x 120 px/m = 29.8
        (bpm: 180.0, pixels: 24),
        (bpm: 240.0, pixels: 21),
        (bpm: 999.0, pixels: 12),
    ])
    func drawnLengthFollowsTempoWithoutClamping(bpm: Double, pixels: Int) {
        #expect(Pendulum.drawnLength(beatSeconds: 60 / bpm, geometry: geometry) == pixels)
    }

    @Test func swingIsAtAnEndOnEveryBeatAndFollowsTheCosine() {
        #expect(Pendulum.swing(beatIndex: 0, fraction: 0) == -1)
        #expect(Pendulum.swing(beatIndex: 1, fraction: 0) == 1)
        #expect(Pendulum.swing(beatIndex: 7, fraction: 0) == 1)
        #expect(Pendulum.swing(beatIndex: -1, fraction: 0) == 1)
        let half = 0.5.squareRoot()
        #expect(abs(Pendulum.swing(beatIndex: 0, fraction: 0.25) + half) < 1e-12)
        #expect(abs(Pendulum.swing(beatIndex: 0, fraction: 0.5)) < 1e-12)
        #expect(abs(Pendulum.swing(beatIndex: 0, fraction: 0.75) - half) < 1e-12)
        #expect(abs(Pendulum.swing(beatIndex: 3, fraction: 0.75) + half) < 1e-12)
        // Sine motion, not a linear sweep: a tenth of the way in time is 2.4 % of the way across.
        #expect(abs((Pendulum.swing(beatIndex: 0, fraction: 0.1) + 1) / 2 - 0.024_471) < 1e-6)
    }

    @Test func bobStaysOnTheRodsCircle() {
        let left = Pendulum.bobCenter(swing: -1, length: 30, geometry: geometry)
        let right = Pendulum.bobCenter(swing: 1, length: 30, geometry: geometry)
        let rest = Pendulum.bobCenter(swing: 0, length: 30, geometry: geometry)
        #expect(left == Point(97 - 24, 3 + 18))    // reach 0.8 x 30 = 24, sqrt(900 - 576) = 18
        #expect(right == Point(97 + 24, 3 + 18))
        #expect(rest == Point(97, 33))
        #expect(Pendulum.reach(length: 56, geometry: geometry) == 26)
        #expect(Pendulum.reach(length: 16, geometry: geometry) == 13)
    }

    @Test(arguments: ["120", "137", "240", "92.5", "999", "1"])
    func bobReachesAnEndExactlyAtEachBeatSample(bpm: String) {
        let settings = makeSettings(bpm: bpm, meter: "7/8", beatUnit: "1/8", accents: "X..x..x")
        let timeline = SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: Rational(1234))
        let beats = settings.tempo.bpm.doubleValue < 10 ? 5 : 60
        for index in 0..<beats {
            let bar = Int64(index / 7), beat = index % 7
            let sample = timeline.sample(bar: bar, beat: beat)
            let position = timeline.beat(atSample: Double(sample))
            #expect(position.bar == bar && position.beat == beat && position.fraction == 0)
            #expect(Pendulum.swing(beatIndex: position.beatIndex, fraction: position.fraction) == (index % 2 == 0 ? -1 : 1))
            // One sample earlier it is still on its way (not at the end yet).
            let before = timeline.beat(atSample: Double(sample) - 0.5)
            #expect(abs(Pendulum.swing(beatIndex: before.beatIndex, fraction: before.fraction)) < 1)
        }
    }

    @Test func beatSamplesAreTheEnginesRounding() {
        // 137 BPM at 48 kHz: beat k at round(k x 48000 x 60 / 137) (SPEC section 4).
        let timeline = SteadyGrid(settings: makeSettings(bpm: "137"), sampleRate: 48000, downbeatSample: .zero)
        for k in 0..<40 {
            let exact = Rational(Int64(k) * 48000 * 60, 137)
            #expect(timeline.sample(bar: Int64(k / 4), beat: k % 4) == exact.rounded)
        }
        #expect(timeline.sample(bar: 0, beat: 1) == 21022)  // 21021.8978...
        // A bar of 4/5 in quarters is 3.2 beats: the fourth beat is cut short by the downbeat.
        let irrational = SteadyGrid(settings: makeSettings(bpm: "120", meter: "4/5"), sampleRate: 48000, downbeatSample: .zero)
        #expect(irrational.beatCount == 4)
        #expect(irrational.sample(bar: 1, beat: 0) == 76800)
        let last = irrational.beat(atSample: 75000)
        #expect(last.beat == 3 && last.beatSample == 72000 && last.nextBeatSample == 76800)
    }

    @Test func timelineMatchesTheEnginesOnsets() throws {
        let settings = makeSettings(bpm: "137", meter: "5/8", beatUnit: "1/8", accents: "X.x", subdivisions: "3")
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, settings: MetronomeSettings())
        try engine.apply(settings)
        var buffer = [Float](repeating: 0, count: 128)
        // Some silence first, so the start is not at sample 0.
        for _ in 0..<3 { buffer.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: 128) } }
        engine.start()
        var events: [OnsetEvent] = []
        for _ in 0..<(48000 * 12 / 128) {
            buffer.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: 128) }
            while let event = engine.nextEvent() { events.append(event) }
        }
        let downbeat = try #require(events.first)
        #expect(downbeat.sample == 384 && downbeat.kind == .accent)
        let timeline = SteadyGrid(settings: settings, sampleRate: 48000, downbeatSample: Rational(downbeat.sample))
        let beatEvents = events.filter { $0.kind != .subdivision }
        #expect(beatEvents.count > 20)
        for event in beatEvents {
            #expect(timeline.sample(bar: event.bar, beat: Int(event.beat)) == event.sample)
            let position = timeline.beat(atSample: Double(event.sample))
            #expect(position.fraction == 0 && position.bar == event.bar && position.beat == Int(event.beat))
            #expect(position.level == (event.kind == .accent ? .accent : .normal))
        }
    }

    /// One grid for everyone: the timeline built from the anchor the renderer publishes puts
    /// every beat on the sample the engine plays it on, through tempo and meter changes.
    @Test(arguments: [("60", "4/4", Int64(156_000)), ("120", "2/4", Int64(174_000)), ("7", "4/5", Int64(79_201)),
                      ("333.333", "9/16", Int64(100_003))])
    func timelineFromThePublishedAnchorFollowsTheEngine(bpm: String, meter: String, at: Int64) throws {
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128, settings: makeSettings(bpm: "120"))
        var buffer = [Float](repeating: 0, count: 128)
        var events: [OnsetEvent] = []
        var timelines: [SteadyGrid] = []
        func render(until end: Int64) {
            while engine.renderer.sampleClock < end {
                let n = Int(min(128, end - engine.renderer.sampleClock))
                buffer.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: n) }
                while let event = engine.nextEvent() { events.append(event) }
                while let anchor = engine.nextAnchor() {
                    timelines.append(SteadyGrid(settings: engine.settings(ofProgram: anchor.program)!, sampleRate: 48000,
                                                  sampleTwice: anchor.sampleTwice, bar: anchor.bar,
                                                  positionNumerator: anchor.positionNumerator,
                                                  positionDenominator: anchor.positionDenominator))
                }
            }
        }
        engine.start()
        render(until: at)
        try engine.apply(makeSettings(bpm: bpm, meter: meter))
        render(until: at + 1_400_000)
        #expect(timelines.count == 2)
        let after = try #require(timelines.last)
        #expect(after.anchorTwice == 2 * at)
        let beats = events.filter { $0.sample >= at }
        #expect(beats.count > 2)
        for event in beats {
            #expect(after.sample(bar: event.bar, beat: Int(event.beat)) == event.sample, "\(event)")
            let position = after.beat(atSample: Double(event.sample))
            #expect(position.bar == event.bar && position.beat == Int(event.beat) && position.fraction == 0)
        }
        for event in events where event.sample < at {
            #expect(timelines[0].sample(bar: event.bar, beat: Int(event.beat)) == event.sample)
        }
    }

    @Test func tempoChangeKeepsThePhaseInTheBar() throws {
        // Halfway through beat 2 of bar 1 (beat index 6.5 = 156000 samples) at 120, then 60 BPM.
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128, settings: makeSettings(bpm: "120"))
        var buffer = [Float](repeating: 0, count: 128)
        engine.start()
        for _ in 0..<(156_000 / 120) { buffer.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: 120) } }
        try engine.apply(makeSettings(bpm: "60"))
        buffer.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: 0) }
        var last: GridAnchor?
        while let anchor = engine.nextAnchor() { last = anchor }
        let anchor = try #require(last)
        let changed = SteadyGrid(settings: makeSettings(bpm: "60"), sampleRate: 48000, sampleTwice: anchor.sampleTwice,
                                   bar: anchor.bar, positionNumerator: anchor.positionNumerator,
                                   positionDenominator: anchor.positionDenominator)
        let position = changed.beat(atSample: 156_000)
        #expect(position.bar == 1 && position.beat == 2 && position.fraction == 0.5)
        #expect(changed.samplesPerBeat == Rational(48000))
        #expect(position.nextBeatSample == 156_000 + 24_000)
    }

    @Test func pulseRingGrowsAndFadesWithinHalfABeat() {
        #expect(PulseRing.radius(secondsSinceBeat: 0, beatSeconds: 0.5, level: .accent) == 4)
        #expect(PulseRing.radius(secondsSinceBeat: 0.125, beatSeconds: 0.5, level: .accent) == 24)
        #expect(PulseRing.radius(secondsSinceBeat: 0.125, beatSeconds: 0.5, level: .normal) == 17)
        #expect(PulseRing.radius(secondsSinceBeat: 0.25, beatSeconds: 0.5, level: .accent) == nil)
        #expect(PulseRing.radius(secondsSinceBeat: 0.0, beatSeconds: 0.5, level: .muted) == nil)
        // 240 BPM: a quarter-second beat, the ring lasts an eighth of a second.
        #expect(PulseRing.radius(secondsSinceBeat: 0.124, beatSeconds: 0.25, level: .normal) == 30)
        #expect(PulseRing.radius(secondsSinceBeat: 0.125, beatSeconds: 0.25, level: .normal) == nil)
        #expect(PulseRing.thickness(for: .accent) > PulseRing.thickness(for: .normal))
    }

    @Test func audioClockPlacesSamplesOnTheMonotonicClock() {
        let clock = AudioOutputClock(sampleRate: 48000, engineSample: 10_000, outputDelayFrames: 384, nanoseconds: 5_000_000_000)
        #expect(clock.heardSample == 9616)
        #expect(clock.outputNanoseconds(ofSample: 9616) == 5_000_000_000)
        #expect(clock.outputNanoseconds(ofSample: 9616 + 48) == 5_001_000_000)
        #expect(clock.outputNanoseconds(ofSample: 9617) == 5_000_020_834)  // 20833.33 ns: the first ns at or after it
        #expect(clock.outputNanoseconds(ofSample: 9616 - 1) == 4_999_979_167)
        #expect(clock.heardSample(atNanoseconds: 5_010_000_000) == 9616 + 480)
    }
}
