// SPDX-License-Identifier: GPL-3.0-or-later

/// `coach --plot`, as SVG: the errors over time (one dot per hit, late up, early down, with
/// the +-10 and +-25 ms bands and the running mean) beside their histogram (2 ms bins), and
/// under them the errors by place in the bar (one column per beat and subdivision, with the
/// column's mean), so rushed off-beats show at a glance. The legend sits above the data.
public enum CoachPlot {
    /// Where the panels go and the shared ms axis.
    struct Frame {
        let width = 960.0
        let height = 720.0
        let top = 66.0
        let bottom = 366.0
        let left = 60.0
        let right = 700.0
        let histLeft = 740.0
        var histRight: Double { width - 20 }
        let placeTop = 420.0
        let placeBottom = 670.0
        /// The ms range shown either side of 0: 30, or the largest error rounded up to 10.
        let span: Double

        init(errors: [Double]) {
            let largest = errors.map(abs).max() ?? 0
            span = max(30, ((largest + 0.5) / 10).rounded(.up) * 10)
        }

        /// The ms axis of the panel between `top` and `bottom`.
        func y(_ ms: Double, top: Double, bottom: Double) -> Double { (top + bottom) / 2 - ms / span * (bottom - top) / 2 }
        func y(_ ms: Double) -> Double { y(ms, top: top, bottom: bottom) }
    }

    static func n(_ v: Double) -> String { Decimal1.fixed(v, decimals: 1) }

    static func colour(_ error: Double) -> String { abs(error) <= 10 ? "#1f5fbf" : abs(error) <= 25 ? "#d08a00" : "#c0182a" }

