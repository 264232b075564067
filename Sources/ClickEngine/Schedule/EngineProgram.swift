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

    /// Extra grid resolution beyond the onset grid, so that the phase kept across a change
    /// is exact to a tiny fraction of a sample (at 1 BPM and 192 kHz: < 0.02 sample).
    static let phaseResolution: Int64 = 1 << 20

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
        grid *= EngineProgram.phaseResolution
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

    /// Exact sample index (halves rounded up) of a musical position given in grid units
    /// from an anchor: the anchor sits at sample anchorTwice / 2.
    @inline(__always)
    func sample(anchorTwice: Int64, gridFromAnchor: Int128) -> Int64 {
        let gw = Int128(gridPerWhole) * Int128(samplesPerWholeDenominator)
        let numerator = Int128(anchorTwice + 1) * gw + 2 * gridFromAnchor * Int128(samplesPerWholeNumerator)
        return Int64(Rational.floorDivide(numerator, 2 * gw))
    }

    /// The smallest grid position (from the anchor) whose exact time is at or after
    /// `sampleTwice / 2`.
    @inline(__always)
    func gridCeiling(anchorTwice: Int64, sampleTwice: Int64) -> Int128 {
        let numerator = Int128(sampleTwice - anchorTwice) * Int128(gridPerWhole) * Int128(samplesPerWholeDenominator)
        let denominator = 2 * Int128(samplesPerWholeNumerator)
        return -Rational.floorDivide(-numerator, denominator)
    }
}
