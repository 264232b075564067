// SPDX-License-Identifier: GPL-3.0-or-later

/// The box's output as the live coach reads it back: samples by their engine index.
public protocol OutputReference: AnyObject {
    /// Copies engine samples `start..<start + count` into `destination`; false when they are
    /// not (or no longer) held. Samples before 0 read as silence. Never allocates or locks.
    func read(from start: Int64, count: Int, into destination: UnsafeMutablePointer<Float>) -> Bool
}

/// Keeps the box's own click out of the live coach's input (a microphone that hears the
/// speaker): each click the box played is found in the input by its waveform and subtracted
/// before the detector looks, so a click alone is never a hit and a stroke on top of one is
/// kept whole, at its own time.
///
/// The click reaches the input as `gain x output[i - lag]`. For every click (an onset in the
/// output), once the input holds it, the canceller correlates the click's first samples with
/// the input near the last clean click's lag (1 ms either way: the clocks drift slowly), or,
/// when nothing like the click is there or no lag holds, near the lag the output clock and
/// the round trip predict (5 ms either way). A click heard alone matches cleanly: its own lag
/// and gain are taken. A click with a stroke on top matches less well, and its own fit would
/// take part of the stroke with it: it is taken out at the clean clicks' lag and median gain
/// (or the calibrated one). The detector runs behind the input by the look's reach (14 ms at
/// 48 kHz while a lag holds, 22 ms without), so every click's fit is in place before the
/// detector reaches it.
///
/// `.learn` (Menu > Coach > Calibrate, where the round trip is not known yet): nothing is
/// subtracted; each onset the detector hears is matched to the click played up to
/// `maximumRoundTrip` before it and fitted there, and `learnedGain` is the median of those
/// clicks' gains.
///
/// Everything is allocated in `init`: `process` never allocates, locks or logs (the capture
/// thread runs it).
public final class ClickCanceller {
    public enum Mode: Sendable { case off, subtract, learn }

    public let sampleRate: Int
    public let detector: OnsetDetector
    /// Learning starts afresh (Calibrate measures this microphone and speaker now).
    public var mode: Mode = .subtract {
        didSet {
            guard mode == .learn, oldValue != .learn else { return }
            (gainsCount, gainsNext, cleanClicks) = (0, 0, 0)
        }
    }
    /// The click's gain before any clean click is fitted (the calibrated one), or nil.
    public var storedGain: Float?
    /// Input samples taken so far (the index of the next block's first sample).
    public private(set) var inputEnd: Int64 = 0
    /// The lag (input index - engine index) and gain of the last click fitted, if any.
    public private(set) var lag: Int64?
    /// Clicks fitted cleanly so far (their gains are `cleanGains`' source).
    public private(set) var cleanClicks = 0
    /// Delay of the detector behind the input (samples) without a clean click's lag, and
    /// while one holds.
    public let lookahead: Int
    public let narrowLookahead: Int
    /// A click fitted (for the log): where it was played, the lag found and the one
    /// predicted, how well it matched and the gain it was taken out at.
    public struct Fit: Sendable, BitwiseCopyable {
        public var onset: Int64
        public var lag: Int64
        public var predicted: Int64
        public var match: Double
        public var gain: Float
    }
    /// Clicks fitted so far and the last one's figures.
    public private(set) var fits = 0
    public private(set) var lastFit = Fit(onset: 0, lag: 0, predicted: 0, match: 0, gain: 0)

