// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
@testable import ClickEngine

@Suite("User sound sets")
struct UserSoundSetTests {
    /// A stereo file whose channels differ (so the downmix matters): a 1 kHz sine on the
    /// left, the same sine at a quarter of the level plus 0.2 DC on the right.
    static func stereoFile(seconds: Double, rate: Int, format: WAVSampleFormat) -> [UInt8] {
        let count = Int(seconds * Double(rate))
        var interleaved: [Float] = []
        for i in 0..<count {
            let s = Float(0.8 * sin(2 * Double.pi * 1000 * Double(i) / Double(rate)))
            interleaved += [s, 0.25 * s + 0.2]
        }
        return WAVEncoder(sampleRate: rate, channels: 2, format: format).encodeFile(interleaved)
    }

    static func monoFile(_ samples: [Float], rate: Int, format: WAVSampleFormat = .f32) -> [UInt8] {
        WAVEncoder(sampleRate: rate, channels: 1, format: format).encodeFile(samples)
    }

    @Test("stereo 44.1 kHz 24-bit files load at 48 kHz: averaged to mono, resampled, faded")
    func stereo24BitAt48k() throws {
        let file = Self.stereoFile(seconds: 0.2, rate: 44100, format: .s24)
        let set = try UserSoundSet.make(name: "mine", accent: file, beat: file, subdivision: file, sampleRate: 48000)
        #expect(set.name == "mine")
        for clip in [set.accent, set.beat, set.subdivision] {
            let x = Array(clip.buffer)
            #expect(clip.sampleRate == 48000)
            #expect(x.count == Resampler.outputCount(inputCount: 8820, from: 44100, to: 48000))
            #expect(x.count == 9600)
            #expect(x.first == 0 && x.last == 0)
            #expect(x.allSatisfy { abs($0) <= 1 })
            // Mono = (L + R) / 2 = (0.8 + 0.2) / 2 sin + 0.1 = 0.5 sin + 0.1: check the DC, amplitude and frequency
            // in the middle, away from the fades and the resampler's edges.
            let middle = Array(x[1000..<8600])
            let mean = middle.reduce(0.0) { $0 + Double($1) } / Double(middle.count)
            #expect(abs(mean - 0.1) < 1e-3, "DC \(mean)")
            let ac = middle.map { Float(Double($0) - mean) }
            let amplitude = SignalMeasure.rms(ac[...]) * 2.0.squareRoot()
            #expect(abs(SignalMeasure.decibels(amplitude / 0.5)) < 0.1, "amplitude \(amplitude)")
            let frequency = SignalMeasure.zeroCrossingFrequency(ac, rate: 48000, range: 0..<ac.count)
            #expect(abs(frequency - 1000) < 0.5, "frequency \(frequency)")
        }
    }

    @Test("every supported input format loads", arguments: WAVSampleFormat.allCases, [8000, 22050, 48000, 96000])
    func formatsAndRates(format: WAVSampleFormat, rate: Int) throws {
        let file = Self.stereoFile(seconds: 0.05, rate: rate, format: format)
        let clip = try UserSoundSet.clip(file, file: .beat, sampleRate: 44100)
        #expect(clip.frameCount == Resampler.outputCount(inputCount: Int(0.05 * Double(rate)), from: rate, to: 44100))
    }

    /// Fades: exactly 0 at both ends, full level 0.5 ms in, untouched until 3 ms before
    /// the end, and a monotonic raised-cosine fade in between.
    @Test("fade-in 0.5 ms and fade-out 3 ms, ending at exactly 0")
    func fades() throws {
        let constant = [Float](repeating: 0.5, count: 4800)      // 100 ms of DC at 48 kHz: no resampling
        let clip = try UserSoundSet.clip(Self.monoFile(constant, rate: 48000), file: .accent, sampleRate: 48000)
        let x = Array(clip.buffer)
        #expect(x.count == 4800)
        #expect(x[0] == 0 && x[4799] == 0)
        let fadeIn = 24, fadeOut = 144                               // 0.5 ms and 3 ms at 48 kHz
        #expect(zip(x.prefix(fadeIn), x.prefix(fadeIn).dropFirst()).allSatisfy { $0 < $1 })
        #expect(x[fadeIn...(4800 - fadeOut - 1)].allSatisfy { $0 == 0.5 })
        #expect(zip(x.suffix(fadeOut), x.suffix(fadeOut).dropFirst()).allSatisfy { $0 > $1 })
        #expect(abs(x[4800 - fadeOut / 2 - 1] - 0.25) < 0.01)       // half way down the raised cosine
    }

