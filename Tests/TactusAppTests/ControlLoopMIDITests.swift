// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import HAL
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import Testing
@testable import TactusApp
import TactusBase
import TactusTimeline
import TactusInstrument
import TactusMusic
import ClickEngine
import SimHAL
import Logging
import MIDIWire

/// MIDI input reaches the box the way GPIO edges do: posted from the input thread, handled on
/// the control thread in order, at the message's own (kernel) time.
@Suite(.serialized) struct ControlLoopMIDITests {
    @Test func notesPostedFromAnotherThreadTapTheTempoAtTheirOwnTimes() async throws {
        let box = try ServiceUnderTest()
        defer { box.removeFolder() }
        try await testGracefulShutdown { trigger in
            async let running: Void = box.service.run()
            try await box.waitUntilRunning()
            await box.service.loop.perform { box in
                var midi = MIDIConfiguration()
                midi.map = [MIDIMapping(kind: .note, number: 36, channel: nil, control: .tap)]
                box.midiConfiguration = midi
            }
            // Six pad hits 400 ms apart, stamped at their arrival; the control loop handles
            // them later, all at once: the tempo is the hits', 150 BPM.
            let first = box.clock.now().nanoseconds
            box.clock.advance(byNanoseconds: 2_500_000_000)
            let poster = Thread {
                for i in 0..<6 {
                    box.service.loop.post(.noteOn(channel: 9, note: 36, velocity: 100),
                                          at: MonotonicTime(nanoseconds: first + Int64(i) * 400_000_000))
                    box.service.loop.post(.noteOn(channel: 9, note: 37, velocity: 100),
                                          at: MonotonicTime(nanoseconds: first + Int64(i) * 400_000_000 + 1_000_000))
                }
            }
            poster.start()
            var tempo: Tempo?
            for _ in 0..<200 {
                tempo = await box.service.loop.perform { $0.state.settings.tempo }
                if tempo == Tempo(clampingWholeBPM: 150) { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(tempo == Tempo(clampingWholeBPM: 150))
            trigger.triggerGracefulShutdown()
            try await running
        }
    }

    /// A flood that outruns the control thread costs bounded memory: while the thread is
    /// busy, at most `midiBacklogLimit` messages wait and the rest are dropped and counted;
    /// once it is free again, new messages go through.
    @Test func aFloodWhileTheControlThreadIsBusyIsBoundedAndCounted() async throws {
        let box = try ServiceUnderTest()
        defer { box.removeFolder() }
        try await testGracefulShutdown { trigger in
            async let running: Void = box.service.run()
            try await box.waitUntilRunning()
            let loop = box.service.loop
            let busy = DispatchSemaphore(value: 0), holding = DispatchSemaphore(value: 0)
            loop.post(work: { _ in
                holding.signal()
                busy.wait()
            })
            holding.wait()
            let flood = 10_000
            for i in 0..<flood { loop.post(.clock, at: MonotonicTime(nanoseconds: Int64(i) * 100_000)) }
            #expect(loop.droppedMIDI == flood - ControlLoop.midiBacklogLimit)
            busy.signal()
            await loop.perform { box in
                var midi = MIDIConfiguration()
                midi.map = [MIDIMapping(kind: .note, number: 36, channel: nil, control: .startStop)]
                box.midiConfiguration = midi
            }
            // The backlog was handled: a note now reaches the box.
            loop.post(.noteOn(channel: 0, note: 36, velocity: 100), at: box.clock.now())
            var playing = false
            for _ in 0..<200 {
                playing = await loop.perform { $0.state.isPlaying }
                if playing { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(playing)
            #expect(loop.droppedMIDI == flood - ControlLoop.midiBacklogLimit)
            trigger.triggerGracefulShutdown()
            try await running
        }
    }

    /// While stopped the clock goes on (`clock_when_stopped`), but the control thread sleeps
    /// on: on a real box the MIDI clock thread takes the engine's clocks itself (it used to
    /// need the control thread to look every 4 ms). The sender is told how, once.
    @Test func stoppedWithAMIDISenderTheControlThreadSleepsOn() throws {
        final class FeedTaker: MIDISender {
            var feeds = 0
            func takeMessages(_ next: @escaping @Sendable () -> (message: MIDIMessage, deadline: Int64)?) { feeds += 1 }
        }
        let clock = ManualClock(start: .zero)
        let sink = OfflineAudioSink(clock: clock)
        let parts = BoxParts(board: testBoard(), configuration: ConfigurationFile(), audio: try AudioOutput(device: sink, silent: sink),
                             input: ScriptedInput(), display: nil, indicators: SimulatedIndicators(),
                             persistence: RecordingPersistence(), clock: clock)
        let box = try BoxAssembly.makeBox(parts, saved: SavedState(), problem: nil, logger: Logger(label: "test"))
        clock.set(MonotonicTime(nanoseconds: 10_000_000_000))
        box.advance(to: clock.now())
        #expect(!box.state.isPlaying)
        let limit = clock.now().nanoseconds + 4_000_000
        #expect((box.nextWakeup?.nanoseconds ?? .max) > limit)
        let sender = FeedTaker()
        box.midiSender = sender
        #expect(sender.feeds == 1)
        #expect((box.nextWakeup?.nanoseconds ?? .max) > limit)
    }
}
