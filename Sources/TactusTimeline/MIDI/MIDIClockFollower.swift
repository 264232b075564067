// SPDX-License-Identifier: GPL-3.0-or-later

/// Follows an incoming MIDI clock (24 per quarter note) by counting it, not by averaging it.
///
/// Every tick gets the index the sender gave it: the clock it is nearest to on the line fitted
/// so far. So a lost clock (an interval near two periods) counts as two, a tick on an index
/// already taken (a merger's second stream, a reordered stamp) is dropped, and after a dropout
/// the count goes on by the time elapsed over the period, rounded. The line through
/// (index, arrival) is the minimax (Chebyshev) fit over the last `capacity` ticks: for the
/// uniform jitter of a busy USB host or a merger it is the maximum-likelihood line, and its
/// error falls as 1/n rather than the 1/sqrt(n) of least squares or a delay-locked loop, so
/// +-25 % of a period is followed within a fraction of a millisecond. Drift (a crystal off by
/// up to 500 ppm) is a straight line too. A tempo step shows as ticks leaving the fitted strip
/// in a row: the count goes on from the last tick that fitted, at the period they show.
/// Times are nanoseconds of the kernel's arrival stamps; fixed storage, no allocation per tick.
public struct MIDIClockFollower: Sendable {
    public enum Lock: String, Sendable, Hashable {
        /// No clock, none for two beats, or a clock at a tempo outside 1-1000 quarter BPM.
        case lost
        case locking
        /// The predicted beats are within 1 ms of the sender's (as far as the fit can tell).
        case locked
    }

    /// Ticks in the fit: 42 quarter notes, 8.5 s at 300 BPM, 85 s at 30 BPM.
    public static let capacity = 1024
    /// Arrivals gathered to seed the count (median interval of those kept).
    static let seedCount = 7
    /// The periods followed: 1 to 1000 quarter notes a minute.
    public static let shortestPeriod = 60e9 / (24 * 1000)
    public static let longestPeriod = 60e9 / 24
    /// Outliers that mean the tempo changed (in one episode: fewer than `episodeEnd`
    /// inliers between them).
    static let stepOutliers = 3
    /// Inliers in a row that end an episode of outliers (the old tempo holds after all).
    static let episodeEnd = 4
    /// Arrivals kept for a seed or a step's recount: an episode's outliers and the inliers
    /// between them (up to 3 x (episodeEnd - 1) + stepOutliers), with room to spare.
    static let pendingCapacity = 32

    public private(set) var lock = Lock.lost
    /// Clock bytes received since the follower was made or reset (duplicates included).
    public private(set) var ticks: Int64 = 0
    /// The sender's index of the latest tick counted (from the first tick seeded).
    public private(set) var lastIndex: Int64 = 0
    /// Half the width of the fitted strip: the jitter seen, in ns.
    public private(set) var spread: Double = 0

    // The fit: arrival = originT + intercept + slope * (index - originK).
    private var originK: Int64 = 0
    private var originT: Int64 = 0
    private var slope: Double = 0
    private var intercept: Double = 0
    private var modelled = false

    // Ticks in the fit (a ring, indices increasing).
    private var ks: [Int64]
    private var ts: [Int64]
    private var head = 0
    private var count = 0

    // Arrivals not yet counted while (re)seeding, after the tick (baseK, baseT) that fitted.
    private var pending: [Int64]
    private var pendingCount = 0
    private var base: (k: Int64, t: Int64)?

    // Hull scratch (indices into the ring's order) and the outlier streak.
    private var ux: [Double]
    private var uy: [Double]
    private var lx: [Double]
    private var ly: [Double]
    private var suspects = 0
    /// Inliers in a row since the episode's last outlier.
    private var inliersInEpisode = 0
    /// The arrival of the tick counted last (index `lastIndex`).
    private var lastCounted: Int64 = 0
    private var suspectBase = (k: Int64(0), t: Int64(0))
    private var inliers = 0
    private var latestArrival: Int64 = .min

    public init() {
        ks = [Int64](repeating: 0, count: Self.capacity)
        ts = [Int64](repeating: 0, count: Self.capacity)
        ux = [Double](repeating: 0, count: Self.capacity)
        uy = ux
        lx = ux
        ly = ux
        pending = [Int64](repeating: 0, count: Self.pendingCapacity)
    }

