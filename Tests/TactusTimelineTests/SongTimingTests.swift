// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TestSupport
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusTimeline
import TactusBase

/// The exact vectors of shared/notes/songs-and-ramps.md (48 kHz, quarter beat, 4/4).
@Suite struct SongTimingTests {
    func beats(_ segment: String, bars: Int = 2, count: Int, rate: Int = 48000) throws -> [Int64] {
        let section = SongSection(bars: bars, tempo: try TempoSegment(parsing: segment))
        let song = Song(name: "t", sections: [section])
        return Array(SongTimeline(song: song, sampleRate: rate).prefix(count).map(\.sample))
    }

    @Test func steppedEveryBeat() throws {
        // 100 BPM, +5 every beat: the ninth value is the start of beat 8.
        var timer = SegmentTimer(segment: try TempoSegment(parsing: "100+5/1b"), start: SampleTime(0),
                                 lengthInBeats: nil, beatsPerBar: 4, sampleRate: 48000)
        let onsets = (0...8).map { timer.onset(atBeat: Rational(Int64($0))) }
        #expect(onsets == [0, 28800, 56229, 82410, 107454, 131454, 154494, 176648, 197981])
        #expect(try beats("100+5/1b", count: 8) == [0, 28800, 56229, 82410, 107454, 131454, 154494, 176648])
    }

    @Test func rampLinearInTime() throws {
        let onsets = try beats("100-140", bars: 2, count: 9)
        // bars 2 of 4/4 = 8 beats; the ninth click does not exist (song ends), so ask the timer.
        #expect(onsets.count == 8)
        #expect(onsets == [0, 27984, 54505, 79771, 103945, 127157, 149514, 171104])
        var timer = SegmentTimer(segment: .rampTime(from: 100, to: 140), start: SampleTime(0),
                                 lengthInBeats: 8, beatsPerBar: 4, sampleRate: 48000)
        #expect(timer.onset(atBeat: 8) == 192000)
        #expect(timer.time(atBeat: 8) == SampleTime(192000))
        // Followed by a constant section: its downbeat at exactly 192000.
        let song = Song(name: "r", sections: [SongSection(bars: 2, tempo: .rampTime(from: 100, to: 140)),
                                              SongSection(bars: 1, tempo: .constant(140))])
        let all = Array(SongTimeline(song: song, sampleRate: 48000))
        #expect(all[8].sample == 192000)
        #expect(all[8].section == 1)
    }

    @Test func rampLinearInBeats() throws {
        var timer = SegmentTimer(segment: .rampBeats(from: 100, to: 140), start: SampleTime(0),
                                 lengthInBeats: 8, beatsPerBar: 4, sampleRate: 48000)
        let onsets = (0...8).map { timer.onset(atBeat: Rational(Int64($0))) }
        #expect(onsets == [0, 28103, 54899, 80503, 105017, 128531, 151122, 172860, 193808])
    }

    @Test func countInOneBarAt120() throws {
        var song = Song(name: "c", countIn: .bars(1), sections: [SongSection(bars: 1, tempo: .constant(120))])
        var all = Array(SongTimeline(song: song, sampleRate: 48000))
        #expect(all.prefix(4).map(\.sample) == [0, 24000, 48000, 72000])
        #expect(all.prefix(4).allSatisfy { $0.isCount && $0.bar == -1 })
        #expect(all[0].kind == .accent && all[1].kind == .beat)
        #expect(all[4].sample == 96000 && all[4].bar == 0 && !all[4].isCount && all[4].beat == 0)
        // With a ramp the count-in runs at T0, in the first section's meter.
        song.sections = [SongSection(bars: 2, meter: try Meter(5, 4), tempo: .rampTime(from: 100, to: 140))]
        all = Array(SongTimeline(song: song, sampleRate: 48000))
        #expect(all.prefix(5).map(\.sample) == [0, 28800, 57600, 86400, 115200])
        #expect(all[5].sample == 144000 && all[5].bar == 0)
        // "2beats": two normal beats.
        song.countIn = .twoBeats
        all = Array(SongTimeline(song: song, sampleRate: 48000))
        #expect(all.prefix(3).map(\.sample) == [0, 28800, 57600])
        #expect(all[0].kind == .beat && all[1].isCount && !all[2].isCount)
    }

