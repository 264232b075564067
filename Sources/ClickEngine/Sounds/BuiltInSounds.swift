// SPDX-License-Identifier: GPL-3.0-or-later
/// The sound sets Tactus synthesizes itself, so the box needs no audio assets.
///
/// Every clip is rendered directly at the engine's rate from a recipe in seconds and hertz:
/// damped sine partials (modes of a struck object) plus, for some, a band-passed burst of
/// seeded noise. Partials are kept below 0.42 of the rate (faded out from 0.35), so even at
/// 8 kHz nothing aliases; the set just gets duller. Clips start at exactly 0 (raised-cosine
/// attack of at least 3 samples, 0.4 ms by default) and end at exactly 0 (raised-cosine
/// fade), last at most 250 ms, and have the same duration at every rate (frame count =
/// round(seconds * rate)). Output is bit-for-bit the same on every run and IEEE-754 platform: the
/// noise is a fixed-seed xorshift and the maths is `SoundMath`, not the platform's libm.
///
/// Within a set: the accent is higher (a minor third to an octave above the beat),
/// brighter and the loudest (peak -1.5 dBFS; -3 dBFS for the soft beep); the beat is the
/// reference (-4.5 dBFS; beep -6); the subdivision is quieter (-9 dBFS; beep -10.5),
/// shorter and pitched between the two, so it reads as "in between" without competing
/// with the beat.
public enum BuiltInSounds {
    /// The set used when none is chosen.
    public static let defaultName = "woodblock"

    /// All built-in sets, the default first.
    public static let names: [String] = ["woodblock", "clave", "rimshot", "beep", "cowbell"]

    /// Engine rates the recipes are designed for.
    public static let supportedSampleRates = 8000...192_000

    /// Longest clip any recipe produces, in seconds.
    public static let maximumClipSeconds = 0.25

    /// The named set rendered at `sampleRate`; nil when the name is unknown or the rate is
    /// outside `supportedSampleRates`.
    public static func make(_ name: String, sampleRate: Int) -> SoundSet? {
        guard supportedSampleRates.contains(sampleRate), let recipes = recipes(name) else { return nil }
        let subdivision = recipes.subdivision
        return SoundSet(name: name,
                        accent: Clip(samples: recipes.accent.render(sampleRate: sampleRate), sampleRate: sampleRate),
                        beat: Clip(samples: recipes.beat.render(sampleRate: sampleRate), sampleRate: sampleRate),
                        layers: {
                            (Clip(samples: subdivision.render(sampleRate: sampleRate), sampleRate: sampleRate),
                             Clip(samples: subdivision.transposed(by: polyTransposition).render(sampleRate: sampleRate),
                                  sampleRate: sampleRate))
                        })
    }

    /// Poly layers play the subdivision's sound a fifth lower, so "3 against 4" is heard as
    /// two voices.
    static let polyTransposition = 2.0 / 3.0

    // MARK: - the sets

    static func recipes(_ name: String) -> (accent: ClipRecipe, beat: ClipRecipe, subdivision: ClipRecipe)? {
        switch name {
        case "woodblock": return (woodblock(.accent), woodblock(.beat), woodblock(.subdivision))
        case "clave": return (clave(.accent), clave(.beat), clave(.subdivision))
        case "rimshot": return (rimshot(.accent), rimshot(.beat), rimshot(.subdivision))
        case "beep": return (beep(.accent), beep(.beat), beep(.subdivision))
        case "cowbell": return (cowbell(.accent), cowbell(.beat), cowbell(.subdivision))
        default: return nil
        }
    }

    enum Role { case accent, beat, subdivision }

    private static func peak(_ role: Role) -> Double {
        switch role {
        case .accent: return -1.5
        case .beat: return -4.5
        case .subdivision: return -9
        }
    }

