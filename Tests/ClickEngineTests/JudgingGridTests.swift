// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Testing
import TactusArithmetic
import TactusMusic
import TactusTimeline

/// The coach's grid (`JudgingGrid`) is the one timeline's: every beat and sounding
/// subdivision the engine plays (swung, at a tempo whose beats fall between samples) is a
/// position on the very sample it is played on, and a hit next to it goes to it.
@Suite struct JudgingGridTests {
    @Test func everyPlayedBeatAndSubdivisionIsAPositionOnItsSample() throws {
        var swung = settings(bpm: "137", meter: "7/8", beatUnit: "1/8", subdivisions: "2,3")
        try swung.assign("swing", "66%")
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128, settings: swung,
                                     sounds: [SoundSet.constant(frames: 4, level: 0.001, sampleRate: 48000)])
        engine.start()
        let (grid, events) = try TimelineTests().play(engine, frames: 240_000)
        var judging = JudgingGrid()
        var checked = 0
        var previousBar = Int64.min
        var index = 0
        for event in events where event.kind != .poly {
            if event.bar != previousBar { (previousBar, index) = (event.bar, 0) }
            for nudge in [-0.4, 0.0, 0.4] {
                let foundResult = judging.nearest(toSample: Double(event.sample) + nudge, on: grid)
                let found = try #require(foundResult)
                #expect(found.position.sample == event.sample)
                #expect(found.position.bar == event.bar && found.position.beat == Int(event.beat))
                #expect(found.position.index == index)
                #expect(found.halfStep > 0)
            }
            index += 1
            checked += 1
        }
        #expect(checked == 46) // every beat and subdivision onset of the 5 s rendered
    }

    @Test func aSixteenthGridHoldsFourPositionsPerQuarter() throws {
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128, settings: settings(bpm: "100"),
                                     sounds: [SoundSet.constant(frames: 4, level: 0.001, sampleRate: 48000)])
        engine.start()
        let (grid, _) = try TimelineTests().play(engine, frames: 96_000)
        var judging = JudgingGrid(perWholeNote: 16)
        // 100 BPM: a sixteenth is 7200 samples; bar 0 beat 1's third sixteenth at 28800 + 14400.
        let foundResult = judging.nearest(toSample: 43_210, on: grid)
        let found = try #require(foundResult)
        #expect(found.position == JudgedPosition(sample: 43_200, bar: 0, beat: 1, index: 6, gap: false))
        #expect(found.halfStep == 3600)
        // Before the grid's start by more than half a step: outside.
        let beforeResult = judging.nearest(toSample: -5000, on: grid)
        let before = try #require(beforeResult)
        #expect(before.position.sample == 0 && abs(-5000 - Double(before.position.sample)) > before.halfStep)
    }
}
