// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusArithmetic
import TactusTimeline
import TactusInstrument
import TactusScreen
import ClickEngine
import HAL
import SimHAL
import TactusBase

@Suite struct IndicatorTests {
    let clock = AudioOutputClock(sampleRate: 48000, engineSample: 48000, outputDelayFrames: 480, nanoseconds: 2_000_000_000)

    @Test func pulsesStartWhenTheOnsetIsHeardWithLengthsByKind() {
        var settings = IndicatorSettings()
        settings.buzzerPulses = true
        let scheduler = IndicatorScheduler(settings: settings)
        // Sample 48000 is heard 480 frames (10 ms) after the measurement.
        let accent = scheduler.pulses(onsetSample: 48000, kind: .accent, layer: 0, clock: clock, samplesPerBeat: nil)
        #expect(accent == [
            IndicatorPulse(channel: .accentLED, startNanoseconds: 2_010_000_000, lengthNanoseconds: 90_000_000),
            IndicatorPulse(channel: .buzzer, startNanoseconds: 2_010_000_000, lengthNanoseconds: 12_000_000),
        ])
        let beat = scheduler.pulses(onsetSample: 48000 + 24000, kind: .beat, layer: 0, clock: clock, samplesPerBeat: nil)
        #expect(beat.map(\.lengthNanoseconds) == [60_000_000, 6_000_000])
        #expect(beat.map(\.startNanoseconds) == [2_510_000_000, 2_510_000_000])
        let sub = scheduler.pulses(onsetSample: 48000 + 12000, kind: .subdivision, layer: 2, clock: clock, samplesPerBeat: nil)
        #expect(sub.map(\.channel) == [.subdivisionLED, .buzzer])
        #expect(sub.map(\.lengthNanoseconds) == [30_000_000, 3_000_000])
    }

    @Test func buzzerOnlyInSilentPractice() {
        var settings = IndicatorSettings()
        #expect(IndicatorScheduler(settings: settings).pulses(onsetSample: 0, kind: .accent, layer: 0, clock: clock, samplesPerBeat: nil)
            .map(\.channel) == [.accentLED])
        settings.buzzerPulses = true
        settings.buzzerSubdivisions = false
        let scheduler = IndicatorScheduler(settings: settings)
        #expect(scheduler.pulses(onsetSample: 0, kind: .beat, layer: 0, clock: clock, samplesPerBeat: nil).map(\.channel) == [.beatLED, .buzzer])
        #expect(scheduler.pulses(onsetSample: 0, kind: .subdivision, layer: 3, clock: clock, samplesPerBeat: nil).map(\.channel) == [.subdivisionLED])
    }

    @Test func fastTempiCapPulsesAtHalfTheSpacing() {
        var settings = IndicatorSettings()
        settings.buzzerPulses = true
        let scheduler = IndicatorScheduler(settings: settings)
        let samplesPerBeat = Rational(48000 * 60) / Rational(999)  // 60.06 ms
        let accent = scheduler.pulses(onsetSample: 0, kind: .accent, layer: 0, clock: clock, samplesPerBeat: samplesPerBeat)
        #expect(accent.map(\.lengthNanoseconds) == [30_030_030, 12_000_000])
        let sub = scheduler.pulses(onsetSample: 0, kind: .subdivision, layer: 9, clock: clock, samplesPerBeat: samplesPerBeat)
        #expect(sub.map(\.lengthNanoseconds) == [3_336_670, 3_000_000])
        // 120 BPM: nothing to cap.
        let slow = scheduler.pulses(onsetSample: 0, kind: .accent, layer: 0, clock: clock, samplesPerBeat: Rational(24000))
        #expect(slow.map(\.lengthNanoseconds) == [90_000_000, 12_000_000])
    }

    @Test func wheelFeedbackIsImmediate() {
        let scheduler = IndicatorScheduler()
        #expect(scheduler.wheelPulse(.tick, edgeNanoseconds: 1_000, nowNanoseconds: 900)
            == IndicatorPulse(channel: .buzzer, startNanoseconds: 1_000, lengthNanoseconds: 1_000_000))
        #expect(scheduler.wheelPulse(.bump, edgeNanoseconds: 1_000, nowNanoseconds: 1_500)
            == IndicatorPulse(channel: .buzzer, startNanoseconds: 1_500, lengthNanoseconds: 15_000_000))
    }

    /// The whole path with a manual clock: an engine rendering period by period into a
    /// simulated output that plays frame p at tStart + p / rate, delay measured at jittery
    /// wake-ups; every LED and buzzer rising edge must be within 1 ms of the moment its
    /// onset is heard.
    @Test func risingEdgesLandWithinOneMillisecondOfTheOnsetsOutputTime() throws {
        let rate = 48000, period = 128, periods = 3
        let monotonic = ManualClock(start: MonotonicTime(nanoseconds: 1_000_000_000))
        let tStart = monotonic.now().nanoseconds
        let indicators = SimulatedIndicators()
        var settings = IndicatorSettings()
        settings.buzzerPulses = true
        let scheduler = IndicatorScheduler(settings: settings)
        let music = makeSettings(bpm: "137", meter: "3/4", accents: "X", subdivisions: "2")
        let engine = try ClickEngine(sampleRate: rate, channels: 1, settings: music)
        engine.start()
        let samplesPerBeat = Rational(Int64(rate) * 60) / music.tempo.bpm

        var buffer = [Float](repeating: 0, count: period)
        var written: Int64 = 0
        var onsets: [OnsetEvent] = []
        var jitter: UInt64 = 12345
        func played(at t: Int64) -> Int64 { max(0, (t - tStart) * Int64(rate) / 1_000_000_000) }
        func writePeriod() {
            buffer.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: period) }
            written += Int64(period)
            let now = monotonic.now().nanoseconds
            let audio = AudioOutputClock(sampleRate: rate, engineSample: written,
                                         outputDelayFrames: written - played(at: now), nanoseconds: now)
            while let event = engine.nextEvent() {
                onsets.append(event)
                for pulse in scheduler.pulses(onsetSample: event.sample, kind: event.kind, layer: Int(event.layer),
                                              clock: audio, samplesPerBeat: samplesPerBeat) {
                    indicators.pulse(IndicatorChannel(rawValue: pulse.channel.rawValue)!,
                                     at: MonotonicTime(nanoseconds: pulse.startNanoseconds),
                                     lastingNanoseconds: pulse.lengthNanoseconds)
                }
            }
        }
        for _ in 0..<periods { writePeriod() }  // prefill before the output starts
        while written < Int64(rate) * 3 {
            // Wake up when a period has been played, late by up to 2 ms (scheduling jitter).
            jitter = jitter &* 6364136223846793005 &+ 1442695040888963407
            let wake = tStart + (written - Int64(periods * period) + Int64(period)) * 1_000_000_000 / Int64(rate)
                + Int64(jitter >> 33) % 2_000_000
            monotonic.set(MonotonicTime(nanoseconds: max(wake, monotonic.now().nanoseconds)))
            writePeriod()
        }

        #expect(onsets.count == 3 * 137 * 2 / 60 + 1)  // 13.7 beats in 3 s, two onsets per beat
        for onset in onsets {
            let heard = tStart + (onset.sample * 1_000_000_000 + Int64(rate) / 2) / Int64(rate)
            let led: IndicatorChannel = onset.kind == .accent ? .accentLED : (onset.kind == .beat ? .beatLED : .subdivisionLED)
            for indicator in [led, .buzzer] {
                let edge = risingEdge(indicators, indicator, around: heard)
                #expect(edge != nil, "\(indicator) never rose near \(heard)")
                if let edge { #expect(abs(edge - heard) <= 1_000_000, "\(indicator) rose at \(edge), onset heard at \(heard)") }
            }
        }
    }

    /// The first instant (10 µs resolution) within 5 ms of `time` at which `indicator` turns on.
    private func risingEdge(_ indicators: SimulatedIndicators, _ indicator: IndicatorChannel, around time: Int64) -> Int64? {
        var t = time - 5_000_000
        var wasOn = indicators.isOn(indicator, at: MonotonicTime(nanoseconds: t))
        while t < time + 5_000_000 {
            t += 10_000
            let on = indicators.isOn(indicator, at: MonotonicTime(nanoseconds: t))
            if on && !wasOn { return t }
            wasOn = on
        }
        return nil
    }
}