    /// Forgets the clock.
    public mutating func reset() {
        lock = .lost
        ticks = 0
        lastIndex = 0
        modelled = false
        count = 0
        pendingCount = 0
        base = nil
        suspects = 0
        inliers = 0
        spread = 0
        latestArrival = .min
    }

    /// Whether the count and the line exist (a tempo is known), also while `lost`.
    public var isTracking: Bool { modelled }

    /// The fitted clock period (ns), 0 before the clock is counted.
    public var period: Double { modelled ? slope : 0 }

    /// While the first clocks are gathered (not yet counted): the upper quartile of their
    /// gaps so far (a merger's copies, at most half of them, are gaps near 0), in ns; else 0.
    /// A Start that comes with the clock's first tick plays its first beat at this, not at the
    /// box's own tempo (at 30 BPM the seed's 7 clocks take 0.58 s: a box at 120 played beat 1
    /// before them).
    public var provisionalPeriod: Double {
        guard !modelled, base == nil, let gap = intervals(quantile: 0.75),
              gap >= Self.shortestPeriod, gap <= Self.longestPeriod else { return 0 }
        return gap
    }

    /// The sender's jitter-free time (ns) of its clock `index`.
    public func time(ofClock index: Int64) -> Double {
        Double(originT) + intercept + slope * Double(index - originK)
    }

    /// The predicted time of the next tick.
    public var nextTick: Double { modelled ? time(ofClock: lastIndex + 1) : 0 }

    /// The sender's index of the clock nearest to `time`.
    public func index(near time: Double) -> Int64? {
        guard modelled else { return nil }
        let x = (time - Double(originT) - intercept) / slope
        guard x.isFinite, abs(x) < 1e15 else { return nil }
        return originK + Int64(x.rounded())
    }

    /// The tempo of the fitted clock in quarter notes per minute (1-1000), 0 before it is counted.
    public var quarterBPM: Double { modelled ? 60e9 / (24 * slope) : 0 }

    /// The tempo shown: the fit's (its slope is already the average of the whole window).
    public var shownQuarterBPM: Double { quarterBPM }

    /// How far the predicted beats may be from the sender's (ns): the strip's half width over
    /// the ticks fitted, scaled to the worst case seen in simulation (7x), at least 50 us.
    public var uncertainty: Double {
        guard modelled, count >= 2 else { return .infinity }
        return max(7 * spread / Double(count), 50_000)
    }

    /// Whether the clock has been silent for two beats at `now` (then it is `lost`); the count
    /// and the line are held, so a clock that comes back goes on from where it must be.
    public mutating func checkSilence(now: Int64) -> Bool {
        guard lock != .lost, latestArrival != .min else { return false }
        let beats = modelled ? 48 * slope : 2 * Self.longestPeriod
        guard Double(now) - Double(latestArrival) > beats else { return false }
        lock = .lost
        inliers = 0
        suspects = 0
        if !modelled { pendingCount = 0 }
        return true
    }

    /// One Clock byte, stamped `time` (ns).
    public mutating func tick(at time: Int64) {
        ticks &+= 1
        latestArrival = max(latestArrival, time)
        guard modelled, base == nil else {
            gather(time)
            return
        }
        guard var k = index(near: Double(time)) else { return }
        if count < 24 {
            // A young line may be off by a good part of a period: count by the gap since the
            // last tick counted instead (+-25 % jitter makes gaps of 0.5 to 1.5 periods).
            let gap = Double(time - lastCounted) / slope
            guard gap >= 0.3 else { return }
            k = lastIndex + (gap < 1.75 ? 1 : Int64(gap.rounded()))
        }
        let residual = Double(time) - self.time(ofClock: k)
        // A young fit is less sure of its strip: more room while it has few ticks (never so
        // much that a tick a period off could pass).
        let tolerance = min(spread * (1 + 16 / Double(count)) + max(0.02 * slope, 300_000), 0.45 * slope)
        let off = abs(residual) > tolerance
        // A tick on an index already counted, where that clock was: a merger's second stream
        // or a reordered stamp.
        if k <= lastIndex && !off { return }
        guard k == lastIndex + 1 && !off else {
            suspect(time, index: k, kind: off ? (residual > 0 ? 1 : -1) : 0)
            return
        }
        if suspects > 0 {
            // Within an episode of outliers an arrival that fits the old line may be a new
            // tempo's, jittered onto it (at 25 % jitter a step from 120 to 100 BPM gives such):
            // it is kept for the recount, and only a run of them ends the episode.
            insertPending(time)
            inliersInEpisode += 1
            if inliersInEpisode >= Self.episodeEnd {
                suspects = 0
                pendingCount = 0
            }
        }
        lastIndex = k
        lastCounted = time
        append(k: k, t: time)
        fit()
        cutStaleTicks()
        inliers += 1
        updateLock()
    }

