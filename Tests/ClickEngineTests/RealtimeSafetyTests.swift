// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Synchronization
@testable import ClickEngine
import Foundation
import RealtimeAudit
import Testing
import TactusArithmetic
import TactusMusic
import TactusBase

/// The render call must never allocate, lock or write: proven by counting the calls the
/// render thread makes into malloc, pthread mutexes/rwlocks and write(2).
@Suite(.serialized) struct RealtimeSafetyTests {
    @Test func auditCatchesAllocationsSoZeroMeansSomething() {
        realtime_audit_begin()
        let array = [Int](repeating: 1, count: Int.random(in: 100...200))
        let counts = realtime_audit_end()
        #expect(array.count >= 100)
        #expect(counts.allocations > 0)
    }

    /// The sample-to-host-time map runs on the render thread every period: its update
    /// (loop gains, outliers, restarts) and its reads are arithmetic only.
    @Test func theSampleToHostTimeMapNeitherAllocatesNorLocks() {
        var map = SampleClockFilter(sampleRate: 48000)
        var random = SplitMix64(state: 21)
        let jitter = (0..<100_000).map { _ in Int64.random(in: -1_000_000...1_000_000, using: &random) }
        map.observe(framesWritten: 512, delayFrames: 384, at: 1_000_000_000)
        realtime_audit_begin()
        var sum = 0.0
        // (An Int loop: a Range<Int64> iterates unspecialized in a debug build and allocates.)
        for i in 1..<100_000 {
            let k = Int64(i)
            let jump: Int64 = (k == 30_000 ? 480_000 : 0) + (k >= 60_000 ? 48_000 : 0)  // a stall skipped; frames lost: a restart
            map.observe(framesWritten: 512 + k * 128 + jump, delayFrames: 384,
                        at: 1_000_000_000 + k * 2_666_667 + jitter[i])
            sum += map.nanoseconds(atSample: 512 + k * 128) + Double(map.anchorTime.nanoseconds)
        }
        let counts = realtime_audit_end()
        #expect(sum > 0 && map.isLocked)
        #expect(counts.allocations == 0)
        #expect(counts.frees == 0)
        #expect(counts.locks == 0)
        #expect(counts.writes == 0)
    }

