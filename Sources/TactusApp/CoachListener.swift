// SPDX-License-Identifier: GPL-3.0-or-later
import Coach
import HAL
import Synchronization
import TactusBase
import TactusTimeline

/// The live coach's ears on the capture thread: the box's own click taken out of the input
/// (`ClickCanceller`, reading what the render thread played from `SampleHistory`), then the
/// same `OnsetDetector` as `tactus coach`; each hit stamped with the CLOCK_MONOTONIC time
/// of its first sample and put in a lock-free ring; `drain` (the capture's supervisor,
/// every 5 ms) takes the hits out for the control loop, which judges them on the one
/// timeline (`Box.coachHit(at:)`).
///
/// `capture` never allocates, locks or logs: the canceller, detector and ring are allocated
/// here; the box's settings reach it through atomics.
public final class CoachListener: CaptureConsumer, @unchecked Sendable {
    public let sampleRate: Int
    private let canceller: ClickCanceller
    private let audio: (any AudioClockSource)?
    // Single producer (capture thread), single consumer (drain): the capture thread owns
    // `write`, the drainer `read`; the slot is published by the release store.
    private let ring: UnsafeMutablePointer<Int64>
    private let mask: Int
    private let written = Atomic<Int>(0)
    private let read = Atomic<Int>(0)
    /// Hits dropped because the ring was full (nobody drained for 256 hits).
    public let dropped = Atomic<Int>(0)
    // The box's side (`tune`): the round trip (ns), subtracting or learning, the stored gain
    // (Float bits; NaN: none).
    private let roundTrip = Atomic<Int64>(0)
    private let learning = Atomic<Bool>(false)
    private let storedGain = Atomic<UInt32>(Float.nan.bitPattern)
    // The capture thread's: the learned gain (Float bits) and the clean clicks behind it.
    private let learnedGain = Atomic<UInt32>(Float.nan.bitPattern)
    private let cleanClicks = Atomic<Int>(0)
    /// Each click fitted, for the supervisor's debug log (dropped when full).
    public let fits = SPSCRing<ClickCanceller.Fit>(minimumCapacity: 64)
    private var fitsSeen = 0
    // Capture thread only: the input sample index and time of the block being processed.
    private var blockStart: Int64 = 0
    private var blockTime: Int64 = 0

    /// `output`: what the box plays (its render thread's history) and where playback is; nil
    /// without one (nothing is subtracted).
    public init(sampleRate: Int, output: (history: any OutputReference, audio: any AudioClockSource)? = nil) {
        self.sampleRate = sampleRate
        canceller = ClickCanceller(sampleRate: sampleRate, reference: output?.history ?? NoOutput())
        canceller.mode = output == nil ? .off : .subtract
        audio = output?.audio
        mask = 255
        ring = .allocate(capacity: mask + 1)
        ring.initialize(repeating: 0, count: mask + 1)
    }

    deinit { ring.deallocate() }

    /// The box's thread: the round trip to look for the click at, whether to take it out or
    /// learn it (Calibrate: the detector must hear the clicks), and the calibrated gain.
    public func tune(roundTripNanoseconds: Int64, subtract: Bool, clickGain: Float?) {
        roundTrip.store(roundTripNanoseconds, ordering: .relaxed)
        storedGain.store((clickGain ?? .nan).bitPattern, ordering: .relaxed)
        learning.store(!subtract, ordering: .releasing)
    }

    /// The click's gain learned from clean clicks since learning began, and how many.
    public var learned: (gain: Float, clicks: Int)? {
        let clicks = cleanClicks.load(ordering: .acquiring)
        let gain = Float(bitPattern: learnedGain.load(ordering: .relaxed))
        return clicks > 0 && !gain.isNaN ? (gain, clicks) : nil
    }

    public func capture(_ samples: UnsafeBufferPointer<Float>, firstSampleAt nanoseconds: Int64) {
        blockStart = canceller.inputEnd
        blockTime = nanoseconds
        let predicted = predictedLag(firstSampleAt: nanoseconds)
        canceller.process(samples, predictedLag: predicted) { sample, _ in
            // The onset may lie in an earlier block: its time counts back from this one's.
            record(blockTime + (sample - blockStart) * 1_000_000_000 / Int64(sampleRate))
        }
        if canceller.fits != fitsSeen {
            fitsSeen = canceller.fits
            fits.push(canceller.lastFit)
        }
        if let gain = canceller.learnedGain {
            learnedGain.store(gain.bitPattern, ordering: .relaxed)
            cleanClicks.store(canceller.cleanClicks, ordering: .releasing)
        }
    }

    /// Takes the box's settings in, and says where the click heard now was played: the input
    /// index minus the engine sample heard a round trip before (learning: the round trip is
    /// what Calibrate measures, so none is assumed).
    private func predictedLag(firstSampleAt nanoseconds: Int64) -> Int64? {
        guard let audio else { return nil }
        let learn = learning.load(ordering: .acquiring)
        let mode: ClickCanceller.Mode = learn ? .learn : .subtract
        if canceller.mode != mode { canceller.mode = mode }
        let gain = Float(bitPattern: storedGain.load(ordering: .relaxed))
        canceller.storedGain = gain.isNaN ? nil : gain
        guard let position = audio.outputPosition else { return nil }
        let clock = AudioOutputClock(position, sampleRate: sampleRate)
        let heard = clock.heardSample(atNanoseconds: nanoseconds - (learn ? 0 : roundTrip.load(ordering: .relaxed)))
        return blockStart - Int64(heard.rounded(.down))
    }

    private func record(_ time: Int64) {
        let w = written.load(ordering: .relaxed)
        guard w - read.load(ordering: .acquiring) <= mask else {
            dropped.add(1, ordering: .relaxed)
            return
        }
        ring[w & mask] = time
        written.store(w + 1, ordering: .releasing)
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
}

/// No output to read (a listener without one subtracts nothing).
private final class NoOutput: OutputReference {
    func read(from start: Int64, count: Int, into destination: UnsafeMutablePointer<Float>) -> Bool { false }
}

extension SampleHistory: OutputReference {}
