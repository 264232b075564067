// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Testing
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusBase

/// Live changes while a song plays: exact samples before and after the change, a ramp
/// ended at the tempo it reached, section starts where the model puts them, and the
/// renderer (any block size) playing what the model says.
@Suite struct SongLiveChangeTests {
    /// A = 2 bars 4/4 at 120, B = 1 bar 3/4 at 90 (the notes' song).
    static let ab = Song(name: "ab", sections: [
        SongSection(label: "A", bars: 2, tempo: .constant(120)),
        SongSection(label: "B", bars: 1, meter: try! Meter(3, 4), tempo: .constant(90)),
    ])

    static let ramp = Song(name: "ramp", sections: [
        SongSection(label: "ramp", bars: 2, tempo: .rampTime(from: 100, to: 140)),
        SongSection(label: "after", bars: 1, tempo: .constant(100)),
    ])

    func samples(_ song: Song, _ changes: [SongChange]) -> [Int64] {
        SongTimeline(songs: [song], sampleRate: 48000, changes: changes).map(\.sample)
    }

    @Test func tempoChangeKeepsThePositionAndMovesTheNextSection() {
        // At 24000 (beat 1 of A) to 60 BPM: beat 1 stays (it is still to play), the other
        // 6 beats of A follow 48000 apart, A ends at 24000 + 7 x 48000 = 360000 and B
        // plays as written from there.
        let s = samples(Self.ab, [SongChange(sample: 24000, tempo: .to(60))])
        #expect(s == [0, 24000, 72000, 120000, 168000, 216000, 264000, 312000, 360000, 392000, 424000])
        // Unchanged: [0, 24000, ..., 168000] and B at 192000.
        #expect(samples(Self.ab, []) == [0, 24000, 48000, 72000, 96000, 120000, 144000, 168000, 192000, 224000, 256000])
    }

    @Test func changeBetweenOnsetsUsesTheExactPosition() {
        // At 36000 (beat 1.5 at 120) to 60: 0.5 beat left to beat 2 takes 24000.
        let s = samples(Self.ab, [SongChange(sample: 36000, tempo: .to(60))])
        #expect(Array(s.prefix(4)) == [0, 24000, 60000, 108000])
        // A ends at 36000 + 6.5 x 48000 = 348000.
        #expect(s[8] == 348000)
    }

    @Test func changeInTheSectionsLastBeatMovesItsEnd() {
        // After A's last onset (168000) but before its end (192000): at 180000 (7.5 beats)
        // to 60, A's end is 180000 + 0.5 x 48000 = 204000.
        let s = samples(Self.ab, [SongChange(sample: 180000, tempo: .to(60))])
        #expect(Array(s.suffix(3)) == [204000, 236000, 268000])
    }

    @Test func holdEndsARampAtTheTempoItReached() {
        // 100 -> 140 over 8 beats, linear in time (4 s). At 2 s the tempo is exactly 120 and
        // the position 11/3 beats: beat 4 at 2 s + 1/3 beat at 120 = 104000, then every 24000;
        // the section ends at beat 8: 104000 + 4 x 24000 = 200000.
        let s = samples(Self.ramp, [SongChange(sample: 96000, tempo: .hold)])
        #expect(Array(s.prefix(4)) == [0, 27984, 54505, 79771]) // the ramp's own onsets
        #expect(Array(s[4..<8]) == [104000, 128000, 152000, 176000])
        #expect(Array(s.suffix(4)) == [200000, 228800, 257600, 286400]) // "after" at 100 as written
        let bpm = SongTimeline(songs: [Self.ramp], sampleRate: 48000, changes: [SongChange(sample: 96000, tempo: .hold)]).map(\.bpm)
        #expect(Array(bpm[4..<8]) == [120, 120, 120, 120])
    }

    @Test func knobChangeDuringARampEndsIt() {
        // At 2 s (position 11/3) to 150: beat 4 is 1/3 beat later at 150 = 6400 samples.
        let s = samples(Self.ramp, [SongChange(sample: 96000, tempo: .to(150))])
        #expect(Array(s[4..<8]) == [102400, 121600, 140800, 160000])
        #expect(s[8] == 179200)
    }

    @Test func holdOnStepsKeepsTheStepReached() throws {
        let song = Song(name: "s", sections: [SongSection(bars: 2, tempo: try TempoSegment(parsing: "100+5/1b..140"))])
        let plain = samples(song, [])
        // The step playing at 60000 is 110 (beat 2 started at 56229).
        let s = samples(song, [SongChange(sample: 60000, tempo: .hold)])
        #expect(Array(s.prefix(3)) == Array(plain.prefix(3)))
        // Beat 3 stays at 82410 (110 BPM to it, 82410.39), then 110 BPM on, 26181.82 apart:
        // 108592.21 and 134774.03 (without the hold: 107454 at 115).
        #expect(Array(s[3..<6]) == [82410, 108592, 134774])
        #expect(plain[4] == 107454)
    }