    @Test func splitMixHash() {
        #expect(RandomMute.hash(seed: 0, index: 0) == 0xE220_A839_7B1D_CDAF)
        let half = RandomMute(percent: 50, seed: 1)
        #expect((0..<16).filter { half.isMuted(beat: Int64($0)) } == [2, 3, 4, 6, 7, 8, 9, 11, 12])
        let quarter = RandomMute(percent: 25, seed: 1)
        #expect((0..<16).filter { quarter.isMuted(beat: Int64($0)) } == [2, 7, 8, 12])
        #expect(!(0..<1000).contains { RandomMute(percent: 0, seed: 9).isMuted(beat: Int64($0)) })
        #expect((0..<1000).allSatisfy { RandomMute(percent: 100, seed: 9).isMuted(beat: Int64($0)) })
        for p: Int64 in [10, 25, 50, 75] {
            let m = RandomMute(percent: Rational(p), seed: 42)
            let fraction = Double((0..<10_000).filter { m.isMuted(beat: Int64($0)) }.count) / 100
            #expect(abs(fraction - Double(p)) <= 2)
        }
    }

    @Test func gapTwoOneAt120() throws {
        let song = Song(name: "g", sections: [SongSection(bars: 6, tempo: .constant(120), gap: GapPattern(play: 2, mute: 1))])
        let all = Array(SongTimeline(song: song, sampleRate: 48000))
        let silent = all.filter(\.muted).map(\.sample)
        #expect(silent == [192000, 216000, 240000, 264000, 480000, 504000, 528000, 552000])
        #expect(all.filter { !$0.muted && ((192000..<288000).contains($0.sample) || (480000..<576000).contains($0.sample)) }.isEmpty)
        #expect(throws: SettingError.self) { try GapPattern(parsing: "0:1") }
        #expect(try GapPattern(parsing: "3:1b").unit == .beats)
    }

    @Test func sectionsAndLoops() throws {
        // A = 2 bars 4/4 at 120, B = 1 bar 3/4 at 90.
        let a = SongSection(label: "A", bars: 2, tempo: .constant(120))
        let b = SongSection(label: "B", bars: 1, meter: try Meter(3, 4), tempo: .constant(90))
        var song = Song(name: "s", sections: [a, b])
        var all = Array(SongTimeline(song: song, sampleRate: 48000))
        #expect(all.filter { $0.section == 1 }.map(\.sample) == [192000, 224000, 256000])
        #expect(all.filter { $0.section == 1 }.allSatisfy { $0.label == "B" && $0.barInSection == 0 && $0.bar == 2 })
        song.countIn = .bars(1)
        all = Array(SongTimeline(song: song, sampleRate: 48000))
        #expect(all.filter { $0.section == 1 }.map(\.sample) == [288000, 320000, 352000])
        // Looped 100 times: every section start exactly k * 288000 + offset.
        song.loop = true
        var starts: [Int64] = []
        var timeline = SongTimeline(song: song, sampleRate: 48000)
        while let o = timeline.next(), o.bar < 300 {
            if o.beat == 0 && o.layer == 0 && !o.isCount && o.barInSection == 0 { starts.append(o.sample) }
        }
        #expect(starts.count == 200)
        for k in 0..<100 {
            #expect(starts[2 * k] == Int64(k) * 288000 + 96000)
            #expect(starts[2 * k + 1] == Int64(k) * 288000 + 96000 + 192000)
        }
    }

    @Test func loopedIrrationalSongStartsWhereTheRationalModelPutsThem() throws {
        // 3 bars at 137, 1 bar 7/8 at 92.5 (eighths): the period is 3*4*60*48000/137 + 7*60*48000/92.5.
        let a = SongSection(bars: 3, tempo: .constant(137))
        let b = SongSection(bars: 1, meter: try Meter(7, 8), beatUnit: try BeatUnit(division: 8), tempo: .constant(Rational(185, 2)))
        let song = Song(name: "l", loop: true, sections: [a, b])
        let lengthA = Rational(12 * 60 * 48000, 137)
        let period = lengthA + Rational(7 * 60 * 48000 * 2, 185)
        var timeline = SongTimeline(song: song, sampleRate: 48000)
        var k: Int64 = 0
        while let o = timeline.next(), k < 100 {
            guard o.beat == 0, o.barInSection == 0, o.layer == 0 else { continue }
            let expected = o.section == 0 ? Rational(k) * period : Rational(k) * period + lengthA
            #expect(o.sample == expected.rounded)
            if o.section == 1 { k += 1 }
        }
        #expect(k == 100)
    }

