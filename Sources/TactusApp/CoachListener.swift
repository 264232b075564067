// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Coach
import HAL
import Synchronization
import TactusBase
import TactusTimeline

/// The live coach's ears on the capture thread: the same `OnsetDetector` as `tactus coach`,
/// each hit stamped with the CLOCK_MONOTONIC time of its first sample and put in a
/// lock-free ring; `drain` (the capture's supervisor, every 5 ms) takes the hits out for
/// the control loop, which judges them on the one timeline (`Box.coachHit(at:)`).
///
/// The microphone also hears the box's own sound. Given the renderer's `OutputHistory`, the
/// box's output clock (`setOutputClock`, the box's `outputClock`, published by its thread)
/// and the round trip (`setRoundTrip`), each input sample gets its reference: the output
/// sample heard a round trip before it (input sample = output sample + lag), times a bleed
/// gain fitted here by least squares over the clicks, subtracted before detection (as
/// `tactus coach` does offline with `BleedFit`). So the click alone is never a hit and a hit
/// on top of a click is never lost. Detection runs `fitWindow` (10 ms) behind the input so a
/// click's own fit is known before its first sample is judged.
///
/// `capture` never allocates, locks or logs: every buffer is allocated here.
public final class CoachListener: CaptureConsumer, @unchecked Sendable {
    public let sampleRate: Int
    private let detector: OnsetDetector
    // Single producer (capture thread), single consumer (drain): the capture thread owns
    // `write`, the drainer `read`; the slot is published by the release store.
    private let ring: UnsafeMutablePointer<Int64>
    private let mask: Int
    private let written = Atomic<Int>(0)
    private let read = Atomic<Int>(0)
    /// Hits dropped because the ring was full (nobody drained for 256 hits).
    public let dropped = Atomic<Int>(0)
    // Capture thread only: the input sample index and time of the block being processed.
    // Capture thread only: a line through the blocks' stamps (time of input sample k =
    // stampTime + (k - stampAt) x stampSlope, nanoseconds), what a hit's time is read from.
    // A block's stamp is late by however long the capture thread was held up between reading
    // the device's delay and the clock (by 20 ms and more in an emulated board busy with its
    // display at each beat): a hit timed from it alone would be that late.
    private var stampLocked = false
    private var stampTime = 0.0
    private var stampAt: Int64 = 0
    private var stampSlope = 0.0
    private var stampUpdates = 0.0
    private var stampOutliers = 0
    /// Stamps off the line in a row that start it afresh: about 100 ms of blocks. A capture
    /// thread held up at each beat (3 late stamps in a row in the emulated board) must not
    /// move the line; an overrun that lost input does, for good.
    private let outlierRun = 20

    // MARK: the box's side (any thread; the capture thread reads)

    /// What the box played (nil: no subtraction; see `subtractionRefused`).
    private let output: OutputHistory?
    /// Why the box's sound cannot be subtracted (for a notice), nil when it can.
    public let subtractionRefused: String?
    /// The box's output clock (`Box.outputClock`'s parameters), published by the box's thread.
    private let outputClock = PositionSeqlock()
    private let hasOutputClock = Atomic<Bool>(false)
    private let roundTripNanoseconds = Atomic<Int64>(0)
    private let subtracting = Atomic<Bool>(true)
    private let publishedGain = Atomic<UInt32>(0)
    private let publishedLag = Atomic<UInt64>(0)

    // MARK: capture thread only

    /// Input samples received (the delay line's write index) and handed to the detector.
    private var received: Int64 = 0
    private var processed: Int64 = 0
    /// Delay line: the input and its (unscaled) reference by input sample, `lineMask + 1` long.
    private let inputLine: UnsafeMutablePointer<Float>
    private let referenceLine: UnsafeMutablePointer<Float>
    private let scaled: UnsafeMutablePointer<Float>
    private let lineMask: Int
    /// Longest piece of a capture block handled at once.
    private let chunk = 1024
    /// How long each click's gain is fitted over, and how far detection runs behind.
    public let fitWindow: Int

