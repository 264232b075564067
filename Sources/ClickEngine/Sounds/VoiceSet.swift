// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic

/// The words of a spoken count: numbers for the beats, syllables for subdivision layers 2,
/// 3 and 4, and the count-in's last two words. Each clip carries its lead (frames from its
/// first sample to its perceptual centre), so the renderer places the centre on the onset.
public final class VoiceWords: Sendable {
    public let language: String
    /// `numbers[k]` is spoken on beat k (from 0); beats past the list play the set's clicks.
    public let numbers: [Clip]
    /// `layers[n - 2][j - 1]` is spoken on step j of layer n (2, 3, 4); a missing list
    /// plays the subdivision click.
    public let layers: [[Clip]]
    /// Spoken on the last two beats of a count-in ("ready", "go"); the beats before count.
    public let countIn: [Clip]

    public init(language: String, numbers: [Clip], layers: [[Clip]], countIn: [Clip]) {
        self.language = language
        self.numbers = numbers
        self.layers = layers
        self.countIn = countIn
    }

    /// The word for a beat (accent, soft or beat) of index `beat`, or nil past the numbers.
    public func number(beat: Int) -> Clip? { beat >= 0 && beat < numbers.count ? numbers[beat] : nil }

    /// The word on step `index` (1..<layer) of subdivision layer `layer`, or nil.
    public func syllable(layer: Int, index: Int) -> Clip? {
        guard layer >= 2, layer - 2 < layers.count, index >= 1, index - 1 < layers[layer - 2].count else { return nil }
        return layers[layer - 2][index - 1]
    }

    /// The longest lead of any word: how far ahead the renderer looks for onsets.
    public var longestLead: Int {
        (numbers + layers.flatMap { $0 } + countIn).reduce(0) { max($0, $1.lead) }
    }
}

/// Why a word of a voice folder could not be loaded.
public struct VoiceLoadError: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let problem: String
    public var description: String { "\(file): \(problem)" }

    public init(file: String, problem: String) {
        self.file = file
        self.problem = problem
    }
}

public enum VoiceSet {
    /// A voice set: the folder's clicks (`base`) plus its words, each decoded from
    /// `bytes(word)` (the contents of WORD.wav) with its lead converted to the engine rate:
    /// round-half-up(lead x engine rate / file rate).
    public static func make(base: SoundSet, description: VoiceDescription, sampleRate: Int,
                            bytes: (String) throws(VoiceLoadError) -> [UInt8]) throws(VoiceLoadError) -> SoundSet {
        var clips: [String: Clip] = [:]
        for word in description.words {
            let file = word + ".wav"
            let data = try bytes(word)
            do throws(SoundLoadError.Problem) {
                clips[word] = try UserSoundSet.decodeClip(data, sampleRate: sampleRate, leadInFileFrames: description.leads[word] ?? 0)
            } catch {
                throw VoiceLoadError(file: file, problem: error.description)
            }
        }
        let words = VoiceWords(language: description.language,
                               numbers: description.numbers.map { clips[$0]! },
                               layers: description.layers.map { $0.map { clips[$0]! } },
                               countIn: description.countIn.map { clips[$0]! })
        return SoundSet(name: base.name, accent: base.accent, beat: base.beat, subdivision: base.subdivision, poly: base.poly,
                        voice: words)
    }
}

/// Picks the clip of each onset for a sound set: a voice set's word where one is spoken,
/// otherwise the set's click. Subdivision words give way to the click when the word would
/// not end before the next spoken word starts (`givesWay`); numbers are never replaced.
enum WordChoice {
    static func word(_ sounds: SoundSet, kind: OnsetKind, layer: Int, beat: Int, index: Int) -> Clip? {
        guard let voice = sounds.voice else { return nil }
        switch kind {
        case .accent, .soft, .beat: return voice.number(beat: beat)
        case .subdivision: return voice.syllable(layer: layer, index: index)
        case .poly: return nil
        }
    }

    /// True when a word starting `lead` frames before `onset` (exact sample, as a
    /// fraction) and lasting `frames` would still sound when the next spoken word starts.
    static func givesWay(onset: Double, clip: Clip, nextStart: Double) -> Bool {
        onset - Double(clip.lead) + Double(clip.frameCount) > nextStart
    }
}
