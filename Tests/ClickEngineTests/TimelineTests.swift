// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Testing
import TactusArithmetic
import TactusMusic
import TactusTimeline

/// The one timeline (`BeatGrid`) against what the engine plays: built only from the anchors
/// the render thread publishes, it puts every beat, and every 1/96 of a whole note, on the
/// sample the engine plays it on (constant settings, changes, songs with a ramp, a section in
/// another meter, a trainer's steps and a count-in).
@Suite struct TimelineTests {
    /// Renders `frames` in blocks of `block`, calling `change` before the block at each key,
    /// and collects the grid and the onsets.
    func play(_ engine: ClickEngine, frames: Int, block: Int = 128, changes: [Int: (ClickEngine) throws -> Void] = [:])
        throws -> (grid: BeatGrid, events: [OnsetEvent]) {
        var grid = BeatGrid()
        var events: [OnsetEvent] = []
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * engine.renderer.channels)
        defer { buffer.deallocate() }
        var done = 0
        while done < frames {
            if let change = changes[done] { try change(engine) }
            engine.renderer.render(into: buffer, frameCount: block)
            done += block
            while let anchor = engine.nextAnchor() { grid.append(try #require(engine.gridPiece(for: anchor))) }
            while let e = engine.nextEvent() { events.append(e) }
        }
        return (grid, events)
    }

    @Test func steadyGridPutsEveryTickOnTheEnginesSamples() throws {
        // 137 BPM: beats fall between samples; eighths (layer 2) are ticks 12, 36, ...
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128,
                                     settings: settings(bpm: "137", subdivisions: "2"),
                                     sounds: [SoundSet.constant(frames: 4, level: 0.001, sampleRate: 48000)])
        engine.start()
        let (grid, events) = try play(engine, frames: 480_000)
        #expect(events.count == 46) // 22.8 beats of two eighths
        for event in events {
            // A quarter is 24 ticks of 1/96 whole note; the eighth's second half 12 more.
            let tick = (event.bar * 4 + Int64(event.beat)) * 24 + (event.layer == 2 ? 12 : 0)
            #expect(grid.sample(tick: tick, near: event.sample) == event.sample)
            #expect(grid.sample(tick: tick, near: event.sample) == idealSample(beats: Rational(tick, 24), bpm: 137, sampleRate: 48000))
        }
        let beat = try #require(grid.beat(atSample: 21022))
        #expect((beat.bar, beat.beat, beat.beatSample, beat.fraction) == (0, 1, 21022, 0))
        #expect(grid.sounding(atSample: 0)?.tempoText == "137")
    }

    @Test func aTempoChangeStartsANewPieceInPhase() throws {
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128, settings: settings(bpm: "120"),
                                     sounds: [SoundSet.constant(frames: 4, level: 0.001, sampleRate: 48000)])
        engine.start()
        let (grid, events) = try play(engine, frames: 300_000, changes: [100_096: { try $0.apply(settings(bpm: "90")) }])
        #expect(grid.pieces.count == 2)
        for event in events where event.layer == 0 {
            let beat = try #require(grid.beat(atSample: Double(event.sample)))
            #expect((beat.bar, beat.beat, beat.beatSample) == (event.bar, Int(event.beat), event.sample))
        }
        #expect(grid.sounding(atSample: 200_000)?.bpm == 90)
    }

    static let song = Song(name: "Ramp", countIn: .bars(1), sections: [
        SongSection(label: "ramp", bars: 8, tempo: .rampTime(from: 60, to: 180), subdivisions: try! Subdivisions([2])),
        SongSection(label: "waltz", bars: 2, meter: try! Meter(3, 4), tempo: .constant(200), subdivisions: try! Subdivisions([2])),
        SongSection(label: "trainer", bars: 3, tempo: .stepped(start: 100, step: 10, every: 1, unit: .bars, limit: nil),
                    subdivisions: try! Subdivisions([2])),
    ])

    @Test func songBeatsAreTheSamplesTheClicksArePlayedOn() throws {
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128,
                                     sounds: [SoundSet.constant(frames: 4, level: 0.001, sampleRate: 48000)])
        try engine.load(songs: [Self.song])
        _ = try play(engine, frames: 1024) // a start later than the engine's sample 0
        engine.start()
        let (grid, events) = try play(engine, frames: 1_400_000)
        #expect(grid.pieces.count == 1)
        let beats = events.filter { $0.layer == 0 }
        #expect(beats.count == 4 + 32 + 6 + 12)
        var index: Int64 = -1
        for event in beats {
            let beat = try #require(grid.beat(atSample: Double(event.sample)))
            #expect((beat.bar, beat.beat, beat.beatSample, beat.fraction) == (event.bar, Int(event.beat), event.sample, 0))
            #expect(beat.beatIndex == index + 1)
            index = beat.beatIndex
            #expect(beat.sounding.beatCount == (event.bar == 8 || event.bar == 9 ? 3 : 4))
            #expect(beat.sounding.isCount == event.isCount)
        }
        // Tempo at the ramp's beat 2 of bar 4 (137.48 BPM) in tenths; constants exact.
        let ramp = try #require(grid.sounding(atSample: Double(beats[4 + 17].sample)))
        #expect(ramp.tempoText == "137.5" && ramp.isRamping && ramp.marking.name == "Allegro")
        #expect(grid.sounding(atSample: Double(beats[4 + 32].sample))?.tempoText == "200")
        #expect(grid.sounding(atSample: Double(beats[4 + 32].sample))?.meter == (try Meter(3, 4)))
        #expect(grid.sounding(atSample: Double(beats[4 + 38 + 4].sample))?.tempoText == "110")
        // Every 1/96 position that is a click: beats exact; eighths (between beats) within
        // one sample, through the ramp too. Whole notes from bar 0: the count-in is before.
        var position = Rational(-1) // the count-in bar of 4/4
        for event in events {
            if event.layer == 0 {
                let sample = grid.sample(wholeNotes: position, near: event.sample)
                #expect(sample == event.sample, "beat at \(position) whole notes")
                position = position + Rational(1, 4)
            } else {
                let eighth = position - Rational(1, 8)
                let sample = try #require(grid.sample(wholeNotes: eighth, near: event.sample))
                #expect(abs(sample - event.sample) <= 1, "eighth at \(eighth) whole notes: \(sample) vs \(event.sample)")
            }
        }
    }
}
