// SPDX-License-Identifier: GPL-3.0-or-later

/// How the box's own click reaches the input: a delay (the round trip) and a gain, fitted so
/// the click can be subtracted; then the click alone is never a hit and a hit on top of a
/// click is never lost.
public struct BleedFit: Sendable, Hashable {
    /// Input sample = output sample + lag.
    public var lag: Int
    public var gain: Float
    /// Clicks of `clickStarts` the input does not hold (recorded after the take ended, or
    /// played while the recording was paused): subtracting them would add a click.
    public var absentClicks: [Int] = []

    public init(lag: Int, gain: Float, absentClicks: [Int] = []) {
        self.lag = lag
        self.gain = gain
        self.absentClicks = absentClicks
    }

    /// The output with the absent clicks taken out (up to the next click), to subtract.
    public func reference(_ output: [Float], clickStarts: [Int]) -> [Float] {
        guard !absentClicks.isEmpty else { return output }
        var copy = output
        let starts = clickStarts.sorted()
        for s in absentClicks where s >= 0 && s < copy.count {
            let end = starts.first(where: { $0 > s }) ?? copy.count
            for i in s..<min(end, copy.count) { copy[i] = 0 }
        }
        return copy
    }

    /// Finds the lag in `lags` by cross-correlating the box's output with the input (a
    /// matched filter: every sample of every click in the first 5 s adds to the peak, while
    /// the hits, unrelated to the click's waveform, average out), by FFT. The gain is the
    /// median of the clicks' least-squares gains over their first 20 ms (a hit on top of one
    /// click moves the median little). nil when the input holds no copy of the click: the
    /// peak does not stand out, or the clicks' gains do not agree in sign.
    public static func estimate(input: [Float], output: [Float], clickStarts: [Int], sampleRate: Int,
                                lags: ClosedRange<Int>) -> BleedFit? {
        guard let first = clickStarts.filter({ $0 >= 0 && $0 < output.count }).min() else { return nil }
        let segment = min(1 << 18, output.count - first)
        let span = lags.count
        var size = 1
        while size < segment + span { size <<= 1 }
        var a = [Double](repeating: 0, count: 2 * size)
        var b = [Double](repeating: 0, count: 2 * size)
        for i in 0..<(segment + span) {
            let j = first + lags.lowerBound + i
            if j >= 0 && j < input.count { a[2 * i] = Double(input[j]) }
        }
        for i in 0..<segment { b[2 * i] = Double(output[first + i]) }
        FFT.transform(&a, inverse: false)
        FFT.transform(&b, inverse: false)
        for k in 0..<size {
            // a x conj(b)
            let (ar, ai, br, bi) = (a[2 * k], a[2 * k + 1], b[2 * k], b[2 * k + 1])
            a[2 * k] = ar * br + ai * bi
            a[2 * k + 1] = ai * br - ar * bi
        }
        FFT.transform(&a, inverse: true)
        var best = 0
        var magnitudes: [Double] = []
        magnitudes.reserveCapacity(span)
        for l in 0..<span {
            magnitudes.append(abs(a[2 * l]))
            if a[2 * l] > a[2 * best] { best = l }
        }
        guard a[2 * best] > 0, a[2 * best] > 6 * median(magnitudes) else { return nil }
        let bestLag: Int? = lags.lowerBound + best
        guard let bestLag else { return nil }
        let long = sampleRate / 50
        var gains: [Double] = []
        var clickGains: [(start: Int, gain: Double)] = []
        for s in clickStarts {
            let base = s + bestLag
            guard s >= 0, base >= 0, base + long <= input.count, s + long <= output.count else {
                clickGains.append((s, 0)) // outside the take
                continue
            }
            var xr = 0.0
            var rr = 0.0
            for m in 0..<long {
                let r = Double(output[s + m])
                xr += Double(input[base + m]) * r
                rr += r * r
            }
            if rr > 0 {
                gains.append(xr / rr)
                clickGains.append((s, xr / rr))
            }
        }
        guard !gains.isEmpty else { return nil }
        let gain = median(gains)
        let agreeing = gains.filter { $0 > 0 }.count
        guard gain > 0, Double(agreeing) >= 0.7 * Double(gains.count) else { return nil }
        let absent = clickGains.filter { $0.gain < 0.3 * gain }.map(\.start)
        return BleedFit(lag: bestLag, gain: Float(gain), absentClicks: absent)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let n = sorted.count
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
}

/// A whole take through the detector, as the capture thread would feed it (blocks of 128).
public enum TakeAnalysis {
    /// The first samples of the hits. `output`: the box's own output (mono) from its sample 0,
    /// which the input hears `bleed.lag` samples later at `bleed.gain`.
    public static func onsets(input: [Float], sampleRate: Int, output: [Float]? = nil, clickStarts: [Int] = [],
                              bleed: BleedFit? = nil, quantizationStep: Float = 0) -> [Int64] {
        hits(input: input, sampleRate: sampleRate, output: output, clickStarts: clickStarts, bleed: bleed,
             quantizationStep: quantizationStep).map(\.sample)
    }