    // Input sample k is heard as engine sample k + offset + drift x (k - offsetAt) (an
    // alpha-beta filter over the blocks' raw times: capture timestamps jitter by up to a
    // USB frame, a click's subtraction needs a small fraction of a sample).
    private var locked = false
    private var offset = 0.0
    private var drift = 0.0
    private var offsetAt: Int64 = 0
    private var updates = 0.0
    private var outliers = 0
    private var lastRoundTrip: Int64 = .min
    /// The lag found in the signal on top of the round trip (samples).
    private var lagCorrection = 0.0
    /// And on top of that, the lag of the last clean click (samples): the filter's line
    /// wanders by a fraction of a millisecond with the stamps of both devices, and a tonal
    /// click subtracted a few samples off leaves most of itself (a hit).
    private var clickLag = 0.0
    private let alignReach: Int
    private var lastAlign: Int64 = .min / 2
    /// The last input sample whose reference was above -60 dBFS, and whether the open window
    /// is a click's first (the reference quiet for 50 ms before it) rather than its tail's.
    private var lastLoud: Int64 = .min / 2
    private var onsetWindow = false
    // The mapping the reference is built with: the filter's, taken only while the reference is
    // quiet, so one click is subtracted at one lag throughout (the filter moves by samples
    // with each late stamp; a ringing click subtracted half a period off doubles).
    private var mapOffset = 0.0
    private var mapDrift = 0.0
    private var mapAt: Int64 = 0
    private let alignScores: UnsafeMutablePointer<Double>
    private let fineScores: UnsafeMutablePointer<Double>
    /// The round trip in engine samples, on the output clock.
    private var roundTripSamples = 0.0

    // The gain fit: one window per click, from the first reference sample above -60 dBFS.
    private var windowStart: Int64 = -1
    private var nextWindow: Int64 = 0
    private var sumXR = 0.0
    private var sumRR = 0.0
    private var sumXX = 0.0
    /// The last `gainCount` accepted gains (a hit on top of a click moves their median little).
    private let gains: UnsafeMutablePointer<Double>
    private let sorted: UnsafeMutablePointer<Double>
    private let gainCount = 7
    private var gainsHeld = 0
    private var gainNext = 0
    private var gain: Float = 0
    /// Clicks in a row heard far quieter than the gain in use says they should be.
    private var quiet = 0
    /// The click under way was not heard (nothing of it subtracted, until the next click).
    private var silentClick = false
    /// The window's sums by part (`isCleanClick`).
    private let parts = 4
    private let partXR: UnsafeMutablePointer<Double>
    private let partRR: UnsafeMutablePointer<Double>
    private let partXX: UnsafeMutablePointer<Double>

    // The lag search: each click's correlation of the input with the reference moved by
    // -searchReach...searchReach samples, summed over `searchClicks` clicks.
    private let searchReach: Int
    private let correlation: UnsafeMutablePointer<Double>
    private var searched = 0
    // The search under way (`continueSearch`): its window, its reference's first engine
    // sample and fraction, its normalization and the next lag to correlate.
    private var pendingSearch: Int64 = -1
    private var searchBase: Int64 = 0
    private var searchFraction: Float = 0
    private var searchNorm = 0.0
    private var searchNext = 0
    private let lagsPerBlock = 40
    private var lastSearch: Int64 = .min / 2
    private let searchClicks = 8

