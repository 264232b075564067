// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
import TactusTimeline
import TactusBase
import MIDIWire

/// A change applied at an exact sample, as a live change arriving just before that
/// sample's render call would be.
public struct TimedChange: Sendable {
    public enum Action: Sendable {
        case apply(MetronomeSettings)
        /// A live change while a song plays (`ClickEngine.applyDuringSong`).
        case changeSong(MetronomeSettings, tempo: SongChange.TempoChange?, pattern: Bool)
        case start
        case stop
    }

    public var sample: Int64
    public var action: Action

    public init(sample: Int64, action: Action) {
        self.sample = sample
        self.action = action
    }
}

/// Where an offline render stops starting clips; clips in flight always play to their end.
public enum RenderEnd: Sendable {
    /// At the downbeat of bar N after the last start (so N whole bars are played).
    case bars(Int64)
    /// At this sample.
    case sample(Int64)
}

/// Drives the live renderer faster than real time: the same render calls, in periods of
/// the live size, split exactly at each change so it takes effect at its own sample.
public enum OfflineRender {
    /// The live period: a render's default, and its ring-out's after the end.
    public static let livePeriodFrames = 128
    /// The period a file render uses: the engine is exact at any period (changes split it at
    /// their samples), and each render call has a fixed cost (the rings, the counters), which
    /// at the live period was half of `tactus render`'s CPU time.
    public static let filePeriodFrames = 2048

    public static func run(
        engine: ClickEngine,
        changes: [TimedChange],
        end: RenderEnd,
        periodFrames: Int = livePeriodFrames,
        output: (UnsafeBufferPointer<Float>) throws -> Void,
        onEvent: (OnsetEvent) throws -> Void,
        onMIDI: ((MIDIOutEvent) throws -> Void)? = nil
    ) throws {
        let renderer = engine.renderer
        let period = min(periodFrames, renderer.maxFrameCount)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: period * renderer.channels)
        defer { buffer.deallocate() }
        let pending = changes.sorted { $0.sample < $1.sample }
        // Without a reader of the MIDI messages no clock is placed (they cost more than the clicks).
        let clockOptions = engine.midiClock
        if onMIDI == nil && clockOptions.enabled { engine.midiClock.enabled = false }
        defer { if engine.midiClock != clockOptions { engine.midiClock = clockOptions } }
        var nextChange = 0

        func renderBlock(_ frames: Int) throws {
            renderer.render(into: buffer, frameCount: frames)
            if frames > 0 { try output(UnsafeBufferPointer(start: buffer, count: frames * renderer.channels)) }
            guard let onMIDI else {
                while let event = engine.nextEvent() { try onEvent(event) }
                while engine.nextMIDIEvent() != nil {}
                return
            }
            // In sample order, a MIDI message before a click on the same sample (Start
            // precedes the downbeat).
            var onset = engine.nextEvent()
            var message = engine.nextMIDIEvent()
            while onset != nil || message != nil {
                if let m = message, onset.map({ m.sample <= $0.sample }) ?? true {
                    try onMIDI(m)
                    message = engine.nextMIDIEvent()
                } else if let o = onset {
                    try onEvent(o)
                    onset = engine.nextEvent()
                }
            }
        }

        // Where clicks stop: it moves only when a change is applied (a new program, a new anchor).
        func currentEnd() -> Int64? {
            var endSample: Int64? = switch end {
            case .bars(let bars): renderer.sampleOfBarStart(bars)
            case .sample(let sample): sample
            }
            // A song ends by itself (its schedule holds the requested end).
            if let songEnd = renderer.songEndSample { endSample = min(endSample ?? songEnd, songEnd) }
            return endSample
        }

        engine.start()
        try renderBlock(0)
        var endSample = currentEnd()
        while true {
            let now = renderer.sampleClock
            while nextChange < pending.count && pending[nextChange].sample <= now {
                switch pending[nextChange].action {
                case .apply(let settings): try engine.apply(settings)
                case .changeSong(let settings, let tempo, let pattern):
                    try engine.applyDuringSong(settings, tempo: tempo, pattern: pattern)
                case .start: engine.start()
                case .stop: engine.stop()
                }
                nextChange += 1
                try renderBlock(0)
                endSample = currentEnd()
            }
            renderer.stopStarting(atSample: endSample)
            if let endSample, now >= endSample { break }
            if !renderer.isPlaying && nextChange == pending.count { break }
            var limit = now + Int64(period)
            if nextChange < pending.count { limit = min(limit, pending[nextChange].sample) }
            if let endSample { limit = min(limit, endSample) }
            try renderBlock(Int(limit - now))
        }
        // The render ends here: Stop is the last MIDI message (no clocks in the ring-out).
        if engine.midiClock.enabled && engine.midiClock.whenStopped { engine.midiClock.whenStopped = false }
        engine.stop()
        // The reference tone ramps out with the render (a few ms, no click).
        engine.setTone(nil)
        try renderBlock(0)
        renderer.stopStarting(atSample: nil)
        // In live-sized periods: the tone's frames to silence come from a ratio of Doubles, so
        // where they are asked decides the last frame, and the file's length stays what it is
        // at the live period.
        let ringOutPeriod = min(period, livePeriodFrames)
        while max(renderer.framesUntilSilent, renderer.toneFramesUntilSilent) > 0 {
            try renderBlock(min(ringOutPeriod, max(renderer.framesUntilSilent, renderer.toneFramesUntilSilent)))
        }
    }
}
