// SPDX-License-Identifier: GPL-3.0-or-later
// Songs: compiling a song into its schedule (control side), a live change during a song
// (the whole schedule is made again from the song's start with the change), and offline
// renders of songs against real time. `tactus-bench --songs` runs only these.
import ClickEngine
import TactusMusic
import TactusTimeline
import TactusBase

/// About 10 minutes: a count-in, a ramp in time, steps, a klick-model ramp, 7/8 with
/// layers and a gap with a random mute.
func benchSong() -> Song {
    Song(name: "bench", countIn: .bars(1), sections: [
        SongSection(label: "ramp", bars: 64, tempo: .rampTime(from: 90, to: 140), subdivisions: try! Subdivisions([2])),
        SongSection(label: "steps", bars: 64, tempo: try! TempoSegment(parsing: "140+2/4..170"), subdivisions: try! Subdivisions([3])),
        SongSection(label: "klick", bars: 48, meter: try! Meter(3, 4), tempo: .rampBeats(from: 170, to: 100)),
        SongSection(label: "odd", bars: 96, meter: try! Meter(7, 8), beatUnit: try! BeatUnit(parsing: "1/8"), tempo: .constant(240),
                    subdivisions: try! Subdivisions([2, 3]), gap: GapPattern(play: 3, mute: 1), randomMute: 10),
    ])
}

func best(of runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = threadCPUNow()
        try body()
        best = min(best, threadCPUNow() - start)
    }
    return best
}

func runSongBench() {
    print("\n# Songs (48 kHz mono), best of 5, thread CPU time")
    let song = benchSong()
    let onsets = SongTimeline(song: song, sampleRate: 48000).reduce(0) { n, _ in n + 1 }
    let engine = try! ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128)
    var seconds = 0.0
    let compile = try! best(of: 5) { try engine.load(songs: [song]) }
    if let s = engine.song { seconds = Double(s.endSample) / 48000 }
    print("compile a \(String(format: "%.0f", seconds)) s song (\(onsets) onsets, ramps in time and beats, steps, gap): \(String(format: "%.1f", compile * 1000)) ms")
    // The box schedules an endless song an hour ahead and makes it again at each live change.
    let asSet = Song(name: "As set", sections: [SongSection(bars: nil, tempo: .constant(120), subdivisions: try! Subdivisions([2]))])
    let hour = try! best(of: 5) { try engine.load(songs: [asSet], samples: 48000 * 3600) }
    print("compile an hour of 120 BPM with eighths (the box's endless song): \(String(format: "%.1f", hour * 1000)) ms")
    engine.start()
    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 128)
    defer { buffer.deallocate() }
    engine.renderer.render(into: buffer, frameCount: 128)
    var changes = 0
    let change = try! best(of: 5) {
        changes += 1
        var settings = MetronomeSettings()
        try settings.assign("bpm", "\(120 + changes)")
        try engine.applyDuringSong(settings, tempo: .to(settings.tempo.bpm), pattern: false)
        engine.renderer.render(into: buffer, frameCount: 128)
    }
    print("a live tempo change during that hour (schedule made again with the change): \(String(format: "%.1f", change * 1000)) ms")
    engine.stop()
    let render = try! best(of: 5) {
        let e = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 128)
        try e.load(songs: [song])
        try OfflineRender.run(engine: e, changes: [], end: .sample(Int64.max / 4), output: { _ in }, onEvent: { _ in })
    }
    print("offline render of the song (no file): \(String(format: "%.3f", render)) s CPU = \(String(format: "%.0f", seconds / render))x real time")
}