    /// A file that starts at 0 already starts from silence: no fade-in, its sharp attack
    /// (full scale on the second frame) is kept sample for sample; the end still fades.
    @Test("a file starting at zero keeps its attack: a fade-in of 0")
    func startingAtZeroKeepsTheAttack() throws {
        var attack = [Float](repeating: 0.5, count: 4800)
        attack[0] = 0
        attack[1] = 1
        attack[2] = -0.9
        let clip = try UserSoundSet.clip(Self.monoFile(attack, rate: 48000), file: .accent, sampleRate: 48000)
        let x = withExtendedLifetime(clip) { Array(clip.buffer) }
        #expect(Array(x.prefix(30)) == Array(attack.prefix(30)))
        #expect(x[4799] == 0)
        // One sample later it is faded as before.
        var late = attack
        late[0] = 0.001
        // The clip is kept while its buffer is read (the buffer points into the clip's storage).
        let fadedClip = try UserSoundSet.clip(Self.monoFile(late, rate: 48000), file: .accent, sampleRate: 48000)
        let faded = withExtendedLifetime(fadedClip) { Array(fadedClip.buffer) }
        #expect(faded[0] == 0 && faded[1] < 0.1)
    }

    @Test("a file that starts and ends at full scale still starts and ends in silence")
    func loudEdges() throws {
        let square = (0..<2000).map { Float($0 / 50 % 2 == 0 ? 1 : -1) }
        let clip = try UserSoundSet.clip(Self.monoFile(square, rate: 44100), file: .beat, sampleRate: 48000)
        let x = Array(clip.buffer)
        #expect(x.first == 0 && x.last == 0)
        // The resampler overshoots a full-scale square (Gibbs); the clip is scaled back to 1.
        #expect(x.map(abs).max()! <= 1)
        #expect(x.map(abs).max()! > 0.99)
    }

    @Test("a clip longer than 2 s after resampling is rejected, naming the file")
    func tooLong() throws {
        let long = Self.monoFile([Float](repeating: 0.1, count: 88201), rate: 44100)   // one frame over 2 s
        let short = Self.monoFile([Float](repeating: 0.1, count: 100), rate: 44100)
        #expect {
            try UserSoundSet.make(name: "long", accent: short, beat: long, subdivision: short, sampleRate: 48000)
        } throws: { error in
            guard let error = error as? SoundLoadError else { return false }
            return error.file == .beat && error.problem == .tooLong(frames: 96002, sampleRate: 48000)
                && error.description == "beat.wav: too long: 2000.04 ms (a click may last at most 2000 ms)"
        }

        let threeSeconds = Self.monoFile([Float](repeating: 0.1, count: 3 * 8000), rate: 8000)
        do {
            _ = try UserSoundSet.make(name: "long", accent: short, beat: short, subdivision: threeSeconds, sampleRate: 48000)
            Issue.record("a 3 s sub.wav was accepted")
        } catch {
            #expect(error.description == "sub.wav: too long: 3000 ms (a click may last at most 2000 ms)")
        }

        // Exactly 2 s is fine, even across a rate change (88200 frames at 44.1k -> 96000 at 48k).
        let twoSeconds = Self.monoFile([Float](repeating: 0.1, count: 88200), rate: 44100)
        let clip = try UserSoundSet.clip(twoSeconds, file: .accent, sampleRate: 48000)
        #expect(clip.frameCount == 96000)
    }

    @Test("a bad file is reported with its name and the decoder's message")
    func badFile() throws {
        let good = Self.monoFile([0, 0.5, 0], rate: 48000)
        let twelveBit = WAVFixture.wav(fmt: WAVFixture.fmt(channels: 1, rate: 44100, bits: 12, blockAlign: 2), data: [0, 0])
        do {
            _ = try UserSoundSet.make(name: "bad", accent: good, beat: good, subdivision: twelveBit, sampleRate: 48000)
            Issue.record("a 12-bit sub.wav was accepted")
        } catch {
            #expect(error.file == .subdivision)
            #expect(error.problem == .wav(.unsupportedSampleFormat(bitsPerSample: 12, isFloat: false)))
            #expect(error.description
                == "sub.wav: unsupported sample format: 12-bit integer (supported: 8/16/24/32-bit integer, 32/64-bit float)")
        }
        do {
            _ = try UserSoundSet.make(name: "bad", accent: Array("not a wav file".utf8), beat: good, subdivision: good,
                                      sampleRate: 48000)
            Issue.record("garbage accent.wav was accepted")
        } catch {
            #expect(error.description == "accent.wav: not a WAV file: expected \"RIFF\" at the start, found \"not \"")
        }
    }
}
