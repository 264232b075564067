// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// The tempo wheel (SPEC 5), designed from the hand's side: detents move an internal
/// continuous tempo; the tempo shown and played is its nearest whole BPM.
///
/// A *turn* is a run of detents in one direction with no pause longer than `turnGap`.
/// - The first `exactDetents` (3) detents of every turn move exactly 1 BPM each, however
///   fast: a quick nudge of 1-3 detents never jumps.
/// - Slow detents (the turn's rate at or below `slowRate`, 5 detents/s) move to the next whole
///   BPM in the turning direction: 1 BPM per detent, exactly.
/// - From the fourth detent of a faster turn the step grows with the rate (square law up to
///   `maximumGain` BPM per detent at `fastRate`) and ramps in over `rampDetents` detents, so
///   only a long, fast turn moves far: 25 detents in 0.3 s take 40 BPM to 240.
/// - Momentum: letting go of a fast turn of 4 or more detents glides on at the speed it had,
///   slowing with constant (Coulomb-friction) deceleration. The glide is never longer than
///   the turn's budget: a turn of k detents moves at most 10 k BPM in total, glide included
///   (and at least k, except at the limits). A detent while gliding is the hand touching
///   the wheel: the glide stops where it is (on the nearest whole BPM), and that detent is
///   the first of a new turn.
/// - Settle: when the turn ends (or its glide does) the value snaps to the whole BPM shown.
/// - Ticks: the buzzer ticks when the value crosses a half step (71.5, 72.5 ...), which is
///   when the shown value changes. A slow turn gives exactly one tick per crossing, at the
///   detent's own time. Crossings closer than `tickSpacing` (12 ms) to the last tick are
///   merged into the next tick, so fast turns and glides stay countable instead of buzzing.
///   A bump marks the 1 and 999 limits.
///
/// Every position is a closed-form function of the timestamps, so the result does not
/// depend on how often `advance(to:)` is called.
public struct TempoWheel: Sendable {
    public struct Tuning: Sendable, Hashable {
        /// Detents/s: up to here, 1 BPM per detent.
        public var slowRate: Double = 5
        /// Detents/s: from here, `maximumGain` BPM per detent.
        public var fastRate: Double = 50
        public var maximumGain: Double = 9
        /// The first detents of a turn that move exactly 1 BPM each, however fast.
        public var exactDetents: Int = 3
        /// Detents over which the gain ramps in after the exact ones.
        public var rampDetents: Int = 3
        /// A pause longer than this ends a turn (the next detent starts a new one).
        public var turnGap: Duration = .milliseconds(200)
        /// A turn has been let go when no detent came for this many of its detent intervals
        /// (at least `shortestRelease`, at most `turnGap`).
        public var releaseIntervals: Double = 2.5
        public var shortestRelease: Duration = .milliseconds(30)
        public var momentum: Bool = true
        /// Turning at least this fast when letting go starts a glide...
        public var momentumMinimumRate: Double = 20
        /// ...after a turn of at least this many detents (a short turn lands where it stops).
        public var momentumMinimumDetents: Int = 8
        /// How far a glide carries on, in steps of the turn's last detent; the friction
        /// (constant deceleration) is chosen to stop it there, or sooner when the turn's
        /// budget runs out first.
        public var glideDetents: Double = 1.5
        /// A turn of k detents moves at most this many BPM per detent in total, glide included.
        public var budgetPerDetent: Double = 10
        /// Ticks are never closer than this; crossings in between are merged into one tick.
        public var tickSpacing: Duration = .milliseconds(12)

        public init() {}
    }

    public enum Event: Sendable, Hashable {
        /// The whole BPM to show and play.
        case tempo(Int)
        /// The value crossed `count` half steps (one buzzer tick; `count` > 1 when crossings
        /// came closer than the tick spacing and were merged).
        case tick(count: Int, at: MonotonicTime)
        /// The value ran into 1 or 999.
        case limit(at: MonotonicTime)
    }

    public static let minimum = 1.0
    public static let maximum = 999.0

    public var tuning: Tuning
    /// The internal continuous tempo.
    public private(set) var value: Double

    /// The turn under the hand, until it is let go (or its glide ends).
    struct Turn: Sendable {
        var direction: Int
        var detents: Int
        var startValue: Double
        var lastDetentAt: MonotonicTime
        /// Smoothed seconds between detents; nil after the first detent.
        var interval: Double?
        var lastStep: Double
    }

    struct Glide: Sendable {
        var startValue: Double
        var startAt: MonotonicTime
        var velocity: Double   // BPM/s, signed
        var deceleration: Double

        var duration: Double { abs(velocity) / deceleration }
        var distance: Double { velocity * velocity / (2 * deceleration) }

        func offset(after seconds: Double) -> Double {
            let s = min(max(seconds, 0), duration)
            let distance = abs(velocity) * s - deceleration * s * s / 2
            return velocity < 0 ? -distance : distance
        }

