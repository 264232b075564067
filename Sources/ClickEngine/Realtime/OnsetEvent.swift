// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
import TactusBase
import TactusTimeline
import MIDIWire

/// One onset that actually started a clip, as reported by the render thread.
public struct OnsetEvent: Sendable, Hashable, BitwiseCopyable {
    /// Engine sample clock (frames since the engine was created) of the clip's first sample.
    public var sample: Int64
    /// Bars since the last start, from 0 (a song's count-in is -N...-1).
    public var bar: Int64
    /// Beat in the bar, from 0.
    public var beat: Int32
    /// 0 for accents and beats, n for subdivision layer n, m (1-4) for poly layer m.
    public var layer: UInt8
    public var kind: OnsetKind
    /// The step: of a poly layer's span (0 is its first onset), of a layer within its beat.
    public var index: Int32
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
    /// Poly onsets: the layer's steps (n of "n over span") and span in beats (0: the bar).
    public var polySteps: UInt8
    public var polySpanBeats: UInt8

    public init(sample: Int64, bar: Int64, beat: Int32, layer: UInt8, kind: OnsetKind, index: Int32 = 0,
                section: Int16 = -1, song: Int16 = 0, isCount: Bool = false, muted: Bool = false, bpm: Double = 0,
                polySteps: UInt8 = 0, polySpanBeats: UInt8 = 0) {
        self.sample = sample
        self.bar = bar
        self.beat = beat
        self.layer = layer
        self.kind = kind
        self.index = index
        self.section = section
        self.song = song
        self.isCount = isCount
        self.muted = muted
        self.bpm = bpm
        self.polySteps = polySteps
        self.polySpanBeats = polySpanBeats
    }
}

extension OnsetEvent {
    /// A poly onset's fields in the events files (`render --events`, `simulate`):
    /// `,"n":3,"span":"bar","index":1`, `"span":"2b"` over two beats.
    public var polyJSONFields: String {
        ",\"n\":\(polySteps),\"span\":\"\(polySpanBeats == 0 ? "bar" : "\(polySpanBeats)b")\",\"index\":\(index)"
    }
}

/// Where the renderer pinned its grid, published on every start and every change so the
/// timeline (`BeatGrid`, via `ClickEngine.gridPiece(for:)`) places beats from the engine's
/// own position instead of re-deriving its rules. For a song it is the song's start (bar 0,
/// position 0) under the program whose schedule holds every beat. From sample `sampleTwice / 2` (exact; a change lands on a whole sample) on, bar
/// `bar` (counted from the last start) is `positionNumerator / positionDenominator` whole
/// notes in (negative while a shortened bar's last beat finishes), under the settings of
/// program `program` (`ClickEngine.settings(ofProgram:)`).
public struct GridAnchor: Sendable, Hashable, BitwiseCopyable {
    public var sampleTwice: Int64
    public var bar: Int64
    public var positionNumerator: Int128
    public var positionDenominator: Int128
    public var program: UInt64

    public init(sampleTwice: Int64, bar: Int64, positionNumerator: Int128, positionDenominator: Int128, program: UInt64) {
        self.sampleTwice = sampleTwice
        self.bar = bar
        self.positionNumerator = positionNumerator
        self.positionDenominator = positionDenominator
        self.program = program
    }
}

/// One MIDI message the box sends, placed by the render thread at its exact engine sample
/// (clocks at whole-note positions k/96 from bar 0's downbeat, through the same grid as the
/// clicks). The MIDI thread sends it when that sample is heard, minus `[midi] offset_ms`.
public struct MIDIOutEvent: Sendable, Hashable, BitwiseCopyable {
    public var sample: Int64
    public var message: MIDIMessage
    /// Clocks: k (negative during a count-in). Other messages: 0.
    public var clock: Int64

    public init(sample: Int64, message: MIDIMessage, clock: Int64 = 0) {
        self.sample = sample
        self.message = message
        self.clock = clock
    }
}

/// What the render thread sends over MIDI (set on the engine, carried by every program).
public struct MIDIClockOptions: Sendable, Hashable {
    /// Clocks, Start, Stop at all.
    public var enabled = true
    /// `[midi] clock_when_stopped`: clocks go on while stopped at the current tempo.
    public var whenStopped = true
    /// `[midi] start_at_count_in`: Start goes out before the count-in's first clock instead
    /// of bar 0's.
    public var startAtCountIn = false
    /// 16ths from the written song's start to the played song's bar 0 (a song started from a
    /// later section): its start sends Song Position Pointer and Continue instead of Start.
    public var songPosition: Int64 = 0
    /// A start from stopped waits for the running clock's next tick (`clock_when_stopped`) and
    /// puts bar 0 on it, so the clock never jumps at Start: on while a MIDI port takes the
    /// clock (at most one clock period later, 20.8 ms at 120 BPM).
    public var startsOnRunningClock = false

    public init(enabled: Bool = true, whenStopped: Bool = true, startAtCountIn: Bool = false, songPosition: Int64 = 0) {
        self.enabled = enabled
        self.whenStopped = whenStopped
        self.startAtCountIn = startAtCountIn
        self.songPosition = songPosition
    }
}