@Suite struct FrameSchedulerTests {
    @Test func firstFrameAtOnceThenAtMostSixtyPerSecond() {
        var scheduler = FrameScheduler(maximumFramesPerSecond: 60, expectedFrameDurationNanoseconds: 5_000_000)
        #expect(scheduler.minimumIntervalNanoseconds == 16_666_667)
        #expect(scheduler.nextFrameStart(now: 100, animating: true, contentChanged: false) == 100)
        scheduler.frameFinished(startedAt: 0, finishedAt: 4_000_000)
        #expect(scheduler.frameDurationNanoseconds == 4_875_000)  // falls slowly: 5 ms - 1 ms / 8
        #expect(scheduler.nextFrameStart(now: 1_000_000, animating: true, contentChanged: false) == 16_666_667)
        // Late: draw now, no burst to catch up.
        #expect(scheduler.nextFrameStart(now: 50_000_000, animating: true, contentChanged: false) == 50_000_000)
    }

    @Test func stoppedDrawsOnlyOnChange() {
        var scheduler = FrameScheduler()
        scheduler.frameFinished(startedAt: 0, finishedAt: 5_000_000)
        #expect(scheduler.nextFrameStart(now: 1_000_000_000, animating: false, contentChanged: false) == nil)
        #expect(scheduler.nextFrameStart(now: 1_000_000_000, animating: false, contentChanged: true) == 1_000_000_000)
        #expect(scheduler.nextFrameStart(now: 2_000_000, animating: false, contentChanged: true) == 16_666_667)
    }

