// SPDX-License-Identifier: GPL-3.0-or-later
/// Band-limited sample-rate conversion, done once when a sound is loaded (never on the
/// render thread).
///
/// Windowed sinc with a Kaiser window (beta 9, about 90 dB stopband). The cutoff follows
/// the lower of the two rates: measured in that rate, the passband runs to 0.45 of it
/// (flat within 0.001 dB), the stopband starts just below 0.5 (its Nyquist frequency), so
/// nothing aliases. The kernel spans 64 periods of the lower rate on each side.
///
/// Output sample k sits exactly at input position k * from / to: the ratio is reduced to
/// integers L / M and the position is computed as the integer k * M split into a whole
/// part and a remainder over L, so no error accumulates along the clip.
///
/// Length rule: one output for every exact position inside the input, that is every k with
/// k * from / to < n, so `outputCount(n, from, to) = ceil(n * to / from)`. The kernel's
/// ringing beyond the last input sample is not kept (clips end in silence anyway).
public enum Resampler {
    /// Kernel half-width in periods of the lower rate.
    public static let halfWidth = 64
    /// Cutoff (centre of the transition band) as a fraction of the lower rate.
    public static let cutoff = 0.475
    /// Kaiser window shape: about 90 dB of stopband attenuation.
    public static let kaiserBeta = 9.0

    public static func outputCount(inputCount n: Int, from: Int, to: Int) -> Int {
        precondition(from > 0 && to > 0, "Resampler: rates must be positive")
        let g = gcd(from, to)
        let (l, m) = (to / g, from / g)
        return (n * l + m - 1) / m
    }

    public static func resample(_ mono: [Float], from: Int, to: Int) -> [Float] {
        precondition(from > 0 && to > 0, "Resampler: rates must be positive (\(from) -> \(to))")
        if from == to || mono.isEmpty { return mono }
        let g = gcd(from, to)
        let (l, m) = (to / g, from / g)
        let n = mono.count
        let count = outputCount(inputCount: n, from: from, to: to)
        // Kernel time is measured in periods of the lower rate: one input sample is `step`
        // of them (1 when upsampling). Downsampling widens the kernel over the input by
        // 1 / step and its sum by the same factor, so the output is scaled by `step`.
        let step = Double(min(from, to)) / Double(from)
        let reach = Int((Double(halfWidth) / step).rounded(.up))
        let table = kernelTable
        let scale = Double(tableOversampling)
        var out = [Float](repeating: 0, count: count)
        mono.withUnsafeBufferPointer { x in
            table.withUnsafeBufferPointer { h in
                for k in 0..<count {
                    let position = k * m                 // exact: input index * L
                    let whole = position / l
                    let fraction = Double(position - whole * l) / Double(l)
                    let first = max(0, whole - reach + 1)
                    let last = min(n - 1, whole + reach)
                    var sum = 0.0
                    if first <= last {
                        for i in first...last {
                            let t = abs((Double(i - whole) - fraction) * step) * scale
                            let j = Int(t)
                            if j >= tableOversampling * halfWidth { continue }
                            let f = t - Double(j)
                            sum += Double(x[i]) * (h[j] + f * (h[j + 1] - h[j]))
                        }
                    }
                    out[k] = Float(sum * step)
                }
            }
        }
        return out
    }

    /// Table points per lower-rate period; linear interpolation between them keeps the
    /// kernel's error below 1e-7 per tap, well under the window's stopband.
    static let tableOversampling = 4096

    /// h(t) = 2 fc sinc(2 fc t) * Kaiser(t / halfWidth) for t = 0, 1/4096 ... halfWidth,
    /// plus one zero so interpolation at the last point stays in bounds. Built on first use.
    static let kernelTable: [Double] = {
        let points = tableOversampling * halfWidth
        let window = SoundMath.besselI0(kaiserBeta)
        var table = [Double](repeating: 0, count: points + 2)
        for j in 0..<points {
            let t = Double(j) / Double(tableOversampling)
            let u = t / Double(halfWidth)
            let w = SoundMath.besselI0(kaiserBeta * (1 - u * u).squareRoot()) / window
            let x = 2 * cutoff * t
            let sinc = x == 0 ? 1 : SoundMath.sin(Double.pi * x) / (Double.pi * x)
            table[j] = 2 * cutoff * sinc * w
        }
        return table
    }()

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}