    public init(sampleRate: Int, output: OutputHistory? = nil) {
        self.sampleRate = sampleRate
        // What is left of a subtracted click counts only above -6 dB of the click (8 x quiet:
        // see OnsetDetector; on an emulated loopback the subtraction leaves -12 to -15 dB): a
        // hit on top of a click heard at -12 dB is louder than the click.
        detector = OnsetDetector(.init(sampleRate: sampleRate, bleedGain: 1, residualMargin: 0.25 / 8))
        mask = 255
        ring = .allocate(capacity: mask + 1)
        ring.initialize(repeating: 0, count: mask + 1)
        // Both run at the engine's rate (the capture opens at it or not at all): another
        // rate would need resampling the reference, which the box does not do.
        if let output, output.sampleRate != sampleRate {
            self.output = nil
            subtractionRefused = "Coach: the input runs at \(sampleRate) Hz, the output at \(output.sampleRate) Hz; the click is not subtracted"
        } else {
            self.output = output
            subtractionRefused = nil
        }
        fitWindow = max(16, sampleRate / 100)
        var line = 1
        while line < 2 * (chunk + fitWindow) { line <<= 1 }
        lineMask = line - 1
        inputLine = .allocate(capacity: line)
        inputLine.initialize(repeating: 0, count: line)
        referenceLine = .allocate(capacity: line)
        referenceLine.initialize(repeating: 0, count: line)
        scaled = .allocate(capacity: line)
        scaled.initialize(repeating: 0, count: line)
        partXR = .allocate(capacity: parts)
        partXR.initialize(repeating: 0, count: parts)
        partRR = .allocate(capacity: parts)
        partRR.initialize(repeating: 0, count: parts)
        partXX = .allocate(capacity: parts)
        partXX.initialize(repeating: 0, count: parts)
        gains = .allocate(capacity: gainCount)
        gains.initialize(repeating: 0, count: gainCount)
        sorted = .allocate(capacity: gainCount)
        sorted.initialize(repeating: 0, count: gainCount)
        searchReach = max(4, sampleRate * 5 / 1000)
        alignReach = max(4, sampleRate * 5 / 1000)
        alignScores = .allocate(capacity: 2 * alignReach + 1)
        alignScores.initialize(repeating: 0, count: 2 * alignReach + 1)
        fineScores = .allocate(capacity: 5)
        fineScores.initialize(repeating: 0, count: 5)
        correlation = .allocate(capacity: 2 * searchReach + 1)
        correlation.initialize(repeating: 0, count: 2 * searchReach + 1)
    }

    deinit {
        ring.deallocate()
        inputLine.deallocate()
        referenceLine.deallocate()
        scaled.deallocate()
        gains.deallocate()
        sorted.deallocate()
        partXR.deallocate()
        partRR.deallocate()
        partXX.deallocate()
        correlation.deallocate()
        alignScores.deallocate()
        fineScores.deallocate()
    }

    /// The calibrated round trip (speaker to microphone, through both devices) the box takes
    /// off each hit: the capture thread shifts the reference by it. From the box's thread,
    /// at start and whenever it changes; a new value starts the lag search afresh.
    public func setRoundTrip(nanoseconds: Int64) {
        roundTripNanoseconds.store(nanoseconds, ordering: .relaxed)
    }

    /// Off while Menu > Coach > Calibrate plays its clicks (it must hear them); on otherwise.
    public func setBleedSubtraction(_ on: Bool) {
        subtracting.store(on, ordering: .relaxed)
    }

    /// The box's output clock (`Box.outputClock`): the one mapping from CLOCK_MONOTONIC to the
    /// engine sample being heard, published without locks for the capture thread.
    public func setOutputClock(_ clock: AudioOutputClock) {
        outputClock.publish(frames: clock.engineSample, delay: Int(clock.outputDelayFrames),
                            at: MonotonicTime(nanoseconds: clock.nanoseconds), nanosecondsPerFrame: clock.nanosecondsPerSample)
        hasOutputClock.store(true, ordering: .releasing)
    }

    /// The bleed gain in use (0: nothing subtracted yet).
    public var bleedGain: Float { Float(bitPattern: publishedGain.load(ordering: .relaxed)) }
    /// The lag the signal showed on top of the round trip, in samples.
    public var lagCorrectionSamples: Double { Double(bitPattern: publishedLag.load(ordering: .relaxed)) }

    public func capture(_ samples: UnsafeBufferPointer<Float>, firstSampleAt nanoseconds: Int64) {
        trackStamp(Double(nanoseconds), at: received)
        var done = 0
        while done < samples.count {
            let count = min(chunk, samples.count - done)
            let time = nanoseconds + Int64(done) * 1_000_000_000 / Int64(sampleRate)
            take(UnsafeBufferPointer(rebasing: samples[done..<(done + count)]), at: time)
            done += count
        }
    }

    /// The hits found since the last call (their times), oldest first.
    public func drain() -> [MonotonicTime] {
        let end = written.load(ordering: .acquiring)
        var r = read.load(ordering: .relaxed)
        var hits: [MonotonicTime] = []
        while r < end {
            hits.append(MonotonicTime(nanoseconds: ring[r & mask]))
            r += 1
        }
        read.store(r, ordering: .releasing)
        return hits
    }

