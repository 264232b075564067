import Testing
import HAL
import SimHAL

@Suite struct PulseTimelineTests {
    func t(_ ms: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: ms * 1_000_000) }

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
        indicators.pulse(.buzzer, at: t(100), lastingNanoseconds: PulseLengths().accentNanoseconds)
        #expect(indicators.isOn(.buzzer, at: t(111)))
        #expect(!indicators.isOn(.buzzer, at: t(112)))
        #expect(indicators.pulses.count == 1)
    }
}
