// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TestSupport
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusInstrument
import TactusBase

@Suite struct TempoWheelTests {
    func tempos(_ events: [TempoWheel.Event]) -> [Int] {
        events.compactMap { if case .tempo(let t) = $0 { t } else { nil } }
    }

    func ticks(_ events: [TempoWheel.Event]) -> Int {
        events.reduce(0) { if case .tick(let n, _) = $1 { $0 + n } else { $0 } }
    }

    /// (time in ms since `origin`, half steps) of every tick.
    func tickTimes(_ events: [TempoWheel.Event], since origin: MonotonicTime) -> [(ms: Double, count: Int)] {
        events.compactMap { if case .tick(let n, let at) = $0 { (Double(at.nanoseconds(since: origin)) / 1e6, n) } else { nil } }
    }

    /// `count` detents evenly over `seconds` from `start` (the last one at start + seconds),
    /// then time until the wheel is still, waking at every deadline as the control loop does.
    /// Returns every event.
    func turn(_ wheel: inout TempoWheel, _ count: Int, over seconds: Double, from start: MonotonicTime) -> [TempoWheel.Event] {
        var events: [TempoWheel.Event] = []
        for i in 0..<abs(count) {
            let at = start.advanced(byNanoseconds: Int64((seconds * Double(i + 1) / Double(abs(count)) * 1e9).rounded()))
            while let deadline = wheel.nextDeadline, deadline < at { events += wheel.advance(to: deadline) }
            events += wheel.detent(count > 0 ? 1 : -1, at: at)
        }
        while let deadline = wheel.nextDeadline { events += wheel.advance(to: deadline) }
        return events
    }

    @Test func slowTurningMovesExactlyOneBPMPerDetentWithOneTickAtEachDetent() {
        var wheel = TempoWheel(bpm: 72)
        let origin = MonotonicTime.seconds(100)
        // 10 detents, 300 ms apart (3.3 detents/s).
        let events = turn(&wheel, 10, over: 3, from: origin)
        #expect(wheel.shownBPM == 82)
        #expect(wheel.value == 82)
        #expect(tempos(events) == Array(73...82))
        // One tick per half step (72.5 ... 81.5), exactly at the detent that crossed it.
        let expected = (1...10).map { (ms: Double($0) * 300, count: 1) }
        #expect(tickTimes(events, since: origin).map(\.ms) == expected.map(\.ms))
        #expect(tickTimes(events, since: origin).allSatisfy { $0.count == 1 })
        var back = turn(&wheel, -3, over: 0.75, from: origin + .seconds(10))
        #expect(wheel.value == 79)
        back = back.filter { if case .tick = $0 { true } else { false } }
        #expect(back.count == 3)
    }

    @Test(arguments: [(2, 0.05, 122), (3, 0.03, 123), (1, 0.001, 121), (-2, 0.02, 118), (-3, 0.006, 117)])
    func nudgesOfUpToThreeDetentsMoveOneBPMEachHoweverFast(detents: Int, seconds: Double, lands: Int) {
        var wheel = TempoWheel(bpm: 120)
        _ = turn(&wheel, detents, over: seconds, from: .seconds(100))
        #expect(wheel.shownBPM == lands)
        #expect(wheel.value == Double(lands))
        #expect(!wheel.isGliding)
    }

    @Test func fastCrossingsAreMergedIntoTicksTwelveMillisecondsApart() {
        var wheel = TempoWheel(bpm: 120)
        let origin = MonotonicTime.seconds(100)
        // Detents at 10, 20 and 30 ms: crossings 10 ms apart merge into ticks 12 ms apart.
        let events = turn(&wheel, 3, over: 0.03, from: origin)
        #expect(tickTimes(events, since: origin).map(\.ms) == [10, 22, 34])
        #expect(ticks(events) == 3)
    }