    /// MIDI clock out is placed by the render thread: clocks, Start, Stop and a tempo change
    /// while clocks run, with the MIDI ring drained by another thread as the MIDI thread does.
    @Test func renderingWithMIDIClockOutNeitherAllocatesNorLocks() throws {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "999", subdivisions: "2,3"), clipFrames: 2000)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        engine.renderer.render(into: buffer, frameCount: 128) // clocks while stopped
        engine.start()
        engine.renderer.render(into: buffer, frameCount: 128) // the first clicks: lazy runtime set-up
        var messages = 0
        var starts = 0
        for round in 0..<20 {
            if round == 10 { try engine.apply(settings(bpm: "137.5", subdivisions: "2,3")) }
            if round == 15 { engine.stop() }
            realtime_audit_begin()
            for _ in 0..<500 { engine.renderer.render(into: buffer, frameCount: 128) }
            let counts = realtime_audit_end()
            #expect(counts.allocations == 0 && counts.frees == 0 && counts.locks == 0 && counts.writes == 0)
            while let m = engine.renderer.midi.pop() {
                messages += 1
                if m.message == .start { starts += 1 }
            }
        }
        // 13.3 s at 999 BPM (399.6 clocks a second), 13.3 s at 137.5 (55 a second).
        #expect(messages > 6_000)
        #expect(starts == 1)
    }

    /// The clock writer (`MIDIClockWriter`) through what re-places its line: a meter change
    /// that cuts the bar (the played line's exact position), a tempo change, a stop (the line
    /// while stopped) and a start, and a live change in a song.
    @Test func theMIDIClockWriterThroughCutsStopsAndSongChangesNeitherAllocatesNorLocks() throws {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"), clipFrames: 2000)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        engine.renderer.render(into: buffer, frameCount: 128)
        engine.start()
        engine.renderer.render(into: buffer, frameCount: 128) // the first clicks: lazy runtime set-up
        var clocks = 0
        func round(_ label: String) {
            realtime_audit_begin()
            for _ in 0..<300 { engine.renderer.render(into: buffer, frameCount: 128) }
            let counts = realtime_audit_end()
            #expect(counts.allocations == 0 && counts.frees == 0 && counts.locks == 0 && counts.writes == 0, "\(label): \(counts)")
            while let m = engine.renderer.midi.pop() { if m.message == .clock { clocks += 1 } }
        }
        round("steady")
        try engine.apply(settings(bpm: "120", meter: "4/5", beatUnit: "1/5"))
        round("cut into 4/5")
        try engine.apply(settings(bpm: "97.5", meter: "7/12", beatUnit: "1/12"))
        round("7/12 at 97.5")
        engine.stop()
        round("stopped")
        engine.start()
        round("started again")
        try engine.load(songs: [Song(name: "s", sections: [SongSection(label: "A", bars: 8, tempo: .constant(60))])], seed: 1)
        engine.start()
        round("song")
        _ = try engine.applyDuringSong(settings(bpm: "240"), tempo: .to(240), pattern: false)
        round("song at 240")
        #expect(clocks > 150) // 5.6 s, most of it at 38-48 clocks a second
    }

    /// A song's clock: count-in, a ramp, a meter change, past its last tick (on at its last
    /// tempo), Stop and clocks while stopped, all read from the timeline on the render thread.
    @Test func renderingASongsMIDIClockNeitherAllocatesNorLocks() throws {
        let song = Song(name: "a", countIn: .bars(1), sections: [
            SongSection(label: "r", bars: 2, tempo: .rampTime(from: 100, to: 180)),
            SongSection(label: "t", bars: 2, meter: try Meter(7, 8), beatUnit: try BeatUnit(parsing: "1/8"), tempo: .constant(240)),
        ])
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120"), clipFrames: 2000)
        try engine.load(songs: [song], seed: 1)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        engine.renderer.render(into: buffer, frameCount: 128)
        engine.start()
        engine.renderer.render(into: buffer, frameCount: 128) // a song's first block: lazy runtime set-up
        var clocks = 0
        for round in 0..<12 {
            if round == 9 { engine.stop() }
            realtime_audit_begin()
            for _ in 0..<500 { engine.renderer.render(into: buffer, frameCount: 128) }
            let counts = realtime_audit_end()
            #expect(counts.allocations == 0 && counts.frees == 0 && counts.locks == 0 && counts.writes == 0, "round \(round): \(counts)")
            while let m = engine.renderer.midi.pop() { if m.message == .clock { clocks += 1 } }
        }
        // 16 s: the song (456 clocks in about 9 s), on at its last tempo, then stopped at 12 s.
        #expect(clocks > 700)
    }

    @Test func steadyStateRenderingNeitherAllocatesNorLocks() {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "999", subdivisions: "2,3,4,5,6,7,8,9"), clipFrames: 20000)
        engine.start()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        engine.renderer.render(into: buffer, frameCount: 128) // first call: lazy runtime set-up
        realtime_audit_begin()
        for _ in 0..<20_000 { engine.renderer.render(into: buffer, frameCount: 128) }
        let counts = realtime_audit_end()
        #expect(engine.renderer.activeVoiceCount > 50)
        expectNoAllocationLockOrWrite(counts)
    }

    @Test func wordsWithLeadsAndTheToneThroughChangesNeitherAllocateNorLock() {
        // Words started ahead of their onsets, syllables giving way, changes skipping what
        // was started, the tone ramping through note changes and on/off: all on the audit.
        // The same run twice: the first initializes the runtime's lazy statics (the
        // limiter's constants ...) as a box's first seconds would, the second is audited.
        func run(audited: Bool) -> (realtime_audit_counts, Int) {
            let voice = syntheticVoice()
            let engine = try! ClickEngine(sampleRate: 48000, channels: 2, maxFrameCount: 4096)
            engine.register(voice)
            try! engine.apply(settings(bpm: "200", subdivisions: "2,3,4", sound: voice.name))
            engine.setTone(ReferenceTone(note: 69, reference: 440, timbre: .organ, volume: 100))
            engine.start()
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 128)
            defer { buffer.deallocate() }
            engine.renderer.render(into: buffer, frameCount: 128)
            var total = realtime_audit_counts()
            var busiest = 0
            for step in 0..<1500 {
                if step % 10 == 0 {
                    try! engine.apply(settings(bpm: "\(60 + step % 240)", subdivisions: step % 20 == 0 ? "2,3,4" : "4", sound: voice.name))
                    engine.setTone(step % 70 == 0 ? nil : ReferenceTone(note: 60 + step % 24, reference: 415 + step % 52))
                }
                if audited { realtime_audit_begin() }
                engine.renderer.render(into: buffer, frameCount: 128)
                if audited {
                    let counts = realtime_audit_end()
                    total.allocations += counts.allocations
                    total.frees += counts.frees
                    total.locks += counts.locks
                    total.writes += counts.writes
                }
                while engine.nextEvent() != nil {}
                busiest = max(busiest, engine.renderer.activeVoiceCount)
            }
            return (total, busiest)
        }
        _ = run(audited: false)
        let (total, busiest) = run(audited: true)
        #expect(busiest >= 2)
        expectNoAllocationLockOrWrite(total)
    }

    @Test func songPlaybackNeitherAllocatesNorLocks() throws {
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", subdivisions: "3"), clipFrames: 3000)
        let song = Song(name: "rt", countIn: .bars(1), sections: [
            SongSection(bars: 4, tempo: .rampTime(from: 100, to: 240), subdivisions: try Subdivisions([2, 3])),
            SongSection(bars: 4, tempo: .rampBeats(from: 240, to: 60), gap: GapPattern(play: 1, mute: 1), randomMute: 20),
        ])
        try engine.load(songs: [song], seed: 5)
        engine.start()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        engine.renderer.render(into: buffer, frameCount: 128)
        realtime_audit_begin()
        for _ in 0..<3_000 {
            engine.renderer.render(into: buffer, frameCount: 128)
            while engine.renderer.events.pop() != nil {}
        }
        let counts = realtime_audit_end()
        #expect(engine.renderer.sampleClock > 300_000)
        expectNoAllocationLockOrWrite(counts)
    }

    @Test func renderingThroughAChangeStormNeitherAllocatesNorLocks() {
        var random = SplitMix64(state: 99)
        let engine = ClickEngine.testEngine(settings: settings(bpm: "120", subdivisions: "3"), clipFrames: 3000)
        engine.start()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        engine.renderer.render(into: buffer, frameCount: 128)
        var total = realtime_audit_counts()
        for step in 0..<2000 {
            var next = engine.settings
            next.tempo = Tempo(clampingWholeBPM: Int.random(in: 1...999, using: &random))
            next.meter = try! Meter(Int.random(in: 1...99, using: &random), Int.random(in: 1...99, using: &random))
            next.beatUnit = try! BeatUnit(division: Int.random(in: 1...99, using: &random), dotted: Bool.random(using: &random))
            next.subdivisions = try! Subdivisions([Int.random(in: 2...9, using: &random)])
            next.accents = .accentEvery(Int.random(in: 0...5, using: &random), beats: 8)
            try! next.volumes.set("master", to: Int.random(in: 0...100, using: &random))
            try! engine.apply(next) // control side: allocates, not audited
            if step % 100 == 0 { engine.stop(); engine.start() }
            realtime_audit_begin()
            engine.renderer.render(into: buffer, frameCount: 128)
            let counts = realtime_audit_end()
            total.allocations += counts.allocations
            total.frees += counts.frees
            total.locks += counts.locks
            total.writes += counts.writes
            while engine.nextEvent() != nil {}
        }
        expectNoAllocationLockOrWrite(total)
    }

    /// Link moves the grid through the engine (a start placed on the quantum, re-placements
    /// while playing and while the start waits, tempo changes, some jumps big enough to pass
    /// clicks over): the render thread takes them
    /// up without allocating, locking or writing. (It never calls Link itself.)
    @Test func linkPlacedStartsAndRealignmentsNeitherAllocateNorLock() {
        var random = SplitMix64(state: 21)
        let engine = ClickEngine.testEngine(settings: settings(bpm: "137", meter: "7/8", beatUnit: "1/8", subdivisions: "3"), clipFrames: 3000)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { buffer.deallocate() }
        engine.start()
        engine.renderer.render(into: buffer, frameCount: 128)
        var total = realtime_audit_counts()
        for step in 0..<2000 {
            let clock = engine.renderer.sampleClock
            if step % 200 == 0 {
                engine.stop()
                engine.start(atTwice: 2 * clock + Int64.random(in: 0...20_000, using: &random))
            } else if step % 5 == 0 {
                // Control side (allocates, not audited): bar -1..3 (bar -1: a waiting start
                // re-mapped), anywhere in the 7/8 bar.
                let position = Rational(Int64.random(in: 0..<7 * 64, using: &random), 8 * 64)
                engine.align(atTwice: 2 * clock + Int64.random(in: -4000...4000, using: &random),
                             bar: Int64.random(in: -1...3, using: &random), position: position)
            } else if step % 7 == 0 {
                // A session tempo change, also while a start waits for its downbeat.
                try? engine.apply(settings(bpm: step % 14 == 0 ? "137" : "90", meter: "7/8", beatUnit: "1/8", subdivisions: "3"))
            }
            realtime_audit_begin()
            engine.renderer.render(into: buffer, frameCount: 128)
            let counts = realtime_audit_end()
            total.allocations += counts.allocations
            total.frees += counts.frees
            total.locks += counts.locks
            total.writes += counts.writes
            while engine.nextEvent() != nil {}
        }
        #expect(engine.renderer.sampleClock == 2001 * 128)
        expectNoAllocationLockOrWrite(total)
    }

    @Test func concurrentControlThreadAndRenderThread() async {
        // A real second thread renders while this one publishes as fast as it can.
        let engine = ClickEngine.testEngine(settings: settings(bpm: "300", subdivisions: "2"), clipFrames: 1000)
        engine.start()
        let renderer = engine.renderer
        let done = Atomic<Bool>(false)
        let result = Mutex<realtime_audit_counts>(realtime_audit_counts())
        let thread = Thread {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
            renderer.render(into: buffer, frameCount: 128)
            realtime_audit_begin()
            while !done.load(ordering: .acquiring) { renderer.render(into: buffer, frameCount: 128) }
            let counts = realtime_audit_end()
            result.withLock { $0 = counts }
            buffer.deallocate()
        }
        thread.start()
        for bpm in 0..<3000 {
            var next = engine.settings
            next.tempo = Tempo(clampingWholeBPM: 100 + bpm % 800)
            try! engine.apply(next)
        }
        done.store(true, ordering: .releasing)
        while !thread.isFinished { try? await Task.sleep(nanoseconds: 1_000_000) }
        let counts = result.withLock { $0 }
        #expect(counts.allocations == 0)
        #expect(counts.frees == 0)
        #expect(counts.locks == 0)
    }
}

/// What the audited stretch of the render thread did: no allocation, no free (an old program
/// freed there would be one), no lock and no write.
func expectNoAllocationLockOrWrite(_ counts: realtime_audit_counts, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(counts.allocations == 0, "allocations", sourceLocation: sourceLocation)
    #expect(counts.frees == 0, "frees", sourceLocation: sourceLocation)
    #expect(counts.locks == 0, "locks", sourceLocation: sourceLocation)
    #expect(counts.writes == 0, "writes", sourceLocation: sourceLocation)
}
