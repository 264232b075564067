import TactusCore

/// One onset that actually started a clip, as reported by the render thread.
public struct OnsetEvent: Sendable, Hashable, BitwiseCopyable {
    /// Engine sample clock (frames since the engine was created) of the clip's first sample.
    public var sample: Int64
    /// Bars since the last start, from 0 (a song's count-in is -N...-1).
    public var bar: Int64
    /// Beat in the bar, from 0.
    public var beat: Int32
    /// 0 for accents and beats, n for subdivision layer n.
    public var layer: UInt8
    public var kind: OnsetKind
    /// Song playback only: the section (-1 for the count-in, or no song).
    public var section: Int16
    /// Song playback only: which song (0 unless a setlist advances by itself).
    public var song: Int16
    /// Song playback only: a count-in click.
    public var isCount: Bool
    /// Song playback only: silent by the gap click or random mute (no clip was started).
    public var muted: Bool
    /// Song playback only: the tempo at this onset (BPM of the section's beat unit), else 0.
    public var bpm: Double

    public init(sample: Int64, bar: Int64, beat: Int32, layer: UInt8, kind: OnsetKind,
                section: Int16 = -1, song: Int16 = 0, isCount: Bool = false, muted: Bool = false, bpm: Double = 0) {
        self.sample = sample
        self.bar = bar
        self.beat = beat
        self.layer = layer
        self.kind = kind
        self.section = section
        self.song = song
        self.isCount = isCount
        self.muted = muted
        self.bpm = bpm
    }
}