    private let reference: any OutputReference
    private let window: Int        // the click's samples fitted, from `preRoll` before its onset
    private let preRoll: Int
    private let wideRadius: Int    // the search around a predicted lag
    private let narrowRadius: Int  // the search around the last click's lag
    private let maximumRoundTrip: Int
    private let input: SampleRing
    private let scratch: UnsafeMutablePointer<Float>
    private let chunk: UnsafeMutablePointer<Float>
    private let chunkReference: UnsafeMutablePointer<Float>
    private let chunkCapacity = 128
    /// Input is taken in pieces of at most this many samples (a capture period).
    private let blockLimit = 256
    // Onsets in the output waiting until the input holds them (engine indices).
    private let pending: UnsafeMutablePointer<Int64>
    private let pendingCapacity = 32
    private var pendingCount = 0
    // Recent output onsets (learn mode matches the detector's onsets to them).
    private let played: UnsafeMutablePointer<Int64>
    private let playedCapacity = 32
    private var playedCount = 0
    // The output's onset scan: the next engine index to scan and the last frames' energies.
    private var scanned: Int64?
    private let scanFrame: Int
    private var lastFrameEnergy = 0.0
    private var frameEnergyBefore = 0.0
    // The last onset found: a click's attack spread over two frames is one click.
    private var lastClick: Int64 = .min / 2
    // What is subtracted from which input index on: (from, lag, gain), oldest first.
    private let plan: UnsafeMutablePointer<(from: Int64, lag: Int64, gain: Float)>
    private let planCapacity = 16
    private var planCount = 0
    // Gains of recent clean clicks.
    private let gains: UnsafeMutablePointer<Float>
    private let gainsCapacity = 9
    private var gainsCount = 0
    private var gainsNext = 0
    private let sorted: UnsafeMutablePointer<Float>
    private var unmatchedInARow = 0
    private var lastLearned: Int64 = .min
    private var predicted: Int64?
    private var detectorFed: Int64 = 0

    public init(sampleRate: Int, reference: any OutputReference, detector: OnsetDetector? = nil) {
        self.sampleRate = sampleRate
        self.reference = reference
        self.detector = detector ?? OnsetDetector(.init(sampleRate: sampleRate, bleedGain: 1))
        window = sampleRate * 6 / 1000       // 6 ms of the click
        preRoll = sampleRate / 1000
        // The output clock and capture stamps predict the lag within 1.3 ms even under QEMU.
        wideRadius = sampleRate * 5 / 1000
        narrowRadius = sampleRate / 1000
        maximumRoundTrip = sampleRate / 2
        scanFrame = max(16, sampleRate / 750)
        // A click's fit needs the input to its window's end past the farthest lag searched,
        // reached within a block (up to 256 frames) after it could first be done.
        lookahead = preRoll + window + 2 * wideRadius + blockLimit
        narrowLookahead = preRoll + window + 2 * narrowRadius + blockLimit
        var ringSize = 1
        while ringSize < maximumRoundTrip + lookahead + window + 2 * wideRadius + 1024 { ringSize <<= 1 }
        input = SampleRing(capacity: ringSize)
        let scratchCount = preRoll + window + 2 * wideRadius + 1
        scratch = .allocate(capacity: max(scratchCount, scanFrame))
        scratch.initialize(repeating: 0, count: max(scratchCount, scanFrame))
        chunk = .allocate(capacity: chunkCapacity)
        chunk.initialize(repeating: 0, count: chunkCapacity)
        chunkReference = .allocate(capacity: chunkCapacity)
        chunkReference.initialize(repeating: 0, count: chunkCapacity)
        pending = .allocate(capacity: pendingCapacity)
        pending.initialize(repeating: 0, count: pendingCapacity)
        played = .allocate(capacity: playedCapacity)
        played.initialize(repeating: 0, count: playedCapacity)
        plan = .allocate(capacity: planCapacity)
        plan.initialize(repeating: (0, 0, 0), count: planCapacity)
        gains = .allocate(capacity: gainsCapacity)
        gains.initialize(repeating: 0, count: gainsCapacity)
        sorted = .allocate(capacity: gainsCapacity)
        sorted.initialize(repeating: 0, count: gainsCapacity)
    }

    deinit {
        input.deallocate()
        scratch.deallocate()
        chunk.deallocate()
        chunkReference.deallocate()
        pending.deallocate()
        played.deallocate()
        plan.deallocate()
        gains.deallocate()
        sorted.deallocate()
    }

    /// The median gain of the recent clean clicks (Calibrate's result), or nil before any.
    public var learnedGain: Float? { cleanGain }

    /// One block of input. `predictedLag`: input index of the block's first sample minus the
    /// engine sample the output clock says the input hears then (the round trip taken into
    /// account), or nil without an output clock. `onset` gets each hit's first sample (input
    /// index) and whether it is a flam, up to `lookahead` samples after the input has it.
    public func process(_ block: UnsafeBufferPointer<Float>, predictedLag: Int64?, onset: (Int64, Bool) -> Void) {
        var start = 0
        while start < block.count {
            let count = min(blockLimit, block.count - start)
            if let predictedLag { predicted = predictedLag }
            for i in 0..<count { input.append(block[start + i]) }
            inputEnd += Int64(count)
            scanOutput()
            fitReadyClicks()
            feedDetector(until: inputEnd - Int64(detectorDelay), onset: onset)
            start += count
        }
    }

