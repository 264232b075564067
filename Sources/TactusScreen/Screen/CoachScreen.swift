// SPDX-License-Identifier: GPL-3.0-or-later
import Coach
import TactusBase
import TactusInstrument

extension ScreenRenderer {
    /// The Coach page: the last hit as a needle on a scale of +-50 ms (early left, late
    /// right; ticks at 0, +-10, +-25), the running mean (rushing or dragging), SD and count,
    /// the shares within 10 and 25 ms, and one mark per bar along the bottom (up late, down
    /// early; a gap bar's mark is hollow).
    static func drawCoachPage(_ coach: CoachPanel, into bitmap: inout Bitmap) {
        let left = 26, right = 124
        let center = (left + right) / 2
        func x(_ ms: Double) -> Int { center + Int((max(-50, min(50, ms)) * Double(right - center) / 50).rounded()) }
        let s = coach.statistics
        // Row 5 (clear of the beat strip along the top edge): early, the last error, late.
        _ = SmallFont.draw("early", at: Point(left, 5), into: &bitmap)
        _ = SmallFont.draw("late", at: Point(right - SmallFont.width(of: "late") + 1, 5), into: &bitmap)
        SmallFont.draw(coach.last.map { Decimal1.signed($0) } ?? "--", centeredAt: center, y: 5, into: &bitmap)
        // The scale.
        let base = 22
        bitmap.fill(Rect(x: left, y: base, width: right - left + 1, height: 1))
        for (ms, height) in [(-50.0, 2), (-25, 3), (-10, 4), (0, 6), (10, 4), (25, 3), (50, 2)] {
            bitmap.fill(Rect(x: x(ms), y: base - height, width: 1, height: height))
        }
        if let error = coach.last {
            // The needle: a bar from the scale up, two pixels wide, with a head.
            let nx = x(error)
            bitmap.fill(Rect(x: nx - 1, y: 13, width: 2, height: base - 13))
            bitmap.fill(Rect(x: nx - 2, y: 13, width: 4, height: 2))
        }
        guard s.count > 0 else { return }
        let trend = abs(s.mean) < 0.05 ? "" : s.mean < 0 ? " rushing" : " dragging"
        _ = SmallFont.draw(SmallFont.fitting("mean \(Decimal1.signed(s.mean))\(trend)", maxWidth: right - left), at: Point(left, 25), into: &bitmap)
        _ = SmallFont.draw(SmallFont.fitting("SD \(Decimal1.plain(s.standardDeviation))  n \(s.count)", maxWidth: right - left),
                           at: Point(left, 34), into: &bitmap)
        let (p10, p25) = (Int((s.shareWithin10 * 100).rounded()), Int((s.shareWithin25 * 100).rounded()))
        var shares = "10ms \(p10)% 25ms \(p25)%"
        if SmallFont.width(of: shares) > right - left { shares = "10:\(p10)% 25:\(p25)%" }
        _ = SmallFont.draw(shares, at: Point(left, 43), into: &bitmap)
        // One mark per bar, 6 px apart, newest on the right: +-4 px for +-25 ms.
        let mid = 57
        for (i, mark) in coach.bars.reversed().enumerated() {
            let mx = right - 2 - i * 6
            guard mx >= left else { break }
            let offset = Int((max(-25, min(25, mark.mean)) / 25 * 4).rounded())
            let top = min(mid, mid - offset)
            let height = abs(offset) + 1
            if mark.gap {
                bitmap.fill(Rect(x: mx - 1, y: top, width: 3, height: 1))
                bitmap.fill(Rect(x: mx - 1, y: top + height - 1, width: 3, height: 1))
                bitmap.fill(Rect(x: mx - 1, y: top, width: 1, height: height))
                bitmap.fill(Rect(x: mx + 1, y: top, width: 1, height: height))
            } else {
                bitmap.fill(Rect(x: mx - 1, y: top, width: 3, height: height))
            }
        }
        bitmap.fill(Rect(x: left, y: mid, width: 1, height: 1))
    }
}