    /// A hollow "tok": a strong fundamental with two inharmonic upper modes that die fast,
    /// and a 1.5 ms knock of noise for the stick.
    private static func woodblock(_ role: Role) -> ClipRecipe {
        let (f, bright, decay, length): (Double, Double, Double, Double) = switch role {
        case .accent: (1800, 1.5, 1.15, 0.130)
        case .beat: (1200, 1.0, 1.0, 0.110)
        case .subdivision: (1500, 0.6, 0.6, 0.070)
        }
        return ClipRecipe(
            length: length, fadeOut: length * 0.4, peakDecibels: peak(role),
            partials: [
                Partial(frequency: f, amplitude: 1.0, decay: 0.030 * decay),
                Partial(frequency: f * 2.56, amplitude: 0.30 * bright, decay: 0.010 * decay),
                Partial(frequency: f * 4.18, amplitude: 0.10 * bright * bright, decay: 0.005 * decay),
            ],
            noise: NoiseBurst(center: 2500 * f / 1200, q: 1.0, amplitude: 0.35 * bright, decay: 0.0015,
                              seed: 0x5EED_0001 + seedOffset(role)))
    }

    /// Two hardwood sticks: an almost pure, ringing high tone.
    private static func clave(_ role: Role) -> ClipRecipe {
        let (f, bright, decay, length): (Double, Double, Double, Double) = switch role {
        case .accent: (2700, 1.8, 1.1, 0.110)
        case .beat: (2000, 1.0, 1.0, 0.100)
        case .subdivision: (2350, 0.6, 0.55, 0.060)
        }
        return ClipRecipe(
            length: length, fadeOut: length * 0.4, peakDecibels: peak(role),
            partials: [
                Partial(frequency: f, amplitude: 1.0, decay: 0.040 * decay),
                Partial(frequency: f * 2.74, amplitude: 0.05 * bright, decay: 0.008 * decay),
            ],
            noise: NoiseBurst(center: 4000, q: 1.5, amplitude: 0.15 * bright, decay: 0.0008,
                              seed: 0x5EED_0002 + seedOffset(role)))
    }

    /// A stick on the rim: a sharp band-passed noise crack over a short drum-body tone and
    /// the rim's ring.
    private static func rimshot(_ role: Role) -> ClipRecipe {
        let (body, crack, noiseAmp, noiseDecay, length): (Double, Double, Double, Double, Double) = switch role {
        case .accent: (560, 4200, 1.2, 0.012, 0.120)
        case .beat: (470, 3300, 1.0, 0.010, 0.110)
        case .subdivision: (540, 5000, 0.8, 0.005, 0.060)
        }
        let bodyAmp = role == .subdivision ? 0.25 : 0.55
        return ClipRecipe(
            length: length, fadeOut: length * 0.45, peakDecibels: peak(role),
            partials: [
                Partial(frequency: body, amplitude: bodyAmp, decay: 0.018),
                Partial(frequency: body * 3.6, amplitude: bodyAmp * 0.64, decay: 0.012),
                Partial(frequency: body * 6.23, amplitude: bodyAmp * 0.27, decay: 0.006),
            ],
            noise: NoiseBurst(center: crack, q: 0.8, amplitude: noiseAmp, decay: noiseDecay,
                              seed: 0x5EED_0003 + seedOffset(role)))
    }

    /// A soft sine beep with a 2 ms attack and a long raised-cosine release: the gentlest
    /// set, a little quieter than the others. Accent an octave above the beat (A6 over A5)
    /// with a touch of second harmonic; subdivision on the fifth between (E6).
    private static func beep(_ role: Role) -> ClipRecipe {
        switch role {
        case .accent:
            return ClipRecipe(length: 0.100, attack: 0.002, fadeOut: 0.050, peakDecibels: -3,
                              partials: [Partial(frequency: 1760, amplitude: 1, decay: 0.25),
                                         Partial(frequency: 3520, amplitude: 0.12, decay: 0.12)])
        case .beat:
            return ClipRecipe(length: 0.090, attack: 0.002, fadeOut: 0.045, peakDecibels: -6,
                              partials: [Partial(frequency: 880, amplitude: 1, decay: 0.25)])
        case .subdivision:
            return ClipRecipe(length: 0.050, attack: 0.002, fadeOut: 0.030, peakDecibels: -10.5,
                              partials: [Partial(frequency: 1318.51, amplitude: 1, decay: 0.2)])
        }
    }

