/// Keeps the mix inside full scale without wrapping and without pops. While the sum stays
/// within -1...1 the gain is exactly 1, so the output is the exact sum of the clips. When
/// the sum would exceed full scale, the gain drops to exactly what is needed, ramping down
/// ahead of the peak within the block (a short attack instead of a step), holds, and
/// returns to exactly 1 along a slow linear release.
struct Limiter {
    private(set) var gain: Float = 1
    private var holdRemaining = 0
    private let holdFrames: Int
    private let releasePerFrame: Float
    private let attackPerFrame: Float
    /// Per-frame gain work space, allocated once.
    private let gains: UnsafeMutablePointer<Float>
    let maxFrames: Int

    init(sampleRate: Int, maxFrames: Int) {
        holdFrames = sampleRate / 100 // 10 ms
        releasePerFrame = 1 / Float(sampleRate / 20) // full recovery in 50 ms
        attackPerFrame = 1 / Float(max(sampleRate / 1000, 1)) // at most 1 ms ramp
        self.maxFrames = maxFrames
        gains = .allocate(capacity: max(maxFrames, 1))
    }

    func deallocate() { gains.deallocate() }

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

    /// Applies the gain to `mix` in place. Returns true if the limiter acted in this block.
    @discardableResult
    mutating func process(_ mix: UnsafeMutablePointer<Float>, frameCount: Int) -> Bool {
        if gain == 1 {
            // The usual case: nothing near full scale, nothing to do (a single vectorisable pass).
            if Limiter.peak(mix, frameCount: frameCount) <= 1 { return false }
        }
        var acted = false
        var g = gain
        for frame in 0..<frameCount {
            let magnitude = abs(mix[frame])
            if magnitude > 1 {
                g = min(g, 1 / magnitude)
                holdRemaining = holdFrames
                acted = true
            } else if holdRemaining > 0 {
                holdRemaining -= 1
            } else if g < 1 {
                g = min(1, g + releasePerFrame)
            }
            gains[frame] = g
        }
        guard acted || gain < 1 || g < 1 else { return false }
        gain = g
        // Attack: let the gain fall towards a peak over the frames before it, not in one step.
        if frameCount > 1 {
            for frame in stride(from: frameCount - 2, through: 0, by: -1) {
                gains[frame] = min(gains[frame], gains[frame + 1] + attackPerFrame)
            }
        }
        for frame in 0..<frameCount {
            mix[frame] = min(1, max(-1, mix[frame] * gains[frame]))
        }
        return true
    }
}