    @Test func dueInTheHalfSampleBeforeTheChangePlaysOnItsSample() {
        // 137 BPM: beat 1 lies at 21021.898 samples and rounds to 21022. A change at 21022
        // (after its exact time) finds it unplayed: it plays at 21022, once.
        let song = Song(name: "h", sections: [SongSection(bars: 1, tempo: .constant(137))])
        let s = samples(song, [SongChange(sample: 21022, tempo: .to(60))])
        #expect(s.count == 4)
        #expect(Array(s.prefix(2)) == [0, 21022])
        // Beat 2 is (2 - 21022 x 137 / 2880000) beats after 21022 at 60 BPM.
        let x = Rational(21022 * 137, 2_880_000)
        #expect(s[2] == (Rational(21022) + (Rational(2) - x) * Rational(48000)).rounded)
    }

    @Test func patternChangeAppliesFromTheChangeToTheSectionsEnd() throws {
        var pattern = MetronomeSettings()
        pattern.subdivisions = try Subdivisions([2])
        let timeline = SongTimeline(songs: [Self.ab], sampleRate: 48000, changes: [SongChange(sample: 150000, pattern: pattern)])
        let onsets = Array(timeline)
        // Bar 1 of A from 150000 (beat 6.25): eighths at 156000 (6.5), 180000 (7.5); B as written.
        let subs = onsets.filter { $0.kind == .subdivision }.map(\.sample)
        #expect(subs == [156000, 180000])
        #expect(onsets.filter { $0.section == 1 }.map(\.sample) == [192000, 224000, 256000])
    }

    @Test func changeDuringTheCountInRetimesOnlyTheCountIn() {
        var song = Self.ab
        song.countIn = .bars(1)
        let s = samples(song, [SongChange(sample: 48000, tempo: .to(60))])
        // Count beats 0, 24000, 48000, 96000; bar 0 at 144000, A at 120 as written.
        #expect(Array(s.prefix(6)) == [0, 24000, 48000, 96000, 144000, 168000])
    }

    /// The engine with changes at exact samples renders what the model says, for block
    /// sizes 1, 7 and 4096, and keeps clips playing to their end.
    @Test func engineRendersTheModelForAnyBlockSize() throws {
        let changes: [(Int64, SongChange.TempoChange?, Bool)] = [(30000, .to(75), false), (130001, .hold, false), (200000, nil, true)]
        var pattern = MetronomeSettings()
        pattern.subdivisions = try Subdivisions([3])
        var results: [[OnsetEvent]] = []
        for block in [1, 7, 4096] {
            let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: block)
            try engine.load(songs: [Self.ramp])
            var events: [OnsetEvent] = []
            try OfflineRender.run(engine: engine, changes: changes.map { sample, tempo, isPattern in
                TimedChange(sample: sample, action: .changeSong(isPattern ? pattern : MetronomeSettings(), tempo: tempo, pattern: isPattern))
            }, end: .sample(Int64.max / 4), periodFrames: block, output: { _ in }, onEvent: { events.append($0) })
            results.append(events)
        }
        #expect(results[0] == results[1] && results[1] == results[2])
        var patternSettings = MetronomeSettings()
        patternSettings.subdivisions = try Subdivisions([3])
        let model = SongTimeline(songs: [Self.ramp], sampleRate: 48000, changes: [
            SongChange(sample: 30000, tempo: .to(75)), SongChange(sample: 130001, tempo: .hold),
            SongChange(sample: 200000, pattern: patternSettings),
        ]).map(\.sample)
        #expect(results[0].map(\.sample) == model)
        // Nothing before the first change moved: the ramp's onsets 0 and 27984 stay.
        #expect(Array(model.prefix(2)) == [0, 27984])
        #expect(results[0].contains { $0.kind == .subdivision })
    }

    /// A change on a live device is planned `songChangeLead` frames ahead of the renderer's
    /// clock, so the render thread takes it up before its sample: the cursor is kept.
    @Test func liveChangeAheadOfTheClockKeepsEveryOnset() throws {
        let engine = try ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 256)
        engine.songChangeLead = 256
        try engine.load(songs: [Self.ab])
        engine.start()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        var events: [OnsetEvent] = []
        var changedAt: Int64?
        while engine.renderer.sampleClock < 420_000 {
            if changedAt == nil && engine.renderer.sampleClock >= 30_000 {
                changedAt = try engine.applyDuringSong(MetronomeSettings(), tempo: .to(60), pattern: false)
            }
            engine.renderer.render(into: buffer, frameCount: 256)
            while let e = engine.nextEvent() { events.append(e) }
        }
        let at = try #require(changedAt)
        #expect(at == 30_208 + 256) // the clock after the block that passed 30000, plus the lead
        #expect(events.map(\.sample) == samples(Self.ab, [SongChange(sample: at, tempo: .to(60))]))
    }
}
