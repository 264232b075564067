// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import HAL
import SimHAL
import Synchronization
import TactusBase
import TactusInstrument

@Suite struct PulseTimelineTests {
    func t(_ ms: Int64) -> MonotonicTime { MonotonicTime(nanoseconds: ms * 1_000_000) }

    @Test func pulsesTurnOnAndOffAtTheirInstants() {
        var timeline = PulseTimeline()
        timeline.add(.buzzer, start: t(10), lastingNanoseconds: 5_000_000)
        #expect(!timeline.isOn(.buzzer, at: t(9)))
        #expect(timeline.isOn(.buzzer, at: t(10)))
        #expect(timeline.isOn(.buzzer, at: t(14)))
        #expect(!timeline.isOn(.buzzer, at: t(15)))
        #expect(timeline.nextChange(after: t(0)) == t(10))
        #expect(timeline.nextChange(after: t(10)) == t(15))
        #expect(timeline.nextChange(after: t(15)) == nil)
    }

    @Test func overlappingPulsesMerge() {
        var timeline = PulseTimeline()
        timeline.add(.beatLED, start: t(0), lastingNanoseconds: 10_000_000)
        timeline.add(.beatLED, start: t(5), lastingNanoseconds: 10_000_000)
        timeline.add(.beatLED, start: t(30), lastingNanoseconds: 1_000_000)
        #expect(timeline.intervals[.beatLED] == [.init(start: t(0), end: t(15)), .init(start: t(30), end: t(31))])
        timeline.removeFinished(before: t(20))
        #expect(timeline.intervals[.beatLED] == [.init(start: t(30), end: t(31))])
    }

    @Test func heldIndicatorStaysOn() {
        var timeline = PulseTimeline()
        timeline.hold(.accentLED, on: true)
        #expect(timeline.isOn(.accentLED, at: t(1000)))
        #expect(!timeline.isOn(.subdivisionLED, at: t(1000)))
    }

    @Test func simulatedIndicatorsRecordPulses() {
        let indicators = SimulatedIndicators()
        indicators.pulse(.buzzer, at: t(100), lastingNanoseconds: IndicatorSettings().buzzerAccentNanoseconds)
        #expect(indicators.isOn(.buzzer, at: t(111)))
        #expect(!indicators.isOn(.buzzer, at: t(112)))
        #expect(indicators.pulses.count == 1)
    }
}

@Suite struct AudioPositionTests {
    @Test func frameInstantAccountsForTheOutputDelay() {
        // 48 kHz, 9600 frames handed over, 480 still queued at t = 1 s: frame 9120 is heard now,
        // frame 9600 in 10 ms, and frame 14400 (0.1 s after 9600) in 110 ms.
        let position = AudioOutputPosition(framesRendered: 9600, delayFrames: 480, timestamp: MonotonicTime(nanoseconds: 1_000_000_000))
        #expect(position.instant(ofFrame: 9120, sampleRate: 48000) == MonotonicTime(nanoseconds: 1_000_000_000))
        #expect(position.instant(ofFrame: 9600, sampleRate: 48000) == MonotonicTime(nanoseconds: 1_010_000_000))
        #expect(position.instant(ofFrame: 14400, sampleRate: 48000) == MonotonicTime(nanoseconds: 1_110_000_000))
    }

    @Test func offlineSinkRendersInPeriodsAndReportsPosition() throws {
        final class Counter: AudioRenderer {
            let calls = Mutex(0)
            func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) {
                let n = calls.withLock { $0 += 1; return $0 }
                for i in 0..<(frameCount * 2) { buffer[i] = Float(n) }
            }
        }
        let sink = OfflineAudioSink(simulatedDelayFrames: 256)
        let format = try sink.negotiate()
        try sink.start(Counter())
        let samples = sink.pull(frameCount: 300)
        #expect(samples.count == 600)
        #expect(samples[0] == 1 && samples[2 * 128] == 2 && samples[2 * 256] == 3 && samples[599] == 3)
        #expect(sink.outputPosition.framesRendered == 300)
        #expect(sink.outputDelayFrames == 256)
        #expect(format.periodFrames == 128)
    }
}
