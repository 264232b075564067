// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import HAL
import Logging
import SimHAL
import Testing
@testable import TactusApp
import TactusMusic
import TactusTimeline
import TactusInstrument
import TactusBase

/// The coach's entry points into the box: a hit heard at a CLOCK_MONOTONIC time is judged
/// on the one timeline (the grid the renderer published), the MIDI offset or the round trip
/// taken off, and reaches the Coach page.
@Suite struct BoxCoachTests {
    func playingBox() throws -> Box {
        let clock = ManualClock(start: .zero)
        let sink = OfflineAudioSink(clock: clock)
        let audio = try AudioOutput(device: sink, silent: sink)
        let parts = BoxParts(board: testBoard(), configuration: ConfigurationFile(), audio: audio,
                             input: ScriptedInput(), display: nil, indicators: SimulatedIndicators(),
                             persistence: RecordingPersistence(), clock: clock)
        let box = try BoxAssembly.makeBox(parts, saved: SavedState(), problem: nil, logger: Logger(label: "test"))
        try audio.start(box.engine.renderer)
        box.handle(.gesture(.startStop, .press, at: .zero))
        var t: Int64 = 0
        for _ in 0..<100 {
            _ = sink.pull(frameCount: 480)
            t += 10_000_000
            clock.set(MonotonicTime(nanoseconds: t))
            box.advance(to: MonotonicTime(nanoseconds: t))
        }
        return box
    }

    @Test func aMIDINoteIsJudgedAfterItsOffset() throws {
        let box = try playingBox()
        box.coachTuning = CoachTuning(midiOffsetNanoseconds: 5_000_000)
        let clock = try #require(box.outputClock)
        let beat = try #require(box.grid.beat(atSample: 30_000)) // 120 BPM: beat 1 of bar 0
        #expect((beat.bar, beat.beat) == (0, 1))
        // Struck 7 ms late; the note-on arrives 5 ms after the stroke.
        let arrival = clock.outputNanoseconds(ofSample: beat.beatSample) + 7_000_000 + 5_000_000
        let hitResult = box.coachNote(velocity: 100, at: MonotonicTime(nanoseconds: arrival))
        let hit = try #require(hitResult)
        #expect(abs(hit.errorMilliseconds - 7) < 0.05)
        #expect((hit.position.bar, hit.position.beat, hit.position.index) == (0, 1, 1))
        #expect(box.coachNote(velocity: 0, at: MonotonicTime(nanoseconds: arrival)) == nil) // a note-off
        #expect(box.state.coach.statistics.count == 1 && box.state.coach.last.map { abs($0 - 7) < 0.05 } == true)
    }

    @Test func anAudioHitHasTheRoundTripTakenOff() throws {
        let box = try playingBox()
        box.coachTuning = CoachTuning(roundTripNanoseconds: 20_000_000)
        let clock = try #require(box.outputClock)
        let beat = try #require(box.grid.beat(atSample: 50_000))
        // 4 ms early, heard 20 ms later through speaker and microphone.
        let heard = clock.outputNanoseconds(ofSample: beat.beatSample) - 4_000_000 + 20_000_000
        let hitResult = box.coachHit(at: MonotonicTime(nanoseconds: heard))
        let hit = try #require(hitResult)
        #expect(abs(hit.errorMilliseconds + 4) < 0.05)
        #expect((hit.position.bar, hit.position.beat) == (beat.bar, beat.beat))
    }
}