    /// A hit found: its first sample, and whether it is a flam (one hit, at the main stroke).
    public struct Hit: Sendable, Hashable {
        public var sample: Int64
        public var flam: Bool
    }

    /// The hits, flams marked.
    public static func hits(input: [Float], sampleRate: Int, output: [Float]? = nil, clickStarts: [Int] = [],
                            bleed: BleedFit? = nil, quantizationStep: Float = 0) -> [Hit] {
        var found: [Hit] = []
        let output = output.map { bleed?.reference($0, clickStarts: clickStarts) ?? $0 }
        let detector = OnsetDetector(.init(sampleRate: sampleRate, bleedGain: bleed?.gain ?? 0, quantizationStep: quantizationStep))
        let block = 128
        var reference = [Float](repeating: 0, count: block)
        input.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                let count = min(block, all.count - start)
                let chunk = UnsafeBufferPointer(rebasing: all[start..<start + count])
                if let output, let bleed {
                    for i in 0..<count {
                        let j = start + i - bleed.lag
                        reference[i] = j >= 0 && j < output.count ? output[j] : 0
                    }
                    reference.withUnsafeBufferPointer { ref in
                        detector.process(chunk, reference: UnsafeBufferPointer(rebasing: ref[0..<count])) { s, _ in
                            found.append(Hit(sample: s, flam: detector.lastOnsetWasFlam))
                        }
                    }
                } else {
                    detector.process(chunk) { s, _ in found.append(Hit(sample: s, flam: detector.lastOnsetWasFlam)) }
                }
                start += count
            }
        }
        detector.finish { s, _ in found.append(Hit(sample: s, flam: detector.lastOnsetWasFlam)) }
        return found
    }
}

/// What a take is before its hits are looked for: its sample step, its DC offset, its
/// clipping. Pure arithmetic on the samples (the WAV's format is not needed).
public enum TakeInput {
    /// The step of an integer take (every sample a whole multiple of it: 1/32767 or 1/32768
    /// for 16 bits, as decoders scale either way; 8 and 24 bits likewise), or 0 for floating
    /// point. A float take passes a scale's test by chance with odds of 1 in 500 a sample.
    public static func quantizationStep(_ samples: [Float]) -> Float {
        for scale in [127, 128, 32767, 32768, 8_388_607, 8_388_608] as [Float] {
            var checked = 0
            var integral = true
            for x in samples where x != 0 {
                let scaled = x * scale
                if abs(scaled - scaled.rounded()) > 0.001 { integral = false; break }
                checked += 1
                if checked == 1 << 20 { break }
            }
            if integral && checked > 0 { return 1 / scale }
        }
        return 0
    }

    /// The mean of the take: a constant offset that hides strokes from the detector.
    public static func dcOffset(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for x in samples { sum += Double(x) }
        return sum / Double(samples.count)
    }

    /// A clipped take: every sample at full scale (how much clipped), and the first run of 3
    /// or more of them (one sample at full scale alone is a normalised peak, not clipping).
    public static func clipping(_ samples: [Float]) -> (count: Int, first: Int)? {
        var count = 0
        var first: Int?
        var run = 0
        for (i, x) in samples.enumerated() {
            guard abs(x) >= 0.9999 else { run = 0; continue }
            count += 1
            run += 1
            if run == 3 && first == nil { first = i - 2 }
        }
        return first.map { (count, $0) }
    }
}

/// An in-place radix-2 complex FFT over interleaved (re, im) pairs; the inverse is scaled by 1/n.
enum FFT {
    static func transform(_ data: inout [Double], inverse: Bool) {
        let n = data.count / 2
        guard n > 1 else { return }
        var j = 0
        for i in 0..<n - 1 {
            if i < j {
                data.swapAt(2 * i, 2 * j)
                data.swapAt(2 * i + 1, 2 * j + 1)
            }
            var m = n >> 1
            while m >= 1 && j & m != 0 { j ^= m; m >>= 1 }
            j |= m
        }
        var length = 2
        while length <= n {
            let sign = inverse ? 1.0 : -1.0
            // The twiddle step e^(sign 2 pi i / length).
            let stepRe = sine(0.25 + 1.0 / Double(length) - (1.0 / Double(length) > 0.75 ? 1 : 0))
            let stepIm = sign * sine(1.0 / Double(length))
            var start = 0
            while start < n {
                var wRe = 1.0
                var wIm = 0.0
                for k in 0..<length / 2 {
                    let u = start + k
                    let v = u + length / 2
                    let tRe = data[2 * v] * wRe - data[2 * v + 1] * wIm
                    let tIm = data[2 * v] * wIm + data[2 * v + 1] * wRe
                    data[2 * v] = data[2 * u] - tRe
                    data[2 * v + 1] = data[2 * u + 1] - tIm
                    data[2 * u] += tRe
                    data[2 * u + 1] += tIm
                    (wRe, wIm) = (wRe * stepRe - wIm * stepIm, wRe * stepIm + wIm * stepRe)
                }
                start += length
            }
            length <<= 1
        }
        if inverse {
            let scale = 1.0 / Double(n)
            for i in data.indices { data[i] *= scale }
        }
    }
}