    /// The hits still inside the detector (the end of a take).
    public func finish(onset: (Int64, Bool) -> Void) {
        feedDetector(until: inputEnd, onset: onset)
        detector.finish { sample, _ in onset(sample, detector.lastOnsetWasFlam) }
    }

    /// The last clean click's lag, unless the prediction says it no longer holds (an
    /// overrun cost input or output frames: the lag moves by whole periods).
    private var currentLag: Int64? {
        guard let lag, let predicted, abs(lag - predicted) > Int64(wideRadius) else { return lag }
        return nil
    }

    /// Where the next click is looked for: near the current lag, else near the predicted one.
    private var expectedLag: Int64? { currentLag ?? predicted }

    /// How far the detector runs behind the input: while a clean lag holds, only the narrow
    /// look's reach; without one, the wide look's (the detector waits for it).
    private var detectorDelay: Int { currentLag == nil ? lookahead : narrowLookahead }

    // MARK: the output's clicks

    /// Finds onsets in the output up to what the input can hold by now: a frame whose
    /// energy is 4 times the louder of the two before it and above -80 dBFS.
    private func scanOutput() {
        guard mode != .off, let expected = expectedLag else { return }
        let target = inputEnd - expected
        if scanned == nil || target - scanned! > Int64(maximumRoundTrip) { scanned = target }
        while var at = scanned, at + Int64(scanFrame) <= target {
            defer { scanned = at }
            // Not played yet (or no longer held: the scan restarts once it is too far behind).
            guard reference.read(from: at, count: scanFrame, into: scratch) else { return }
            var energy = 0.0
            for i in 0..<scanFrame { energy += Double(scratch[i]) * Double(scratch[i]) }
            let before = max(lastFrameEnergy, frameEnergyBefore)
            if energy > 4 * before && energy > 1e-8 * Double(scanFrame) && at - lastClick >= Int64(sampleRate / 200) {
                var first = 0
                var peak: Float = 0
                for i in 0..<scanFrame { peak = max(peak, abs(scratch[i])) }
                while first < scanFrame - 1 && abs(scratch[first]) < 0.05 * peak { first += 1 }
                queueClick(at: at + Int64(first))
            }
            (lastFrameEnergy, frameEnergyBefore) = (energy, lastFrameEnergy)
            at += Int64(scanFrame)
        }
    }

    private func queueClick(at onset: Int64) {
        lastClick = onset
        if playedCount == playedCapacity {
            for i in 1..<playedCapacity { played[i - 1] = played[i] }
            playedCount -= 1
        }
        played[playedCount] = onset
        playedCount += 1
        guard mode == .subtract else { return }
        if pendingCount == pendingCapacity {
            for i in 1..<pendingCapacity { pending[i - 1] = pending[i] }
            pendingCount -= 1
        }
        pending[pendingCount] = onset
        pendingCount += 1
    }

    /// Fits every waiting click once the input holds what its look needs.
    private func fitReadyClicks() {
        while pendingCount > 0, let expected = expectedLag {
            let onset = pending[0]
            let reach = currentLag == nil ? wideRadius : narrowRadius
            guard onset + expected + Int64(window + reach) <= inputEnd, fitAndPlan(click: onset) else { return }
            for i in 1..<pendingCount { pending[i - 1] = pending[i] }
            pendingCount -= 1
        }
    }

