// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusMusic

/// One step of an earned trainer: the bar whose verdict made it, the tempo before and
/// after, and the figures of the bars that earned (or lost) it.
public struct TrainerStep: Sendable, Hashable {
    public enum Direction: String, Sendable, Hashable { case up, down }
    public var direction: Direction
    /// The last bar of the run that made the step (bars from the song's bar 0).
    public var bar: Int64
    /// The first bar played at the new tempo.
    public var fromBar: Int64
    public var fromBPM: Double
    public var toBPM: Double
    /// The run: how many bars, their hits, the hits' mean error and SD (ms, + late).
    public var bars: Int
    public var hits: Int
    public var meanMs: Double
    public var sdMs: Double

    public init(direction: Direction, bar: Int64, fromBar: Int64, fromBPM: Double, toBPM: Double, bars: Int, hits: Int,
                meanMs: Double, sdMs: Double) {
        (self.direction, self.bar, self.fromBar, self.fromBPM, self.toBPM) = (direction, bar, fromBar, fromBPM, toBPM)
        (self.bars, self.hits, self.meanMs, self.sdMs) = (bars, hits, meanMs, sdMs)
    }
}

/// "Earn the tempo": the coach's verdict on each bar gates the speed trainer. A bar is in
/// when both its hits' mean error and their SD lie within +-window ms, out otherwise; `bars`
/// in a row step the tempo up by `step`, `downBars` out in a row step it down (0: never);
/// anything else holds. A bar with no hits (a rest) holds and starts both runs again. After a step the runs start again from the bar the new tempo begins at.
public struct EarnedTempo: Sendable, Hashable {
    public let trainer: Trainer
    /// Hits per bar not judged yet: count, sum and sum of squares of the error (ms).
    private var pending: [Int64: Sums] = [:]
    /// Bars before this one are not judged (the count-in, or played before the last step).
    public private(set) var firstBar: Int64
    /// The next bar to judge.
    public private(set) var nextBar: Int64
    private var inRun = Sums(), outRun = Sums()
    public private(set) var inBars = 0, outBars = 0
    public private(set) var steps: [TrainerStep] = []

    struct Sums: Sendable, Hashable {
        var count = 0
        var sum = 0.0, squares = 0.0
        mutating func add(_ x: Double) { count += 1; sum += x; squares += x * x }
        mutating func add(_ other: Sums) { count += other.count; sum += other.sum; squares += other.squares }
        var mean: Double { count == 0 ? 0 : sum / Double(count) }
        /// Population SD (one hit: 0).
        var sd: Double { count == 0 ? 0 : max(squares / Double(count) - mean * mean, 0).squareRoot() }
    }

    public init(_ trainer: Trainer, fromBar: Int64 = 0) {
        self.trainer = trainer
        firstBar = fromBar
        nextBar = fromBar
    }

    /// A judged hit in `bar` (error in ms, + late).
    public mutating func hit(bar: Int64, errorMilliseconds: Double) {
        guard bar >= nextBar else { return }
        pending[bar, default: Sums()].add(errorMilliseconds)
    }

    /// Whether bar `bar`'s figures lie within the window.
    func isIn(_ s: Sums) -> Bool {
        let w = Double(trainer.windowMilliseconds)
        return s.count > 0 && abs(s.mean) <= w && s.sd <= w
    }

    /// Judges every bar up to `last` (all of whose hits are in) at tempo `bpm`; a step, if one
    /// is due, starts at `startBar` (a bar still to come) and the bars before it are not judged.
    public mutating func judge(through last: Int64, bpm: Double, startBar: Int64) -> TrainerStep? {
        var step: TrainerStep?
        while nextBar <= last && step == nil {
            let bar = nextBar
            nextBar += 1
            let sums = pending.removeValue(forKey: bar) ?? Sums()
            if sums.count == 0 {
                // A bar of rest is neither earned nor lost: it holds, and both runs start again.
                inBars = 0; inRun = Sums(); outBars = 0; outRun = Sums()
            } else if isIn(sums) {
                inBars += 1; inRun.add(sums)
                outBars = 0; outRun = Sums()
            } else {
                outBars += 1; outRun.add(sums)
                inBars = 0; inRun = Sums()
            }
            if inBars >= trainer.bars {
                step = made(.up, bar: bar, bpm: bpm, run: inRun, bars: inBars, startBar: startBar)
            } else if trainer.downBars > 0 && outBars >= trainer.downBars {
                step = made(.down, bar: bar, bpm: bpm, run: outRun, bars: outBars, startBar: startBar)
            }
        }
        return step
    }

