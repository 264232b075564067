import TactusCore

/// One onset that actually started a clip, as reported by the render thread.
public struct OnsetEvent: Sendable, Hashable, BitwiseCopyable {
    /// Engine sample clock (frames since the engine was created) of the clip's first sample.
    public var sample: Int64
    /// Bars since the last start, from 0.
    public var bar: Int64
    /// Beat in the bar, from 0.
    public var beat: Int32
    /// 0 for accents and beats, n for subdivision layer n, m (1-4) for poly layer m.
    public var layer: UInt8
    public var kind: OnsetKind
    /// The step: of a poly layer's span (0 is its first onset), of a layer within its beat.
    public var index: Int32

    public init(sample: Int64, bar: Int64, beat: Int32, layer: UInt8, kind: OnsetKind, index: Int32 = 0) {
        self.sample = sample
        self.bar = bar
        self.beat = beat
        self.layer = layer
        self.kind = kind
        self.index = index
    }
}