    // MARK: capture thread

    private func take(_ samples: UnsafeBufferPointer<Float>, at time: Int64) {
        let first = received
        for i in 0..<samples.count { inputLine[Int(first + Int64(i)) & lineMask] = samples[i] }
        let referenced = subtracting.load(ordering: .relaxed) && reference(count: samples.count, from: first, at: time)
        if !referenced {
            windowStart = -1
            for i in 0..<samples.count { referenceLine[Int(first + Int64(i)) & lineMask] = 0 }
        }
        received += Int64(samples.count)
        if referenced { fit(from: first) }
        continueSearch()
        detect(upTo: received - Int64(fitWindow))
    }

    /// The reference of input samples `first..<first + count` (which reached the converter
    /// from `time` on) into `referenceLine`; false when there is none (no clock or output yet).
    private func reference(count: Int, from first: Int64, at time: Int64) -> Bool {
        guard let output, hasOutputClock.load(ordering: .acquiring) else { return false }
        let position = outputClock.read()
        let clock = AudioOutputClock(sampleRate: sampleRate, engineSample: position.framesRendered,
                                     outputDelayFrames: Int64(position.delayFrames),
                                     nanoseconds: position.timestamp.nanoseconds,
                                     nanosecondsPerSample: position.nanosecondsPerFrame)
        let heard = clock.heardSample(atNanoseconds: time)
        let roundTrip = roundTripNanoseconds.load(ordering: .relaxed)
        if roundTrip != lastRoundTrip {
            // A new calibration: the lag found so far belonged to the old one.
            lastRoundTrip = roundTrip
            lagCorrection = 0
            clickLag = 0
            resetSearch()
        }
        roundTripSamples = heard - clock.heardSample(atNanoseconds: time - roundTrip)
        track(heard - Double(first), at: first)
        // A stamp far off the line is most often late (the capture thread held up between
        // the device's delay and the clock: in an emulated board at every beat): the line
        // still holds, and a click left unsubtracted for a block would be a hit. After an
        // overrun that lost input the line is wrong for the two blocks before it starts afresh.
        if first - lastLoud > Int64(sampleRate / 20) { (mapOffset, mapDrift, mapAt) = (offset, drift, offsetAt) }
        let base = referenceBase(of: first)
        let from = Int64((base - 1).rounded(.down))
        let upTo = Int64((base + (1 + drift) * Double(count) + 2).rounded(.up))
        // Before the engine's sample 0 the box played nothing.
        guard output.holds(from: max(from, 0), upTo: max(upTo, 0)) else { return false }
        for i in 0..<count {
            let e = base + (1 + drift) * Double(i)
            let whole = e.rounded(.down)
            let f = Float(e - whole)
            let s = Int64(whole)
            referenceLine[Int(first + Int64(i)) & lineMask] = s < 0 ? 0 : output[s] * (1 - f) + output[s + 1] * f
        }
        // Overwritten while read (the capture stalled for seconds): no reference this time.
        return output.holds(from: max(from, 0), upTo: max(upTo, 0))
    }

    /// One raw measurement of the offset (heard engine sample minus input sample) at input
    /// sample `at`, into the filter. Growing memory (a least-squares line) at first, then an
    /// alpha-beta filter of about 200 updates; `outlierRun` outliers in a row (a capture overrun, a
    /// new output) start it afresh.
    private func track(_ raw: Double, at sample: Int64) {
        guard locked else {
            (locked, offset, drift, offsetAt, updates, outliers) = (true, raw, 0, sample, 1, 0)
            return
        }
        let elapsed = Double(sample - offsetAt)
        let predicted = offset + drift * elapsed
        let error = raw - predicted
        guard abs(error) < Double(sampleRate) * 0.003 else {
            outliers += 1
            if outliers >= outlierRun { (offset, drift, offsetAt, updates, outliers) = (raw, 0, sample, 1, 0) }
            return
        }
        outliers = 0
        updates += 1
        let n = updates
        let alpha = max(2 * (2 * n - 1) / (n * (n + 1)), 0.005)
        let beta = max(6 / (n * (n + 1)), 0.005 * 0.005 / 1.995)
        offset = predicted + alpha * error
        // Two converters' clocks differ by a few hundred ppm at most (the emulated board's
        // showed 300): the first few stamps, jittering by milliseconds, would otherwise set a
        // drift that puts the reference samples off for seconds.
        if elapsed > 0 { drift = min(max(drift + beta * error / elapsed, -5e-4), 5e-4) }
        offsetAt = sample
    }