    /// A tick off the strip, on a counted index, or after a gap (a lost clock or a dropout,
    /// counted as the time elapsed says). Three in a row mean the tempo changed: the count
    /// goes on from the last tick before them, at the period they show.
    private mutating func suspect(_ time: Int64, index k: Int64, kind: Int) {
        if suspects == 0 {
            suspectBase = (lastIndex, lastCounted)
            pendingCount = 0
        }
        suspects += 1
        inliersInEpisode = 0
        insertPending(time)
        if k > lastIndex {
            lastIndex = k
            lastCounted = time
            if kind == 0 {
                append(k: k, t: time)
                fit()
            }
        }
        if kind != 0 {
            inliers = 0
            if lock == .locked { lock = .locking }
        } else {
            inliers += 1
            updateLock()
        }
        guard suspects >= Self.stepOutliers else { return }
        base = suspectBase
        suspects = 0
        lock = .locking
        seed()
    }

    private var newest: (k: Int64, t: Int64) {
        let i = (head + count - 1) % Self.capacity
        return (ks[i], ts[i])
    }

    private mutating func updateLock() {
        if uncertainty < 900_000 && inliers >= 12 {
            lock = .locked
        } else if lock != .locked || uncertainty > 1_000_000 {
            lock = .locking
        }
    }

    /// An arrival while (re)seeding: once enough distinct ones are in, the period is their
    /// median interval and each gets the index its interval says.
    private mutating func gather(_ time: Int64) {
        insertPending(time)
        if lock == .lost { lock = .locking }
        seed()
    }

    private mutating func insertPending(_ time: Int64) {
        if pendingCount == pending.count {
            for i in 1..<pendingCount { pending[i - 1] = pending[i] }
            pendingCount -= 1
        }
        // Sorted insert (a reordered stamp).
        var i = pendingCount
        while i > 0 && pending[i - 1] > time {
            pending[i] = pending[i - 1]
            i -= 1
        }
        pending[i] = time
        pendingCount += 1
    }

    private mutating func seed() {
        // Duplicates (closer than 0.3 of the upper quartile of the gaps: a merger's second
        // stream) dropped; kept arrivals overwrite the buffer's front (it only shrinks).
        guard let quartile = intervals(quantile: 0.75), quartile > 0 else { return }
        var keptCount = 0
        var last = base?.t
        // Against the base tick, at most 0.3 of the old period: after a step down to a quarter
        // of the tempo the first new clock comes one old period after it, a quarter of the new.
        let fromBase = modelled ? min(quartile, slope) : quartile
        for i in 0..<pendingCount {
            if let l = last, Double(pending[i] - l) < 0.3 * (keptCount == 0 && base != nil ? fromBase : quartile) { continue }
            pending[keptCount] = pending[i]
            keptCount += 1
            last = pending[i]
        }
        pendingCount = keptCount
        let needed = base == nil ? Self.seedCount : Self.stepOutliers + 1
        guard keptCount + (base == nil ? 0 : 1) >= needed, let median = intervals(quantile: 0.5) else { return }
        guard median >= Self.shortestPeriod, median <= Self.longestPeriod else {
            // Too fast or too slow to follow: keep looking at the newest arrivals.
            lock = .lost
            return
        }
        // A step's recount: each gap is one clock unless it is clearly longer than both the
        // old period and the new (the median of the newest gaps): the streak holds the old
        // tempo's gaps and the new's, and judged by one tempo alone the other's would count as
        // lost clocks (a step down) or be merged (a step up).
        let countPeriod = base != nil && modelled ? max(slope, newestMedianGap()) : median
        recount(keptCount, period: countPeriod, longGap: 1.75)
        fit()
        // A lost clock among the first few stretches the median gap it is judged by (six gaps,
        // one of them two periods, at +-15 % jitter: 1.70 medians, taken for one clock), and
        // the whole count is a clock off for good. Counted again by the fitted period (which
        // that error makes longer still, so a gap of one period never reads as two): kept
        // if the strip narrows.
        if slope >= Self.shortestPeriod {
            let firstSpread = spread / slope
            recount(keptCount, period: slope, longGap: 1.5)
            fit()
            if !(spread / slope < 0.8 * firstSpread) {
                recount(keptCount, period: countPeriod, longGap: 1.75)
                fit()
            }
        }
        base = nil
        pendingCount = 0
        modelled = true
        suspects = 0
        inliers = 0
        lock = .locking
    }

