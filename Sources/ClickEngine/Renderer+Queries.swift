// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase

/// What other threads read of the renderer: stored by `render` at the end of every call.
extension ClickRenderer {
    // MARK: queries (any thread: as of the end of the last render call)

    /// Frames rendered so far: the engine's sample clock.
    public var sampleClock: Int64 { publishedClock.load(ordering: .relaxed) }
    public var activeVoiceCount: Int { publishedVoices.load(ordering: .relaxed) }
    /// Frames from now until every playing clip has finished.
    public var framesUntilSilent: Int { publishedFramesUntilSilent.load(ordering: .relaxed) }
    /// Frames until the reference tone has ramped out (0: silent; Int.max while it is on).
    public var toneFramesUntilSilent: Int { publishedToneFramesUntilSilent.load(ordering: .relaxed) }

    /// Onsets at or after `sample` start no clip (any thread; nil lifts it). An offline
    /// render sets its end here, since clips with a lead are started ahead of their onsets.
    public func stopStarting(atSample sample: Int64?) {
        startLimit.store(sample ?? .max, ordering: .relaxed)
    }
    /// Onsets dropped because every voice was busy.
    public var droppedOnsetCount: Int { droppedOnsets.load(ordering: .relaxed) }
    public var isPlaying: Bool { publishedPlaying.load(ordering: .relaxed) }
    /// The engine sample at which the song being played started, and the start (transport
    /// epoch) it belongs to.
    public var songStart: (sample: Int64, epoch: UInt64) {
        (publishedSongOrigin.load(ordering: .relaxed), publishedEpoch.load(ordering: .relaxed))
    }

    /// The sample at which bar `bar` (counted from the last start) begins under the program
    /// in use, or nil when stopped.
    public func sampleOfBarStart(_ bar: Int64) -> Int64? {
        guard playing, let current else { return nil }
        return Unmanaged<EngineProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { program in
            program.sample(bar: bar, offset: 0, placement: placement)
        }
    }

    /// Song playback: the engine sample where the song stops starting clicks, or nil.
    public var songEndSample: Int64? {
        guard playing, let current else { return nil }
        return Unmanaged<EngineProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { program in
            program.song.map { songOrigin + $0.endSample }
        }
    }
}