    /// The block starting at input sample `sample` was stamped `time`: into the line hits are
    /// timed by (an alpha-beta filter of about 200 blocks; a stamp 3 ms or more off it is left
    /// out; `outlierRun` in a row, as after an overrun that lost input, start it afresh).
    private func trackStamp(_ time: Double, at sample: Int64) {
        let nominal = 1e9 / Double(sampleRate)
        guard stampLocked else {
            (stampLocked, stampTime, stampAt, stampSlope, stampUpdates, stampOutliers) = (true, time, sample, nominal, 1, 0)
            return
        }
        let elapsed = Double(sample - stampAt)
        let predicted = stampTime + stampSlope * elapsed
        let error = time - predicted
        guard abs(error) < 3e6 else {
            stampOutliers += 1
            if stampOutliers >= outlierRun { (stampTime, stampAt, stampSlope, stampUpdates, stampOutliers) = (time, sample, nominal, 1, 0) }
            return
        }
        stampOutliers = 0
        stampUpdates += 1
        let n = stampUpdates
        let alpha = max(2 * (2 * n - 1) / (n * (n + 1)), 0.005)
        let beta = max(6 / (n * (n + 1)), 0.005 * 0.005 / 1.995)
        stampTime = predicted + alpha * error
        if elapsed > 0 {
            // The converter's clock is within 0.1 % of nominal: a slope beyond is a fluke.
            stampSlope = min(max(stampSlope + beta * error / elapsed, nominal * 0.999), nominal * 1.001)
        }
        stampAt = sample
    }

    /// Gain fit and lag search over the new samples: a window opens where the reference first
    /// rises above -60 dBFS and closes `fitWindow` samples later.
    private func fit(from first: Int64) {
        var k = first
        while k < received {
            let r = Double(referenceLine[Int(k) & lineMask])
            let loud = abs(r) > 0.001
            let sample = k
            defer { if loud { lastLoud = sample } }
            if windowStart < 0 {
                if k >= nextWindow && loud {
                    onsetWindow = k - lastLoud > Int64(sampleRate / 20)
                    windowStart = k
                    (sumXR, sumRR, sumXX) = (0, 0, 0)
                    for q in 0..<parts { (partXR[q], partRR[q], partXX[q]) = (0, 0, 0) }
                } else {
                    k += 1
                    continue
                }
            }
            let x = Double(inputLine[Int(k) & lineMask])
            sumXR += x * r
            sumRR += r * r
            sumXX += x * x
            let q = Int(k - windowStart) * parts / fitWindow
            partXR[q] += x * r
            partRR[q] += r * r
            partXX[q] += x * x
            k += 1
            if k - windowStart == Int64(fitWindow) { closeWindow() }
        }
    }

    private func closeWindow() {
        let start = windowStart
        windowStart = -1
        nextWindow = start + Int64(fitWindow) * 5 / 2
        guard sumRR > 0 else { return }
        // A window the click explains at the lag in use needs no other lag.
        // Only a click's first window: its tail rings alike a period off.
        if onsetWindow, sumXX > 0, !(sumXR > 0 && sumXR * sumXR > 0.9 * sumRR * sumXX), start - lastAlign >= Int64(sampleRate / 10) {
            lastAlign = start
            align(start)
        }
        // Heard at the gain in use, the click alone would put g^2 x sumRR into the window: an
        // input far quieter than that says the microphone does not hear the click at that
        // gain (a gain taken from a fluke, the speaker turned down, headphones put on). Two
        // such clicks in a row and nothing is subtracted until clean clicks show it again.
        let g = Double(gain)
        if g > 0 && sumXX < 0.2 * g * g * sumRR {
            quiet += 1
            if quiet >= 2 { dropGain() }
            // And this click is left alone at once (none of it judged yet): subtracting a click
            // that is not there would put its inverse in, a hit.
            if onsetWindow { silentClick = true }
        } else {
            quiet = 0
            if onsetWindow { silentClick = false }
        }
        if isCleanClick() {
            gains[gainNext] = sumXR / sumRR
            gainNext = (gainNext + 1) % gainCount
            gainsHeld = min(gainsHeld + 1, gainCount)
            gain = Float(medianGain())
            publishedGain.store(gain.bitPattern, ordering: .relaxed)
        }
        // At most 10 searches a second: a steady tone opens a window every 25 ms.
        if start - lastSearch >= Int64(sampleRate / 10) {
            lastSearch = start
            search(windowAt: start)
        }
    }

