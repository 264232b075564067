import TactusCore

/// One onset of the bar, compiled for the render thread: position in grid units, the clip
/// to start and its gain. Plain data only.
struct CompiledOnset: BitwiseCopyable {
    var offset: Int64
    var clip: UnsafePointer<Float>
    var clipFrames: Int
    var gain: Float
    var beat: Int32
    var layer: UInt8
    var kind: OnsetKind
}

/// An immutable, precomputed description of what to play, built on the control side and
/// handed to the render thread whole. Musical positions are integers on a grid of
/// `gridPerWhole` units per whole note, chosen so every onset of the bar lies on the grid;
/// samples per whole note are an exact fraction. The render thread only multiplies and
/// divides 128-bit integers: no allocation, no accumulation.
final class EngineProgram: @unchecked Sendable {
    let settings: MetronomeSettings
    let playing: Bool
    /// Incremented by every start: a new epoch restarts at bar 0 instead of keeping phase.
    let transportEpoch: UInt64
    let gridPerWhole: Int64
    let barGrid: Int64
    let beatGrid: Int64
    /// Samples per whole note = samplesPerWholeNumerator / samplesPerWholeDenominator.
    let samplesPerWholeNumerator: Int64
    let samplesPerWholeDenominator: Int64
    let onsetCount: Int
    let onsets: UnsafeMutablePointer<CompiledOnset>
    /// When set, the song is played instead of the bar pattern (from its start on each start).
    let song: SongSchedule?

    init(settings: MetronomeSettings, sounds: SoundSet, sampleRate: Int, playing: Bool, transportEpoch: UInt64,
         song: SongSchedule? = nil) {
        self.settings = settings
        self.song = song
        self.playing = playing
        self.transportEpoch = transportEpoch
        let pattern = BarPattern(settings)
        var grid = pattern.barLength.denominator
        grid = Rational.lcm(grid, pattern.beatLength.denominator)
        for onset in pattern.onsets { grid = Rational.lcm(grid, onset.offset.denominator) }
        gridPerWhole = grid
        barGrid = pattern.barLength.numerator * (grid / pattern.barLength.denominator)
        beatGrid = pattern.beatLength.numerator * (grid / pattern.beatLength.denominator)
        // samples per whole note = rate * 60 / (bpm * beat unit in whole notes)
        let perWhole = Rational(Int64(sampleRate) * 60) / (settings.tempo.bpm * pattern.beatLength)
        samplesPerWholeNumerator = perWhole.numerator
        samplesPerWholeDenominator = perWhole.denominator

        let volumes = settings.volumes
        let master = Float(volumes.master) / 100
        onsetCount = pattern.onsets.count
        onsets = .allocate(capacity: max(onsetCount, 1))
        for (index, onset) in pattern.onsets.enumerated() {
            let clip: Clip
            let volume: Int
            switch onset.kind {
            case .accent: (clip, volume) = (sounds.accent, volumes.accent)
            case .beat: (clip, volume) = (sounds.beat, volumes.beat)
            case .subdivision: (clip, volume) = (sounds.subdivision, volumes.layer(onset.layer))
            }
            (onsets + index).initialize(to: CompiledOnset(
                offset: onset.offset.numerator * (grid / onset.offset.denominator),
                clip: clip.samples, clipFrames: clip.frameCount,
                gain: master * Float(volume) / 100,
                beat: Int32(onset.beat), layer: UInt8(onset.layer), kind: onset.kind))
        }
    }

    deinit { onsets.deallocate() }

}