    @Test func setlistAutoAdvanceHasNoGapNoDoubledDownbeat() throws {
        let one = Song(name: "one", countIn: .bars(1), sections: [SongSection(bars: 2, tempo: .rampTime(from: 100, to: 140))])
        let two = Song(name: "two", countIn: .bars(2), sections: [SongSection(bars: 1, tempo: .constant(Rational(1001, 10)))])
        let all = Array(SongTimeline(songs: [one, two], sampleRate: 48000))
        let second = all.filter { $0.song == 1 }
        // Song 1 ends at 115200 (count-in at 100) + 192000 (exact); song 2 has no second count-in.
        #expect(second.first?.sample == 307200)
        #expect(second.allSatisfy { !$0.isCount })
        #expect(all.filter { $0.sample == 307200 }.count == 1)
        #expect(second.map(\.sample) == (0..<4).map { Rational(307200) + Rational(Int64($0)) * Rational(28_800_000, 1001) }.map(\.rounded))
    }

    /// Every onset of a ramp linear in time satisfies X(n - 1/2) <= x < X(n + 1/2) exactly.
    @Test func halfSampleRuleForRandomRamps() throws {
        var rng = SplitMix64(state: 15)
        for _ in 0..<60 {
            let t0 = Rational(Int64(rng.next() % 400_000 + 1000), 1000)
            let t1 = Rational(Int64(rng.next() % 400_000 + 1000), 1000)
            let rate = Int(8000 + rng.next() % 184_001)
            let bars = Int64(rng.next() % 8 + 1)
            let beatsPerBar = Rational(Int64(rng.next() % 7 + 1), Int64(rng.next() % 3 + 1))
            let start = SampleTime(Rational(Int64(rng.next() % 100_000), Int64(rng.next() % 97 + 1)))
            var timer = SegmentTimer(segment: .rampTime(from: t0, to: t1), start: start,
                                     lengthInBeats: Rational(bars) * beatsPerBar, beatsPerBar: beatsPerBar, sampleRate: rate)
            for step in 0..<Int64(200) {
                let x = Rational(step, 3)
                guard x < Rational(bars) * beatsPerBar else { break }
                let n = timer.onset(atBeat: x)
                #expect(timer.isPast(x, atHalfAfter: n))
                #expect(!timer.isPast(x, atHalfAfter: n - 1))
            }
        }
    }

    @Test func segmentSyntax() throws {
        #expect(try TempoSegment(parsing: "120") == .constant(120))
        #expect(try TempoSegment(parsing: "100-140") == .rampTime(from: 100, to: 140))
        #expect(try TempoSegment(parsing: "100~140") == .rampBeats(from: 100, to: 140))
        #expect(try TempoSegment(parsing: "100+5/2..140") == .stepped(start: 100, step: 5, every: 2, unit: .bars, limit: 140))
        #expect(try TempoSegment(parsing: "100+5/2bars..140") == .stepped(start: 100, step: 5, every: 2, unit: .bars, limit: 140))
        #expect(try TempoSegment(parsing: "140-5/4b..100") == .stepped(start: 140, step: -5, every: 4, unit: .beats, limit: 100))
        #expect(try TempoSegment(parsing: "120,121.5,122") == .perBeat([120, Rational(243, 2), 122]))
        for text in ["120", "100-140", "100~140", "100+5/2..140", "140-5/4b..100", "92.5+0.5/1", "120,121.5,122"] {
            #expect(try TempoSegment(parsing: text).description == text)
        }
        for bad in ["", "0", "-5", "100-", "100+5/0..140", "100+5/2..90", "abc", "10000", "100--140"] {
            #expect(throws: SettingError.self) { try TempoSegment(parsing: bad) }
        }
        // Limits hold: 100+5/1b..110 stays at 110.
        var timer = SegmentTimer(segment: try TempoSegment(parsing: "100+5/1b..110"), start: SampleTime(0),
                                 lengthInBeats: nil, beatsPerBar: 4, sampleRate: 48000)
        #expect((0..<5).map { timer.tempo(atBeat: Rational(Int64($0))) } == [100, 105, 110, 110, 110])
    }
}