    /// Looks for the click near the current lag (the clocks drift slowly); a clean match or
    /// a partial one (a stroke on top spoils it) settles it. Nothing like it there, or no
    /// current lag: near the predicted lag (the first click, an overrun that cost input, a
    /// new device). False when that wider look needs more input first.
    private func fitAndPlan(click onset: Int64) -> Bool {
        var fit = currentLag.flatMap { fitClick(onset, around: $0, radius: narrowRadius) }
        if (fit?.match ?? 0) < 0.3, let center = predicted ?? lag {
            guard onset + center + Int64(window + wideRadius) <= inputEnd else { return false }
            let wide = fitClick(onset, around: center, radius: wideRadius)
            if (wide?.match ?? 0) > (fit?.match ?? 0) { fit = wide }
        }
        let gain: Float
        if let fit, fit.match >= 0.9 {
            // A clean click: its own lag and gain (the clocks drift, the room changes).
            lag = fit.lag
            remember(fit.gain)
            unmatchedInARow = 0
            gain = fit.gain
        } else if let fit, fit.match >= 0.3 {
            // A stroke on top: its best match may be the stroke's, and its own gain would take
            // part of the stroke with it; the clean clicks' lag and gain hold.
            unmatchedInARow = 0
            gain = cleanGain ?? storedGain ?? 0
        } else {
            unmatchedInARow += 1
            // Clicks that no longer match (headphones now): subtracting would add them.
            gain = unmatchedInARow >= 4 ? 0 : (cleanGain ?? storedGain ?? 0)
        }
        // Without a clean click's lag that still holds, a click taken out a little off its
        // place would be heard twice: nothing is taken out until a clean one is found.
        let holds = fit.map { $0.match >= 0.9 } ?? false || currentLag != nil
        fits += 1
        lastFit = Fit(onset: onset, lag: fit?.lag ?? -1, predicted: predicted ?? -1, match: fit?.match ?? 0, gain: gain)
        guard let at = holds ? lag : predicted else { return true }
        addPlan(from: onset - Int64(preRoll) + at, lag: at, gain: holds ? gain : 0)
        return true
    }

    /// The click at engine index `onset` against the input at lags `around +- radius`: the
    /// best normalised correlation (its size: a microphone may invert), its lag and the
    /// least-squares gain there.
    private func fitClick(_ onset: Int64, around: Int64, radius: Int) -> (lag: Int64, gain: Float, match: Double)? {
        let length = preRoll + window
        let first = onset - Int64(preRoll)
        guard reference.read(from: first, count: length, into: scratch) else { return nil }
        var referenceEnergy = 0.0
        for m in 0..<length { referenceEnergy += Double(scratch[m]) * Double(scratch[m]) }
        guard referenceEnergy > 0 else { return nil }
        let lowest = first + around - Int64(radius)
        guard input.holds(from: lowest, count: length + 2 * radius, end: inputEnd) else { return nil }
        // A wide search looks at every third lag, then around the best one: a third of the
        // work on the capture thread (a click's peak is wider than 3 samples).
        let step = radius > narrowRadius ? 3 : 1
        var best: (lag: Int64, gain: Float, match: Double)?
        var bestK = -1
        var inputEnergy = 0.0
        for m in 0..<length { inputEnergy += square(input[lowest + Int64(m)]) }
        for k in 0...(2 * radius) {
            if k > 0 {
                let base = lowest + Int64(k)
                inputEnergy += square(input[base + Int64(length) - 1]) - square(input[base - 1])
            }
            guard k % step == 0 else { continue }
            if let match = correlate(at: lowest + Int64(k), length: length, inputEnergy: inputEnergy, referenceEnergy: referenceEnergy),
               match.match > (best?.match ?? -1) {
                best = (lowest + Int64(k) - first, match.gain, match.match)
                bestK = k
            }
        }
        guard step > 1, bestK >= 0 else { return best }
        for k in max(0, bestK - step + 1)...min(2 * radius, bestK + step - 1) where k != bestK {
            let base = lowest + Int64(k)
            var energy = 0.0
            for m in 0..<length { energy += square(input[base + Int64(m)]) }
            if let match = correlate(at: base, length: length, inputEnergy: energy, referenceEnergy: referenceEnergy),
               match.match > (best?.match ?? -1) {
                best = (base - first, match.gain, match.match)
            }
        }
        return best
    }

    /// The click (in `scratch`) against the input from `base`: normalised correlation and gain.
    @inline(__always)
    private func correlate(at base: Int64, length: Int, inputEnergy: Double, referenceEnergy: Double) -> (match: Double, gain: Float)? {
        guard inputEnergy > 0 else { return nil }
        var dot = 0.0
        for m in 0..<length { dot += Double(input[base + Int64(m)]) * Double(scratch[m]) }
        return (abs(dot) / (inputEnergy * referenceEnergy).squareRoot(), Float(dot / referenceEnergy))
    }

    @inline(__always) private func square(_ x: Float) -> Double { Double(x) * Double(x) }