    /// Whether the window holds a clean copy of the click: it explains most of the input
    /// (the squared correlation) over the whole window AND over each of its `parts` parts that
    /// carry the click, each part at about the same gain. A hit on top, or a wrong lag, fails:
    /// a tonal click (a damped sinusoid) has so few degrees of freedom in 10 ms that a noise
    /// hit on top can match it as a whole by chance, but hardly part by part at one gain; and
    /// subtracting a click that is not there would put an inverted click over the hit.
    private func isCleanClick() -> Bool {
        guard sumXR > 0, sumXX > 0 else { return false }
        guard sumXR * sumXR > 0.5 * sumRR * sumXX else { return false }
        let g = sumXR / sumRR
        for q in 0..<parts where partRR[q] > 0.1 * sumRR {
            let (xr, rr, xx) = (partXR[q], partRR[q], partXX[q])
            guard xr > 0, xr * xr > 0.5 * rr * xx else { return false }
            let part = xr / rr
            guard part < 1.5 * g, part > g / 1.5 else { return false }
        }
        return true
    }

    /// The click's own lag, where the lag in use does not explain its window: first the
    /// click's attack (the reference's first quarter window) against the input moved by up
    /// to 5 ms (the lag search's reach; a tonal click matches itself a period off too, but
    /// its attack less so), then the whole window within 2 samples of the best, to a
    /// fraction of a sample. Only a window the click explains to 90 % there, and part by part
    /// (`isCleanClick`), moves it; the reference from the window on (none of it judged yet:
    /// detection runs a window behind) is redone with it. At most 10 times a second.
    private func align(_ start: Int64) {
        guard let output else { return }
        let reach = alignReach
        // Coarse: the reference's first quarter window (the click's attack, fixed) against
        // the input moved by each lag, normalized by the input's energy there.
        let head = max(4, fitWindow / 4)
        var refEnergy = 0.0
        for m in 0..<head { let r = Double(referenceLine[Int(start + Int64(m)) & lineMask]); refEnergy += r * r }
        guard refEnergy > 0 else { return }
        var best = reach
        for l in -reach...reach {
            var c = 0.0, xx = 0.0
            for m in 0..<head {
                let x = Double(inputLine[Int(start + Int64(m + l)) & lineMask])
                c += x * Double(referenceLine[Int(start + Int64(m)) & lineMask])
                xx += x * x
            }
            alignScores[l + reach] = xx > 0 ? c / xx.squareRoot() : 0
            if alignScores[l + reach] > alignScores[best] { best = l + reach }
        }
        // Fine: the whole window at that lag and 2 samples either side (the input later by l
        // samples is the reference moved by -l), to a fraction of a sample.
        let around = -(best - reach)
        let base = referenceBase(of: start)
        let whole = base.rounded(.down)
        let f = Float(base - whole)
        let s0 = Int64(whole)
        let from = s0 + Int64(around) - 3, upTo = s0 + Int64(around + fitWindow) + 4
        guard from >= 0, output.holds(from: from, upTo: upTo) else { return }
        var top = 0
        for i in 0..<5 {
            var c = 0.0, rr = 0.0
            let s = s0 + Int64(around + i - 2)
            for m in 0..<fitWindow {
                let r = Double(output[s + Int64(m)] * (1 - f) + output[s + Int64(m) + 1] * f)
                c += Double(inputLine[Int(start + Int64(m)) & lineMask]) * r
                rr += r * r
            }
            fineScores[i] = rr > 0 ? c / rr.squareRoot() : 0
            if fineScores[i] > fineScores[top] { top = i }
        }
        guard output.holds(from: from, upTo: upTo) else { return }
        let peak = fineScores[top]
        guard peak > 0, peak * peak > 0.9 * sumXX else { return }
        var shift = Double(around + top - 2)
        if top > 0 && top < 4 {
            let (a, b, c) = (fineScores[top - 1], peak, fineScores[top + 1])
            let curvature = a - 2 * b + c
            if curvature < 0 { shift += 0.5 * (a - c) / curvature }
        }
        guard abs(shift) > 0.05 else { return }
        let kept = clickLag
        clickLag = min(max(clickLag + shift, -Double(searchReach)), Double(searchReach))
        guard refill(from: start), isCleanClick() else {
            clickLag = kept
            _ = refill(from: start)
            return
        }
    }