    @Test func aSlowBusLowersTheRateAtOnce() {
        var scheduler = FrameScheduler()
        scheduler.frameFinished(startedAt: 0, finishedAt: 40_000_000)
        #expect(scheduler.frameDurationNanoseconds == 40_000_000)
        #expect(scheduler.nextFrameStart(now: 1, animating: true, contentChanged: false) == 40_000_000)
    }

    @Test func theFrameNearestABeatIsOnThePanelAtTheBeat() {
        var scheduler = FrameScheduler(expectedFrameDurationNanoseconds: 5_000_000)
        scheduler.frameFinished(startedAt: 0, finishedAt: 5_000_000)
        // Beat heard at 25 ms: the frame starts 5 ms before so it is visible at 25 ms.
        #expect(scheduler.nextFrameStart(now: 1, animating: true, contentChanged: false, nextBeatNanoseconds: 25_000_000) == 20_000_000)
        #expect(scheduler.presentationTime(ofFrameStartingAt: 20_000_000) == 25_000_000)
        // A beat further than one interval away does not delay this frame.
        #expect(scheduler.nextFrameStart(now: 1, animating: true, contentChanged: false, nextBeatNanoseconds: 50_000_000) == 16_666_667)
    }

    @Test func oneSecondOfPlayingIsAtMostSixtyFrames() {
        var scheduler = FrameScheduler()
        var now: Int64 = 0
        var frames = 0
        while let start = scheduler.nextFrameStart(now: now, animating: true, contentChanged: false,
                                                   nextBeatNanoseconds: ((now / 500_000_000) + 1) * 500_000_000),
              start < 1_000_000_000 {
            frames += 1
            scheduler.frameFinished(startedAt: start, finishedAt: start + 3_000_000)
            now = start + 3_000_000
        }
        #expect(frames >= 58 && frames <= 60)
    }
}
