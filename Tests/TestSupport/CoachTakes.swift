// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Coach
import TactusArithmetic
import TactusMusic
import TactusTimeline

/// A synthetic take on the engine's own grid: the engine renders the click (beats and the
/// layer the player plays) and names every grid position; the take puts one hit on each.
public struct CoachTakeCase {
    public var bpm: Int
    /// Notes per beat the player plays: 2 eighths, 4 sixteenths (the engine's layer).
    public var perBeat: Int
    public var bars: Int
    public var seed: UInt64
    public var sampleRate = 48000
    /// Where bar 0's downbeat is in the take, and the click's round trip (samples).
    public var origin = 14_400
    public var latency = 240
    public var click = true

    public init(bpm: Int, perBeat: Int, bars: Int, seed: UInt64, sampleRate: Int = 48000, origin: Int = 14_400,
                latency: Int = 240, click: Bool = true) {
        (self.bpm, self.perBeat, self.bars, self.seed) = (bpm, perBeat, bars, seed)
        (self.sampleRate, self.origin, self.latency, self.click) = (sampleRate, origin, latency, click)
    }

    public struct Made {
        public var take: SyntheticTake
        public var output: [Float]
        public var clickStarts: [Int]
        public var grid: [Double]
    }

    public func make() throws -> Made {
        var settings = MetronomeSettings()
        try settings.assign("bpm", "\(bpm)")
        if perBeat > 1 { try settings.assign("subdivisions", "\(perBeat)") }
        let engine = try ClickEngine(sampleRate: sampleRate, channels: 1, maxFrameCount: 128, settings: settings)
        var output: [Float] = []
        var events: [OnsetEvent] = []
        try OfflineRender.run(engine: engine, changes: [], end: .bars(Int64(bars))) { block in
            output.append(contentsOf: block)
        } onEvent: { events.append($0) }
        let grid = events.map { Double(origin) + Double($0.sample) }
        let length = origin + output.count + sampleRate / 2
        let take = SyntheticTake(grid: grid, sampleRate: sampleRate, seed: seed, length: length,
                                 click: click ? output : nil, clickAt: origin + latency)
        return Made(take: take, output: output, clickStarts: events.map { Int($0.sample) }, grid: grid)
    }
}

/// What a detector found against the truth of a take.
public struct TakeScore {
    public var hits = 0
    public var missed = 0
    public var extra = 0
    public var errorsMs: [Double] = []
    public var within1ms = 0

    /// Each truth takes the nearest unclaimed onset within 20 ms; the rest are extras.
    public init(truth: [SyntheticTake.Hit], found: [Int64], sampleRate: Int) {
        var used = [Bool](repeating: false, count: found.count)
        var j = 0
        for hit in truth {
            hits += 1
            while j < found.count && found[j] < hit.sample - Int64(sampleRate / 50) { j += 1 }
            var best = -1
            var k = j
            while k < found.count && found[k] <= hit.sample + Int64(sampleRate / 50) {
                if !used[k] && (best < 0 || abs(found[k] - hit.sample) < abs(found[best] - hit.sample)) { best = k }
                k += 1
            }
            guard best >= 0 else { missed += 1; continue }
            used[best] = true
            let error = Double(found[best] - hit.sample) * 1000 / Double(sampleRate)
            errorsMs.append(error)
            if abs(error) <= 1 { within1ms += 1 }
        }
        extra = used.filter { !$0 }.count
    }

    public mutating func add(_ other: TakeScore) {
        hits += other.hits
        missed += other.missed
        extra += other.extra
        errorsMs += other.errorsMs
        within1ms += other.within1ms
    }
}

/// The box's output as an array (engine sample 0 first), read as the live coach reads the
/// render thread's history.
public final class ArrayOutput: OutputReference {
    public let samples: [Float]
    public init(_ samples: [Float]) { self.samples = samples }
    public func read(from start: Int64, count: Int, into destination: UnsafeMutablePointer<Float>) -> Bool {
        for i in 0..<count {
            let j = start + Int64(i)
            destination[i] = j >= 0 && j < Int64(samples.count) ? samples[Int(j)] : 0
        }
        return true
    }
}