    /// The ring holds the `kept` pending arrivals, each counted from the one before (the base
    /// tick first) as one clock unless its gap is over `longGap` periods: lost clocks, rounded.
    private mutating func recount(_ kept: Int, period: Double, longGap: Double) {
        count = 0
        head = 0
        var k = base?.k ?? 0
        var prior = base?.t
        // The base tick counts the clocks on but stays out of the fit: it may be the old
        // tempo's last clock (a step down to half the tempo first reads as lost clocks, so the
        // streak begins on it), and one point off the new line would hold a minimax fit half
        // its distance off (5 ms at 240 -> 120 BPM) for the next 1024 clocks.
        for i in 0..<kept {
            if let p = prior {
                let gap = Double(pending[i] - p) / period
                k += gap > longGap ? Int64(gap.rounded()) : 1
            }
            append(k: k, t: pending[i])
            prior = pending[i]
        }
        lastIndex = k
        lastCounted = pending[kept - 1]
    }

    /// The median of the last three gaps between the pending arrivals (of two, their mean):
    /// the newest tempo's. Not the gap from the base tick: that one may span the step.
    private func newestMedianGap() -> Double {
        let n = pendingCount
        guard n >= 3 else { return 0 }
        let a = Double(pending[n - 1] - pending[n - 2])
        let b = Double(pending[n - 2] - pending[n - 3])
        guard n >= 4 else { return (a + b) / 2 }
        let c = Double(pending[n - 3] - pending[n - 4])
        return max(min(a, b), min(max(a, b), c))
    }

    /// The quantile of the gaps between the pending arrivals (and the base tick before them).
    private func intervals(quantile: Double) -> Double? {
        var gaps = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        return withUnsafeMutableBytes(of: &gaps) { raw -> Double? in
            let d = raw.bindMemory(to: Double.self)
            var n = 0
            var prior = base?.t
            for i in 0..<pendingCount {
                if let p = prior, n < d.count { d[n] = Double(pending[i] - p); n += 1 }
                prior = pending[i]
            }
            guard n > 0 else { return nil }
            for a in 1..<max(n, 1) {
                var b = a
                while b > 0 && d[b - 1] > d[b] { d.swapAt(b - 1, b); b -= 1 }
            }
            return d[min(n - 1, Int(Double(n) * quantile))]
        }
    }

    private mutating func append(k: Int64, t: Int64) {
        if count == Self.capacity {
            head = (head + 1) % Self.capacity
            count -= 1
        }
        let i = (head + count) % Self.capacity
        ks[i] = k
        ts[i] = t
        count += 1
    }

    /// The minimax line through the ring (see `minimax(newest:)`); a slope outside the tempos
    /// followed (random stamps) leaves the line as it was.
    private mutating func fit() {
        guard let line = minimax(newest: count),
              line.slope >= Self.shortestPeriod, line.slope <= Self.longestPeriod else { return }
        (originK, originT) = (line.originK, line.originT)
        slope = line.slope
        intercept = line.intercept
        spread = line.halfWidth
    }

    /// Ticks in the recent fit that watches the whole window's.
    static let recentTicks = 32
    /// The fewest ticks a window is cut to.
    static let fewestAfterCut = 12

    /// Cuts the window to its newest ticks when they no longer share its line. A tempo moved
    /// by less than the tolerance a tick (a wheel turned by 1 BPM moves 120 BPM's clock by
    /// 0.17 ms a tick) never leaves the strip: the fit tilts and widens with it, and the beats
    /// drift off by whole milliseconds while the count is right. A young tick far off (a late
    /// second clock) holds the line off by half its distance. Either way the whole window's
    /// strip is clearly wider than the newest ticks' (uniform jitter fills both alike): the
    /// window keeps the longest run of newest ticks that fits within the recent strip's width.
    private mutating func cutStaleTicks() {
        let recentCount = min(Self.recentTicks, count / 2)
        guard recentCount >= Self.fewestAfterCut, let recent = minimax(newest: recentCount) else { return }
        // Clearly wider, with the newest ticks pulled to one side, or far wider.
        guard spread > 2 * recent.halfWidth + 200_000
                || (spread > 1.5 * recent.halfWidth + 100_000 && newestLeaveTheMiddle()) else { return }
        let limit = 1.25 * recent.halfWidth + 50_000
        var fits = recentCount
        var tooMany = count
        while tooMany - fits > 1 {
            let middle = (fits + tooMany) / 2
            if let line = minimax(newest: middle), line.halfWidth <= limit { fits = middle } else { tooMany = middle }
        }
        head = (head + count - fits) % Self.capacity
        count = fits
        fit()
    }