    /// Redoes the reference of input samples `start..<received` with the lag as it is now, and
    /// the window's sums (false, and the reference left as it was, when the output is gone).
    private func refill(from start: Int64) -> Bool {
        guard let output else { return false }
        let first = referenceBase(of: start)
        let last = referenceBase(of: received)
        let from = Int64((first - 1).rounded(.down)), upTo = Int64((last + 2).rounded(.up))
        guard from >= 0, output.holds(from: from, upTo: upTo) else { return false }
        var k = start
        while k < received {
            let e = referenceBase(of: k)
            let whole = e.rounded(.down)
            let f = Float(e - whole)
            let s = Int64(whole)
            referenceLine[Int(k) & lineMask] = output[s] * (1 - f) + output[s + 1] * f
            k += 1
        }
        (sumXR, sumRR, sumXX) = (0, 0, 0)
        for q in 0..<parts { (partXR[q], partRR[q], partXX[q]) = (0, 0, 0) }
        for m in 0..<fitWindow {
            let i = Int(start + Int64(m)) & lineMask
            let x = Double(inputLine[i]), r = Double(referenceLine[i])
            let q = m * parts / fitWindow
            sumXR += x * r; sumRR += r * r; sumXX += x * x
            partXR[q] += x * r; partRR[q] += r * r; partXX[q] += x * x
        }
        return output.holds(from: from, upTo: upTo)
    }

    private func dropGain() {
        (gainsHeld, gainNext, gain, quiet) = (0, 0, 0, 0)
        publishedGain.store(0, ordering: .relaxed)
    }

    private func medianGain() -> Double {
        for i in 0..<gainsHeld {
            var j = i
            let v = gains[i]
            while j > 0 && sorted[j - 1] > v { sorted[j] = sorted[j - 1]; j -= 1 }
            sorted[j] = v
        }
        return gainsHeld % 2 == 1 ? sorted[gainsHeld / 2] : (sorted[gainsHeld / 2 - 1] + sorted[gainsHeld / 2]) / 2
    }

    /// The window's input against the reference moved by each lag in reach (from the output
    /// history: the reference as built, `referenceLine`, plus whole samples), normalized so a
    /// loud hit's window counts no more than a clean one. After `searchClicks` windows the peak,
    /// if it stands out, to a fraction of a sample, moves the lag; then a new search.
    private func search(windowAt start: Int64) {
        guard let output, pendingSearch < 0 else { return }
        var energy = 0.0
        for m in 0..<fitWindow { let x = Double(inputLine[Int(start + Int64(m)) & lineMask]); energy += x * x }
        guard energy > 0 else { return }
        // The engine sample the window's first input sample was referenced to.
        let base = referenceBase(of: start)
        let from = Int64(base.rounded(.down)) - Int64(searchReach) - 1
        let upTo = Int64(base.rounded(.up)) + Int64(fitWindow + searchReach) + 2
        guard output.holds(from: from, upTo: upTo) else { return }
        let whole = base.rounded(.down)
        searchFraction = Float(base - whole)
        searchBase = Int64(whole)
        var reference = 0.0
        for m in 0..<fitWindow {
            let r = Double(output[searchBase + Int64(m)] * (1 - searchFraction) + output[searchBase + Int64(m) + 1] * searchFraction)
            reference += r * r
        }
        guard reference > 0 else { return }
        searchNorm = 1 / (energy * reference).squareRoot()
        pendingSearch = start
        searchNext = -searchReach
    }

