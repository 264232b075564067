// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
import Glibc
#endif
import TactusInstrument
import TestSupport
import TactusBase

/// A tempo wheel as the hand feels it: detents in, a shown whole BPM out.
protocol HandWheel {
    var name: String { get }
    init(bpm: Int)
    mutating func detent(_ direction: Int, at time: MonotonicTime)
    /// Lets the wheel come to rest (glides, settling); returns when it is still.
    mutating func rest(after time: MonotonicTime) -> MonotonicTime
    var shown: Int { get }
}

/// Tactus's own wheel, the code the box runs.
struct TactusHandWheel: HandWheel {
    var name: String { "Tactus" }
    var wheel: TempoWheel
    init(bpm: Int) { wheel = TempoWheel(bpm: Double(bpm)) }
    mutating func detent(_ direction: Int, at time: MonotonicTime) { _ = wheel.detent(direction, at: time) }
    mutating func rest(after time: MonotonicTime) -> MonotonicTime {
        var still = time
        while let deadline = wheel.nextDeadline {
            let before = wheel.shownBPM
            _ = wheel.advance(to: deadline)
            if wheel.shownBPM != before { still = deadline }
        }
        return still
    }
    var shown: Int { wheel.shownBPM }
}

/// 1 BPM per detent whatever the speed.
struct PlainHandWheel: HandWheel {
    var name: String { "plain 1/detent" }
    var value: Int
    init(bpm: Int) { value = bpm }
    mutating func detent(_ direction: Int, at time: MonotonicTime) { value = min(max(value + direction, 1), 999) }
    mutating func rest(after time: MonotonicTime) -> MonotonicTime { time }
    var shown: Int { value }
}

/// Two gears as Korg's KDM-2 has them: 4 BPM per detent when turned faster than 5
/// detents/s, 1 BPM per detent when slower.
struct GearHandWheel: HandWheel {
    var name: String { "gear 4/1 (KDM-2)" }
    var value: Int
    var last: (direction: Int, at: MonotonicTime)?
    init(bpm: Int) { value = bpm }
    mutating func detent(_ direction: Int, at time: MonotonicTime) {
        var step = 1
        if let last, last.direction == direction, time.seconds(since: last.at) < 0.2 { step = 4 }
        last = (direction, time)
        value = min(max(value + direction * step, 1), 999)
    }
    mutating func rest(after time: MonotonicTime) -> MonotonicTime { time }
    var shown: Int { value }
}

/// A scripted hand: it reads the display, flicks a turn sized to the distance (with the
/// spread of a real hand in count and speed), waits for the wheel to rest, then corrects:
/// slow single detents, or one quick nudge of up to 3 detents on a wheel that moves such a
/// nudge exactly, flicking again when still far off.
struct Hand {
    /// Speeds a hand can turn at, detents/s (the flick's top speed: 25 detents in 0.3 s).
    static let flickRates: [Double] = [12, 25, 45, 83]
    static let longestFlick = 28        // detents in one wrist turn
    static let slowInterval = 0.25      // s between slow correcting detents (4/s)
    static let reaction = 0.25          // s to read the screen and decide, after it rests
    static let slowBelow = 6            // BPM: closer than this, correct detent by detent
    static let countSpread = 0.08       // sd of the detent count, share of the count
    static let rateSpread = 0.12        // sd of the speed, share of the speed

    /// Corrections of at most this many detents are one quick nudge where the hand knows
    /// the wheel moves them exactly; elsewhere they are made slowly, detent by detent.
    static let longestNudge = 3
    static let nudgeRate = 20.0

    static func nudgeIsExact<W: HandWheel>(_ type: W.Type, from: Int, by detents: Int) -> Bool {
        var wheel = W(bpm: from)
        _ = wheel.rest(after: turn(&wheel, detents: detents, seconds: Double(abs(detents)) / nudgeRate, from: .seconds(1)))
        return wheel.shown == min(max(from + detents, 1), 999)
    }

    struct Result { var detents = 0; var seconds = 0.0; var overshoot = 0 }

    var random: SplitMix64