        /// Seconds after the start at which the glide has covered `distance` (nil: never).
        func time(toCover distance: Double) -> Double? {
            let speed = abs(velocity)
            let discriminant = speed * speed - 2 * deceleration * distance
            guard distance >= 0, discriminant >= 0 else { return nil }
            // The stable form of (speed - sqrt(discriminant)) / deceleration.
            return 2 * distance / (speed + discriminant.squareRoot())
        }
    }

    private(set) var turn: Turn?
    private var glide: Glide?
    private var lastTickAt: MonotonicTime?
    private var pendingCrossings = 0
    /// What plays now: the last whole BPM sent, or a tempo set from outside (a preset or taps
    /// may be fractional). Exact steps count from it.
    private var playing: Double
    private var lastAdvance = MonotonicTime(nanoseconds: .min / 2)

    public init(bpm: Double = 120, tuning: Tuning = Tuning()) {
        self.tuning = tuning
        self.value = min(max(bpm, TempoWheel.minimum), TempoWheel.maximum)
        self.playing = value
    }

    /// Round half up: 71.5 shows 72.
    public static func whole(_ value: Double) -> Int { Int((value + 0.5).rounded(.down)) }

    public var shownBPM: Int { TempoWheel.whole(value) }
    public var isGliding: Bool { glide != nil }
    /// The hand is turning (or a glide runs): the value may still move.
    public var isMoving: Bool { turn != nil || glide != nil }

    /// Another control (tap, preset, menu) set the tempo: take it over and stop moving.
    public mutating func set(bpm: Double) {
        value = min(max(bpm, TempoWheel.minimum), TempoWheel.maximum)
        playing = value
        glide = nil
        turn = nil
        pendingCrossings = 0
    }

    /// BPM per detent at `rate` detents per second once the gain has ramped in.
    public func gain(rate: Double) -> Double {
        guard rate > tuning.slowRate else { return 1 }
        let x = min((rate - tuning.slowRate) / (tuning.fastRate - tuning.slowRate), 1)
        return 1 + (tuning.maximumGain - 1) * x
    }

    /// The step of detent number `index` (1-based) of a turn running at `rate` detents/s.
    public func step(detent index: Int, rate: Double) -> Double {
        guard index > tuning.exactDetents, rate > tuning.slowRate else { return 1 }
        let ramp = min(Double(index - tuning.exactDetents) / Double(max(tuning.rampDetents, 1)), 1)
        return 1 + (gain(rate: rate) - 1) * ramp
    }

    /// One detent, +1 clockwise (faster) or -1.
    public mutating func detent(_ direction: Int, at time: MonotonicTime) -> [Event] {
        guard direction != 0 else { return [] }
        let direction = direction > 0 ? 1 : -1
        let time = max(time, turn?.lastDetentAt ?? time) // never before the previous detent
        var events = advance(to: time)
        if glide != nil {
            // The hand touches the wheel: stop there; this detent starts a new turn.
            glide = nil
            turn = nil
            events += settle(at: time)
        }
        if var t = turn, t.direction == direction, time - t.lastDetentAt <= tuning.turnGap {
            let seconds = max(time.seconds(since: t.lastDetentAt), 1e-6)
            t.interval = t.interval.map { ($0 + seconds) / 2 } ?? seconds
            t.detents += 1
            turn = t
        } else {
            if turn != nil { events += settle(at: time) }
            turn = Turn(direction: direction, detents: 1, startValue: value, lastDetentAt: time, interval: nil, lastStep: 1)
        }
        var t = turn!
        t.lastDetentAt = time
        let rate = t.interval.map { 1 / $0 } ?? 0
        let before = value
        var target: Double
        if t.detents <= tuning.exactDetents || rate <= tuning.slowRate {
            // Exactly one whole BPM in the turning direction from what plays (from a fractional
            // preset tempo, the next whole one), so slow turns and short nudges count exactly.
            target = direction > 0 ? playing.rounded(.down) + 1 : playing.rounded(.up) - 1
        } else {
            target = value + Double(direction) * step(detent: t.detents, rate: rate)
        }
        var hitLimit = false
        if target < TempoWheel.minimum || target > TempoWheel.maximum {
            hitLimit = true
            target = min(max(target, TempoWheel.minimum), TempoWheel.maximum)
        }
        value = target
        t.lastStep = abs(target - before)
        turn = t
        events += changes(from: before, at: time)
        if hitLimit { events.append(.limit(at: time)) }
        return events
    }

    /// When the turn counts as let go.
    private func releaseTime(_ t: Turn) -> MonotonicTime {
        guard let interval = t.interval else { return t.lastDetentAt + tuning.turnGap }
        let delay = min(max(interval * tuning.releaseIntervals, tuning.shortestRelease.secondsValue), tuning.turnGap.secondsValue)
        return t.lastDetentAt.advanced(byNanoseconds: Int64((delay * 1e9).rounded(.up)))
    }

