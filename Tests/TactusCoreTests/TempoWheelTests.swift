import Testing
@testable import TactusCore

@Suite struct TempoWheelTests {
    func tempos(_ events: [TempoWheel.Event]) -> [Int] {
        events.compactMap { if case .tempo(let t) = $0 { t } else { nil } }
    }

    func ticks(_ events: [TempoWheel.Event]) -> Int {
        events.reduce(0) { if case .tick(let n, _) = $1 { $0 + n } else { $0 } }
    }

    @Test func slowTurningMovesExactlyOneBPMPerDetent() {
        var wheel = TempoWheel(bpm: 72)
        var clock = ManualClock()
        var events: [TempoWheel.Event] = []
        for _ in 0..<10 { events += wheel.detent(1, at: clock.advance(ms: 300)) }
        #expect(wheel.shownBPM == 82)
        #expect(wheel.value == 82)
        #expect(tempos(events) == Array(73...82))
        #expect(ticks(events) == 10)
        for _ in 0..<3 { _ = wheel.detent(-1, at: clock.advance(ms: 250)) }
        #expect(wheel.value == 79)
    }

    @Test func fastFlickGoesFrom40PastTwoHundredForty() {
        var wheel = TempoWheel(bpm: 40)
        var clock = ManualClock()
        // Half a turn of a 20-detent wheel in 150 ms.
        for _ in 0..<10 { _ = wheel.detent(1, at: clock.advance(ms: 15)) }
        let duringTurn = wheel.shownBPM
        #expect(duringTurn > 100)
        // Let go: momentum carries it further, then it settles on a whole BPM.
        var events: [TempoWheel.Event] = []
        while let deadline = wheel.nextDeadline { events += wheel.advance(to: deadline) }
        #expect(wheel.shownBPM >= 240)
        #expect(wheel.shownBPM > duringTurn)
        #expect(wheel.value == Double(wheel.shownBPM))
        #expect(!wheel.isGliding)
        // Every whole BPM passed during the glide ticked once.
        #expect(ticks(events) == wheel.shownBPM - duringTurn)
    }

    @Test func accelerationGrowsWithRate() {
        let wheel = TempoWheel()
        #expect(wheel.gain(rate: 2) == 1)
        #expect(wheel.gain(rate: 5) == 1)
        #expect(wheel.gain(rate: 27.5) == 1 + 9 * 0.25)
        #expect(wheel.gain(rate: 50) == 10)
        #expect(wheel.gain(rate: 500) == 10)
    }

    @Test func withoutMomentumTheValueStopsWithTheHand() {
        var tuning = TempoWheel.Tuning()
        tuning.momentum = false
        var wheel = TempoWheel(bpm: 40, tuning: tuning)
        var clock = ManualClock()
        for _ in 0..<10 { _ = wheel.detent(1, at: clock.advance(ms: 15)) }
        let atRelease = wheel.shownBPM
        while let deadline = wheel.nextDeadline { _ = wheel.advance(to: deadline) }
        #expect(wheel.shownBPM == atRelease)
        #expect(wheel.value == Double(atRelease))
    }

    @Test func touchingTheWheelStopsTheGlideAtOnce() {
        var wheel = TempoWheel(bpm: 100)
        var clock = ManualClock()
        for _ in 0..<10 { _ = wheel.detent(1, at: clock.advance(ms: 15)) }
        _ = wheel.advance(to: clock.advance(ms: 100))
        #expect(wheel.isGliding)
        let gliding = wheel.shownBPM
        _ = wheel.detent(-1, at: clock.advance(ms: 1))
        #expect(!wheel.isGliding)
        #expect(abs(wheel.shownBPM - gliding) <= 2)
        #expect(wheel.value == Double(wheel.shownBPM))
        let stopped = wheel.shownBPM
        _ = wheel.advance(to: clock.advance(ms: 2000))
        #expect(wheel.shownBPM == stopped)
    }

