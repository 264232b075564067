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
}
