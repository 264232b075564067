// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
@testable import ClickEngine

/// Power spectrum by a plain radix-2 FFT (tests only; the clips are short).
enum Spectrum {
    /// Power per bin 0...N/2 of `x` zero-padded to a power of two; bin i is i * rate / N Hz.
    static func power(_ x: [Float]) -> [Double] {
        var n = 1
        while n < x.count { n *= 2 }
        var re = x.map(Double.init) + [Double](repeating: 0, count: n - x.count)
        var im = [Double](repeating: 0, count: n)
        var j = 0
        for i in 1..<n {                               // bit-reversal permutation
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        let twiddles = (0..<(n / 2)).map { (cos(-2 * Double.pi * Double($0) / Double(n)), sin(-2 * Double.pi * Double($0) / Double(n))) }
        var length = 2
        while length <= n {
            for start in stride(from: 0, to: n, by: length) {
                for k in 0..<(length / 2) {
                    let (c, s) = twiddles[k * (n / length)]
                    let (a, b) = (start + k, start + k + length / 2)
                    let tr = re[b] * c - im[b] * s
                    let ti = re[b] * s + im[b] * c
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
            }
            length *= 2
        }
        return (0...(n / 2)).map { re[$0] * re[$0] + im[$0] * im[$0] }
    }

    /// Power-weighted mean frequency: a standard measure of brightness.
    static func centroid(_ x: [Float], rate: Int) -> Double {
        let p = power(x)
        let binHz = Double(rate) / Double(2 * (p.count - 1))
        let total = p.reduce(0, +)
        return p.enumerated().reduce(0.0) { $0 + Double($1.offset) * binHz * $1.element } / total
    }

    /// Frequency of the strongest bin.
    static func dominantFrequency(_ x: [Float], rate: Int) -> Double {
        let p = power(x)
        let bin = p.indices.max { p[$0] < p[$1] }!
        return Double(bin) * Double(rate) / Double(2 * (p.count - 1))
    }

    /// Fraction of the energy at or above `frequency`.
    static func energyFraction(_ x: [Float], rate: Int, above frequency: Double) -> Double {
        let p = power(x)
        let binHz = Double(rate) / Double(2 * (p.count - 1))
        let high = p.enumerated().filter { Double($0.offset) * binHz >= frequency }.reduce(0.0) { $0 + $1.element }
        return high / p.reduce(0, +)
    }
}

@Suite("Built-in sounds")
struct BuiltInSoundsTests {
    static let rates = [8000, 44100, 48000, 192_000]

    /// Every set at every test rate, synthesized once for the whole suite.
    static let sets: [String: [Int: SoundSet]] = Dictionary(uniqueKeysWithValues: BuiltInSounds.names.map { name in
        (name, Dictionary(uniqueKeysWithValues: rates.map { ($0, BuiltInSounds.make(name, sampleRate: $0)!) }))
    })

    static func set(_ name: String, _ rate: Int) throws -> SoundSet { try #require(sets[name]?[rate]) }

    static func peak(_ clip: Clip) -> Float { clip.buffer.map(abs).max() ?? 0 }
    static func dB(_ x: Float) -> Double { 20 * log10(Double(x)) }

    @Test("at least four sets, woodblock among them and the default")
    func catalogue() {
        #expect(BuiltInSounds.names.count >= 4)
        #expect(BuiltInSounds.names.contains("woodblock"))
        #expect(BuiltInSounds.defaultName == "woodblock")
        #expect(Set(BuiltInSounds.names).count == BuiltInSounds.names.count)
        #expect(BuiltInSounds.make("kazoo", sampleRate: 48000) == nil)
        #expect(BuiltInSounds.make("woodblock", sampleRate: 7999) == nil)
        #expect(BuiltInSounds.make("woodblock", sampleRate: 192_001) == nil)
        #expect(BuiltInSounds.make("woodblock", sampleRate: 48000)?.name == "woodblock")
    }

    @Test("every clip starts and ends at exactly 0, stays in range, lasts at most 250 ms",
          arguments: BuiltInSounds.names, rates)
    func clipShape(name: String, rate: Int) throws {
        let set = try Self.set(name, rate)
        for (role, clip) in [("accent", set.accent), ("beat", set.beat), ("sub", set.subdivision)] {
            let x = Array(clip.buffer)
            #expect(clip.sampleRate == rate)
            #expect(x.count > rate / 50, "\(role) shorter than 20 ms")
            #expect(Double(x.count) <= 0.25 * Double(rate), "\(role): \(x.count) frames")
            #expect(x.first == 0 && x.last == 0, "\(role) must start and end at exactly 0")
            #expect(x.allSatisfy { $0.isFinite && abs($0) <= 1 }, "\(role) out of range")
            // No click at either edge: the first and last 0.3 ms stay small against the peak.
            let edge = max(2, rate * 3 / 10_000)
            let peak = Self.peak(clip)
            #expect(x.prefix(edge).map(abs).max()! < 0.9 * peak, "\(role) jumps in at its start")
            #expect(x.suffix(edge).map(abs).max()! < 0.02 * peak, "\(role) ends abruptly")
        }
    }

    @Test("levels: accent -1 to -3 dBFS, then beat, then subdivision, each clearly quieter",
          arguments: BuiltInSounds.names, rates)
    func levels(name: String, rate: Int) throws {
        let set = try Self.set(name, rate)
        let (a, b, s) = (Self.dB(Self.peak(set.accent)), Self.dB(Self.peak(set.beat)), Self.dB(Self.peak(set.subdivision)))
        #expect((-3.01)...(-1.0) ~= a, "accent peak \(a) dBFS")
        #expect(a - b >= 2, "accent \(a) vs beat \(b) dBFS")
        #expect(b - s >= 3, "beat \(b) vs subdivision \(s) dBFS")
    }

    /// Distinct by ear, not just by level. Pitch: the strongest spectral peak. Brightness:
    /// the spectral centroid. The accent is higher (pitch at least 10 % above the beat's)
    /// and brighter; the subdivision is shorter and differs from the beat by at least 10 %
    /// in pitch or brightness. (At 8 kHz the accent's upper partials are cut, so its
    /// brightness lead shrinks; its pitch lead does not.)
    @Test("accent, beat and subdivision are distinct in pitch and timbre", arguments: BuiltInSounds.names, rates)
    func distinctTimbre(name: String, rate: Int) throws {
        let set = try Self.set(name, rate)
        let (accent, beat, sub) = (Array(set.accent.buffer), Array(set.beat.buffer), Array(set.subdivision.buffer))
        let pitch = [accent, beat, sub].map { Spectrum.dominantFrequency($0, rate: rate) }
        let centroid = [accent, beat, sub].map { Spectrum.centroid($0, rate: rate) }
        #expect(pitch[0] > 1.1 * pitch[1], "pitch: accent \(pitch[0]) Hz, beat \(pitch[1]) Hz")
        #expect(centroid[0] > centroid[1], "centroid: accent \(centroid[0]) Hz, beat \(centroid[1]) Hz")
        #expect(abs(pitch[2] / pitch[1] - 1) > 0.1 || abs(centroid[2] / centroid[1] - 1) > 0.1,
                "sub vs beat: pitch \(pitch[2]) / \(pitch[1]) Hz, centroid \(centroid[2]) / \(centroid[1]) Hz")
        #expect(set.subdivision.frameCount < set.beat.frameCount)
    }

    @Test("the same set has the same durations at every rate (within one sample)", arguments: BuiltInSounds.names)
    func durationsMatchAcrossRates(name: String) throws {
        let sets = try Self.rates.map { try Self.set(name, $0) }
        for (a, b) in zip(sets, sets.dropFirst()) {
            for (x, y) in [(a.accent, b.accent), (a.beat, b.beat), (a.subdivision, b.subdivision)] {
                let difference = abs(Double(x.frameCount) / Double(x.sampleRate) - Double(y.frameCount) / Double(y.sampleRate))
                #expect(difference <= 1 / Double(min(x.sampleRate, y.sampleRate)),
                        "\(x.frameCount) @ \(x.sampleRate) vs \(y.frameCount) @ \(y.sampleRate)")
            }
        }
    }

    /// Partials are faded out between 0.35 and 0.42 of the rate, so nothing should sit near
    /// Nyquist (aliases of anything higher would land anywhere, this band included). What
    /// remains there is the spectral skirt of the attack and of fast decays: at 8 kHz about
    /// -40 dB of the clip's energy, at 44.1 kHz and up below -70 dB.
    @Test("nothing near Nyquist: energy above 0.4625 of the rate stays negligible", arguments: BuiltInSounds.names, rates)
    func nothingNearNyquist(name: String, rate: Int) throws {
        let set = try Self.set(name, rate)
        let limit = rate == 8000 ? -35.0 : -60.0
        for clip in [set.accent, set.beat, set.subdivision] {
            let fraction = Spectrum.energyFraction(Array(clip.buffer), rate: rate, above: 0.4625 * Double(rate))
            #expect(10 * log10(fraction) < limit, "\(10 * log10(fraction)) dB of the energy near Nyquist")
        }
    }

    @Test("partials fade out between 0.35 and 0.42 of the rate")
    func nyquistWeight() {
        for rate in [8000.0, 48000] {
            #expect(BuiltInSounds.ClipRecipe.nyquistWeight(0.35 * rate, rate: rate) == 1)
            #expect(BuiltInSounds.ClipRecipe.nyquistWeight(0.42 * rate, rate: rate) == 0)
            #expect(BuiltInSounds.ClipRecipe.nyquistWeight(0.5 * rate, rate: rate) == 0)
            let middle = BuiltInSounds.ClipRecipe.nyquistWeight(0.385 * rate, rate: rate)
            #expect(abs(middle - 0.5) < 1e-12)
        }
    }

    @Test("deterministic: the same samples on every call and every run")
    func deterministic() throws {
        for name in BuiltInSounds.names {
            let a = try #require(BuiltInSounds.make(name, sampleRate: 44100))
            let b = try #require(BuiltInSounds.make(name, sampleRate: 44100))
            #expect(Array(a.accent.buffer) == Array(b.accent.buffer))
            #expect(Array(a.beat.buffer) == Array(b.beat.buffer))
            #expect(Array(a.subdivision.buffer) == Array(b.subdivision.buffer))
        }
        // Pinned across runs and platforms: FNV-1a of every sample's bit pattern at 48 kHz.
        // Changing a recipe on purpose means updating this number.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for name in BuiltInSounds.names {
            let set = try Self.set(name, 48000)
            for clip in [set.accent, set.beat, set.subdivision] {
                for x in clip.buffer {
                    for shift in stride(from: 0, to: 32, by: 8) {
                        hash = (hash ^ UInt64((x.bitPattern >> UInt32(shift)) & 0xFF)) &* 0x100_0000_01B3
                    }
                }
            }
        }
        #expect(hash == Self.goldenHash, "built-in sounds changed: hash \(String(hash, radix: 16))")
    }

    static let goldenHash: UInt64 = 11_069_081_399_373_078_087

    @Test("SoundMath agrees with the platform's libm")
    func soundMath() {
        var x = -40.0
        while x <= 40 {
            #expect(abs(SoundMath.sin(x) - sin(x)) < 1e-15)
            #expect(abs(SoundMath.cos(x) - cos(x)) < 1e-15)
            x += 0.0137
        }
        for x in stride(from: -700.0, through: 700, by: 1.37) {
            let relative = abs(SoundMath.exp(x) - exp(x)) / exp(x)
            #expect(relative < 4e-16, "exp(\(x))")
        }
        #expect(SoundMath.exp(0) == 1)
        #expect(SoundMath.exp(-800) == 0)
        #expect(SoundMath.sinCycles(1e6 + 0.25) == 1)
        #expect(abs(SoundMath.besselI0(1) - 1.2660658777520082) < 1e-15)
        #expect(abs(SoundMath.besselI0(9) / 1093.5883545113745 - 1) < 1e-14)
        #expect(abs(SoundMath.amplitude(decibels: -6) - pow(10, -6.0 / 20)) < 1e-15)
    }
}
