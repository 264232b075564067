/// The tempo wheel (SPEC 5): detents move an internal continuous tempo; the tempo shown
/// and played is its nearest whole BPM.
///
/// - Slow turning (detent rate at or below `slowRate`) moves to the next whole BPM in the
///   turning direction: exactly 1 BPM per detent.
/// - Faster turning multiplies the step: the gain rises with the square of the rate up to
///   `maximumGain` at `fastRate`, so a quick flick crosses 40 -> 240.
/// - Momentum: when a fast turn stops, the value glides on at the speed it had and slows
///   with constant (Coulomb-friction) deceleration. A detent while gliding stops the glide
///   at once: that detent is the hand touching the wheel, and does not step by itself.
/// - Settle: once the wheel is still (glide over, or `settleDelay` after the last detent)
///   the internal value snaps to the whole BPM that is already shown.
/// - Ticks: the buzzer ticks each time the value crosses a half step (71.5, 72.5 ...),
///   which is exactly when the shown value changes; a bump marks the 1 and 999 limits.
///
/// Every position is a closed-form function of the timestamps, so the result does not
/// depend on how often `advance(to:)` is called.
public struct TempoWheel: Sendable {
    public struct Tuning: Sendable, Hashable {
        public var slowRate: Double = 5          // detents/s: up to here, 1 BPM per detent
        public var fastRate: Double = 50         // detents/s: from here, maximumGain BPM per detent
        public var maximumGain: Double = 10
        public var momentum: Bool = true
        /// Turning faster than this when letting go starts a glide.
        public var momentumMinimumRate: Double = 20
        /// BPM/s^2 of friction while gliding.
        public var deceleration: Double = 1500
        /// A turn has ended when no detent came for this many detent intervals.
        public var releaseIntervals: Double = 2
        public var settleDelay: Duration = .milliseconds(250)

        public init() {}
    }

    public enum Event: Sendable, Hashable {
        /// The whole BPM to show and play.
        case tempo(Int)
        /// The value crossed `count` half steps (one buzzer tick; `count` > 1 when a fast
        /// step or glide crossed several at once).
        case tick(count: Int, at: MonotonicTime)
        /// The value ran into 1 or 999.
        case limit(at: MonotonicTime)
    }

    public static let minimum = 1.0
    public static let maximum = 999.0

    public var tuning: Tuning
    /// The internal continuous tempo.
    public private(set) var value: Double
    private var lastDetentAt: MonotonicTime?
    private var lastDirection = 0
    private var lastInterval: Double?   // seconds between the last two detents
    private var settled = true
    private var glide: Glide?
    private var lastAdvance = MonotonicTime(nanoseconds: .min / 2)

    struct Glide: Sendable {
        var startValue: Double
        var startAt: MonotonicTime
        var velocity: Double   // BPM/s, signed
        var deceleration: Double

        var duration: Double { abs(velocity) / deceleration }

        func offset(after seconds: Double) -> Double {
            let s = min(max(seconds, 0), duration)
            let distance = abs(velocity) * s - deceleration * s * s / 2
            return velocity < 0 ? -distance : distance
        }
    }

    public init(bpm: Double = 120, tuning: Tuning = Tuning()) {
        self.tuning = tuning
        self.value = min(max(bpm, TempoWheel.minimum), TempoWheel.maximum)
    }

    /// Round half up: 71.5 shows 72.
    public static func whole(_ value: Double) -> Int { Int((value + 0.5).rounded(.down)) }

    public var shownBPM: Int { TempoWheel.whole(value) }
    public var isGliding: Bool { glide != nil }

    /// Another control (tap, preset, menu) set the tempo: take it over and stop moving.
    public mutating func set(bpm: Double) {
        value = min(max(bpm, TempoWheel.minimum), TempoWheel.maximum)
        glide = nil
        lastDetentAt = nil
        lastInterval = nil
        settled = true
    }

