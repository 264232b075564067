// SPDX-License-Identifier: GPL-3.0-or-later
/// Keeps the mix below the ceiling (-0.5 dBFS) without wrapping, clipping or steps in gain.
/// While the sum stays at or below the ceiling the gain is exactly 1, so the output is the
/// exact sum of the clips. Above it, the gain follows a look-ahead envelope: the renderer
/// mixes `lookahead` frames past the block (it knows every onset in advance), so the gain
/// starts falling up to `lookahead` frames before a peak, by at most 1 / lookahead per
/// frame, and reaches exactly the needed gain on the peak; it then holds 10 ms and returns
/// to 1 in at most 50 ms. The gain is a function of the signal alone, computed frame by
/// frame with its state carried across calls, so the output never depends on where blocks
/// begin or end.
struct Limiter {
    /// -0.5 dBFS: sample peaks stay below it, and the clips' inter-sample overshoot (true
    /// peak) stays below -0.1 dBFS (see MixerTests).
    static let ceiling: Float = 0.944_060_9
    private(set) var gain: Float = 1
    private var holdRemaining = 0
    let lookahead: Int
    private let holdFrames: Int
    private let releasePerFrame: Float
    private let attackPerFrame: Float
    /// Per-frame envelope work space, allocated once.
    private let gains: UnsafeMutablePointer<Float>
    let maxFrames: Int

    init(sampleRate: Int, maxFrames: Int) {
        lookahead = max(sampleRate / 500, 1) // 2 ms
        holdFrames = sampleRate / 100 // 10 ms
        releasePerFrame = 1 / Float(max(sampleRate / 20, 1)) // full recovery in 50 ms
        attackPerFrame = 1 / Float(lookahead)
        self.maxFrames = maxFrames
        gains = .allocate(capacity: maxFrames + lookahead + 1)
    }

    func deallocate() { gains.deallocate() }

    /// Whether the gain is exactly 1 with nothing pending: then a block whose frames (and
    /// the look-ahead after them) stay within the ceiling needs no processing at all.
    var isIdle: Bool { gain == 1 && holdRemaining == 0 }

    /// Largest magnitude in the block, eight lanes at a time.
    static func peak(_ samples: UnsafeMutablePointer<Float>, frameCount: Int) -> Float {
        let raw = UnsafeRawPointer(samples)
        var lanes = SIMD8<Float>(repeating: 0)
        var i = 0
        while i + 8 <= frameCount {
            let v = raw.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
            let magnitude = v.replacing(with: -v, where: v .< 0)
            lanes.replace(with: magnitude, where: magnitude .> lanes)
            i += 8
        }
        var peak = lanes.max()
        while i < frameCount {
            peak = max(peak, abs(samples[i]))
            i += 1
        }
        return peak
    }

    /// Applies the gain to the first `frameCount` frames of `signal` in place; the
    /// `lookahead` frames after them must hold the mix that follows (they are only read).
    /// Returns true if the gain was below 1 anywhere in the block.
    @discardableResult
    mutating func process(_ signal: UnsafeMutablePointer<Float>, frameCount: Int) -> Bool {
        let total = frameCount + lookahead
        if isIdle && Limiter.peak(signal, frameCount: total) <= Limiter.ceiling { return false }
        // Backward: the highest gain that can still fall, at attackPerFrame, to what every
        // frame of the next `lookahead` needs (further frames cannot matter: 1 / attack = lookahead).
        var envelope: Float = 1
        for frame in stride(from: total - 1, through: 0, by: -1) {
            let magnitude = abs(signal[frame])
            let needed: Float = magnitude > Limiter.ceiling ? Limiter.ceiling / magnitude : 1
            envelope = min(needed, envelope + attackPerFrame)
            if frame < frameCount { gains[frame] = envelope }
        }
        var acted = false
        var g = gain
        for frame in 0..<frameCount {
            let target = gains[frame]
            if target < g {
                g = target
                holdRemaining = holdFrames
            } else if holdRemaining > 0 {
                holdRemaining -= 1
            } else if g < 1 {
                g = min(1, g + releasePerFrame, target)
            }
            if g < 1 {
                acted = true
                // The envelope never lets a product exceed the ceiling; float rounding of
                // ceiling / magnitude is caught here.
                signal[frame] = min(Limiter.ceiling, max(-Limiter.ceiling, signal[frame] * g))
            }
        }
        gain = g
        return acted
    }
}
