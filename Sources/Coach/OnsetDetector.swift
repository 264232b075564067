// SPDX-License-Identifier: GPL-3.0-or-later

/// Finds the first sample of each hit's sound in a stream of input blocks: the coach's ears.
///
/// Two stages, both on the residual after the box's own click is taken out (`reference`,
/// the click as the input hears it, times `bleedGain`):
/// 1. detection on 0.5 ms frames: the energy of the last 1 ms (a strong hit) or 4 ms (a soft
///    hit on the tail of a loud one) rises well above the 8 ms before it and above the
///    noise floor;
/// 2. refinement to the sample: over a window around the detection, the point that splits
///    it best into a quieter "before" and a louder "after" (the maximum-likelihood change of
///    variance), so the estimate does not lag like a feature's peak does.
///
/// Every buffer is allocated in `init`: `process` never allocates, locks or logs, so it runs
/// on the capture thread.
public final class OnsetDetector {
    public struct Configuration: Sendable, Hashable {
        public var sampleRate: Int
        /// The box's click in the input = reference x bleedGain (fitted by `BleedFit` or the calibration).
        public var bleedGain: Float
        /// Hits closer than this to the previous hit are one hit (seconds).
        public var minimumGap: Double
        /// The input's sample step (1/32768 for 16-bit), 0 for floating point: the noise floor
        /// never goes below its quantization noise, so what is left of a subtracted click in
        /// a 16-bit take (its rounding, in digital silence) is never a hit.
        public var quantizationStep: Float
        public init(sampleRate: Int, bleedGain: Float = 0, minimumGap: Double = 0.025, quantizationStep: Float = 0) {
            self.sampleRate = sampleRate
            self.bleedGain = bleedGain
            self.minimumGap = minimumGap
            self.quantizationStep = quantizationStep
        }
    }

    public let configuration: Configuration
    /// Input samples consumed so far: the sample index of the next block's first sample.
    public private(set) var position: Int64 = 0

    // Residual energy per sample (y^2), the last `historyMask + 1` samples.
    private let energy: UnsafeMutablePointer<Double>
    private let historyMask: Int
    // Frame energies (sums over `frameLength` samples), the last `frameMask + 1` frames.
    private let frames: UnsafeMutablePointer<Double>
    private let frameMask: Int
    private let frameLength: Int
    private var frameSum: Double = 0
    private var frameFill = 0
    private var frameCount: Int64 = 0
    // Prefix sums over the refinement window (scratch, sized once).
    private let prefix: UnsafeMutablePointer<Double>
    private let prefixCapacity: Int

    // Noise floor: mean energy per sample of quiet 10 ms blocks; follows down at once and
    // up slowly (+3 dB a second), so a dense passage cannot lift it to the hits' level.
    private var blockSum: Double = 0
    private var blockFrames = 0
    private let blockFramesTarget: Int
    private var floor: Double = .infinity
    private let floorRise: Double
    /// The least noise floor: the quantization noise's energy per sample (step^2 / 12).
    private let leastFloor: Double

    // A detection waiting for enough samples after it to be refined.
    private var pendingDetection: Int64 = -1
    private var lastOnset: Int64 = Int64.min / 2
    private var holdUntil: Int64 = 0

