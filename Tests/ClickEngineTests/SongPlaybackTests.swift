// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Testing
import TactusMusic
import TactusTimeline
import TactusBase

@Suite struct SongPlaybackTests {
    func render(blockSize: Int, songs: [Song], seed: UInt64 = 3) throws -> (audio: [Float], events: [OnsetEvent]) {
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: max(blockSize, 1))
        try engine.load(songs: songs, seed: seed)
        engine.start()
        var audio: [Float] = []
        var events: [OnsetEvent] = []
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockSize)
        defer { buffer.deallocate() }
        let total = 560_000
        while audio.count < total {
            let n = min(blockSize, total - audio.count)
            engine.renderer.render(into: buffer, frameCount: n)
            audio += UnsafeBufferPointer(start: buffer, count: n)
            while let e = engine.nextEvent() { events.append(e) }
        }
        return (audio, events)
    }

    @Test func blockSizeOneAndFourThousandRenderIdentically() throws {
        let song = Song(name: "b", countIn: .bars(1), sections: [
            SongSection(label: "ramp", bars: 2, tempo: .rampTime(from: 100, to: 140), subdivisions: try Subdivisions([3])),
            SongSection(label: "klick", bars: 1, meter: try Meter(3, 4), tempo: .rampBeats(from: 140, to: 80)),
            SongSection(label: "steps", bars: 2, tempo: try TempoSegment(parsing: "90+7/1b..120"), gap: GapPattern(play: 1, mute: 1),
                        randomMute: 30),
        ])
        let one = try render(blockSize: 1, songs: [song])
        let big = try render(blockSize: 4096, songs: [song])
        #expect(one.events == big.events)
        #expect(one.audio == big.audio)
        #expect(one.events.map { $0.sample } == SongTimeline(song: song, sampleRate: 48000, seed: 3).map { $0.sample }.filter { $0 < 560_000 })
        #expect(one.events.contains { $0.muted } && one.events.contains { $0.isCount })
    }
}