    @Test func aFlickOfTwentyFiveDetentsInAThirdOfASecondTakesFortyToTwoHundredForty() {
        var wheel = TempoWheel(bpm: 40)
        let origin = MonotonicTime.seconds(100)
        let events = turn(&wheel, 25, over: 0.3, from: origin)
        #expect(wheel.shownBPM == 247)
        #expect(wheel.value == 247)
        #expect(ticks(events) == 207)
        // Countable ticks: never closer than 12 ms, through the turn and the glide.
        let times = tickTimes(events, since: origin).map(\.ms)
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 - $1 >= 12 - 1e-6 })
    }

    @Test func aTwentyDetentFlickDownFromThreeHundredStaysWithinItsBudget() {
        var wheel = TempoWheel(bpm: 300)
        _ = turn(&wheel, -20, over: 0.2, from: .seconds(100))
        #expect(wheel.shownBPM == 139)
        #expect(300 - wheel.shownBPM <= 200)
    }

    @Test func everyTurnMovesAtLeastOneAndAtMostTenBPMPerDetent() {
        var random = SplitMix64(state: 11)
        for _ in 0..<300 {
            let start = Int.random(in: 450...550, using: &random)
            let count = Int.random(in: 1...40, using: &random) * (Bool.random(using: &random) ? 1 : -1)
            let interval = Double.random(in: 0.004...0.4, using: &random)
            var wheel = TempoWheel(bpm: Double(start))
            _ = turn(&wheel, count, over: interval * Double(abs(count)), from: .seconds(100))
            let moved = abs(wheel.shownBPM - start)
            #expect(moved >= abs(count), "\(count) detents \(interval) s apart moved \(moved)")
            #expect(moved <= 10 * abs(count), "\(count) detents \(interval) s apart moved \(moved)")
            #expect(wheel.value == Double(wheel.shownBPM))
        }
    }

    @Test func gainGrowsWithRateAndRampsInAfterThreeDetents() {
        let wheel = TempoWheel()
        #expect(wheel.gain(rate: 2) == 1)
        #expect(wheel.gain(rate: 5) == 1)
        #expect(wheel.gain(rate: 27.5) == 5)
        #expect(wheel.gain(rate: 50) == 9)
        #expect(wheel.gain(rate: 500) == 9)
        #expect(wheel.step(detent: 3, rate: 100) == 1)
        #expect(wheel.step(detent: 4, rate: 100) == 1 + 8.0 / 3)
        #expect(wheel.step(detent: 6, rate: 100) == 9)
        #expect(wheel.step(detent: 20, rate: 4) == 1)
    }

    @Test func withoutMomentumTheValueStopsWithTheHand() {
        var tuning = TempoWheel.Tuning()
        tuning.momentum = false
        var wheel = TempoWheel(bpm: 40, tuning: tuning)
        var with = TempoWheel(bpm: 40)
        _ = turn(&wheel, 25, over: 0.3, from: .seconds(100))
        _ = turn(&with, 25, over: 0.3, from: .seconds(100))
        #expect(wheel.shownBPM == 233)
        #expect(with.shownBPM == 247)
    }

    @Test func touchingTheWheelStopsTheGlide() {
        var wheel = TempoWheel(bpm: 100)
        let origin = MonotonicTime.seconds(100)
        for i in 1...12 { _ = wheel.detent(1, at: origin.advanced(byNanoseconds: Int64(i) * 12_000_000)) }
        // Let go at 144 ms + 30 ms; the glide runs.
        _ = wheel.advance(to: origin + .milliseconds(181))
        #expect(wheel.isGliding)
        let gliding = wheel.shownBPM
        _ = wheel.detent(-1, at: origin + .milliseconds(181))
        #expect(!wheel.isGliding)
        // Stopped where it was; the touching detent is the first of a new turn: 1 BPM.
        #expect(wheel.shownBPM == gliding - 1)
        let stopped = wheel.shownBPM
        while let deadline = wheel.nextDeadline { _ = wheel.advance(to: deadline) }
        #expect(wheel.shownBPM == stopped)
    }

    @Test func glideIsIndependentOfHowOftenTimeIsAdvanced() {
        func run(stepMS: Double) -> Int {
            var wheel = TempoWheel(bpm: 60)
            var clock = ManualClock()
            for _ in 0..<12 { _ = wheel.detent(1, at: clock.advance(ms: 15)) }
            for _ in 0..<Int(2000 / stepMS) { _ = wheel.advance(to: clock.advance(ms: stepMS)) }
            return wheel.shownBPM
        }
        #expect(run(stepMS: 1) == run(stepMS: 97))
    }

    @Test func crossingXPointFiveUpwardTicksButReachingAWholeNumberDoesNot() {
        var wheel = TempoWheel(bpm: 72.3)
        var clock = ManualClock()
        _ = wheel.detent(1, at: clock.advance(ms: 500))  // to the next whole, 73, crossing 72.5
        #expect(wheel.value == 73)
        wheel.set(bpm: 72.6)
        let events = wheel.detent(1, at: clock.advance(ms: 500))
        #expect(ticks(events) == 0)  // 72.6 -> 73: no half step crossed
        #expect(tempos(events) == [73])  // but what plays changes
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
        let events = turn(&wheel, 20, over: 0.2, from: .seconds(100))
        #expect(wheel.shownBPM == 999)
        #expect(events.contains { if case .limit = $0 { true } else { false } })
        #expect(!wheel.isGliding)
    }

    @Test func fractionalPresetTempoMovesToTheNextWholeBPM() {
        var wheel = TempoWheel(bpm: 92.5)
        _ = wheel.detent(-1, at: ms(1000))
        #expect(wheel.value == 92)
        wheel.set(bpm: 92.5)
        #expect(tempos(wheel.detent(1, at: ms(3000))) == [93])  // shown as 93 before, but 92.5 played
        #expect(wheel.value == 93)
        #expect(tempos(wheel.detent(1, at: ms(3500))) == [94])
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

    @Test func switchingFromQuartersToEighthsIsFollowedWithTheNextTap() {
        var tap = TapTempo()
        var t: Int64 = 1000
        _ = tap.tap(at: ms(t))
        for _ in 0..<4 { t += 600; #expect(tap.tap(at: ms(t)) == 100) }
        // The first eighth's interval is outside the tolerance: a new series starts at it.
        t += 300
        #expect(tap.tap(at: ms(t)) == nil)
        t += 300
        #expect(tap.tap(at: ms(t)) == 200)
        t += 300
        #expect(tap.tap(at: ms(t)) == 200)
        #expect(tap.intervals == 2)
    }

    @Test func aPauseInsideTheTimeoutNeverSetsATempo() {
        // Quarters at 120, a pause of 1.95 s, then taps 0.25 s apart: never 31 BPM.
        var tap = TapTempo()
        var t: Int64 = 1000
        var results: [Int?] = [tap.tap(at: ms(t))]
        for _ in 0..<3 { t += 500; results.append(tap.tap(at: ms(t))) }
        t += 1950
        results.append(tap.tap(at: ms(t)))
        for _ in 0..<2 { t += 250; results.append(tap.tap(at: ms(t))) }
        #expect(results == [nil, 120, 120, 120, nil, 240, 240])
    }

    @Test func withinToleranceIsAveraged() {
        var tap = TapTempo(tolerancePercent: 20)
        _ = tap.tap(at: ms(0 + 1000))
        _ = tap.tap(at: ms(500 + 1000))
        // 590 ms is 18 % above 500: averaged, (500 + 590) / 2 = 545 ms -> 110.09 BPM.
        #expect(tap.tap(at: ms(1090 + 1000)) == 110)
        // 700 ms is 28 % above the 545 ms average: a new series from this tap, no tempo yet.
        #expect(tap.tap(at: ms(1790 + 1000)) == nil)
        #expect(tap.intervals == 0)
        #expect(tap.tap(at: ms(2490 + 1000)) == 86)   // 60 / 0.7 = 85.7
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
