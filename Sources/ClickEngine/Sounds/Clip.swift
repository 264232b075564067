// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// One click sound: mono samples in -1...1 at the engine's sample rate, starting from and
/// ending in silence. The storage is allocated once and never changes, so the render
/// thread reads it through a raw pointer without retaining anything.
public final class Clip: @unchecked Sendable {
    public let sampleRate: Int
    public let frameCount: Int
    /// Stable for the clip's lifetime; read-only after init.
    public let samples: UnsafePointer<Float>
    /// Largest magnitude of any sample: lets the renderer skip the limiter when even the
    /// sum of every playing clip's peak stays below its ceiling.
    public let peak: Float
    /// Frames from the first sample to the point that must sound on the onset (a spoken
    /// word's perceptual centre): the renderer starts the clip this much before its onset.
    /// 0 for clicks, whose first sample is the onset.
    public let lead: Int

    public init(samples source: [Float], sampleRate: Int, lead: Int = 0) {
        precondition(lead >= 0 && lead <= source.count, "Clip: lead must lie within the clip")
        self.sampleRate = sampleRate
        self.lead = lead
        frameCount = source.count
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: max(source.count, 1))
        storage.initialize(repeating: 0, count: max(source.count, 1))
        source.withUnsafeBufferPointer { storage.update(from: $0.baseAddress!, count: source.count) }
        samples = UnsafePointer(storage)
        peak = source.reduce(0) { max($0, abs($1)) }
    }

    deinit { UnsafeMutablePointer(mutating: samples).deallocate() }

    public var buffer: UnsafeBufferPointer<Float> { UnsafeBufferPointer(start: samples, count: frameCount) }

    /// Longest clip the engine accepts: the voice pool is sized so that even at 999 BPM with
    /// every subdivision layer, clips this long never run out of voices.
    public static let maximumSeconds = 2
}

/// Four related clips: accent (also the soft accent, quieter), beat, subdivision and poly.
/// A built-in set synthesizes its subdivision and poly clips the first time a program or
/// song asks for them (on the control side, never on the render thread): a plain render
/// of beats does not pay for clips it never plays.
public struct SoundSet: Sendable {
    public let name: String
    public let accent: Clip
    public let beat: Clip
    private let layers: LayerClips
    /// A voice set's words (spoken count), played in place of the clips where a word fits.
    public let voice: VoiceWords?

    public var subdivision: Clip { layers.clips.subdivision }
    /// The poly layers' clip; a set without one plays them with the subdivision clip.
    public var poly: Clip { layers.clips.poly }

    public init(name: String, accent: Clip, beat: Clip, subdivision: Clip, poly: Clip? = nil, voice: VoiceWords? = nil) {
        self.init(name: name, accent: accent, beat: beat, layers: { (subdivision, poly ?? subdivision) }, voice: voice)
    }

    /// `layers` makes the subdivision and poly clips when one of them is first used.
    init(name: String, accent: Clip, beat: Clip, layers: @escaping @Sendable () -> (subdivision: Clip, poly: Clip),
         voice: VoiceWords? = nil) {
        self.name = name
        self.voice = voice
        self.accent = accent
        self.beat = beat
        self.layers = LayerClips(make: layers)
    }
}

/// The subdivision and poly clips of a set, made once on first use.
private final class LayerClips: Sendable {
    private let state: Mutex<(subdivision: Clip, poly: Clip)?>
    private let make: @Sendable () -> (subdivision: Clip, poly: Clip)

    init(make: @escaping @Sendable () -> (subdivision: Clip, poly: Clip)) {
        state = Mutex(nil)
        self.make = make
    }

    var clips: (subdivision: Clip, poly: Clip) {
        state.withLock { made in
            if let made { return made }
            let clips = make()
            made = clips
            return clips
        }
    }
}
