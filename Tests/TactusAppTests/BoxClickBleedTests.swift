// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Coach
import Glibc
import HAL
import Logging
import SimHAL
import Testing
@testable import TactusApp
import TactusMusic
import TactusTimeline
import TactusInstrument
import TactusBase

/// The box's own click in the coach's microphone, end to end on a box: what the render
/// thread plays (`RecordingRenderer` into `SampleHistory`) comes back into the input a round
/// trip later at a gain, through the `CoachListener` the capture thread runs, its hits drained
/// into `Box.coachHit` as the service does. Calibrate measures the round trip and learns the
/// gain; then, playing, no click is a hit and every stroke (some right on a click) is judged
/// at its own offset.
@Suite struct BoxClickBleedTests {
    final class Room {
        let clock = ManualClock(start: .zero)
        let sink: OfflineAudioSink
        let box: Box
        let history = SampleHistory(minimumCapacity: 48000)
        let listener: CoachListener
        let roundTrip: Int64
        let gain: Float
        var t: Int64 = 0
        var inputIndex: Int64 = 0
        var echoOffset: Int64?
        /// Input sample index -> stroke (a noise burst with an instant attack, 40 ms decay).
        var strokes: [Int64] = []
        var judged: [CoachHit] = []
        private var noise: UInt32 = 12345
        private var block = [Float](repeating: 0, count: 480)

        init(roundTripNanoseconds: Int64, gain: Float) throws {
            (roundTrip, self.gain) = (roundTripNanoseconds, gain)
            sink = OfflineAudioSink(clock: clock)
            let audio = try AudioOutput(device: sink, silent: sink)
            let parts = BoxParts(board: testBoard(), configuration: ConfigurationFile(), audio: audio,
                                 input: ScriptedInput(), display: nil, indicators: SimulatedIndicators(),
                                 persistence: RecordingPersistence(), clock: clock)
            box = try BoxAssembly.makeBox(parts, saved: SavedState(), problem: nil, logger: Logger(label: "test"))
            listener = CoachListener(sampleRate: 48000, output: (history, audio))
            box.coachInputAvailable = true
            box.coachListener = listener
            try audio.start(RecordingRenderer(box.engine.renderer, history: history, channels: 2))
        }

        var at: MonotonicTime { MonotonicTime(nanoseconds: t) }

        /// 10 ms steps: the box renders, the input hears its output a round trip before (and the
        /// strokes), the listener's hits go to the box.
        func run(seconds: Double) throws {
            for _ in 0..<Int(seconds * 100) {
                _ = sink.pull(frameCount: 480)
                let first = inputIndex * 1_000_000_000 / 48000
                // The echo is a fixed whole number of samples (a real room's is fixed too).
                if echoOffset == nil {
                    let clock = try #require(box.outputClock)
                    echoOffset = Int64(clock.heardSample(atNanoseconds: first - roundTrip).rounded()) - inputIndex
                }
                let played = inputIndex + echoOffset!
                block.withUnsafeMutableBufferPointer { _ = history.read(from: played, count: 480, into: $0.baseAddress!) }
                for i in 0..<480 {
                    block[i] *= gain
                    for s in strokes where inputIndex + Int64(i) >= s && inputIndex + Int64(i) < s + 9600 {
                        noise = noise &* 1_664_525 &+ 1_013_904_223
                        let r = Float((noise >> 8) & 0xffff) / 32768 - 1
                        block[i] += 0.5 * r * Float(exp(-Double(inputIndex + Int64(i) - s) / 1920))
                    }
                }
                block.withUnsafeBufferPointer { listener.capture($0, firstSampleAt: first) }
                inputIndex += 480
                t += 10_000_000
                self.clock.set(at)
                box.advance(to: at)
                for time in listener.drain() {
                    if let hit = box.coachHit(at: time) { judged.append(hit) }
                }
            }
        }

        /// The input sample at which a stroke `offset` ns after engine sample `sample` is heard.
        func inputSample(ofStrokeAt sample: Int64, offset: Int64) throws -> Int64 {
            let clock = try #require(box.outputClock)
            return (clock.outputNanoseconds(ofSample: sample) + roundTrip + offset) * 48000 / 1_000_000_000
        }

        func calibrate() { box.calibrateCoachWithTheWheel(at: at) }
    }

    @Test(arguments: [(100_000_000, 0.25), (23_400_000, 0.5)] as [(Int64, Float)])
    func calibratedThenNoClickIsAHit(roundTrip: Int64, gain: Float) throws {
        let room = try Room(roundTripNanoseconds: roundTrip, gain: gain)
        try room.run(seconds: 0.5)
        room.calibrate()
        try room.run(seconds: 12)
        let preferences = room.box.state.saved.preferences
        let stored = try #require(preferences.coachRoundTripMicroseconds)
        #expect(abs(Int64(stored) - roundTrip / 1000) <= 21, "\(stored)")
        let decibels = try #require(preferences.coachClickGainDecibels)
        #expect(abs(decibels - Double(gain).decibels) < 0.1, "\(decibels)")
        // 120 BPM in eighths; strokes from bar 1, each a known offset from its beat, three on it.
        room.box.handle(.gesture(.startStop, .press, at: room.at))
        try room.run(seconds: 0.3)
        let start = try #require(room.box.grid.pieces.last?.startSample)
        let offsets: [Int64] = [0, 8, -12, 15, 0, -30, 11, 0, 25, -5]
        for (i, offset) in offsets.enumerated() {
            let beat = try #require(room.box.grid.sample(bar: 1 + Int64(i / 4), beats: .init(Int64(i % 4)), near: start))
            room.strokes.append(try room.inputSample(ofStrokeAt: beat, offset: offset * 1_000_000))
        }
        try room.run(seconds: 7)
        #expect(room.judged.count == offsets.count, "\(room.judged.map { ($0.position.bar, $0.position.index, $0.errorMilliseconds) })")
        for (hit, offset) in zip(room.judged, offsets) {
            #expect(abs(hit.errorMilliseconds - Double(offset)) < 0.5, "\(hit.errorMilliseconds) for \(offset)")
        }
    }
}
