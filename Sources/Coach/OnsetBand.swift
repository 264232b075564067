// SPDX-License-Identifier: GPL-3.0-or-later

/// One band of the detector's residual judged on its own (`OnsetDetector`): its last samples,
/// its frame energies, its noise floor and its loudest recent hit. Allocated once, in the
/// detector's `init`; nothing here allocates after.
struct OnsetBand {
    let samples: UnsafeMutablePointer<Double>
    let frames: UnsafeMutablePointer<Double>
    private let historyMask: Int
    private let frameMask: Int
    private var frameSum = 0.0
    private var blockSum = 0.0
    /// Mean energy per sample of the quietest recent 10 ms blocks (as the detector's own floor).
    private(set) var floor = Double.infinity
    /// The loudest recent hit's energy in this band, and its sample (it falls 6 dB a second).
    private var recent = 0.0
    private var recentSample: Int64 = 0

    /// The floor once measured (0 before the first quiet block), never under `least`.
    func knownFloor(least: Double) -> Double { max(floor.isFinite ? floor : 0, least) }

    init(history: Int, frameCount: Int) {
        historyMask = history - 1
        frameMask = frameCount - 1
        samples = .allocate(capacity: history)
        samples.initialize(repeating: 0, count: history)
        frames = .allocate(capacity: frameCount)
        frames.initialize(repeating: 0, count: frameCount)
    }

    func deallocate() {
        samples.deallocate()
        frames.deallocate()
    }

    @inline(__always)
    mutating func add(_ value: Double, at position: Int64) {
        samples[Int(position) & historyMask] = value
        frameSum += value * value
    }

    @inline(__always)
    mutating func endFrame(_ frame: Int64) {
        frames[Int(frame) & frameMask] = frameSum
        blockSum += frameSum
        frameSum = 0
    }

    /// A 10 ms block ended (`count` samples): the floor follows down at once, up by `rise`.
    mutating func endBlock(count: Int, rise: Double, least: Double) {
        floor = min(floor * rise, max(blockSum / Double(count), least))
        blockSum = 0
    }

    /// Mean energy per sample of `count` frames before frame `newest + 1`, `skip` left out.
    @inline(__always)
    func mean(newest: Int64, skip: Int, count: Int, frameLength: Int) -> Double {
        var sum = 0.0
        for k in 0..<count { sum += frames[Int(newest - Int64(skip + k)) & frameMask] }
        return sum / Double(count * frameLength)
    }

    /// The recent hits' loudest energy at `sample` (falling 6 dB a second), raised to `level`.
    mutating func reference(_ level: Double, at sample: Int64, rate: Int) -> Double {
        let reference = recent * power10(-0.6 * Double(sample - recentSample) / Double(rate))
        if level > reference { (recent, recentSample) = (level, sample) }
        return reference
    }
}
