// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TOMLReader
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusTimeline
import TactusBase

/// The notes' extreme case: a ramp 1 -> 999 BPM lasting 60 minutes at 192 kHz, notes of
/// layer 9, beat unit 1/99; and swing and poly played inside song sections.
@Suite struct SongExtremeTests {
    @Test func hourLongRampAt192kHzKeepsTheHalfSampleRule() throws {
        // tau = 2 L / (T0 + T1) = 60 min  =>  L = 30 000 beats (1/99 notes: 303 bars of 99/99).
        let length = Rational(30_000)
        var timer = SegmentTimer(segment: .rampTime(from: 1, to: 999), start: SampleTime(0), lengthInBeats: length,
                                 beatsPerBar: 99, sampleRate: 192_000)
        // Layer-9 positions at the start, in the middle and in the last beat, and the end.
        var positions: [Rational] = (0..<20).map { Rational($0, 9) }
        positions += (0..<9).map { Rational(15_000) + Rational($0, 9) }
        positions += (0..<9).map { length - Rational(1) + Rational($0, 9) }
        var last: Int64 = -1
        for x in positions {
            let n = timer.onset(atBeat: x)
            #expect(timer.isPast(x, atHalfAfter: n), "\(x)")
            #expect(!timer.isPast(x, atHalfAfter: n - 1), "\(x)")
            #expect(n > last)
            last = n
        }
        // The section ends at exactly 60 min: 691 200 000 samples.
        #expect(timer.time(atBeat: length) == SampleTime(Rational(691_200_000)))
        #expect(timer.onset(atBeat: length) == 691_200_000)
        // A live change deep in the ramp (at 59 min) holds the tempo reached exactly:
        // T0 + a t with a = (999^2 - 1) / (2 x 30000) BPM/min, t = 59 min.
        let at: Int64 = 59 * 60 * 192_000
        #expect(timer.tempo(atSample: at) == Rational(1) + Rational(998_000, 60_000) * Rational(59))
    }

    @Test func swingAndPolyPlayInSections() throws {
        var section = SongSection(label: "swung", bars: 1, tempo: .constant(120), subdivisions: try Subdivisions([2]))
        section.swing = "2:1"
        section.poly = "3/bar"
        #expect(section.rhythmProblem == nil)
        let onsets = Array(SongTimeline(song: Song(name: "s", sections: [section]), sampleRate: 48000))
        // Swung eighths at 2/3 of each beat: 16000 + 24000 k; 3 over the bar at 0, 32000 and
        // 64000, where the downbeat and a swung eighth play the coinciding ones (once).
        #expect(onsets.filter { $0.kind == .subdivision }.map(\.sample) == [16000, 40000, 64000, 88000])
        #expect(onsets.filter { $0.kind == .poly }.map(\.sample) == [32000])
        section.poly = "11/7q"
        #expect(section.rhythmProblem?.field == "poly")
    }

    @Test func groovePlaysInSectionsAndIsReadFromSongFiles() throws {
        func song(groove: String) -> String {
            "[[song]]\nname = \"g\"\n[[song.section]]\nbars = 1\ntempo = \"120\"\nsubdivisions = \"4\"\ngroove = \"\(groove)\"\n"
        }
        let library = try SongFile.decode(song(groove: "3,2,2,3@4"), file: "songs.toml")
        let section = library.songs[0].sections[0]
        #expect(section.groove == "3,2,2,3@4")
        // The group of four sixteenths at 0, 3/10, 1/2, 7/10 of the beat (24000 samples).
        let onsets = Array(SongTimeline(song: library.songs[0], sampleRate: 48000))
        #expect(onsets.filter { $0.kind == .subdivision && $0.sample < 24000 }.map(\.sample) == [7200, 12000, 16800])
        #expect(try SongFile.decode(SongFile.encode(library), file: "again.toml") == library)
        // Four weights do not divide a layer of 5: refused when read, naming the groove.
        #expect(throws: TOMLError.self) { try SongFile.decode(song(groove: "3,2,2,3@5"), file: "bad.toml") }
    }
}