    @Test func glideIsIndependentOfHowOftenTimeIsAdvanced() {
        func run(stepMS: Double) -> Int {
            var wheel = TempoWheel(bpm: 60)
            var clock = ManualClock()
            for _ in 0..<8 { _ = wheel.detent(1, at: clock.advance(ms: 20)) }
            for _ in 0..<Int(2000 / stepMS) { _ = wheel.advance(to: clock.advance(ms: stepMS)) }
            return wheel.shownBPM
        }
        #expect(run(stepMS: 1) == run(stepMS: 97))
    }

    @Test func ticksOnHalfStepsNotOnWholeNumbers() {
        var wheel = TempoWheel(bpm: 71)
        // Moderately fast: 1 + 9 * ((10 - 5) / 45)^2 = 1.111 BPM per detent.
        var events = wheel.detent(1, at: ms(1000))  // slow (first) detent: 71 -> 72
        #expect(ticks(events) == 1)
        events = wheel.detent(1, at: ms(1100))     // 72 -> 73.111
        #expect(wheel.value > 73.1 && wheel.value < 73.12)
        #expect(ticks(events) == 1)
        events = wheel.detent(1, at: ms(1200))     // 73.111 -> 74.222: crosses 73.5
        #expect(ticks(events) == 1)
        events = wheel.advance(to: ms(2000))      // settles to 74: crosses no half step
        #expect(wheel.value == 74)
        #expect(ticks(events) == 0)
        #expect(tempos(events) == [])
    }

    @Test func crossingXPointFiveUpwardTicksButReachingAWholeNumberDoesNot() {
        var wheel = TempoWheel(bpm: 72.3)
        var clock = ManualClock()
        _ = wheel.detent(1, at: clock.advance(ms: 500))  // slow: to the next whole, 73, crossing 72.5
        #expect(wheel.value == 73)
        wheel.set(bpm: 72.6)
        #expect(ticks(wheel.detent(1, at: clock.advance(ms: 500))) == 0)  // 72.6 -> 73: no half step crossed
    }

    @Test func bumpAtTheLimits() {
        var wheel = TempoWheel(bpm: 998)
        var clock = ManualClock()
        var events = wheel.detent(1, at: clock.advance(ms: 500))
        #expect(wheel.shownBPM == 999)
        #expect(!events.contains(.limit(at: clock.now)))
        events = wheel.detent(1, at: clock.advance(ms: 500))
        #expect(wheel.shownBPM == 999)
        #expect(events == [.limit(at: clock.now)])
        wheel.set(bpm: 2)
        _ = wheel.detent(-1, at: clock.advance(ms: 500))
        events = wheel.detent(-1, at: clock.advance(ms: 500))
        #expect(wheel.shownBPM == 1)
        #expect(events == [.limit(at: clock.now)])
    }

    @Test func glideIntoTheLimitStopsThereWithABump() {
        var wheel = TempoWheel(bpm: 900)
        var clock = ManualClock()
        var events: [TempoWheel.Event] = []
        for _ in 0..<8 { events += wheel.detent(1, at: clock.advance(ms: 15)) }
        while let deadline = wheel.nextDeadline { events += wheel.advance(to: deadline) }
        #expect(wheel.shownBPM == 999)
        #expect(events.contains { if case .limit = $0 { true } else { false } })
        #expect(!wheel.isGliding)
    }

    @Test func fractionalPresetTempoMovesToTheNextWholeBPM() {
        var wheel = TempoWheel(bpm: 92.5)
        _ = wheel.detent(-1, at: ms(1000))
        #expect(wheel.value == 92)
        wheel.set(bpm: 92.5)
        _ = wheel.detent(1, at: ms(3000))
        #expect(wheel.value == 93)
    }
}

@Suite struct TapTempoTests {
    @Test func averageOfAllIntervalsFromTheSecondTap() {
        var tap = TapTempo()
        #expect(tap.tap(at: ms(1000)) == nil)
        #expect(tap.tap(at: ms(1500)) == 120)
        #expect(tap.tap(at: ms(2010)) == 119)   // 1010 / 2 = 505 ms -> 118.8
        #expect(tap.tap(at: ms(2500)) == 120)   // 1500 / 3 = 500 ms
        #expect(tap.intervals == 3)
    }

