// SPDX-License-Identifier: GPL-3.0-or-later

/// The live side of the coach, on the control thread: grid positions arrive as the engine
/// renders them (a little ahead of when they are heard), hits as the detector finds them
/// (a little after they sound). A hit is judged once the first grid position after it is
/// known, so an early hit waits for the position it anticipated. Positions and hits are in
/// input samples. Keeps only the last two seconds of positions.
public struct CoachSession: Sendable {
    public private(set) var statistics = CoachStatistics()
    public let sampleRate: Int
    private var points: [GridPoint] = []
    private var pending: [Int64] = []
    private var bar = Int64.min
    private var index = 0

    public init(sampleRate: Int) { self.sampleRate = sampleRate }

    /// A grid position (in time order); returns the hits it lets be judged.
    public mutating func add(point sample: Double, bar: Int64, beat: Int) -> [MatchedHit] {
        if bar != self.bar { (self.bar, index) = (bar, 0) }
        points.append(GridPoint(sample: sample, bar: bar, beat: beat, index: index))
        index += 1
        let keep = sample - 2 * Double(sampleRate)
        if let drop = points.firstIndex(where: { $0.sample >= keep }), drop > 2 { points.removeFirst(drop - 2) }
        return judge(final: false)
    }

    /// A hit's first sample; judged at once when a later position is known.
    public mutating func add(hit sample: Int64) -> [MatchedHit] {
        pending.append(sample)
        return judge(final: false)
    }

    /// The end: every waiting hit against the positions known.
    public mutating func finish() -> [MatchedHit] { judge(final: true) }

    public mutating func reset() { statistics = CoachStatistics() }

    private mutating func judge(final: Bool) -> [MatchedHit] {
        guard let last = points.last else { return [] }
        var judged: [MatchedHit] = []
        let matcher = HitMatcher(points: points, sampleRate: sampleRate)
        while let hit = pending.first, final || Double(hit) < last.sample {
            pending.removeFirst()
            guard let m = matcher.match(hit) else { continue }
            // A hit past the grid's ends by more than half a step is on no position.
            if abs(m.errorMilliseconds) * Double(sampleRate) / 1000 > matcher.halfStep(around: m.point) { continue }
            statistics.add(m.errorMilliseconds)
            judged.append(m)
        }
        return judged
    }
}
