// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import HAL
import MIDIWire
import Synchronization
import TactusTimeline

/// The engine's MIDI messages as the MIDI clock thread takes them on a real box: straight
/// from the render thread's ring, each timed when its sample is heard (the output's
/// position, read without a lock), so a busy control thread never delays a clock.
public final class MIDIOutFeed: @unchecked Sendable {
    let engine: ClickEngine
    let audio: any AudioClockSource
    /// `[midi] offset_ms`, in ns: messages leave that much before they are heard.
    let offsetNanoseconds = Atomic<Int64>(0)

    public init(engine: ClickEngine, audio: any AudioClockSource) {
        self.engine = engine
        self.audio = audio
    }

    /// On the clock thread (the ring's one consumer then): the next message and when it
    /// leaves, or nil. No allocation, lock or log. Without an output nothing is heard, so
    /// nothing is sent (as the control thread did).
    public func next() -> (message: MIDIMessage, deadline: Int64)? {
        while let event = engine.nextMIDIEvent() {
            guard let position = audio.outputPosition else { continue }
            let clock = AudioOutputClock(position, sampleRate: engine.renderer.sampleRate)
            return (event.message, clock.outputNanoseconds(ofSample: event.sample) - offsetNanoseconds.load(ordering: .relaxed))
        }
        return nil
    }
}

extension AudioOutputClock {
    /// The output clock of a sink's position report.
    init(_ position: AudioOutputPosition, sampleRate: Int) {
        self.init(sampleRate: sampleRate, engineSample: position.framesRendered, outputDelayFrames: Int64(position.delayFrames),
                  nanoseconds: position.timestamp.nanoseconds, nanosecondsPerSample: position.nanosecondsPerFrame)
    }
}