    mutating func gaussian() -> Double {
        // Box-Muller from two uniforms in (0, 1].
        let u1 = Double(random.next() >> 11 + 1) / 9_007_199_254_740_992
        let u2 = Double(random.next() >> 11) / 9_007_199_254_740_992
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Turns `detents` (signed) evenly over `seconds` starting at `start`; the time of the last detent.
    static func turn<W: HandWheel>(_ wheel: inout W, detents: Int, seconds: Double, from start: MonotonicTime) -> MonotonicTime {
        let n = abs(detents)
        var at = start
        for i in 0..<n {
            at = start.advanced(byNanoseconds: Int64(seconds * Double(i + 1) / Double(n) * 1e9))
            wheel.detent(detents > 0 ? 1 : -1, at: at)
        }
        return at
    }

    /// The flick a hand that knows its wheel picks: the quickest way there on average over
    /// its own spread (count and speed one standard deviation either way), counting the
    /// slow detents each outcome would leave.
    static func plan<W: HandWheel>(_ type: W.Type, from: Int, to target: Int) -> (detents: Int, rate: Double) {
        let direction = target > from ? 1 : -1
        var best = (detents: direction, rate: flickRates[0], cost: Double.infinity)
        for rate in flickRates {
            for n in 1...longestFlick {
                var cost = 0.0
                for countSpread in [-countSpread, 0, countSpread] {
                    for rateSpread in [-rateSpread, 0, rateSpread] {
                        let count = max(1, Int((Double(n) * (1 + countSpread)).rounded()))
                        var wheel = W(bpm: from)
                        let end = turn(&wheel, detents: direction * count, seconds: Double(count) / (rate * (1 + rateSpread)),
                                       from: .seconds(1))
                        let still = wheel.rest(after: end)
                        let error = abs(wheel.shown - target)
                        // Near means slow detents; far off means more flicks, the more the further.
                        let corrections = error < slowBelow ? Double(error) * slowInterval
                            : 0.6 + 0.025 * Double(error) + Double(slowBelow / 2) * slowInterval
                        cost += still.seconds(since: .seconds(1)) + reaction + corrections
                    }
                }
                if cost < best.cost { best = (direction * n, rate, cost) }
            }
        }
        return (best.detents, best.rate)
    }

    mutating func reach<W: HandWheel>(_ type: W.Type, from start: Int, to target: Int) -> Result {
        var wheel = W(bpm: start)
        var result = Result()
        var now = MonotonicTime.seconds(1)
        let initialDirection = target > start ? 1 : -1
        for _ in 0..<200 {
            let error = target - wheel.shown
            if error == 0 { break }
            if abs(error) >= 2, abs(error) <= Hand.longestNudge, Hand.nudgeIsExact(W.self, from: wheel.shown, by: error) {
                // A quick nudge where the wheel moves such a nudge exactly (1 BPM a detent).
                let start = now.advanced(byNanoseconds: Int64(Hand.slowInterval * 1e9))
                let end = Hand.turn(&wheel, detents: error, seconds: Double(abs(error)) / Hand.nudgeRate, from: start)
                result.detents += abs(error)
                now = wheel.rest(after: end)  // read while turning, as with slow detents
                continue
            }
            if abs(error) < Hand.slowBelow {
                let direction = error > 0 ? 1 : -1
                now = now.advanced(byNanoseconds: Int64(Hand.slowInterval * 1e9))
                wheel.detent(direction, at: now)
                result.detents += 1
                now = wheel.rest(after: now)
                continue
            }
            let plan = Hand.plan(W.self, from: wheel.shown, to: target)
            let count = max(1, Int((Double(abs(plan.detents)) * (1 + Hand.countSpread * gaussian())).rounded()))
            let rate = plan.rate * max(0.5, 1 + Hand.rateSpread * gaussian())
            let end = Hand.turn(&wheel, detents: plan.detents.signum() * count, seconds: Double(count) / rate, from: now)
            result.detents += count
            now = wheel.rest(after: end).advanced(byNanoseconds: Int64(Hand.reaction * 1e9))
            result.overshoot = max(result.overshoot, (wheel.shown - target) * initialDirection)
        }
        result.seconds = now.seconds(since: .seconds(1))
        return result
    }
}