    private func remember(_ gain: Float) {
        gains[gainsNext] = gain
        gainsNext = (gainsNext + 1) % gainsCapacity
        gainsCount = min(gainsCount + 1, gainsCapacity)
        cleanClicks += 1
    }

    private var cleanGain: Float? {
        guard gainsCount > 0 else { return nil }
        for i in 0..<gainsCount {
            var j = i
            let value = gains[i]
            while j > 0 && sorted[j - 1] > value { sorted[j] = sorted[j - 1]; j -= 1 }
            sorted[j] = value
        }
        return gainsCount % 2 == 1 ? sorted[gainsCount / 2] : (sorted[gainsCount / 2 - 1] + sorted[gainsCount / 2]) / 2
    }

    private func addPlan(from: Int64, lag: Int64, gain: Float) {
        // A later plan replaces any that starts at or after it (a refit).
        while planCount > 0 && plan[planCount - 1].from >= from { planCount -= 1 }
        if planCount == planCapacity {
            for i in 1..<planCapacity { plan[i - 1] = plan[i] }
            planCount -= 1
        }
        plan[planCount] = (from, lag, gain)
        planCount += 1
    }

    // MARK: the detector

    /// Feeds the detector the input up to `end`, each chunk less the click as planned.
    private func feedDetector(until end: Int64, onset: (Int64, Bool) -> Void) {
        while detectorFed < end {
            // Plans that no longer apply: one later has started.
            while planCount > 1 && plan[1].from <= detectorFed {
                for i in 1..<planCount { plan[i - 1] = plan[i] }
                planCount -= 1
            }
            // A chunk ends where the next plan starts.
            var count = Int(min(Int64(chunkCapacity), end - detectorFed))
            for i in 0..<min(planCount, 2) where plan[i].from > detectorFed {
                count = Int(min(Int64(count), plan[i].from - detectorFed))
                break
            }
            for i in 0..<count { chunk[i] = input[detectorFed + Int64(i)] }
            let applies = mode == .subtract && planCount > 0 && plan[0].from <= detectorFed && plan[0].gain != 0
            if applies, reference.read(from: detectorFed - plan[0].lag, count: count, into: chunkReference) {
                let gain = plan[0].gain
                for i in 0..<count { chunkReference[i] *= gain }
            } else {
                chunkReference.update(repeating: 0, count: count)
            }
            detectorFed += Int64(count)
            detector.process(UnsafeBufferPointer(start: chunk, count: count),
                             reference: UnsafeBufferPointer(start: chunkReference, count: count)) { sample, _ in
                if mode == .learn { learn(fromOnset: sample) }
                onset(sample, detector.lastOnsetWasFlam)
            }
        }
    }

    /// Learn mode: the click played up to `maximumRoundTrip` before an onset the detector
    /// heard is fitted around the onset; a clean fit's gain is remembered.
    private func learn(fromOnset sample: Int64) {
        guard let predicted else { return }
        let early = Int64(sampleRate / 500)
        var index = playedCount - 1
        while index >= 0 {
            let roundTrip = sample - predicted - played[index]
            if roundTrip >= -early && roundTrip <= Int64(maximumRoundTrip) {
                // One fit a click (its ring may be heard as a second onset).
                guard played[index] != lastLearned else { return }
                if let fit = fitClick(played[index], around: sample - played[index], radius: wideRadius), fit.match >= 0.9 {
                    lag = fit.lag
                    lastLearned = played[index]
                    remember(fit.gain)
                }
                return
            }
            index -= 1
        }
    }
}

/// The input's recent samples by absolute index (a power-of-two ring).
final class SampleRing {
    private let storage: UnsafeMutablePointer<Float>
    private let mask: Int
    let capacity: Int
    private var written: Int64 = 0

    init(capacity: Int) {
        self.capacity = capacity
        mask = capacity - 1
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    func deallocate() { storage.deallocate() }

    @inline(__always) func append(_ value: Float) {
        storage[Int(written) & mask] = value
        written += 1
    }

    /// Samples before 0 are silence; `index` must be within the last `capacity` written.
    @inline(__always) subscript(index: Int64) -> Float {
        index < 0 ? 0 : storage[Int(index) & mask]
    }

    func holds(from start: Int64, count: Int, end: Int64) -> Bool {
        start + Int64(count) <= end && start >= end - Int64(capacity)
    }
}
