// SPDX-License-Identifier: GPL-3.0-or-later
import Coach

/// A take for the earned trainer: one drum hit on each beat of a 4/4 song whose tempo
/// changes at the bars the test expects (`schedule`: from which bar, at what BPM), each hit
/// moved by `offset(i)` ms (beat i from bar 0). The sounds are the synthetic take's drums.
public struct EarnedTempoTake {
    public var samples: [Float]
    /// The beats' grid samples (before the offsets).
    public var beats: [Double]

    public init(firstDownbeat: Int, schedule: [(fromBar: Int, bpm: Double)], bars: Int, sampleRate: Int = 48000,
                seed: UInt64, offset: (Int) -> Double) {
        var beats: [Double] = []
        var t = Double(firstDownbeat)
        for bar in 0..<bars {
            let bpm = schedule.last { $0.fromBar <= bar }!.bpm
            for _ in 0..<4 {
                beats.append(t)
                t += 60 * Double(sampleRate) / bpm
            }
        }
        let moved = beats.indices.map { beats[$0] + offset($0) * Double(sampleRate) / 1000 }
        let take = SyntheticTake(grid: moved, sampleRate: sampleRate, seed: seed, length: Int(t) + sampleRate,
                                 maximumOffset: 0, velocities: 0.6...1.0)
        samples = take.samples
        self.beats = beats
    }
}