    private let shortFrames = 2      // 1 ms
    private let longFrames = 8       // 4 ms
    private let backgroundFrames = 16 // 8 ms, ending where the long window starts
    private let searchBefore: Int    // samples before the detection the onset may lie
    private let windowBefore: Int    // refinement window before the detection
    private let windowAfter: Int     // and after it
    private let gapSamples: Int64

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        let rate = configuration.sampleRate
        frameLength = max(4, rate / 2000)
        var history = 1
        while history < rate / 8 { history <<= 1 }        // 125 ms or more
        historyMask = history - 1
        energy = .allocate(capacity: history)
        energy.initialize(repeating: 0, count: history)
        frameMask = 63 // 32 ms: the longest look back is 18 ms
        frames = .allocate(capacity: frameMask + 1)
        frames.initialize(repeating: 0, count: frameMask + 1)
        searchBefore = rate * 5 / 1000
        windowBefore = rate * 12 / 1000
        windowAfter = rate * 3 / 1000
        prefixCapacity = windowBefore + windowAfter + 2
        prefix = .allocate(capacity: prefixCapacity)
        prefix.initialize(repeating: 0, count: prefixCapacity)
        blockFramesTarget = 20
        // 10 ms blocks: +3 dB/s is a factor 2^(1/100) per block.
        floorRise = 1.006955
        let step = Double(configuration.quantizationStep)
        leastFloor = max(1e-12, step * step / 12)
        gapSamples = Int64(configuration.minimumGap * Double(rate))
    }

    deinit {
        energy.deallocate()
        frames.deallocate()
        prefix.deallocate()
    }

    /// One block of input, and the same span of the click as the input hears it (or nil).
    /// `onset` is called with the first sample of each hit's sound (input sample index) and
    /// its level (mean energy per sample just after it), about 3 ms after the detection.
    @inline(__always)
    public func process(_ input: UnsafeBufferPointer<Float>, reference: UnsafeBufferPointer<Float>? = nil,
                        onset: (Int64, Double) -> Void) {
        let gain = configuration.bleedGain
        for i in 0..<input.count {
            var y = input[i]
            if let reference, gain != 0 { y -= gain * reference[i] }
            let p = Double(y) * Double(y)
            energy[Int(position) & historyMask] = p
            position += 1
            frameSum += p
            frameFill += 1
            if frameFill == frameLength { endFrame() }
            if pendingDetection >= 0 && position >= pendingDetection + Int64(windowAfter) {
                refine(onset)
            }
        }
    }

    /// Reports a detection still waiting for samples after it (the end of a take).
    public func finish(onset: (Int64, Double) -> Void) {
        if pendingDetection >= 0 { refine(onset) }
    }

    private func endFrame() {
        frames[Int(frameCount) & frameMask] = frameSum
        frameCount += 1
        blockSum += frameSum
        blockFrames += 1
        frameSum = 0
        frameFill = 0
        if blockFrames == blockFramesTarget {
            let mean = blockSum / Double(blockFrames * frameLength)
            floor = min(floor * floorRise, max(mean, leastFloor))
            blockSum = 0
            blockFrames = 0
        }
        guard pendingDetection < 0, position >= holdUntil,
              frameCount >= Int64(2 * longFrames + 20) else { return }
        let short = meanOfFrames(from: 0, count: shortFrames)
        let long = meanOfFrames(from: 0, count: longFrames)
        let background = meanOfFrames(from: longFrames, count: backgroundFrames)
        let quiet = max(floor.isFinite ? floor : background, leastFloor)
        // A low tone's energy ripples with half its period (10 ms at 50 Hz): a soft rise
        // must also top every 4 ms window of the 10 ms before, or a kick's crests are hits.
        var ripple = 0.0
        var skip = longFrames
        while skip <= longFrames + 20 {
            ripple = max(ripple, meanOfFrames(from: skip, count: longFrames))
            skip += 2
        }
        let strong = short > 6 * background && short > 8 * quiet
        let soft = long > 1.45 * background && long > 1.2 * ripple && long > 8 * quiet
        if strong || soft { pendingDetection = position }
    }

    /// Mean energy per sample of `count` frames, the newest `skip` frames left out.
    @inline(__always)
    private func meanOfFrames(from skip: Int, count: Int) -> Double {
        var sum = 0.0
        for k in 0..<count { sum += frames[Int(frameCount - 1 - Int64(skip + k)) & frameMask] }
        return sum / Double(count * frameLength)
    }

    private func refine(_ onset: (Int64, Double) -> Void) {
        let detection = pendingDetection
        pendingDetection = -1
        let end = min(position, detection + Int64(windowAfter))
        let start = max(max(0, end - Int64(historyMask)), detection - Int64(windowBefore))
        let n = Int(end - start)
        guard n > 8 else { return }
        prefix[0] = 0
        for k in 0..<n { prefix[k + 1] = prefix[k] + energy[Int(start + Int64(k)) & historyMask] }
        // The split point o (window index) maximizing the likelihood of two variances.
        let lowest = max(4, Int(detection - Int64(searchBefore) - start), Int(lastOnset + gapSamples - start))
        let highest = min(n - 4, Int(detection - start))
        guard lowest <= highest else { holdUntil = detection + 1; return }
        var best = -1
        var bestCost = Double.infinity
        var bestRatio = 0.0
        for o in lowest...highest {
            let before = max(prefix[o] / Double(o), 1e-30)
            let after = max((prefix[n] - prefix[o]) / Double(n - o), 1e-30)
            guard after > before else { continue }
            let cost = Double(o) * naturalLog(before) + Double(n - o) * naturalLog(after)
            if cost < bestCost { (bestCost, best, bestRatio) = (cost, o, after / before) }
        }
        guard best >= 0 else { return }
        let total = max(prefix[n] / Double(n), 1e-30)
        let gain = Double(n) * naturalLog(total) - bestCost
        let after = (prefix[n] - prefix[best]) / Double(n - best)
        let quiet = max(floor.isFinite ? floor : 0, leastFloor)
        guard bestRatio > 1.8, gain > 12, after > 8 * quiet else { return }
        let sample = start + Int64(best)
        lastOnset = sample
        holdUntil = sample + gapSamples
        onset(sample, after)
    }
}

// Natural logarithm without Foundation: frexp-style split and a short series; accurate to
// about 1e-12, far more than a likelihood comparison needs.
@inline(__always)
func naturalLog(_ x: Double) -> Double {
    guard x > 0, x.isFinite else { return x == 0 ? -.infinity : .nan }
    let exponent = Double(x.exponent)
    let m = x.significand // 1 <= m < 2
    // ln(m) = 2 atanh((m - 1) / (m + 1))
    let z = (m - 1) / (m + 1)
    let z2 = z * z
    var term = z
    var sum = 0.0
    var k = 1.0
    while k < 40 {
        sum += term / k
        term *= z2
        k += 2
    }
    return 2 * sum + exponent * 0.6931471805599453
}
