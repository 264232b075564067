// SPDX-License-Identifier: GPL-3.0-or-later

/// A take made by a test, with the exact first sample of every hit: drum-like hits (a kick,
/// a snare, a stick on a pad: tone and noise bursts with attacks of 0.05-1 ms and decays of
/// 30-300 ms to -60 dB) at velocities 30-100 %, each off its grid position by a known amount
/// (uniform in +-40 ms, or +-30 % of the grid step where that is less), over white noise 20 dB
/// below the softest hit, with the box's own click bleeding in at -12 dB relative to a full hit.
/// Used by the coach's tests, `make bench` and the VM scenario.
public struct SyntheticTake: Sendable {
    public enum Kind: Int, Sendable, CaseIterable { case kick, snare, stick }

    public struct Hit: Sendable, Hashable {
        /// The first sample of the hit's sound (the truth).
        public var sample: Int64
        /// Which grid position it was played for.
        public var grid: Int
        public var kind: Kind
        public var velocity: Double
        /// sample - grid position, in milliseconds (negative = early).
        public var offsetMilliseconds: Double
    }

    public var samples: [Float]
    public var hits: [Hit]
    public var sampleRate: Int

    /// Peak of a full-velocity hit's envelope.
    public static let fullScale: Double = 0.45

    /// - grid: the positions to play (input samples, exact), one hit each, in time order.
    /// - click: the box's output (mono) from its sample 0, heard at input sample `clickAt`.
    /// - length: the take's length in samples (at least past the last hit's decay).
    public init(grid: [Double], sampleRate: Int, seed: UInt64, length: Int,
                click: [Float]? = nil, clickAt: Int = 0, clickLevelDB: Double = -12,
                noiseBelowSoftestDB: Double = 20, maximumOffset: Double = 0.040, maximumStepFraction: Double = 0.3,
                velocities: ClosedRange<Double> = 0.3...1.0) {
        var random = CoachRandom(seed: seed)
        let rate = Double(sampleRate)
        var out = [Float](repeating: 0, count: length)
        var step = Double.infinity
        for i in grid.indices.dropFirst() { step = min(step, grid[i] - grid[i - 1]) }
        let reach = min(maximumOffset * rate, step.isFinite ? maximumStepFraction * step : maximumOffset * rate)
        var hits: [Hit] = []
        for (index, position) in grid.enumerated() {
            let offset = random.uniform(-reach, reach)
            let first = Int64((position + offset).rounded())
            guard first >= 0, first < Int64(length) else { continue }
            let kind = Kind(rawValue: Int(random.next() % 3))!
            let velocity = random.uniform(velocities.lowerBound, velocities.upperBound)
            hits.append(Hit(sample: first, grid: index, kind: kind, velocity: velocity,
                            offsetMilliseconds: (Double(first) - position) * 1000 / rate))
            SyntheticTake.addHit(kind, at: Int(first), velocity: velocity, rate: rate, into: &out, random: &random)
        }
        if let click {
            var peak: Float = 0
            for x in click { peak = max(peak, abs(x)) }
            if peak > 0 {
                let gain = Float(SyntheticTake.fullScale * decibels(clickLevelDB)) / peak
                for (i, x) in click.enumerated() where x != 0 {
                    let at = clickAt + i
                    if at >= 0 && at < length { out[at] += gain * x }
                }
            }
        }
        // White noise at the softest hit's peak less `noiseBelowSoftestDB` (RMS of a sine of that peak).
        let noiseRMS = SyntheticTake.fullScale * velocities.lowerBound / 2.0.squareRoot() * decibels(-noiseBelowSoftestDB)
        for i in 0..<length { out[i] += Float(noiseRMS * random.gaussian()) }
        samples = out
        self.hits = hits
        self.sampleRate = sampleRate
    }

    static func addHit(_ kind: Kind, at first: Int, velocity: Double, rate: Double, into out: inout [Float],
                       random: inout CoachRandom) {
        let attack = random.uniform(0.00005, 0.001) * rate
        let t60: Double
        switch kind {
        case .kick: t60 = random.uniform(0.15, 0.30)
        case .snare: t60 = random.uniform(0.08, 0.25)
        case .stick: t60 = random.uniform(0.03, 0.08)
        }
        let length = Int(t60 * rate)
        // Exponential decay reaching -60 dB at t60.
        let decayPerSample = decibels(-60 / (t60 * rate))
        var envelopeDecay = 1.0
        let peak = fullScale * velocity
        // Tone: a phase accumulator with sine from a short series (no libm in the pure core).
        var phase = random.uniform(0, 1)
        let (startHz, endHz, toneShare, noiseShare): (Double, Double, Double, Double) = switch kind {
        case .kick: (random.uniform(120, 160), random.uniform(45, 65), 0.9, 0.15)
        case .snare: (random.uniform(180, 230), random.uniform(170, 200), 0.45, 0.7)
        case .stick: (random.uniform(700, 1200), random.uniform(650, 1100), 0.3, 0.8)
        }
        var previousNoise = 0.0
        for n in 0..<length {
            let at = first + n
            guard at < out.count else { break }
            let rampUp = Double(n + 1) / (attack + 1)
            let envelope = peak * min(1, rampUp) * envelopeDecay
            envelopeDecay *= decayPerSample
            let sweep = decibels(-Double(n) / rate / 0.02 * 8.7) // the pitch falls with a 20 ms time constant
            let hz = endHz + (startHz - endHz) * sweep
            phase += hz / rate
            phase -= phase.rounded(.down)
            let tone = sine(phase)
            var noise = random.gaussian() * 0.5
            if kind == .stick { (noise, previousNoise) = (noise - previousNoise, noise) } // brighter
            let clickShare = kind == .kick ? decibels(-Double(n) / rate / 0.003 * 8.7) : 1
            out[at] += Float(envelope * (toneShare * tone + noiseShare * noise * clickShare))
        }
    }
}

@inline(__always)
func decibels(_ db: Double) -> Double { power10(db / 20) }

/// 10^x without libm: 10^x = 2^(x log2 10), split into an integer power and a series.
func power10(_ x: Double) -> Double {
    let y = x * 3.321928094887362
    let whole = y.rounded(.down)
    let fraction = (y - whole) * 0.6931471805599453 // e^(fraction ln 2)
    var term = 1.0
    var sum = 1.0
    for k in 1..<24 {
        term *= fraction / Double(k)
        sum += term
    }
    return Double(sign: .plus, exponent: Int(whole), significand: 1) * sum
}

/// sin(2 pi phase) for phase in [0, 1), by a Taylor series on the reduced angle.
func sine(_ phase: Double) -> Double {
    var x = phase * 2 * Double.pi
    if x > Double.pi { x -= 2 * Double.pi }
    // Reduce to [-pi/2, pi/2] by symmetry.
    if x > Double.pi / 2 { x = Double.pi - x } else if x < -Double.pi / 2 { x = -Double.pi - x }
    let x2 = x * x
    var term = x
    var sum = x
    var k = 1.0
    for _ in 0..<10 {
        term *= -x2 / ((k + 1) * (k + 2))
        sum += term
        k += 2
    }
    return sum
}

/// SplitMix64 with uniform and (Irwin-Hall, 12 uniforms) Gaussian draws: the same take
/// from the same seed everywhere.
struct CoachRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }
    mutating func gaussian() -> Double {
        var sum = 0.0
        for _ in 0..<12 { sum += unit() }
        return sum - 6
    }
}