    public static func svg(hits: [MatchedHit], sampleRate: Int, title: String, summary: String) -> String {
        let errors = hits.map(\.errorMilliseconds)
        let frame = Frame(errors: errors)
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(frame.width))\" height=\"\(Int(frame.height))\" viewBox=\"0 0 \(Int(frame.width)) \(Int(frame.height))\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        s += "<text x=\"\(n(frame.left))\" y=\"22\" font-size=\"16\" font-weight=\"bold\">\(escape(title))</text>\n"
        s += "<text x=\"\(n(frame.left))\" y=\"42\" fill=\"#333\">\(escape(summary))</text>\n"
        // The legend above the plot, never over its points.
        s += "<text x=\"\(n(frame.right))\" y=\"\(n(frame.top - 8))\" text-anchor=\"end\"><tspan fill=\"#1f5fbf\">● within 10 ms</tspan> <tspan fill=\"#d08a00\">● within 25 ms</tspan> <tspan fill=\"#c0182a\">● beyond</tspan> <tspan fill=\"#c05a00\">— running mean</tspan></text>\n"
        s += overTime(hits, sampleRate: sampleRate, frame: frame)
        s += histogram(errors, frame: frame)
        s += byPlace(hits, frame: frame)
        s += "</svg>\n"
        return s
    }

    /// The ms axis, its bands and its ticks for the panel from `top` to `bottom`.
    static func axis(_ frame: Frame, top: Double, bottom: Double, left: Double, right: Double) -> String {
        func y(_ ms: Double) -> Double { frame.y(ms, top: top, bottom: bottom) }
        let band = min(25, frame.span)
        var s = "<rect x=\"\(n(left))\" y=\"\(n(y(band)))\" width=\"\(n(right - left))\" height=\"\(n(y(-band) - y(band)))\" fill=\"#eef6ee\"/>\n"
        s += "<rect x=\"\(n(left))\" y=\"\(n(y(10)))\" width=\"\(n(right - left))\" height=\"\(n(y(-10) - y(10)))\" fill=\"#d3ecd3\"/>\n"
        s += "<line x1=\"\(n(left))\" y1=\"\(n(y(0)))\" x2=\"\(n(right))\" y2=\"\(n(y(0)))\" stroke=\"#2a7a2a\" stroke-width=\"1.5\"/>\n"
        s += "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(right - left))\" height=\"\(n(bottom - top))\" fill=\"none\" stroke=\"#888\"/>\n"
        var tick = -frame.span
        while tick <= frame.span {
            s += "<text x=\"\(n(left - 6))\" y=\"\(n(y(tick) + 4))\" text-anchor=\"end\" fill=\"#444\">\(tick > 0 ? "+" : "")\(Int(tick))</text>\n"
            tick += frame.span > 60 ? 20 : 10
        }
        s += "<text x=\"16\" y=\"\(n((top + bottom) / 2))\" transform=\"rotate(-90 16 \(n((top + bottom) / 2)))\" text-anchor=\"middle\" fill=\"#444\">ms (late up, early down)</text>\n"
        return s
    }

    /// Each hit over the take's time, and the running mean (rushing below, dragging above).
    static func overTime(_ hits: [MatchedHit], sampleRate: Int, frame: Frame) -> String {
        let times = hits.map { Double($0.sample) / Double(sampleRate) }
        let t1 = max(times.max() ?? 1, 1) * 1.02
        func x(_ t: Double) -> Double { frame.left + t / t1 * (frame.right - frame.left) }
        var s = axis(frame, top: frame.top, bottom: frame.bottom, left: frame.left, right: frame.right)
        let step = niceStep(t1 / 8)
        var t = 0.0
        while t <= t1 {
            s += "<line x1=\"\(n(x(t)))\" y1=\"\(n(frame.bottom))\" x2=\"\(n(x(t)))\" y2=\"\(n(frame.bottom + 4))\" stroke=\"#888\"/>"
            s += "<text x=\"\(n(x(t)))\" y=\"\(n(frame.bottom + 18))\" text-anchor=\"middle\" fill=\"#444\">\(trimmed(t))</text>\n"
            t += step
        }
        s += "<text x=\"\(n((frame.left + frame.right) / 2))\" y=\"\(n(frame.bottom + 34))\" text-anchor=\"middle\" fill=\"#444\">time in the take (s)</text>\n"
        s += "<g id=\"over-time\">\n"
        if !hits.isEmpty {
            var mean = 0.0
            var path = ""
            for (i, hit) in hits.enumerated() {
                mean += (hit.errorMilliseconds - mean) / Double(i + 1)
                path += (i == 0 ? "M" : " L") + "\(n(x(times[i]))) \(n(frame.y(mean)))"
            }
            s += "<path d=\"\(path)\" fill=\"none\" stroke=\"#c05a00\" stroke-width=\"2\"/>\n"
        }
        for (i, hit) in hits.enumerated() {
            s += "<circle cx=\"\(n(x(times[i])))\" cy=\"\(n(frame.y(hit.errorMilliseconds)))\" r=\"3\" fill=\"\(colour(hit.errorMilliseconds))\"/>\n"
        }
        return s + "</g>\n"
    }

    /// The histogram: 2 ms bins, bars sideways on the plot's ms axis.
    static func histogram(_ errors: [Double], frame: Frame) -> String {
        let bin = 2.0
        let binCount = Int((2 * frame.span / bin).rounded())
        var counts = [Int](repeating: 0, count: binCount)
        for e in errors {
            let k = min(binCount - 1, max(0, Int(((e + frame.span) / bin).rounded(.down))))
            counts[k] += 1
        }
        let most = max(1, counts.max() ?? 1)
        let (histLeft, histRight) = (frame.histLeft, frame.histRight)
        var s = "<rect x=\"\(n(histLeft))\" y=\"\(n(frame.top))\" width=\"\(n(histRight - histLeft))\" height=\"\(n(frame.bottom - frame.top))\" fill=\"none\" stroke=\"#888\"/>\n"
        s += "<line x1=\"\(n(histLeft))\" y1=\"\(n(frame.y(0)))\" x2=\"\(n(histRight))\" y2=\"\(n(frame.y(0)))\" stroke=\"#2a7a2a\"/>\n"
        for (k, c) in counts.enumerated() where c > 0 {
            let low = -frame.span + Double(k) * bin
            let w = Double(c) / Double(most) * (histRight - histLeft - 8)
            s += "<rect x=\"\(n(histLeft))\" y=\"\(n(frame.y(low + bin)))\" width=\"\(n(w))\" height=\"\(n(max(1, frame.y(low) - frame.y(low + bin) - 0.5)))\" fill=\"#1f5fbf\"/>\n"
        }
        s += "<text x=\"\(n((histLeft + histRight) / 2))\" y=\"\(n(frame.bottom + 18))\" text-anchor=\"middle\" fill=\"#444\">hits per \(Int(bin)) ms (most \(most))</text>\n"
        return s
    }

    /// Each hit at its place in the bar: one column per grid position (the beat's number over
    /// its first, a dot over its subdivisions), the hits of all bars in it and their mean.
    static func byPlace(_ hits: [MatchedHit], frame: Frame) -> String {
        let (top, bottom, left, right) = (frame.placeTop, frame.placeBottom, frame.left, frame.histRight)
        var s = "<text x=\"\(n(left))\" y=\"\(n(top - 12))\" font-weight=\"bold\" fill=\"#333\">By place in the bar</text>\n"
        s += axis(frame, top: top, bottom: bottom, left: left, right: right)
        let columns = (hits.map(\.point.index).max() ?? 0) + 1
        let width = (right - left) / Double(columns)
        func x(_ column: Int) -> Double { left + (Double(column) + 0.5) * width }
        var beatOfColumn = [Int?](repeating: nil, count: columns)
        for hit in hits where hit.point.index >= 0 { beatOfColumn[hit.point.index] = hit.point.beat }
        for column in 0..<columns {
            let firstOfBeat = column == 0 || beatOfColumn[column] != beatOfColumn[column - 1]
            let label = firstOfBeat ? beatOfColumn[column].map { "\($0 + 1)" } ?? "" : "·"
            s += "<text x=\"\(n(x(column)))\" y=\"\(n(bottom + 18))\" text-anchor=\"middle\" fill=\"#444\"\(firstOfBeat ? " font-weight=\"bold\"" : "")>\(label)</text>\n"
        }
        s += "<text x=\"\(n((left + right) / 2))\" y=\"\(n(bottom + 36))\" text-anchor=\"middle\" fill=\"#444\">beat (number) and subdivision (dot) in the bar</text>\n"
        s += "<g id=\"by-place\">\n"
        var sums = [(total: Double, count: Int)](repeating: (0, 0), count: columns)
        for (i, hit) in hits.enumerated() where hit.point.index >= 0 {
            // Spread across the column by order, so hits with the same error stay visible.
            let spread = (Double((i * 7) % 11) / 10 - 0.5) * min(width * 0.5, 24)
            let e = hit.errorMilliseconds
            s += "<circle cx=\"\(n(x(hit.point.index) + spread))\" cy=\"\(n(frame.y(e, top: top, bottom: bottom)))\" r=\"2.5\" fill=\"\(colour(e))\" fill-opacity=\"0.7\"/>\n"
            sums[hit.point.index].total += e
            sums[hit.point.index].count += 1
        }
        s += "</g>\n"
        for (column, sum) in sums.enumerated() where sum.count > 0 {
            let y = frame.y(sum.total / Double(sum.count), top: top, bottom: bottom)
            s += "<line x1=\"\(n(x(column) - width * 0.35))\" y1=\"\(n(y))\" x2=\"\(n(x(column) + width * 0.35))\" y2=\"\(n(y))\" stroke=\"#c05a00\" stroke-width=\"2.5\"/>\n"
        }
        return s
    }

    static func niceStep(_ raw: Double) -> Double {
        var unit = 0.001
        while unit * 10 <= raw { unit *= 10 }
        for m in [1.0, 2, 5, 10] where unit * m >= raw { return unit * m }
        return unit * 10
    }

    static func trimmed(_ v: Double) -> String {
        var text = Decimal1.fixed(v, decimals: 3)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