    private mutating func made(_ direction: TrainerStep.Direction, bar: Int64, bpm: Double, run: Sums, bars: Int,
                               startBar: Int64) -> TrainerStep? {
        let delta = Double(direction == .up ? trainer.step : -trainer.step)
        let to = min(max(bpm + delta, Double(Tempo.range.lowerBound)), Double(Tempo.range.upperBound))
        // The runs start again from the new tempo's first bar, whatever the limits did.
        inBars = 0; outBars = 0; inRun = Sums(); outRun = Sums()
        pending = pending.filter { $0.key >= startBar }
        nextBar = max(nextBar, startBar)
        firstBar = nextBar
        guard to != bpm else { return nil }
        let step = TrainerStep(direction: direction, bar: bar, fromBar: startBar, fromBPM: bpm, toBPM: to, bars: bars,
                               hits: run.count, meanMs: run.mean, sdMs: run.sd)
        steps.append(step)
        return step
    }
}

extension SongPractice {
    /// A fresh gate for song `song` of the program, judging from `fromBar`; nil when its
    /// trainer is not earned.
    static func earnedTrainer(_ songs: [Song], song: Int, fromBar: Int64) -> EarnedTempo? {
        guard songs.indices.contains(song), let trainer = songs[song].trainer, trainer.isEarned else { return nil }
        return EarnedTempo(trainer, fromBar: max(fromBar, 0))
    }
}

extension BoxState {
    /// A song's beat heard: the song page follows it, and an earned trainer judges its bars.
    mutating func songProgress(song: Int, section: Int, bar: Int64, beat: Int, bpm: Double) -> [Effect] {
        songProgress(song: song, section: section, bar: bar, bpm: bpm)
        return earnTempo(bar: bar, beat: beat, bpm: bpm, counting: section < 0)
    }

    /// A judged hit: the Coach page's figures and an earned trainer's bar.
    mutating func coachHit(errorMilliseconds error: Double, bar: Int64, gap: Bool) {
        coach.add(errorMilliseconds: error, bar: bar, gap: gap)
        practice.earned?.hit(bar: bar, errorMilliseconds: error)
    }

    /// A beat of the song heard: the bars whose hits are all in are judged. A hit is matched
    /// to its nearest grid position, so a late one of a bar's last position is in by the
    /// second beat of the next bar: bars up to the one before are judged from there (from a
    /// downbeat, up to the one before that). A step starts at the next bar's downbeat.
    mutating func earnTempo(bar: Int64, beat: Int, bpm: Double, counting: Bool) -> [Effect] {
        guard !counting, bpm > 0, practice.earned != nil else { return [] }
        let last = beat > 0 ? bar - 1 : bar - 2
        guard let step = practice.earned?.judge(through: last, bpm: bpm, startBar: bar + 1) else { return [] }
        return [.earnedTempo(step)]
    }

    /// The trainer fields of song mode's ring, which are the box's saved trainer: nil for
    /// another field, else whether it changed (false at a limit).
    mutating func trainerDetent(_ direction: Int, field: Field) -> Bool? {
        func step(_ value: Int, _ range: ClosedRange<Int>) -> Int? {
            let new = min(max(value + direction, range.lowerBound), range.upperBound)
            return new == value ? nil : new
        }
        var t = saved.preferences.trainer
        switch field {
        case .trainerStep:
            guard let v = step(t.step, Trainer.stepRange) else { return false }
            t.step = v
        case .trainerBars:
            guard let v = step(t.bars, Trainer.barsRange) else { return false }
            t.bars = v
        case .trainerWindow:
            guard let v = step(t.windowMilliseconds, Trainer.windowRange) else { return false }
            t.windowMilliseconds = v
        case .trainerDown:
            guard let v = step(t.downBars, Trainer.downBarsRange) else { return false }
            t.downBars = v
        default:
            return nil
        }
        saved.preferences.trainer = t
        return true
    }
}