    /// The TR-808 cowbell recipe: two detuned square waves (540 and 800 Hz on the beat)
    /// through a band-pass, with a fast initial decay and a longer tail. The squares are
    /// built from their odd harmonics up to 10 kHz and the band-pass (two second-order
    /// stages) is applied to each harmonic's amplitude analytically, so the timbre is the
    /// same at every rate.
    private static func cowbell(_ role: Role) -> ClipRecipe {
        let (pitch, center, q, decay, tail, tailDecay, length): (Double, Double, Double, Double, Double, Double, Double) =
            switch role {
            case .accent: (1.26, 2600, 0.9, 0.014, 0.35, 0.085, 0.220)
            case .beat: (1.0, 2000, 1.0, 0.012, 0.35, 0.080, 0.200)
            case .subdivision: (1.12, 2300, 1.0, 0.008, 0.25, 0.040, 0.120)
            }
        var partials: [Partial] = []
        for base in [540.0 * pitch, 800.0 * pitch] {
            var k = 1.0
            while base * k <= 10_000 {
                let f = base * k
                let ratio = f / center
                // Two band-pass stages (12 dB/octave skirts) keep the squares' upper
                // harmonics from turning buzzy.
                let bandPass = 1 / (1 + q * q * (ratio - 1 / ratio) * (ratio - 1 / ratio))
                partials.append(Partial(frequency: f, amplitude: bandPass / k, decay: decay,
                                        tailLevel: tail, tailDecay: tailDecay))
                k += 2
            }
        }
        return ClipRecipe(length: length, fadeOut: length * 0.35, peakDecibels: peak(role), partials: partials)
    }

    private static func seedOffset(_ role: Role) -> UInt64 {
        switch role {
        case .accent: return 0x100
        case .beat: return 0x200
        case .subdivision: return 0x300
        }
    }
}

// MARK: - synthesis (nested so these helper names cannot clash with the rest of the module)

extension BuiltInSounds {
    /// One damped sine: amplitude * ((1 - tailLevel) e^(-t/decay) + tailLevel e^(-t/tailDecay)).
    struct Partial: Sendable {
        var frequency: Double
        var amplitude: Double
        var decay: Double
        var tailLevel = 0.0
        var tailDecay = 1.0
    }

    /// White noise from a seeded xorshift, through two cascaded band-passes, decaying as
    /// e^(-t/decay).
    struct NoiseBurst: Sendable {
        var center: Double
        var q: Double
        var amplitude: Double
        var decay: Double
        var seed: UInt64
    }

    struct ClipRecipe: Sendable {
        var length: Double
        var attack = 0.0004
        var fadeOut: Double
        var peakDecibels: Double
        var partials: [Partial]
        var noise: NoiseBurst? = nil

        /// The same sound with every frequency multiplied by `factor`.
        func transposed(by factor: Double) -> ClipRecipe {
            var copy = self
            copy.partials = partials.map { var p = $0; p.frequency *= factor; return p }
            copy.noise = noise.map { var n = $0; n.center *= factor; return n }
            return copy
        }

