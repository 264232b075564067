// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusTimeline

/// The MIDI clocks stepped at constant tempos (no rational per clock) land on exactly the
/// samples the timer gives one clock at a time.
@Suite struct SongClockStepTests {
    func ticks(_ songs: [Song], changes: [SongChange] = [], oneByOne: Bool, samples: Int64) -> [SongTick] {
        var t = SongTimeline(songs: songs, sampleRate: 48000, changes: changes, markBeats: true)
        t.includesClocks = true
        t.placesClocksOneByOne = oneByOne
        while let o = t.next(), o.sample < samples {}
        return t.ticks.filter { $0.sample < samples }
    }

    @Test func steppedEqualsOneByOneOverRampsMetersAndCountIn() throws {
        let song = Song(name: "mixed", countIn: .bars(2), sections: [
            SongSection(label: "a", bars: 3, tempo: .constant(137), subdivisions: try Subdivisions([2])),
            SongSection(label: "ramp", bars: 4, meter: try Meter(3, 4), tempo: .rampTime(from: 137, to: 171)),
            SongSection(label: "odd", bars: 5, meter: try Meter(7, 8), beatUnit: try BeatUnit(parsing: "1/8"),
                        tempo: .constant(Rational(2407, 10))),
            SongSection(label: "klick", bars: 3, meter: try Meter(5, 4), tempo: .rampBeats(from: 171, to: 99)),
            SongSection(label: "steps", bars: 4, meter: try Meter(6, 8), beatUnit: try BeatUnit(parsing: "1/8"),
                        tempo: try TempoSegment(parsing: "140+2/1..170")),
            SongSection(label: "after", bars: 6, tempo: .constant(Rational(3331, 25))),
        ])
        let exact = ticks([song], oneByOne: true, samples: .max)
        let stepped = ticks([song], oneByOne: false, samples: .max)
        #expect(exact.count > 1500)
        #expect(stepped == exact)
        // The count-in's clocks have negative k; it starts at sample 0, so through the first
        // section clock k is at round-half-up((k + 192) 120000 / 137).
        #expect(stepped.first!.k == -192)
        let first = stepped.filter { $0.k >= -192 && $0.k < 3 * 96 }
        #expect(first.count == 480)
        #expect(first.allSatisfy { $0.sample == Rational(reducing: Int128($0.k + 192) * 120000, 137).rounded })
    }

    @Test func steppedEqualsOneByOneWithLiveTempoChanges() throws {
        let song = Song(name: "endless", countIn: .bars(1), sections: [SongSection(bars: nil, tempo: .constant(120),
                                                                                   subdivisions: try Subdivisions([2]))])
        let changes = [SongChange(sample: 100_003, tempo: .to(Rational(1337, 10))), SongChange(sample: 250_001, tempo: .to(61)),
                       SongChange(sample: 400_000, tempo: .hold)]
        let exact = ticks([song], changes: changes, oneByOne: true, samples: 48000 * 30)
        let stepped = ticks([song], changes: changes, oneByOne: false, samples: 48000 * 30)
        #expect(exact.count > 800)
        #expect(stepped == exact)
    }
}