    /// Whether the newest 4 ticks all lie in the same outer quarter of the strip: a tempo
    /// that moved pulls them all one way (uniform jitter puts 4 there by chance 1 time in 128).
    private func newestLeaveTheMiddle() -> Bool {
        guard count >= 4 else { return false }
        var above = 0
        var below = 0
        for j in (count - 4)..<count {
            let i = (head + j) % Self.capacity
            let residual = Double(ts[i]) - time(ofClock: ks[i])
            if residual > 0.5 * spread { above += 1 } else if residual < -0.5 * spread { below += 1 }
        }
        return above == 4 || below == 4
    }

    /// The minimax line through the newest `n` ticks of the ring. The strip's width W(s) =
    /// max over the upper hull of (y - s x) minus min over the lower hull is convex in the
    /// slope s: a ternary search on s, each W found by binary search on the hulls' edges (O(n)
    /// for the hulls, O(log n) a step, however many points lie near the line).
    private mutating func minimax(newest n: Int) -> (originK: Int64, originT: Int64, slope: Double, intercept: Double, halfWidth: Double)? {
        guard n >= 2, n <= count else { return nil }
        let first = (head + count - n) % Self.capacity
        let k0 = ks[first]
        let t0 = ts[first]
        var nu = 0
        var nl = 0
        for j in 0..<n {
            let i = (first + j) % Self.capacity
            let x = Double(ks[i] - k0)
            let y = Double(ts[i] - t0)
            while nu >= 2 && (ux[nu - 1] - ux[nu - 2]) * (y - uy[nu - 2]) - (uy[nu - 1] - uy[nu - 2]) * (x - ux[nu - 2]) >= 0 { nu -= 1 }
            ux[nu] = x
            uy[nu] = y
            nu += 1
            while nl >= 2 && (lx[nl - 1] - lx[nl - 2]) * (y - ly[nl - 2]) - (ly[nl - 1] - ly[nl - 2]) * (x - lx[nl - 2]) <= 0 { nl -= 1 }
            lx[nl] = x
            ly[nl] = y
            nl += 1
        }
        // The slope lies between the steepest and the flattest edge.
        var low = Double.infinity
        var high = -Double.infinity
        for e in 1..<nu { let s = (uy[e] - uy[e - 1]) / (ux[e] - ux[e - 1]); low = min(low, s); high = max(high, s) }
        for e in 1..<nl { let s = (ly[e] - ly[e - 1]) / (lx[e] - lx[e - 1]); low = min(low, s); high = max(high, s) }
        for _ in 0..<60 where high - low > 1e-9 * abs(high) {
            let a = low + (high - low) / 3
            let b = high - (high - low) / 3
            if strip(a, nu, nl).width <= strip(b, nu, nl).width { high = b } else { low = a }
        }
        let best = (low + high) / 2
        let (width, middle) = strip(best, nu, nl)
        guard best.isFinite, width.isFinite else { return nil }
        return (k0, t0, best, middle, width / 2)
    }

    /// The vertical width of the narrowest strip of slope `s` holding the points, and its middle at x = 0.
    private func strip(_ s: Double, _ nu: Int, _ nl: Int) -> (width: Double, middle: Double) {
        // Upper hull: edge slopes fall, y - s x rises while the edge is steeper than s.
        var lo = 0
        var hi = nu - 1
        while lo < hi {
            let m = (lo + hi) / 2
            if (uy[m + 1] - uy[m]) / (ux[m + 1] - ux[m]) > s { lo = m + 1 } else { hi = m }
        }
        let top = uy[lo] - s * ux[lo]
        // Lower hull: edge slopes rise, y - s x falls while the edge is flatter than s.
        lo = 0
        hi = nl - 1
        while lo < hi {
            let m = (lo + hi) / 2
            if (ly[m + 1] - ly[m]) / (lx[m + 1] - lx[m]) < s { lo = m + 1 } else { hi = m }
        }
        let bottom = ly[lo] - s * lx[lo]
        return (top - bottom, (top + bottom) / 2)
    }
}