        func render(sampleRate: Int) -> [Float] {
            let rate = Double(sampleRate)
            let count = Int((length * rate).rounded())
            var signal = [Double](repeating: 0, count: count)

            // Partials sharing an envelope (all of the cowbell's) share its computation.
            var envelopes: [(key: [Double], values: [Double])] = []
            for partial in partials {
                let weight = ClipRecipe.nyquistWeight(partial.frequency, rate: rate)
                if weight == 0 { continue }
                let key = [partial.decay, partial.tailLevel, partial.tailDecay]
                let envelope: [Double]
                if let cached = envelopes.first(where: { $0.key == key }) {
                    envelope = cached.values
                } else {
                    envelope = (0..<count).map { i in
                        let t = Double(i) / rate
                        let head = (1 - partial.tailLevel) * SoundMath.exp(-t / partial.decay)
                        return partial.tailLevel == 0 ? head : head + partial.tailLevel * SoundMath.exp(-t / partial.tailDecay)
                    }
                    envelopes.append((key, envelope))
                }
                // The oscillator is a rotating phasor, re-anchored to the exact phase every
                // 256 samples so rounding cannot build up (error stays below 1e-13).
                let step = partial.frequency / rate
                let (stepCos, stepSin) = (SoundMath.cos(2 * Double.pi * step), SoundMath.sin(2 * Double.pi * step))
                let gain = partial.amplitude * weight
                var (c, s) = (1.0, 0.0)
                for i in 0..<count {
                    if i & 255 == 0 {
                        let cycles = step * Double(i)
                        s = SoundMath.sinCycles(cycles)
                        c = SoundMath.sinCycles(cycles + 0.25)
                    }
                    signal[i] += gain * envelope[i] * s
                    (c, s) = (c * stepCos - s * stepSin, s * stepCos + c * stepSin)
                }
            }

            if let noise {
                // White noise of fixed variance spreads over rate/2 hertz; scaling it by
                // sqrt(rate / 48000) keeps the energy inside the band-pass the same at any rate.
                let level = noise.amplitude * (rate / 48000).squareRoot()
                var filters = [Biquad(bandPass: min(noise.center, 0.35 * rate), q: noise.q, rate: rate),
                               Biquad(bandPass: min(noise.center, 0.35 * rate), q: noise.q, rate: rate)]
                var random = XorShift(seed: noise.seed)
                for i in 0..<count {
                    var x = random.nextSigned()
                    x = filters[0].process(x)
                    x = filters[1].process(x)
                    signal[i] += level * x * SoundMath.exp(-Double(i) / rate / noise.decay)
                }
            }

            // Raised-cosine attack from exactly 0 and raised-cosine fade to exactly 0.
            let attackCount = min(count, max(3, Int((attack * rate).rounded())))
            for i in 0..<attackCount {
                signal[i] *= 0.5 - 0.5 * SoundMath.cos(Double.pi * Double(i) / Double(attackCount))
            }
            let fadeCount = min(count, max(3, Int((fadeOut * rate).rounded())))
            for j in 0..<fadeCount {
                signal[count - fadeCount + j] *= 0.5 + 0.5 * SoundMath.cos(Double.pi * Double(j + 1) / Double(fadeCount))
            }

            // Normalize to the recipe's peak so levels are exact and equal at every rate.
            var peak = 0.0
            for x in signal { peak = max(peak, abs(x)) }
            let gain = peak > 0 ? SoundMath.amplitude(decibels: peakDecibels) / peak : 0
            var out = signal.map { Float($0 * gain) }
            if count > 0 {
                out[0] = 0              // already 0 up to rounding; make it exact
                out[count - 1] = 0
            }
            return out
        }

        /// 1 below 0.35 of the rate, 0 from 0.42 up, a raised-cosine step between: partials
        /// near Nyquist fade out instead of aliasing or switching off abruptly, and the
        /// spectral skirts of fast-decaying partials stay clear of Nyquist too.
        static func nyquistWeight(_ frequency: Double, rate: Double) -> Double {
            let low = 0.35 * rate
            let high = 0.42 * rate
            if frequency <= low { return 1 }
            if frequency >= high { return 0 }
            return 0.5 + 0.5 * SoundMath.cos(Double.pi * (frequency - low) / (high - low))
        }
    }

    /// RBJ band-pass (0 dB peak gain), direct form I.
    struct Biquad {
        private var b0 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
        private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

        init(bandPass center: Double, q: Double, rate: Double) {
            let w0 = 2 * Double.pi * center / rate
            let alpha = SoundMath.sin(w0) / (2 * q)
            let a0 = 1 + alpha
            b0 = alpha / a0
            b2 = -alpha / a0
            a1 = -2 * SoundMath.cos(w0) / a0
            a2 = (1 - alpha) / a0
        }

        mutating func process(_ x: Double) -> Double {
            let y = b0 * x + b2 * x2 - a1 * y1 - a2 * y2
            x2 = x1
            x1 = x
            y2 = y1
            y1 = y
            return y
        }
    }

    /// xorshift64*: tiny, fast, and the same sequence everywhere.
    struct XorShift {
        private var state: UInt64

        init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

        /// Uniform in [-1, 1).
        mutating func nextSigned() -> Double {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            let value = state &* 0x2545_F491_4F6C_DD1D
            return Double(value >> 11) * 0x1p-52 - 1
        }
    }
}
