// SPDX-License-Identifier: GPL-3.0-or-later
import TactusTimeline

/// A sender's MIDI clock as cables and mergers deliver it (seeded, the same on every
/// machine): tempo segments, uniform jitter as a fraction of the period, lost clocks, a
/// crystal off by some ppm, dropouts (a pulled cable), and a merger's second copy of every
/// clock. The truth is the sender's jitter-free clock: beat n is clock 24 n.
public struct ClockStream: Sendable {
    public struct Spec: Sendable {
        public var segments: [(bpm: Double, beats: Int)]
        /// Segments in clocks (a wheel's detents last a fraction of a beat); by default `segments`.
        public var clockSegments: [(bpm: Double, clocks: Int)]?
        /// Uniform jitter of +- this fraction of the clock period.
        public var jitter: Double = 0
        /// Probability that a clock is lost.
        public var loss: Double = 0
        /// The sender's crystal, in ppm (positive: slow).
        public var drift: Double = 0
        /// Silences: from beat `at`, for `beats` beats, nothing arrives.
        public var dropouts: [(at: Double, beats: Double)] = []
        /// A merger's second stream: every clock twice, at the same instant (`sameInstant`) or
        /// with jitter of its own.
        public var merged = false
        public var sameInstant = true
        public var seed: UInt64 = 1
        /// The first clock's time (ns).
        public var start: Int64 = 1_000_000_000

        public init(segments: [(bpm: Double, beats: Int)], jitter: Double = 0, loss: Double = 0, drift: Double = 0,
                    dropouts: [(at: Double, beats: Double)] = [], merged: Bool = false, sameInstant: Bool = true, seed: UInt64 = 1) {
            self.segments = segments
            self.jitter = jitter
            self.loss = loss
            self.drift = drift
            self.dropouts = dropouts
            self.merged = merged
            self.sameInstant = sameInstant
            self.seed = seed
        }
    }

    /// What arrives, in arrival order: time (ns) and the sender's index of that clock.
    public var arrivals: [(time: Int64, clock: Int64)] = []
    /// The sender's jitter-free time (ns) of every clock and its period then.
    public var clockTimes: [Double] = []
    public var periods: [Double] = []

    public init(_ spec: Spec) {
        var random = SplitMix64(state: spec.seed)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var t = Double(spec.start)
        var k: Int64 = 0
        let scale = 1 + spec.drift * 1e-6
        for segment in spec.clockSegments ?? spec.segments.map({ ($0.bpm, $0.beats * 24) }) {
            let period = 60e9 / (24 * segment.bpm) * scale
            for _ in 0..<segment.clocks {
                clockTimes.append(t)
                periods.append(period)
                let beat = Double(k) / 24
                let silent = spec.dropouts.contains { beat >= $0.at && beat < $0.at + $0.beats }
                // The draws happen whatever is kept, so a seed gives the same jitter to every variant.
                let lost = unit() < spec.loss
                let noise = (unit() * 2 - 1) * spec.jitter * period
                let second = (unit() * 2 - 1) * spec.jitter * period
                if !silent && !lost {
                    arrivals.append((Int64((t + noise).rounded()), k))
                    if spec.merged { arrivals.append((Int64((t + (spec.sameInstant ? noise : second)).rounded()), k)) }
                }
                t += period
                k += 1
            }
        }
        arrivals.sort { $0.time < $1.time }
    }

    /// Sender's beat n (clock 24 n), jitter-free (ns).
    public func beatTime(_ n: Int) -> Double { clockTimes[24 * n] }
    public var beats: Int { clockTimes.count / 24 }
}

/// What a follower offers the scoring: its clock count and the time it predicts for a clock.
public protocol ClockFollowing {
    mutating func tick(at time: Int64)
    /// The predicted time (ns) of clock `index`, counted from the first tick it took (0).
    func predicted(clock index: Int64) -> Double?
    var quarterBPM: Double { get }
    var isLocked: Bool { get }
}

extension MIDIClockFollower: ClockFollowing {
    public func predicted(clock index: Int64) -> Double? { isTracking ? time(ofClock: index) : nil }
    public var isLocked: Bool { lock == .locked }
}

/// The reference a follower must beat: a plain second-order delay-locked loop (Adriaensen,
/// LAC 2005) on every tick received, counting ticks as they come (B = 0.3 Hz, seeded by the
/// mean interval of the first beat).
public struct PlainDLL: ClockFollowing {
    public var bandwidth = 0.3
    var count: Int64 = 0
    var first: Int64 = 0
    var last: Int64 = 0
    var next: Double = 0
    var period: Double = 0

    public init() {}

    public mutating func tick(at time: Int64) {
        count += 1
        defer { last = time }
        if count == 1 { first = time; return }
        if count <= 24 {
            period = Double(time - first) / Double(count - 1)
            next = Double(time) + period
            return
        }
        let error = Double(time) - next
        let w = 2 * Double.pi * bandwidth * period / 1e9
        next += period + 2.0.squareRoot() * w * error
        period += w * w * error
    }

    public func predicted(clock index: Int64) -> Double? {
        guard count >= 2, period > 0 else { return nil }
        return next + Double(index - count) * period
    }

    public var quarterBPM: Double { period > 0 ? 60e9 / (24 * period) : 0 }
    public var isLocked: Bool { count > 48 }
}

/// A follower scored against the sender's beats: each beat as the follower predicts it 60 ms
/// before it is due (when the box places it), minus the sender's jitter-free beat.
public struct ClockScore: Sendable {
    /// Beat errors (ns) from the first beat scored on; nil where nothing was predicted.
    public var errors: [Double?] = []
    /// Shown tempo error (quarter BPM) at each beat.
    public var tempoErrors: [Double] = []
    /// Whether the follower said `locked` at each beat, and whether it was within 1 ms then.
    public var locked: [Bool] = []

    public init<F: ClockFollowing>(_ follower: inout F, _ stream: ClockStream, horizon: Double = 60e6) {
        var next = 0
        guard let firstClock = stream.arrivals.first?.clock else { return }
        for n in 0..<stream.beats {
            let due = stream.beatTime(n)
            while next < stream.arrivals.count, Double(stream.arrivals[next].time) < due - horizon {
                follower.tick(at: stream.arrivals[next].time)
                next += 1
            }
            let error = follower.predicted(clock: Int64(24 * n) - firstClock).map { $0 - due }
            errors.append(error)
            tempoErrors.append(abs(follower.quarterBPM - 60e9 / (24 * stream.periods[24 * n])))
            locked.append(follower.isLocked)
        }
    }

    /// |error| of the beats from `from` on (ms); a missing prediction counts as infinite.
    public func absoluteErrors(from: Int, excluding: (Int) -> Bool = { _ in false }) -> [Double] {
        (from..<errors.count).filter { !excluding($0) }.map { errors[$0].map { abs($0) / 1e6 } ?? .infinity }
    }

    /// A beat skipped or doubled: an error of half a beat or more.
    public func slips(from: Int, beatNanoseconds: Double, excluding: (Int) -> Bool = { _ in false }) -> Int {
        absoluteErrors(from: from, excluding: excluding).filter { $0 * 1e6 >= beatNanoseconds / 2 }.count
    }

    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded(.up)))]
    }
}