    /// The glide a released turn starts, if any: fast enough, longer than a nudge, with
    /// momentum on, and within the turn's budget.
    private func glide(after t: Turn, at start: MonotonicTime) -> Glide? {
        guard tuning.momentum, t.detents >= max(tuning.momentumMinimumDetents, tuning.exactDetents + 1), let interval = t.interval,
              1 / interval >= tuning.momentumMinimumRate else { return nil }
        let budget = tuning.budgetPerDetent * Double(t.detents) - abs(value - t.startValue)
        let speed = t.lastStep / interval
        guard budget > 0, speed > 0 else { return nil }
        // Friction that stops the glide after as far as `glideDetents` more detents of the
        // last step would have gone: proportional to the step, so a flick lands as
        // predictably as the turn itself.
        let natural = t.lastStep * tuning.glideDetents
        let deceleration = speed * speed / (2 * min(natural, budget))
        return Glide(startValue: value, startAt: start, velocity: Double(t.direction) * speed, deceleration: deceleration)
    }

    /// Lets time pass: lets go of a turn, runs and ends a glide, settles, sends merged ticks.
    public mutating func advance(to time: MonotonicTime) -> [Event] {
        lastAdvance = max(lastAdvance, time)
        var events = flushTicks(upTo: time)
        if let t = turn, glide == nil {
            let release = releaseTime(t)
            guard time >= release else { return events }
            if let g = glide(after: t, at: release) {
                glide = g
            } else {
                turn = nil
                return events + settle(at: release)
            }
        }
        if let g = glide {
            let elapsed = time.seconds(since: g.startAt)
            let before = value
            var next = g.startValue + g.offset(after: elapsed)
            var ended = elapsed >= g.duration
            var hitLimit = false
            if next <= TempoWheel.minimum || next >= TempoWheel.maximum {
                next = min(max(next, TempoWheel.minimum), TempoWheel.maximum)
                hitLimit = true
                ended = true
            }
            value = next
            events += changes(from: before, at: time)
            if hitLimit { events.append(.limit(at: time)) }
            if ended {
                glide = nil
                turn = nil
                events += settle(at: time)
            }
        }
        return events
    }

    /// When `advance(to:)` next has something to do: a merged tick, the end of a turn, the
    /// next half step of a glide (ticks follow the motion), or the glide's end.
    public var nextDeadline: MonotonicTime? {
        var deadlines: [MonotonicTime] = []
        if pendingCrossings > 0, let last = lastTickAt { deadlines.append(last + tuning.tickSpacing) }
        if let g = glide {
            deadlines.append(g.startAt.advanced(byNanoseconds: Int64((g.duration * 1e9).rounded(.up)) + 1))
            // The next half step in the direction of travel.
            let boundary = g.velocity > 0 ? (value + 0.5).rounded(.down) + 0.5 : (value - 0.5).rounded(.up) - 0.5
            if let s = g.time(toCover: abs(boundary - g.startValue)) {
                deadlines.append(g.startAt.advanced(byNanoseconds: Int64((s * 1e9).rounded(.up)) + 1))
            }
        } else if let t = turn {
            deadlines.append(releaseTime(t))
        }
        guard let first = deadlines.min() else { return nil }
        // Never at or before the last advance: rounding must not stall a caller's loop.
        return glide == nil ? first : max(first, lastAdvance.advanced(byNanoseconds: 1_000_000))
    }

    private mutating func settle(at time: MonotonicTime) -> [Event] {
        let before = value
        value = Double(shownBPM)
        return changes(from: before, at: time)
    }

    /// A merged tick that has waited out the spacing. It sounds when it is handled, which can
    /// be after it was due: the spacing counts from then, so no two ticks come closer.
    private mutating func flushTicks(upTo time: MonotonicTime) -> [Event] {
        guard pendingCrossings > 0, let last = lastTickAt else { return [] }
        guard time >= last + tuning.tickSpacing else { return [] }
        let count = pendingCrossings
        pendingCrossings = 0
        lastTickAt = time
        return [.tick(count: count, at: time)]
    }

    private mutating func changes(from before: Double, at time: MonotonicTime) -> [Event] {
        let crossed = abs(TempoWheel.whole(value) - TempoWheel.whole(before))
        // From a fractional tempo (a preset's 92.5) a detent may land on a whole BPM that rounds
        // to the same number: no half step crossed, so no tick, but what plays changes.
        let reachedWhole = crossed == 0 && value == value.rounded() && value != playing
        guard crossed > 0 || reachedWhole else { return [] }
        playing = Double(shownBPM)
        var events: [Event] = [.tempo(shownBPM)]
        guard crossed > 0 else { return events }
        if let last = lastTickAt, time - last < tuning.tickSpacing {
            pendingCrossings += crossed
        } else {
            events.append(.tick(count: crossed + pendingCrossings, at: time))
            pendingCrossings = 0
            lastTickAt = time
        }
        return events
    }
}
