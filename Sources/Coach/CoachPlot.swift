// SPDX-License-Identifier: GPL-3.0-or-later

/// `coach --plot`: the errors over time (one dot per hit, late up, early down, with the
/// +-10 and +-25 ms bands and the running mean) beside their histogram (1 ms bins), as SVG.
public enum CoachPlot {
    public static func svg(hits: [MatchedHit], sampleRate: Int, title: String, summary: String) -> String {
        let width = 960.0
        let height = 420.0
        let top = 56.0
        let bottom = height - 44
        let left = 60.0
        let right = 700.0
        let histLeft = 740.0
        let histRight = width - 20
        let errors = hits.map(\.errorMilliseconds)
        let largest = errors.map(abs).max() ?? 0
        // The y range: 30 ms, or the largest error rounded up to 10 ms.
        let span = max(30, ((largest + 0.5) / 10).rounded(.up) * 10)
        let times = hits.map { Double($0.sample) / Double(sampleRate) }
        let t0 = 0.0
        let t1 = max(times.max() ?? 1, 1) * 1.02
        func x(_ t: Double) -> Double { left + (t - t0) / (t1 - t0) * (right - left) }
        func y(_ ms: Double) -> Double { (top + bottom) / 2 - ms / span * (bottom - top) / 2 }
        func n(_ v: Double) -> String { Decimal1.fixed(v, decimals: 1) }

        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        s += "<text x=\"\(n(left))\" y=\"22\" font-size=\"16\" font-weight=\"bold\">\(escape(title))</text>\n"
        s += "<text x=\"\(n(left))\" y=\"42\" fill=\"#333\">\(escape(summary))</text>\n"
        // Bands: +-25 light, +-10 darker, the grid line.
        s += "<rect x=\"\(n(left))\" y=\"\(n(y(min(25, span))))\" width=\"\(n(right - left))\" height=\"\(n(y(-min(25, span)) - y(min(25, span))))\" fill=\"#eef6ee\"/>\n"
        s += "<rect x=\"\(n(left))\" y=\"\(n(y(10)))\" width=\"\(n(right - left))\" height=\"\(n(y(-10) - y(10)))\" fill=\"#d3ecd3\"/>\n"
        s += "<line x1=\"\(n(left))\" y1=\"\(n(y(0)))\" x2=\"\(n(right))\" y2=\"\(n(y(0)))\" stroke=\"#2a7a2a\" stroke-width=\"1.5\"/>\n"
        s += "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(right - left))\" height=\"\(n(bottom - top))\" fill=\"none\" stroke=\"#888\"/>\n"
        // Y ticks every 10 ms.
        var tick = -span
        while tick <= span {
            s += "<text x=\"\(n(left - 6))\" y=\"\(n(y(tick) + 4))\" text-anchor=\"end\" fill=\"#444\">\(tick > 0 ? "+" : "")\(Int(tick))</text>\n"
            tick += span > 60 ? 20 : 10
        }
        s += "<text x=\"16\" y=\"\(n((top + bottom) / 2))\" transform=\"rotate(-90 16 \(n((top + bottom) / 2)))\" text-anchor=\"middle\" fill=\"#444\">ms (late up, early down)</text>\n"
        // X ticks: about 8.
        let step = niceStep((t1 - t0) / 8)
        var t = 0.0
        while t <= t1 {
            s += "<line x1=\"\(n(x(t)))\" y1=\"\(n(bottom))\" x2=\"\(n(x(t)))\" y2=\"\(n(bottom + 4))\" stroke=\"#888\"/>"
            s += "<text x=\"\(n(x(t)))\" y=\"\(n(bottom + 18))\" text-anchor=\"middle\" fill=\"#444\">\(trimmed(t))</text>\n"
            t += step
        }
        s += "<text x=\"\(n((left + right) / 2))\" y=\"\(n(height - 8))\" text-anchor=\"middle\" fill=\"#444\">time in the take (s)</text>\n"
        // The running mean (rushing below, dragging above).
        if !hits.isEmpty {
            var mean = 0.0
            var path = ""
            for (i, e) in errors.enumerated() {
                mean += (e - mean) / Double(i + 1)
                path += (i == 0 ? "M" : " L") + "\(n(x(times[i]))) \(n(y(mean)))"
            }
            s += "<path d=\"\(path)\" fill=\"none\" stroke=\"#c05a00\" stroke-width=\"2\"/>\n"
        }
        for (i, e) in errors.enumerated() {
            let colour = abs(e) <= 10 ? "#1f5fbf" : abs(e) <= 25 ? "#d08a00" : "#c0182a"
            s += "<circle cx=\"\(n(x(times[i])))\" cy=\"\(n(y(e)))\" r=\"3\" fill=\"\(colour)\"/>\n"
        }
        s += "<text x=\"\(n(right - 4))\" y=\"\(n(top + 16))\" text-anchor=\"end\"><tspan fill=\"#1f5fbf\">● within 10 ms</tspan> <tspan fill=\"#d08a00\">● within 25 ms</tspan> <tspan fill=\"#c0182a\">● beyond</tspan> <tspan fill=\"#c05a00\">— running mean</tspan></text>\n"

        s += histogram(errors, span: span, left: histLeft, right: histRight, top: top, bottom: bottom, y: y)
        s += "</svg>\n"
        return s
    }

    /// The histogram: 2 ms bins (5 ms past 60 ms), bars sideways on the plot's ms axis.
    static func histogram(_ errors: [Double], span: Double, left histLeft: Double, right histRight: Double,
                          top: Double, bottom: Double, y: (Double) -> Double) -> String {
        func n(_ v: Double) -> String { Decimal1.fixed(v, decimals: 1) }
        var s = ""
        let bin = span > 60 ? 5.0 : 2.0
        let binCount = Int((2 * span / bin).rounded())
        var counts = [Int](repeating: 0, count: binCount)
        for e in errors {
            let k = min(binCount - 1, max(0, Int(((e + span) / bin).rounded(.down))))
            counts[k] += 1
        }
        let most = max(1, counts.max() ?? 1)
        s += "<rect x=\"\(n(histLeft))\" y=\"\(n(top))\" width=\"\(n(histRight - histLeft))\" height=\"\(n(bottom - top))\" fill=\"none\" stroke=\"#888\"/>\n"
        s += "<line x1=\"\(n(histLeft))\" y1=\"\(n(y(0)))\" x2=\"\(n(histRight))\" y2=\"\(n(y(0)))\" stroke=\"#2a7a2a\"/>\n"
        for (k, c) in counts.enumerated() where c > 0 {
            let low = -span + Double(k) * bin
            let w = Double(c) / Double(most) * (histRight - histLeft - 8)
            s += "<rect x=\"\(n(histLeft))\" y=\"\(n(y(low + bin)))\" width=\"\(n(w))\" height=\"\(n(max(1, y(low) - y(low + bin) - 0.5)))\" fill=\"#1f5fbf\"/>\n"
        }
        s += "<text x=\"\(n((histLeft + histRight) / 2))\" y=\"\(n(bottom + 18))\" text-anchor=\"middle\" fill=\"#444\">hits per \(Int(bin)) ms (most \(most))</text>\n"
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
