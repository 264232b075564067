// SPDX-License-Identifier: GPL-3.0-or-later
import Coach

/// What the Coach page shows (Menu > Coach): the last hit's error, the running figures of
/// the session (mean: rushing or dragging; SD; shares within 10 and 25 ms) and a mark per
/// bar, gap bars too, so the drift with no click shows. A short push resets it.
public struct CoachPanel: Sendable, Hashable {
    /// One bar's hits: their mean error, and whether the bar was a gap (muted) bar.
    public struct BarMark: Sendable, Hashable {
        public var bar: Int64
        public var sum: Double
        public var count: Int
        public var gap: Bool
        public var mean: Double { count > 0 ? sum / Double(count) : 0 }
    }

    /// Bars the page keeps marks for (the newest on the right).
    public static let barsShown = 16

    public private(set) var statistics = CoachStatistics()
    public private(set) var last: Double?
    public private(set) var bars: [BarMark] = []

    public init() {}

    public mutating func add(errorMilliseconds error: Double, bar: Int64, gap: Bool) {
        statistics.add(error)
        last = error
        if let i = bars.lastIndex(where: { $0.bar == bar }) {
            bars[i].sum += error
            bars[i].count += 1
            bars[i].gap = bars[i].gap || gap
        } else {
            bars.append(BarMark(bar: bar, sum: error, count: 1, gap: gap))
            if bars.count > CoachPanel.barsShown { bars.removeFirst(bars.count - CoachPanel.barsShown) }
        }
    }

    public mutating func reset() { self = CoachPanel() }
}
