// SPDX-License-Identifier: GPL-3.0-or-later

/// Finds the first sample of each hit's sound in a stream of input blocks: the coach's ears.
///
/// Three stages, all on the residual after the box's own click is taken out (`reference`,
/// the click as the input hears it, times `bleedGain`):
/// 1. candidates on 0.5 ms frames: the energy of the last 1 ms (a strong hit) or 4 ms (a soft
///    hit on the tail of a loud one) rises above the 8 ms before it and above the noise floor;
/// 2. a linear predictor fitted to the sound just before the candidate: a drum's ring, a
///    cymbal's wash, a cowbell's decay or a reverb tail goes on as it was and is predicted,
///    a new stroke is not. A candidate is a hit only if the prediction error after it rises
///    far above the error before it (novelty, not level), so a ring is never a hit and a
///    ghost note under another drum's ring still is;
///    When the whole band shows nothing new, the same is asked of the high band alone (the
///    residual's second difference): a hi-hat or ride under loud noise rises only there;
///    and when neither does, over noise or a cymbal's wash a smaller rise that holds for 2 ms
///    (a soft crash on the wash of a loud one). A candidate's search reaches back to where
///    the last empty one stopped, so a soft stroke noticed late is still searched;
/// 3. the onset is the first sample of that rise in the prediction error, walked back to
///    where the error leaves its own floor (the true start is the stroke's first sample
///    above -60 dB of its peak: in quiet, the very first rise), or where the high band's
///    error rose first just before it (a stick on its own drum's ring).
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

    // The residual (input minus click), the last `historyMask + 1` samples.
    private let signal: UnsafeMutablePointer<Double>
    // The subtracted click's energy per sample (gain x reference, squared), alongside: what is
    // left of it after an imperfect subtraction is no stroke.
    private let clickEnergy: UnsafeMutablePointer<Double>
    private let historyMask: Int
    // The high band: the residual's second difference (+12 dB an octave; -5 dB at 6 kHz, -35 dB
    // at 1 kHz at 48 kHz). A hi-hat or a ride in loud noise, or a cymbal on its own wash, rises
    // there when the whole band does not.
    private var high: OnsetBand
    // The floor of the prediction error `rise` measured over (its fit's error).
    private var errorBase: Double = 0
    // The level a rise in that error is judged over (`rise`).
    private var errorJudged: Double = 0
    // The input sample `error[0]` belongs to, and how many values `rise` left there.
    private var errorStart: Int64 = 0
    private var errorCount = 0
    // Where `rise` found its error first clearly up, before walking back.
    private var riseFirst = 0
    // Frame energies (sums over `frameLength` samples), the last `frameMask + 1` frames.
    private let frames: UnsafeMutablePointer<Double>
    private let frameMask: Int
    private let frameLength: Int
    private var frameSum: Double = 0
    private var frameFill = 0
    private var frameCount: Int64 = 0

    // The predictor: coefficients, autocorrelation and Levinson scratch, and the squared
    // prediction error over the search and confirmation span (all sized once).
    private let order = 16
    // The share of the click's energy its subtraction may leave (a gain 10 % off).
    private let clickResidual = 0.01
    private let coefficients: UnsafeMutablePointer<Double>
    // The live predictor, refitted every 2 ms on the 8 ms before: its error, per frame, finds
    // candidates the level cannot (a ghost note under a kick's ring), and the error's floor.
    private let live: UnsafeMutablePointer<Double>
    private var liveFloor: Double = .infinity
    private var errorSum: Double = 0
    private let errorFrames: UnsafeMutablePointer<Double>
    private let errorFloors: UnsafeMutablePointer<Double>
    private let previous: UnsafeMutablePointer<Double>
    private let correlation: UnsafeMutablePointer<Double>
    private let error: UnsafeMutablePointer<Double>
    // Running sums of `error`, for its change of variance (`changePoint`).
    private let errorSums: UnsafeMutablePointer<Double>
    private let errorCapacity: Int

    // Noise floor: mean energy per sample of quiet 10 ms blocks; follows down at once and
    // up slowly (+3 dB a second), so a dense passage cannot lift it to the hits' level.
    private var blockSum: Double = 0
    private var blockFrames = 0
    private let blockFramesTarget: Int
    private var floor: Double = .infinity
    private let floorRise: Double
    /// The least noise floor: the quantization noise's energy per sample (step^2 / 12).
    private let leastFloor: Double

    // A hit found and waiting out `gapSamples`: a stroke at least 6 dB louder within it is the
    // main stroke of a flam and takes its place (one hit, at the main stroke); a softer one
    // is its ring and is dropped.
    private var held: (sample: Int64, level: Double, flam: Bool)?
    /// Set while `onset` is called: the hit is a flam (its grace note came just before).
    public private(set) var lastOnsetWasFlam = false
    /// Detections resume this soon after a hit, so a flam's main stroke can be seen.
    private let flamGapSamples: Int64
    /// A flam's main stroke comes at most this long after its grace note (25 ms and the
    /// refinement's reach).
    private let flamWindowSamples: Int64
    /// A stroke seen on weaker evidence (the high band alone, a relaxed rise) is this far from
    /// the last hit (45 ms: a snare's wires buzz up to 15 dB in the high band over its first 30 ms).
    private let loneGapSamples: Int64
    // A detection waiting for enough samples after it to be refined.
    private var pendingDetection: Int64 = -1
    // Where the last search that found nothing could no longer see a rise start: the next one
    // reaches back there (up to `reachBack`), so a soft stroke noticed late is not skipped.
    private var searchedUpTo: Int64 = 0
    private var lastOnset: Int64 = Int64.min / 2
    private var holdUntil: Int64 = 0
    // The loudest recent hit's level and when it was found: a sound far below it (a woodblock's
    // resonance 45 dB down) is its tail, not a stroke; it fades by 6 dB a second.
    private var recentLevel: Double = 0
    private var recentSample: Int64 = 0

    private let shortFrames = 2      // 1 ms
    private let longFrames = 8       // 4 ms
    private let backgroundFrames = 16 // 8 ms, ending where the long window starts
    private let searchBefore: Int    // samples before the detection the onset may lie
    private let reachBack: Int       // ... or back to where the last empty search stopped, up to this many
    private let fitLength: Int       // the predictor is fitted on this many samples before the search
    private let windowAfter: Int     // samples after the detection needed to judge it
    private let confirmLength: Int   // the error's rise is measured over this many samples
    private let bridge: Int          // the walk back steps over this many quiet samples (zero crossings)
    private let gapSamples: Int64
    private let crestSpan: Int       // a weak hit on a small spike must top the loudest millisecond this far back (50 ms)

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        let rate = configuration.sampleRate
        frameLength = max(4, rate / 2000)
        var history = 1
        while history < rate / 8 { history <<= 1 }        // 125 ms or more
        historyMask = history - 1
        signal = .allocate(capacity: history)
        signal.initialize(repeating: 0, count: history)
        clickEnergy = .allocate(capacity: history)
        clickEnergy.initialize(repeating: 0, count: history)
        frameMask = 63 // 32 ms: the longest look back is 12 ms
        frames = .allocate(capacity: frameMask + 1)
        frames.initialize(repeating: 0, count: frameMask + 1)
        high = OnsetBand(history: history, frameCount: frameMask + 1)
        searchBefore = rate * 8 / 1000
        fitLength = rate * 8 / 1000
        windowAfter = rate * 3 / 1000
        confirmLength = max(8, rate / 1000)
        bridge = max(4, rate / 4000)
        reachBack = rate * 16 / 1000
        errorCapacity = reachBack + windowAfter + 4
        error = .allocate(capacity: errorCapacity)
        error.initialize(repeating: 0, count: errorCapacity)
        errorSums = .allocate(capacity: errorCapacity)
        errorSums.initialize(repeating: 0, count: errorCapacity)
        coefficients = .allocate(capacity: order + 1)
        coefficients.initialize(repeating: 0, count: order + 1)
        live = .allocate(capacity: order + 1)
        live.initialize(repeating: 0, count: order + 1)
        live[0] = 1
        errorFrames = .allocate(capacity: frameMask + 1)
        errorFrames.initialize(repeating: 0, count: frameMask + 1)
        errorFloors = .allocate(capacity: frameMask + 1)
        errorFloors.initialize(repeating: .infinity, count: frameMask + 1)
        previous = .allocate(capacity: order + 1)
        previous.initialize(repeating: 0, count: order + 1)
        correlation = .allocate(capacity: order + 1)
        correlation.initialize(repeating: 0, count: order + 1)
        blockFramesTarget = 20
        // 10 ms blocks: +3 dB/s is a factor 2^(1/100) per block.
        floorRise = 1.006955
        let step = Double(configuration.quantizationStep)
        leastFloor = max(1e-12, step * step / 12)
        gapSamples = Int64(configuration.minimumGap * Double(rate))
        crestSpan = rate * 50 / 1000
        flamGapSamples = Int64(rate) * 8 / 1000
        flamWindowSamples = max(gapSamples, Int64(rate) * 30 / 1000)
        loneGapSamples = Int64(rate) * 45 / 1000
    }

    deinit {
        signal.deallocate()
        clickEnergy.deallocate()
        frames.deallocate()
        high.deallocate()
        error.deallocate()
        errorSums.deallocate()
        coefficients.deallocate()
        live.deallocate()
        errorFrames.deallocate()
        errorFloors.deallocate()
        previous.deallocate()
        correlation.deallocate()
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
            var click: Float = 0
            if let reference, gain != 0 { click = gain * reference[i]; y -= click }
            let value = Double(y)
            signal[Int(position) & historyMask] = value
            clickEnergy[Int(position) & historyMask] = Double(click) * Double(click)
            high.add(value - 2 * sample(position - 1) + sample(position - 2), at: position)
            position += 1
            frameSum += value * value
            let e = predictionError(signal, position - 1, live)
            errorSum += e * e
            frameFill += 1
            if frameFill == frameLength { endFrame() }
            if pendingDetection >= 0 && position >= pendingDetection + Int64(windowAfter) {
                refine(onset)
            }
            // No detection can still land in the held hit's window: it is a hit.
            if let hit = held, pendingDetection < 0, position >= hit.sample + flamWindowSamples + Int64(searchBefore + windowAfter) {
                release(onset)
            }
        }
    }

    /// Reports a detection still waiting for samples after it, and the hit held (the end of a take).
    public func finish(onset: (Int64, Double) -> Void) {
        if pendingDetection >= 0 { refine(onset) }
        release(onset)
    }

    private func release(_ onset: (Int64, Double) -> Void) {
        guard let hit = held else { return }
        held = nil
        lastOnsetWasFlam = hit.flam
        onset(hit.sample, hit.level)
        lastOnsetWasFlam = false
    }

    /// A refined onset: held for its window, or the main stroke of the held one's flam, or
    /// the held one's ring.
    private func found(_ sample: Int64, level: Double, weak: Bool, _ onset: (Int64, Double) -> Void) {
        lastOnset = sample
        holdUntil = sample + flamGapSamples
        // A weak onset (a spike in a sound's own body, a tom's or crash's swelling) is never a
        // flam's main stroke: that rises clearly.
        if let hit = held, !weak, sample - hit.sample <= flamWindowSamples, level >= 4 * hit.level {
            held = (sample, level, true)
            return
        }
        if let hit = held, sample - hit.sample < gapSamples { return }
        release(onset)
        held = (sample, level, false)
    }

    private func endFrame() {
        frames[Int(frameCount) & frameMask] = frameSum
        high.endFrame(frameCount)
        errorFrames[Int(frameCount) & frameMask] = errorSum
        errorFloors[Int(frameCount) & frameMask] = liveFloor
        errorSum = 0
        frameCount += 1
        blockSum += frameSum
        blockFrames += 1
        frameSum = 0
        frameFill = 0
        if blockFrames == blockFramesTarget {
            let mean = blockSum / Double(blockFrames * frameLength)
            floor = min(floor * floorRise, max(mean, leastFloor))
            high.endBlock(count: blockFrames * frameLength, rise: floorRise, least: leastFloor)
            blockSum = 0
            blockFrames = 0
        }
        if frameCount % 4 == 0 && position > Int64(fitLength + order) {
            liveFloor = fitPredictor(signal, start: position - Int64(fitLength), count: fitLength, into: live)
        }
        guard pendingDetection < 0, position >= holdUntil,
              frameCount >= Int64(2 * longFrames + 20) else { return }
        let short = meanOfFrames(from: 0, count: shortFrames)
        let long = meanOfFrames(from: 0, count: longFrames)
        let background = meanOfFrames(from: longFrames, count: backgroundFrames)
        // 5 dB over the noise floor: a ghost note 24 dB under a stroke still rises that far.
        let quiet = 3 * max(floor.isFinite ? floor : background, leastFloor)
        let strong = short > 4 * background && short > quiet
        let soft = long > 1.45 * background && long > quiet
        var novelty = 0.0
        var errorFloor = 0.0
        for k in 0..<shortFrames {
            novelty += errorFrames[Int(frameCount - 1 - Int64(k)) & frameMask]
            errorFloor = max(errorFloor, errorFloors[Int(frameCount - 1 - Int64(k)) & frameMask])
        }
        novelty /= Double(shortFrames * frameLength)
        let novel = novelty > 3 * errorFloor && novelty > quiet
        if strong || soft || novel || rises(high) { pendingDetection = position }
    }

    /// Mean energy per sample of `count` frames, the newest `skip` frames left out.
    @inline(__always)
    private func meanOfFrames(from skip: Int, count: Int) -> Double {
        var sum = 0.0
        for k in 0..<count { sum += frames[Int(frameCount - 1 - Int64(skip + k)) & frameMask] }
        return sum / Double(count * frameLength)
    }

    @inline(__always)
    private func sample(_ index: Int64) -> Double { signal[Int(index) & historyMask] }

    /// The noise floor once measured (0 before the first quiet block), never under the
    /// quantization noise.
    private var knownFloor: Double { max(floor.isFinite ? floor : 0, leastFloor) }

    /// A band's last 4 ms are 3 dB over the 8 ms before them and 6 dB over its floor.
    @inline(__always)
    private func rises(_ band: OnsetBand) -> Bool {
        let long = band.mean(newest: frameCount - 1, skip: 0, count: longFrames, frameLength: frameLength)
        let background = band.mean(newest: frameCount - 1, skip: longFrames, count: backgroundFrames, frameLength: frameLength)
        return long > 2 * background && long > 4 * max(band.floor.isFinite ? band.floor : long, leastFloor)
    }

    /// Fits the predictor (autocorrelation method, Levinson-Durbin) to `count` samples from
    /// `start`; the white floor keeps it stable on silence. Returns the prediction error's
    /// mean energy per sample over the fit.
    private func fitPredictor(_ x: UnsafeMutablePointer<Double>, start: Int64, count: Int,
                              into coefficients: UnsafeMutablePointer<Double>) -> Double {
        let p = order
        let end = start + Int64(count)
        for lag in 0...p {
            var sum = 0.0
            var k = start + Int64(lag)
            while k < end { sum += x[Int(k) & historyMask] * x[Int(k - Int64(lag)) & historyMask]; k += 1 }
            correlation[lag] = sum
        }
        correlation[0] = correlation[0] * (1 + 1e-6) + Double(count) * leastFloor
        for k in 0...p { coefficients[k] = 0 }
        coefficients[0] = 1
        var e = correlation[0]
        if e > 0 {
            for i in 1...p {
                var acc = correlation[i]
                for j in 1..<i { acc += coefficients[j] * correlation[i - j] }
                let reflection = -acc / e
                for j in 0...i { previous[j] = coefficients[j] }
                for j in 1..<i { coefficients[j] = previous[j] + reflection * previous[i - j] }
                coefficients[i] = reflection
                e *= 1 - reflection * reflection
                if e <= 0 { break }
            }
        }
        // The error energy over the fit itself (past its first `order` samples).
        var sum = 0.0
        var n = start + Int64(p)
        while n < end { let r = predictionError(x, n, coefficients); sum += r * r; n += 1 }
        return max(sum / Double(max(1, count - p)), leastFloor)
    }

    @inline(__always)
    private func predictionError(_ x: UnsafeMutablePointer<Double>, _ n: Int64, _ coefficients: UnsafeMutablePointer<Double>) -> Double {
        var r = x[Int(n) & historyMask]
        for j in 1...order { r += coefficients[j] * x[Int(n - Int64(j)) & historyMask] }
        return r
    }

    /// The first index up to `lastStart` whose value tops `peak` x base and whose next `length`
    /// values (`confirmLength` unless given) average above `mean` x base in every millisecond
    /// (a rise that stays), or -1.
    private func firstRise(_ values: UnsafeMutablePointer<Double>, lastStart: Int, base: Double, peak: Double, mean: Double,
                           length: Int = 0) -> Int {
        let length = length > 0 ? length : confirmLength
        var k = 0
        while k <= lastStart {
            if values[k] > peak * base {
                // Every millisecond, so a lift in the span's last one (the next stroke's start,
                // judged next time) does not carry a wash's flicker before it.
                var holds = true
                var from = k
                while holds && from < k + length {
                    var sum = 0.0
                    for m in from..<(from + confirmLength) { sum += values[m] }
                    holds = sum / Double(confirmLength) > mean * base
                    from += confirmLength
                }
                if holds { return k }
            }
            k += 1
        }
        return -1
    }

    /// The loudest of the 2 ms of `values` (as `rise` left them) from `first`.
    private func loudest(_ values: UnsafeMutablePointer<Double>, from first: Int) -> Double {
        var loudest = 0.0
        for k in first..<min(errorCount, first + 2 * confirmLength) { loudest = max(loudest, values[k]) }
        return loudest
    }

    /// Walks back from `first` to where `values` leave their floor `base`: the start of the
    /// span before `first` most likely drawn from a variance `ratio` times the floor's rather
    /// than the floor's (a backward CUSUM: floor samples count against going further back,
    /// the stroke's for); `ratio` sets how far above the floor a sample must be to count for.
    /// A stroke starts at its first sample above -60 dB of its peak, so what is 60 dB and more
    /// under the loudest value of its first 2 ms (a tail's wiggle in digital silence) never
    /// counts for.
    private func walkBack(_ values: UnsafeMutablePointer<Double>, from first: Int, base: Double, ratio: Double = 10) -> Int {
        let weight = (1 - 1 / ratio) / (2 * base)
        let penalty = 0.5 * naturalLog(ratio)
        let least = 1e-6 * loudest(values, from: first)
        var start = first
        var sum = 0.0
        var bestSum = 0.0
        var i = first - 1
        while i >= 0 {
            sum += (values[i] > least ? weight * values[i] : 0) - penalty
            if sum > bestSum { bestSum = sum; start = i }
            i -= 1
        }
        return start
    }

    private func refine(_ onset: (Int64, Double) -> Void) {
        let detection = pendingDetection
        pendingDetection = -1
        let end = min(position, detection + Int64(windowAfter))
        let oldest = position - Int64(historyMask) + Int64(order) + 1
        let usual = detection - Int64(searchBefore)
        let reach = searchedUpTo >= detection - Int64(reachBack) ? min(searchedUpTo, usual) : usual
        let searchStart = max(oldest + Int64(fitLength), reach, lastOnset + flamGapSamples)
        guard searchStart + Int64(confirmLength) <= end else { return }
        let span = Span(fitStart: max(oldest, max(0, searchStart - Int64(fitLength))), searchStart: searchStart,
                        end: end, lastStart: Int(end - searchStart) - confirmLength)
        var start = rise(in: signal, span)
        var weak = false
        if start < 0 {
            start = weakOnset(span, oldest: oldest)
            weak = start >= 0
        } else {
            start = stickFirst(span, wholeBand: start)
        }
        // Nothing new in the whole band: a hi-hat or ride in loud noise, or a cymbal on its own
        // wash, may still rise in the high band alone.
        var bright = false
        if start < 0 {
            // Only up to the detection: a stroke starting after it is the whole band's, next time.
            var upToDetection = span
            upToDetection.lastStart = min(span.lastStart, Int(detection - searchStart))
            let brightStart = rise(in: high.samples, upToDetection)
            bright = brightStart >= 0 && brightHolds(searchStart + Int64(brightStart), end: end)
            if bright { start = brightStart }
        }
        // Nothing in either: a smaller rise that holds over noise or a wash, as far from the
        // last hit as a high band's alone.
        if start < 0 {
            start = rise(in: signal, span, relaxed: true)
            if start >= 0 && searchStart + Int64(start) - lastOnset < loneGapSamples { start = -1 }
        }
        guard start >= 0 else { searchedUpTo = searchStart + Int64(span.lastStart) + 1; return }
        let onsetSample = searchStart + Int64(start)
        let rate = configuration.sampleRate
        // Its level: the input's mean energy per sample from it to the end of the window.
        let level = energy(signal, from: onsetSample, to: end)
        if !bright {
            _ = high.reference(energy(high.samples, from: onsetSample, to: end), at: onsetSample, rate: rate)
            guard level > 2 * knownFloor else { return }
            // Every stroke's attack reaches the high band; a low ring swelling back (a kick's
            // beating) does not. Asked of a weak onset (its whole band barely changed) and of any
            // onset over a low ring (20 dB and more over the high band before it: 30 dB let a kick's
            // swell out of its null in, 28 dB over the high band, 400 ms after the stroke).
            let attack = highAttack(onsetSample, end: end)
            guard !(attack.overLowRing || weak) || attack.rise > Self.highAttackRise else { return }
            // Near the noise floor (within 10 dB), a rise that lifts the whole band 4.5 times
            // as much as the high band or more is a low swell (a reverb tail's, under noise), not a
            // stroke: a soft hi-hat or ride there lifts the high band a third as much or more.
            guard level > 10 * knownFloor || attack.rise > 0.22 * level / max(attack.before, leastFloor) else { return }
        }
        let seconds = Double(onsetSample - recentSample) / Double(rate)
        // The recent loudest level falls 6 dB a second (a factor 10^(-0.6 t)); 30 dB below it
        // is the tail of a hit (a woodblock's resonance), not a stroke (a ghost note is 24 dB
        // under its own stroke).
        let reference = recentLevel * power10(-0.6 * seconds)
        guard level > (weak ? 0.1 : 1e-3) * reference else { return }
        if level > reference { (recentLevel, recentSample) = (level, onsetSample) }
        found(onsetSample, level: level, weak: weak, onset)
    }

    /// A stroke on the ring of its own drum (a tom struck again) is followed by the whole band's
    /// predictor from its first cycle, but the stick's attack shows at once in the high band:
    /// where the high band's error is first clearly up (not walked back over its floor) 0.25 to
    /// 2 ms before the whole band's onset, the stroke starts there, unless that is a low ring
    /// the high band does not rise over. Bench set: a Red Zeppelin high tom at 123 BPM in 16ths
    /// 48 -> 91 % within 1 ms.
    private func stickFirst(_ span: Span, wholeBand start: Int) -> Int {
        guard start >= confirmLength / 4 else { return start }
        var before = span
        before.lastStart = start - confirmLength / 4
        guard rise(in: high.samples, before) >= 0, start - riseFirst <= 2 * confirmLength else { return start }
        // Its first value above -60 dB of its peak (not a tail's wiggle in digital silence).
        let least = 1e-6 * loudest(error, from: riseFirst)
        var first = riseFirst
        while first < start && error[first] <= least { first += 1 }
        let attack = highAttack(span.searchStart + Int64(first), end: span.end)
        return !attack.overLowRing || attack.rise > Self.highAttackRise ? first : start
    }

    /// A stroke's attack reaches the high band: its 2 ms from the onset top the 8 ms before
    /// by 3 dB (a low ring's swell does not).
    private static let highAttackRise = 2.0

    /// Whether the 8 ms before `onset` are a low ring (the high band 20 dB and more under the
    /// whole), how many times the high band's 2 ms from `onset` top those 8 ms, and the whole
    /// band's energy over them.
    private func highAttack(_ onset: Int64, end: Int64) -> (overLowRing: Bool, rise: Double, before: Double) {
        let highAfter = energy(high.samples, from: onset, to: min(end, onset + Int64(2 * confirmLength)))
        let highBefore = energy(high.samples, from: onset - Int64(fitLength), to: onset)
        let before = energy(signal, from: onset - Int64(fitLength), to: onset)
        return (highBefore < 1e-2 * before, highAfter / max(highBefore, leastFloor), before)
    }

    /// A rise in the high band alone is a stroke if it is not within 45 ms of a hit (a snare's
    /// wires buzz up to 15 dB in the high band over its first 30 ms), 9 dB over the band's
    /// floor, and not far below the recent hits' in that band (a tom's or kick's high partials
    /// ringing on are far below their attack).
    private func brightHolds(_ onsetSample: Int64, end: Int64) -> Bool {
        guard onsetSample - lastOnset >= loneGapSamples else { return false }
        let highLevel = energy(high.samples, from: onsetSample, to: end)
        let highReference = high.reference(highLevel, at: onsetSample, rate: configuration.sampleRate)
        return highLevel > 8 * high.knownFloor(least: leastFloor) && highLevel > 0.1 * highReference
    }

    /// Where a candidate is judged: the predictor is fitted from `fitStart` to `searchStart`;
    /// the onset lies from `searchStart` on, its rise starting at `lastStart` at the latest.
    private struct Span {
        var fitStart: Int64
        var searchStart: Int64
        var end: Int64
        var lastStart: Int
        var fitCount: Int { Int(searchStart - fitStart) }
        var count: Int { Int(end - searchStart) }
    }

    /// The loudest millisecond of `x` in the `crestSpan` before `before` (its mean energy per sample).
    private func crest(_ x: UnsafeMutablePointer<Double>, before: Int64, oldest: Int64) -> Double {
        var loudest = 0.0
        var m = max(oldest, before - Int64(crestSpan))
        while m + Int64(confirmLength) <= before {
            loudest = max(loudest, energy(x, from: m, to: m + Int64(confirmLength)))
            m += Int64(confirmLength / 2)
        }
        return max(loudest, leastFloor)
    }

    /// Mean energy per sample of `x` over [from, to).
    @inline(__always)
    private func energy(_ x: UnsafeMutablePointer<Double>, from: Int64, to: Int64) -> Double {
        var sum = 0.0
        var k = from
        while k < to { let v = x[Int(k) & historyMask]; sum += v * v; k += 1 }
        return sum / Double(max(1, to - from))
    }

    /// The onset (an index from `searchStart`) where the prediction error of `x` rises over
    /// its floor and stays there, or -1; `error` holds the squared error and `errorBase` its
    /// floor after. `relaxed`, asked when nothing else showed a stroke: over noise or a
    /// cymbal's wash only, a smaller rise that holds for 2 ms (a soft open hat or crash on the
    /// wash of the one before lifts the error only 5-7 dB).
    private func rise(in x: UnsafeMutablePointer<Double>, _ span: Span, relaxed: Bool = false) -> Int {
        let before: Double
        if span.fitCount > 2 * order {
            before = fitPredictor(x, start: span.fitStart, count: span.fitCount, into: coefficients)
        } else {
            for k in 0...order { coefficients[k] = k == 0 ? 1 : 0 }
            before = leastFloor
        }
        errorStart = span.searchStart
        errorCount = span.count
        let base = max(before, leastFloor)
        for k in 0..<span.count {
            let n = span.searchStart + Int64(k)
            let r = predictionError(x, n, coefficients)
            // Judged against the floor plus what a subtraction 10 % off would leave of the click.
            error[k] = r * r * base / (base + clickResidual * clickEnergy[Int(n) & historyMask])
        }
        errorBase = base
        // A stroke: the error rises 9 dB over its floor and stays there for a millisecond. Over
        // a background the predictor cannot follow (noise, a wash: the error is as loud as the
        // sound, white and steady) 6 dB is enough; a ring's error is small but uneven.
        let background = energy(x, from: span.fitStart, to: span.searchStart)
        let noisy = background < 10 * base
        // The rise is judged over the error's floor or 25 dB under the sound, whichever is more:
        // a ring the predictor follows to 45 dB (a sampled kick's ring at 44.1 kHz) shows its
        // sample's loop points and envelope steps as rises of 10 dB in an error 35 dB down.
        let judged = max(base, 3e-3 * background)
        errorJudged = judged
        let first: Int
        if relaxed {
            // A wash: its high band within 20 dB of the whole (a low ring's is further down).
            let wash = energy(high.samples, from: span.fitStart, to: span.searchStart) > 1e-2 * background
            guard noisy || wash else { return -1 }
            first = firstRise(error, lastStart: span.lastStart - confirmLength, base: judged, peak: 5, mean: noisy ? 3 : 4,
                              length: 2 * confirmLength)
        } else {
            first = firstRise(error, lastStart: span.lastStart, base: judged, peak: noisy ? 5 : 8, mean: noisy ? 4 : 8)
        }
        guard first >= 0 else { return -1 }
        riseFirst = first
        // Over noise or a wash the new sound's first millisecond adds only a few dB: walk back
        // over what tops 2.1x the floor (ratio 6), or 1.5x over a wash 10 dB and more above the
        // noise floor (ratio 2.5: a cymbal on its own wash, whose first half millisecond is
        // 35-50 dB under its peak; 2.0 walks crashes early; over plain noise 3.5 already walks a
        // noise-burst snare back over the noise).
        if noisy {
            let wash = background > 10 * knownFloor
            let ratio = wash ? 2.5 : 6
            let start = walkBack(error, from: first, base: base, ratio: ratio)
            // A hi-hat's first millisecond under noise may not top the floor's 2.1x anywhere near
            // its first strong sample: also walked back from the most likely change of variance
            // (hi-hats under 15 dB SNR noise were 1-3 ms late), the earlier one taken.
            let (split, lead) = changePoint(error, count: min(span.count, first + 2 * confirmLength))
            guard split < first else { return start }
            return min(start, walkBack(error, from: split, base: max(base, lead), ratio: ratio))
        }
        // Over a quiet ring: the most likely change of variance (a ring's own swells within
        // the span do not pull the onset early), then back over what clearly tops the error
        // before that change.
        let (split, lead) = changePoint(error, count: min(span.count, first + 2 * confirmLength))
        let start = walkBack(error, from: split, base: max(base, lead))
        guard x == signal else { return start }
        return earlierStep(before: start, base: base)
    }

    /// A stroke on the ring of its own drum (a tom struck again) is predicted from its first
    /// cycle: its attack lifts the error only a few dB for the first millisecond, until the
    /// stick's noise comes. The most likely change of variance before the onset found is taken
    /// instead if it is that step: 0.25 to 2 ms before it, the error after it 1.8x the error
    /// before (and not 60 dB under the stroke: a tail's wiggle in digital silence), and the high
    /// band 1.4x the 8 ms before it (a ring's own swell stays out of that band). Bench set: a
    /// tom struck on its ring 34 -> 52 % within 1 ms, a kick 76 -> 81 %.
    private func earlierStep(before start: Int, base: Double) -> Int {
        guard start >= 2 * confirmLength else { return start }
        let (split, lead) = changePoint(error, count: start)
        let length = start - split
        guard split > 0, length >= confirmLength / 4, length <= 2 * confirmLength else { return start }
        let after = (errorSums[start - 1] - errorSums[split - 1]) / Double(length)
        guard after > 1.8 * max(lead, base), after > 1e-6 * loudest(error, from: start) else { return start }
        let at = errorStart + Int64(split)
        let highAfter = energy(high.samples, from: at, to: at + Int64(length))
        let highBefore = energy(high.samples, from: at - Int64(fitLength), to: at)
        guard highAfter > 1.4 * max(highBefore, leastFloor) else { return start }
        return walkBack(error, from: split, base: max(base, lead))
    }

    /// The most likely change of variance in `values[0..<count]` (the squared prediction error):
    /// the split that best explains the values before it by one variance and after it by
    /// another (the AIC picker of seismic arrivals, on the predictor's error). Returns the
    /// split and the mean of the values before it (0 when there is none).
    private func changePoint(_ values: UnsafeMutablePointer<Double>, count: Int) -> (split: Int, before: Double) {
        var total = 0.0
        for k in 0..<count { total += values[k]; errorSums[k] = total }
        let least = leastFloor
        var best = 0
        var bestScore = Double.infinity
        var k = 2
        while k <= count - 2 {
            let before = errorSums[k - 1] / Double(k)
            let after = (total - errorSums[k - 1]) / Double(count - k)
            let score = Double(k) * naturalLog(before + least) + Double(count - k) * naturalLog(after + least)
            if score < bestScore { bestScore = score; best = k }
            k += 1
        }
        return (best, best > 0 ? errorSums[best - 1] / Double(best) : 0)
    }

    /// A smooth low stroke on the ring of one like it (a soft kick after a loud one) is
    /// predicted from its first cycle on: only its attack shows, as a short spike in the
    /// error (`error` as `rise` left it). Such a spike is a stroke if the level then rises
    /// too: above the loudest millisecond before the search and well above the 2 ms just
    /// before the spike (a ring does not rise). A small spike (under 10 dB below the sound)
    /// must also top the loudest millisecond of the 50 ms before: a kick's beating ring swells
    /// back by 20 dB every 15 ms or so, with a small glitch in the error where it turns. A
    /// weak hit must also come within 10 dB of the recent hits (below that it is a resonance
    /// of their own).
    private func weakOnset(_ span: Span, oldest: Int64) -> Int {
        let base = errorBase
        let loudest = crest(signal, before: span.searchStart, oldest: max(oldest, span.fitStart))
        let ringCrest = crest(signal, before: span.searchStart, oldest: oldest)
        var spike = 0
        while spike <= span.lastStart && error[spike] <= 10 * errorJudged { spike += 1 }
        guard spike <= span.lastStart else { return -1 }
        let at = span.searchStart + Int64(spike)
        let after = energy(signal, from: at, to: span.end)
        let local = energy(signal, from: at - Int64(2 * confirmLength), to: at)
        let small = error[spike] < 0.1 * energy(signal, from: span.fitStart, to: span.searchStart)
        guard after > 1.5 * loudest, !small || after > ringCrest, after > 3 * local else { return -1 }
        return walkBack(error, from: spike, base: base)
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

