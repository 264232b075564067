// SPDX-License-Identifier: GPL-3.0-or-later
/// Why a user sound set could not be loaded: which of its three files, and what is wrong.
/// `description` reads "accent.wav: <problem>"; the caller prefixes the set's directory.
public struct SoundLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum File: String, Sendable, CaseIterable {
        case accent = "accent.wav"
        case beat = "beat.wav"
        case subdivision = "sub.wav"
        /// Optional: the poly layers' sound (without it they play sub.wav).
        case poly = "poly.wav"
    }

    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The file is not a WAV the decoder accepts.
        case wav(WAVError)
        /// Longer than `Clip.maximumSeconds` once resampled to the engine rate.
        case tooLong(frames: Int, sampleRate: Int)
        /// A voice word's lead (voice.toml) past the end of its WAV.
        case leadPastEnd(lead: Int, frames: Int)

        public var description: String {
            switch self {
            case .wav(let error):
                return error.description
            case .leadPastEnd(let lead, let frames):
                return "its lead \(lead) in voice.toml is past its end (\(frames) frames)"
            case .tooLong(let frames, let rate):
                // Hundredths of a millisecond, so a clip just over the limit does not read
                // as exactly the limit.
                let hundredths = (frames * 100_000 + rate / 2) / rate
                let fraction = hundredths % 100
                let text = "\(hundredths / 100)" + (fraction == 0 ? "" : fraction < 10 ? ".0\(fraction)" : ".\(fraction)")
                return "too long: \(text) ms (a click may last at most \(Clip.maximumSeconds * 1000) ms)"
            }
        }
    }

    public let file: File
    public let problem: Problem

    public init(file: File, problem: Problem) {
        self.file = file
        self.problem = problem
    }

    public var description: String { "\(file.rawValue): \(problem)" }
}

/// A sound set made from the user's accent.wav, beat.wav and sub.wav.
///
/// Each file is decoded, stereo is averaged to mono, the result is resampled once to the
/// engine rate (see `Resampler`), and then made to start and end in silence whatever the
/// file holds: a raised-cosine fade-in over the first 0.5 ms and fade-out over the last
/// 3 ms, so the first and last samples are exactly 0 and the mixer never clicks at a
/// clip's edges. A file whose first frame is exactly 0 already starts from silence: it gets
/// no fade-in (a fade of 0), so a sharp attack keeps its samples as they are. A clip that
/// still exceeds full scale after resampling (sinc overshoot of a file peaking at 0 dBFS) is
/// scaled down to peak at exactly 1.
public enum UserSoundSet {
    public static let fadeInSeconds = 0.0005
    public static let fadeOutSeconds = 0.003

    public static func make(name: String, accent: [UInt8], beat: [UInt8], subdivision: [UInt8], poly: [UInt8]? = nil,
                            sampleRate: Int) throws(SoundLoadError) -> SoundSet {
        precondition(sampleRate > 0, "UserSoundSet: engine sample rate must be positive")
        return SoundSet(name: name,
                        accent: try clip(accent, file: .accent, sampleRate: sampleRate),
                        beat: try clip(beat, file: .beat, sampleRate: sampleRate),
                        subdivision: try clip(subdivision, file: .subdivision, sampleRate: sampleRate),
                        poly: try poly.map { bytes throws(SoundLoadError) in try clip(bytes, file: .poly, sampleRate: sampleRate) })
    }

    /// One file turned into a clip at `sampleRate`.
    public static func clip(_ bytes: [UInt8], file: SoundLoadError.File, sampleRate: Int) throws(SoundLoadError) -> Clip {
        do throws(SoundLoadError.Problem) {
            return try decodeClip(bytes, sampleRate: sampleRate)
        } catch {
            throw SoundLoadError(file: file, problem: error)
        }
    }

    /// Decodes, resamples and fades one WAV; `leadInFileFrames` (a spoken word's lead, in
    /// frames of the file) becomes the clip's lead at `sampleRate`, rounded half up.
    public static func decodeClip(_ bytes: [UInt8], sampleRate: Int, leadInFileFrames: Int = 0) throws(SoundLoadError.Problem) -> Clip {
        let audio: DecodedAudio
        do throws(WAVError) {
            audio = try WAVDecoder.decode(bytes)
        } catch {
            throw .wav(error)
        }
        // Check the length before resampling: a long file is rejected without the work.
        let count = Resampler.outputCount(inputCount: audio.frameCount, from: audio.sampleRate, to: sampleRate)
        guard count <= Clip.maximumSeconds * sampleRate else {
            throw .tooLong(frames: count, sampleRate: sampleRate)
        }
        var samples = Resampler.resample(mono(audio), from: audio.sampleRate, to: sampleRate)
        var peak: Float = 0
        for x in samples { peak = max(peak, abs(x)) }
        if peak > 1 {
            for i in samples.indices { samples[i] /= peak }
        }
        let startsAtZero = audio.frameCount > 0 && (0..<audio.channels).allSatisfy { audio.frames[$0] == 0 }
        applyFades(&samples, sampleRate: sampleRate, fadeIn: !startsAtZero)
        let lead = leadFrames(leadInFileFrames, from: audio.sampleRate, to: sampleRate)
        guard lead <= samples.count else { throw .leadPastEnd(lead: leadInFileFrames, frames: audio.frameCount) }
        return Clip(samples: samples, sampleRate: sampleRate, lead: lead)
    }

    /// A lead of `frames` at `from` Hz in frames at `to` Hz: round-half-up(frames x to / from).
    public static func leadFrames(_ frames: Int, from: Int, to: Int) -> Int {
        (2 * frames * to + from) / (2 * from)
    }

    private static func mono(_ audio: DecodedAudio) -> [Float] {
        guard audio.channels == 2 else { return audio.frames }
        return (0..<audio.frameCount).map { 0.5 * (audio.frames[2 * $0] + audio.frames[2 * $0 + 1]) }
    }

    /// Multiplies in both fades (they overlap harmlessly on clips shorter than 3.5 ms);
    /// without `fadeIn` only the first sample is set to 0 (the file's own is 0 already).
    static func applyFades(_ samples: inout [Float], sampleRate: Int, fadeIn applyingFadeIn: Bool = true) {
        let n = samples.count
        guard n > 0 else { return }
        let fadeIn = applyingFadeIn ? min(n, max(2, Int((fadeInSeconds * Double(sampleRate)).rounded()))) : 0
        for i in 0..<fadeIn {
            samples[i] *= Float(0.5 - 0.5 * SoundMath.cos(Double.pi * Double(i) / Double(fadeIn)))
        }
        let fadeOut = min(n, max(2, Int((fadeOutSeconds * Double(sampleRate)).rounded())))
        for j in 0..<fadeOut {
            samples[n - fadeOut + j] *= Float(0.5 + 0.5 * SoundMath.cos(Double.pi * Double(j + 1) / Double(fadeOut)))
        }
        samples[0] = 0          // exact, whatever the rounding of the window
        samples[n - 1] = 0
    }
}
