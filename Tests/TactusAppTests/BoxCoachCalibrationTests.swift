// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import HAL
import Logging
import SimHAL
import Testing
import TactusSimulation
@testable import TactusApp
import TactusMusic
import TactusTimeline
import TactusInstrument
import TactusBase

/// Menu > Coach > Calibrate on a box with a fake loopback: the input "hears" each of the
/// box's calibration clicks a known time after the grid says it sounds (plus a stray noise
/// onset); the round trip is stored, said on the screen, and the engine plays the user's
/// settings again.
@Suite struct BoxCoachCalibrationTests {
    final class Rig {
        let clock = ManualClock(start: .zero)
        let sink: OfflineAudioSink
        let box: Box
        var t: Int64 = 0

        init(input: Bool) throws {
            sink = OfflineAudioSink(clock: clock)
            let audio = try AudioOutput(device: sink, silent: sink)
            let parts = BoxParts(board: testBoard(), configuration: ConfigurationFile(), audio: audio,
                                 input: ScriptedInput(), display: nil, indicators: SimulatedIndicators(),
                                 persistence: RecordingPersistence(), clock: clock)
            box = try BoxAssembly.makeBox(parts, saved: SavedState(), problem: nil, logger: Logger(label: "test"))
            box.coachInputAvailable = input
            try audio.start(box.engine.renderer)
        }

        var at: MonotonicTime { MonotonicTime(nanoseconds: t) }

        func run(seconds: Double) {
            for _ in 0..<Int(seconds * 100) {
                _ = sink.pull(frameCount: 480)
                t += 10_000_000
                clock.set(at)
                box.advance(to: at)
            }
        }

        func calibrate() { box.calibrateCoachWithTheWheel(at: at) }
    }

    @Test(arguments: [0, 23_400_000, 187_000_000] as [Int64])
    func theRoundTripIsMeasuredStoredAndShown(roundTrip: Int64) throws {
        let rig = try Rig(input: true)
        rig.box.handle(.gesture(.startStop, .press, at: rig.at)) // playing: calibrating stops it first
        rig.run(seconds: 1)
        rig.calibrate()
        #expect(rig.box.state.calibratingCoach && !rig.box.state.isPlaying && rig.box.state.mode == .coach)
        rig.run(seconds: 0.5)
        let clock = try #require(rig.box.outputClock)
        let start = try #require(rig.box.grid.pieces.last?.startSample)
        // 100 BPM at 48 kHz: 28 800 samples a click.
        #expect(rig.box.grid.samplesPerBeat(atSample: start) == 28_800)
        for i in 0..<16 {
            let sample = try #require(rig.box.grid.sample(bar: Int64(i / 4), beats: .init(Int64(i % 4)), near: start))
            let heard = clock.outputNanoseconds(ofSample: sample) + roundTrip
            #expect(rig.box.coachHit(at: MonotonicTime(nanoseconds: heard)) == nil) // kept, not judged
            if i == 5 { rig.box.coachHit(at: MonotonicTime(nanoseconds: heard + 90_000_000)) } // a stray noise
        }
        rig.run(seconds: 11)
        #expect(!rig.box.state.calibratingCoach)
        let stored = try #require(rig.box.state.saved.preferences.coachRoundTripMicroseconds)
        #expect(abs(Int64(stored) - roundTrip / 1000) <= 21, "\(stored)") // to the sample (20.8 us)
        #expect(rig.box.state.notice?.text == "Calibrated: round trip \(MenuState.milliseconds(stored))")
        #expect(rig.box.engine.renderer.activeVoiceCount == 0)
        // START plays the box's own 120 BPM again, and the round trip is taken off hits.
        rig.box.handle(.gesture(.startStop, .press, at: rig.at))
        rig.run(seconds: 0.5)
        let next = try #require(rig.box.grid.pieces.last?.startSample)
        #expect(rig.box.grid.samplesPerBeat(atSample: next) == 24_000)
        let beat = try #require(rig.box.grid.sample(bar: 1, beats: 0, near: next))
        let hit = rig.box.coachHit(at: MonotonicTime(nanoseconds: clock.outputNanoseconds(ofSample: beat) + 2_000_000 + Int64(stored) * 1000))
        #expect(hit.map { abs($0.errorMilliseconds - 2) < 0.05 } == true)
    }

    @Test func clicksNotHeardKeepTheOldValue() throws {
        let rig = try Rig(input: true)
        rig.calibrate()
        rig.run(seconds: 12)
        #expect(rig.box.state.notice?.text == "Calibrate: clicks not heard")
        #expect(rig.box.state.saved.preferences.coachRoundTripMicroseconds == nil)
        #expect(!rig.box.state.calibratingCoach && rig.box.engine.renderer.activeVoiceCount == 0)
    }

    @Test func withoutAnInputItSaysSo() throws {
        let rig = try Rig(input: false)
        rig.calibrate()
        #expect(rig.box.state.notice?.text == "Calibrate: no coach input")
        #expect(!rig.box.state.calibratingCoach)
        rig.run(seconds: 1)
        #expect(rig.box.grid.isEmpty && rig.box.engine.renderer.activeVoiceCount == 0)
    }

    @Test func startCancelsTheCalibration() throws {
        let rig = try Rig(input: true)
        rig.calibrate()
        rig.run(seconds: 2)
        #expect(!rig.box.grid.isEmpty)
        rig.box.handle(.gesture(.startStop, .press, at: rig.at))
        #expect(rig.box.state.notice?.text == "Calibrate: cancelled" && !rig.box.state.isPlaying && !rig.box.state.calibratingCoach)
        rig.run(seconds: 12)
        #expect(rig.box.state.notice?.text != "Calibrate: clicks not heard")
        #expect(rig.box.grid.isEmpty)
    }
}

extension Box {
    /// Menu > Coach > Calibrate with the wheel: long push, down to Coach, push, down one, push.
    func calibrateCoachWithTheWheel(at time: MonotonicTime) {
        handle(.gesture(.wheel, .longPress, at: time))
        let root = state.screen.menu!.entries.map(\.label)
        for _ in 0..<root.firstIndex(of: "Coach")! { handle(.detent(1, at: time)) }
        handle(.gesture(.wheel, .shortPress, at: time))
        #expect(state.screen.menu?.entries.map(\.label) == ["Coach page", "Calibrate", "Back"])
        handle(.detent(1, at: time))
        handle(.gesture(.wheel, .shortPress, at: time))
    }
}