    /// One detent, +1 clockwise (faster) or -1.
    public mutating func detent(_ direction: Int, at time: MonotonicTime) -> [Event] {
        guard direction != 0 else { return [] }
        let time = max(time, lastDetentAt ?? time) // never before the previous detent
        var events = advance(to: time)
        let before = value
        if glide != nil {
            glide = nil
            lastDetentAt = nil
            lastInterval = nil
            return events + settle(at: time)
        }
        let step = direction > 0 ? 1.0 : -1.0
        var interval: Double?
        if let last = lastDetentAt, lastDirection == direction { interval = time.seconds(since: last) }
        let rate = interval.map { $0 > 0 ? 1 / $0 : .infinity } ?? 0
        var target: Double
        if rate <= tuning.slowRate {
            // Slow: the next whole BPM in the turning direction, so slow turns count exactly.
            target = step > 0 ? value.rounded(.down) + 1 : value.rounded(.up) - 1
        } else {
            target = value + step * gain(rate: rate)
        }
        var hitLimit = false
        if target < TempoWheel.minimum || target > TempoWheel.maximum {
            hitLimit = true
            target = min(max(target, TempoWheel.minimum), TempoWheel.maximum)
        }
        value = target
        lastDetentAt = time
        lastDirection = direction
        lastInterval = interval
        settled = false
        events += changes(from: before, at: time)
        if hitLimit { events.append(.limit(at: time)) }
        return events
    }

    /// BPM per detent at `rate` detents per second.
    public func gain(rate: Double) -> Double {
        guard rate > tuning.slowRate else { return 1 }
        let x = min((rate - tuning.slowRate) / (tuning.fastRate - tuning.slowRate), 1)
        return 1 + (tuning.maximumGain - 1) * x * x
    }

    /// Lets time pass: starts, runs and ends a glide, and settles a still wheel.
    public mutating func advance(to time: MonotonicTime) -> [Event] {
        lastAdvance = max(lastAdvance, time)
        var events: [Event] = []
        if glide == nil, !settled, let last = lastDetentAt {
            if tuning.momentum, let interval = lastInterval, interval > 0, 1 / interval >= tuning.momentumMinimumRate {
                let releaseAt = last + .nanoseconds(Int64(interval * tuning.releaseIntervals * 1e9))
                if time >= releaseAt {
                    let velocity = Double(lastDirection) * gain(rate: 1 / interval) / interval
                    glide = Glide(startValue: value, startAt: releaseAt, velocity: velocity,
                                  deceleration: tuning.deceleration)
                    lastDetentAt = nil
                }
            } else if time - last >= tuning.settleDelay {
                return settle(at: last + tuning.settleDelay)
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
                events += settle(at: time)
            }
        }
        return events
    }

    /// When `advance(to:)` next has something to do. While gliding, often enough for the
    /// ticks to follow the motion (they are coalesced when the glide is fast).
    public var nextDeadline: MonotonicTime? {
        if let g = glide {
            let end = g.startAt + .nanoseconds(Int64((g.duration * 1e9).rounded(.up)) + 1)
            // The next half step in the direction of travel, reached when
            // |v| s - a s^2 / 2 = distance.
            let boundary = g.velocity > 0 ? (value + 0.5).rounded(.down) + 0.5 : (value - 0.5).rounded(.up) - 0.5
            let distance = abs(boundary - g.startValue)
            let speed = abs(g.velocity)
            let discriminant = speed * speed - 2 * g.deceleration * distance
            guard discriminant >= 0, distance > 0 else { return end }
            // The stable form of (speed - sqrt(discriminant)) / deceleration.
            let s = 2 * distance / (speed + discriminant.squareRoot())
            let crossing = g.startAt + .nanoseconds(Int64((s * 1e9).rounded(.up)) + 1)
            // Never at or before the last advance: rounding must not stall a caller's loop.
            return min(end, max(crossing, lastAdvance + .milliseconds(1)))
        }
        guard !settled, let last = lastDetentAt else { return nil }
        if tuning.momentum, let interval = lastInterval, interval > 0, 1 / interval >= tuning.momentumMinimumRate {
            return last + .nanoseconds(Int64(interval * tuning.releaseIntervals * 1e9))
        }
        return last + tuning.settleDelay
    }

    private mutating func settle(at time: MonotonicTime) -> [Event] {
        settled = true
        let before = value
        value = Double(shownBPM)
        return changes(from: before, at: time)
    }

    private func changes(from before: Double, at time: MonotonicTime) -> [Event] {
        let crossed = abs(TempoWheel.whole(value) - TempoWheel.whole(before))
        guard crossed > 0 else { return [] }
        return [.tempo(shownBPM), .tick(count: crossed, at: time)]
    }
}