    /// A share of the pending search's lags (`lagsPerBlock`), so no capture block carries all
    /// 2 x 240 + 1 of them (the emulated board's capture overran at every click): finished
    /// well before the window's input is overwritten in the delay line.
    private func continueSearch() {
        guard let output, pendingSearch >= 0 else { return }
        let start = pendingSearch
        let (s0, f, norm) = (searchBase, searchFraction, searchNorm)
        let from = s0 - Int64(searchReach) - 1
        let upTo = s0 + Int64(fitWindow + searchReach) + 2
        guard output.holds(from: from, upTo: upTo) else { pendingSearch = -1; resetSearch(); return }
        let last = min(searchNext + lagsPerBlock - 1, searchReach)
        for l in searchNext...last {
            var c = 0.0
            let s = s0 + Int64(l)
            for m in 0..<fitWindow {
                let r = output[s + Int64(m)] * (1 - f) + output[s + Int64(m) + 1] * f
                c += Double(inputLine[Int(start + Int64(m)) & lineMask]) * Double(r)
            }
            correlation[l + searchReach] += c * norm
        }
        searchNext = last + 1
        guard searchNext > searchReach else { return }
        pendingSearch = -1
        guard output.holds(from: from, upTo: upTo) else { resetSearch(); return }
        searched += 1
        guard searched >= searchClicks else { return }
        var best = 0
        var mean = 0.0
        for i in 0...(2 * searchReach) {
            mean += abs(correlation[i])
            if correlation[i] > correlation[best] { best = i }
        }
        mean /= Double(2 * searchReach + 1)
        // Clean clicks correlate with their reference near 1; windows with a hit on top, or
        // the hits alone, far less: only a clear copy of the click moves the lag.
        // A tonal click correlates nearly as well a period off, and hits' tails blur the peak:
        // a move by whole samples needs a clearly better match than the lag in use.
        let clear = best == searchReach || correlation[best] > 1.25 * correlation[searchReach]
        if clear, correlation[best] > 0.3 * Double(searched), correlation[best] > 2 * mean, best > 0, best < 2 * searchReach {
            let (a, b, c) = (correlation[best - 1], correlation[best], correlation[best + 1])
            let curvature = a - 2 * b + c
            let fraction = curvature < 0 ? 0.5 * (a - c) / curvature : 0
            let shift = Double(best - searchReach) + fraction
            // Within reach of the round trip the box takes off hits (a calibration's error).
            // The search ran on the reference moved by the click's lag too: both become one.
            if abs(shift) > 0.05, abs(lagCorrection + clickLag + shift) <= Double(searchReach) {
                lagCorrection += clickLag + shift
                clickLag = 0
                publishedLag.store(lagCorrection.bitPattern, ordering: .relaxed)
            }
        }
        resetSearch()
    }

    private func resetSearch() {
        searched = 0
        correlation.update(repeating: 0, count: 2 * searchReach + 1)
    }

    /// The engine sample (fractional) input sample `k` is referenced to now.
    private func referenceBase(of k: Int64) -> Double {
        Double(k) + mapOffset + mapDrift * Double(k - mapAt) - roundTripSamples + lagCorrection + clickLag
    }

    /// Hands the detector the samples up to `end`, each with its reference times the gain.
    private func detect(upTo end: Int64) {
        while processed < end {
            let at = Int(processed) & lineMask
            let count = min(Int(end - processed), lineMask + 1 - at)
            let input = UnsafeBufferPointer(start: inputLine + at, count: count)
            let g = silentClick ? 0 : gain
            if g > 0 {
                for i in 0..<count { scaled[at + i] = g * referenceLine[at + i] }
                detector.process(input, reference: UnsafeBufferPointer(start: scaled + at, count: count)) { found($0, $1) }
            } else {
                detector.process(input) { found($0, $1) }
            }
            processed += Int64(count)
        }
    }

    private func found(_ sample: Int64, _ level: Double) {
        // The onset may lie in an earlier block: its time counts back from this one's.
        let time = Int64((stampTime + Double(sample - stampAt) * stampSlope).rounded())
        let w = written.load(ordering: .relaxed)
        guard w - read.load(ordering: .acquiring) <= mask else {
            dropped.add(1, ordering: .relaxed)
            return
        }
        ring[w & mask] = time
        written.store(w + 1, ordering: .releasing)
    }
}