    @Test func resetAfterTwoSecondsWithoutATap() {
        var tap = TapTempo()
        _ = tap.tap(at: ms(1000))
        #expect(tap.tap(at: ms(3000)) == 30)    // exactly 2 s still counts: the slowest tempo
        #expect(tap.tap(at: ms(5001)) == nil)   // 2.001 s: a new series
        #expect(tap.tap(at: ms(6001)) == 60)
        #expect(tap.slowestBPM == 30)
    }

    @Test func switchingFromQuartersToEighthsIsFollowedAtOnce() {
        var tap = TapTempo()
        var t: Int64 = 1000
        _ = tap.tap(at: ms(t))
        for _ in 0..<4 { t += 600; #expect(tap.tap(at: ms(t)) == 100) }
        t += 300
        #expect(tap.tap(at: ms(t)) == 200)
        t += 300
        #expect(tap.tap(at: ms(t)) == 200)
        #expect(tap.intervals == 2)
    }

    @Test func withinToleranceIsAveraged() {
        var tap = TapTempo(tolerancePercent: 20)
        _ = tap.tap(at: ms(0 + 1000))
        _ = tap.tap(at: ms(500 + 1000))
        // 590 ms is 18 % above 500: averaged, (500 + 590) / 2 = 545 ms -> 110.09 BPM.
        #expect(tap.tap(at: ms(1090 + 1000)) == 110)
        // 700 ms is 28 % above the 545 ms average: restart from the last tap.
        #expect(tap.tap(at: ms(1790 + 1000)) == 86)   // 60 / 0.7 = 85.7
        #expect(tap.intervals == 1)
    }

    @Test func clampedToTheRange() {
        var tap = TapTempo()
        _ = tap.tap(at: ms(1000))
        #expect(tap.tap(at: ms(1050)) == 999)  // 1200 BPM
    }

    @Test func roundsHalfUp() {
        #expect(TapTempo.wholeBPM(totalNanoseconds: 480_000_000, intervals: 1) == 125)
        // 60 / 0.4987... = 120.3 -> 120; 60 / 0.49792 = 120.5 -> 121
        #expect(TapTempo.wholeBPM(totalNanoseconds: 497_925_311, intervals: 1) == 121)
        #expect(TapTempo.wholeBPM(totalNanoseconds: 497_925_312, intervals: 1) == 120)
    }
}

@Suite struct TempoMarkingTests {
    @Test func everyTempoHasExactlyOneMarking() {
        for (previous, next) in zip(TempoMarking.all, TempoMarking.all.dropFirst()) {
            #expect(previous.upperBound + 1 == next.lowerBound)
            #expect((previous.lowerBound...previous.upperBound).contains(previous.typicalBPM))
        }
        #expect(TempoMarking.all.first?.lowerBound == 1)
        #expect(TempoMarking.all.last?.upperBound == 999)
    }

    @Test func markingOfTempos() throws {
        #expect(TempoMarking.of(Tempo(clampingWholeBPM: 1)).name == "Larghissimo")
        #expect(TempoMarking.of(Tempo(clampingWholeBPM: 60)).name == "Larghetto")
        #expect(TempoMarking.of(Tempo(clampingWholeBPM: 120)).name == "Allegro")
        #expect(TempoMarking.of(try Tempo(Rational(239, 2))).name == "Moderato")
        #expect(TempoMarking.of(Tempo(clampingWholeBPM: 999)).name == "Prestissimo")
    }

    @Test func menuOrderIsAlphabetical() {
        #expect(TempoMarking.alphabetical.map(\.name) == [
            "Adagio", "Allegro", "Andante", "Grave", "Larghetto", "Larghissimo", "Largo", "Lento",
            "Moderato", "Prestissimo", "Presto", "Vivace",
        ])
    }
}
