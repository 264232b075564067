// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic
/// A live change while a song plays (the wheel on the box, `set` in `render --changes`),
/// at an exact sample counted from the song's start (its first count-in click or bar 0).
///
/// It keeps the exact position the song has reached at that sample and overrides the
/// current section only: the next section plays as written, from where the changed
/// section now ends. Onsets before the sample are untouched; nothing is skipped or played
/// twice (an onset whose exact time lies in the half sample before the change has not
/// played yet and plays on the change's sample).
public struct SongChange: Sendable, Hashable {
    public enum TempoChange: Sendable, Hashable {
        /// A new constant tempo (BPM of the section's beat unit) for the rest of the section.
        case to(Rational)
        /// Ends a ramp or step pattern at the tempo it has reached (exact for ramps linear
        /// in time: T0 + a t at the change's sample).
        case hold
    }

    public var sample: Int64
    public var tempo: TempoChange?
    /// A new bar pattern for the rest of the section: its accents, subdivisions, swing,
    /// groove and poly layers are used; meter and beat unit stay the section's.
    public var pattern: MetronomeSettings?

    public init(sample: Int64, tempo: TempoChange? = nil, pattern: MetronomeSettings? = nil) {
        self.sample = sample
        self.tempo = tempo
        self.pattern = pattern
    }
}

extension SegmentTimer {
    /// The exact position (beats from the section start) at sample `c`: rational for
    /// constant, stepped and per-beat tempos and for ramps linear in time (a quadratic in
    /// time); for klick-model ramps a 2^-30-beat approximation.
    func position(atSample c: Int64) -> BigFraction {
        let p = BigFraction(perMinute)
        let elapsed = BigFraction(c) - BigFraction(start) // samples
        switch segment {
        case .constant(let t):
            return elapsed * BigFraction(t) / p
        case .stepped, .perBeat:
            let piece = piece(atSample: c)
            return BigFraction(piece.beat) + (BigFraction(c) - BigFraction(piece.time)) * BigFraction(pieceTempo(piece.index)) / p
        case .rampTime(let t0, let t1):
            guard t0 != t1, let l = length else { return elapsed * BigFraction(t0) / p }
            // x = T0 tau + (T1^2 - T0^2) / (4 L) tau^2, tau in minutes.
            let tau = elapsed / p
            let quarter = (BigFraction(t1) * BigFraction(t1) - BigFraction(t0) * BigFraction(t0)) / (BigFraction(Int64(4)) * BigFraction(l))
            return BigFraction(t0) * tau + quarter * tau * tau
        case .rampBeats(let t0, let t1):
            guard t0 != t1, let l = length else { return elapsed * BigFraction(t0) / p }
            // x = (T0 L / dT) (e^(dT tau / L) - 1)
            let tau = (Double(c) - start.doubleDouble.hi) / perMinute.doubleValue
            let dt = (t1 - t0).doubleValue
            let x = t0.doubleValue * l.doubleValue / dt * ((dt * tau / l.doubleValue).exp() - 1)
            let scale = Int128(1) << 30
            return BigFraction(Rational(reducing: Int128((x * Double(scale)).rounded(.down)), scale))
        }
    }

    /// The tempo at sample `c`: exact except after klick-model ramps (see `position`).
    func tempo(atSample c: Int64) -> Rational {
        switch segment {
        case .constant(let t):
            return t
        case .stepped, .perBeat:
            return pieceTempo(piece(atSample: c).index)
        case .rampTime(let t0, let t1):
            guard t0 != t1, let l = length else { return t0 }
            // T0 + a tau, a = (T1^2 - T0^2) / (2 L)
            let tau = (BigFraction(c) - BigFraction(start)) / BigFraction(perMinute)
            let a = (BigFraction(t1) * BigFraction(t1) - BigFraction(t0) * BigFraction(t0)) / (BigFraction(Int64(2)) * BigFraction(l))
            return (BigFraction(t0) + a * tau).rational
        case .rampBeats(let t0, let t1):
            guard t0 != t1, let l = length else { return t0 }
            return (BigFraction(t0) + BigFraction(t1 - t0) * position(atSample: c) / BigFraction(l)).rational
        }
    }

    /// The constant piece (stepped or per-beat tempos) playing at sample `c`: its index, first
    /// beat and exact start. Walks from the section start.
    private func piece(atSample c: Int64) -> (index: Int64, beat: Rational, time: SampleTime) {
        var j: Int64 = 0
        var beat = Rational.zero
        var time = start
        let limit = length
        while true {
            let next = pieceBoundary(j + 1)
            if let limit, next >= limit { break }
            let nextTime = time + (next - beat) * perMinute / pieceTempo(j)
            if SampleTime(whole: c) < nextTime { break }
            (j, beat, time) = (j + 1, next, nextTime)
        }
        return (j, beat, time)
    }
}

extension Double {
    fileprivate func exp() -> Double {
        // e^x by range reduction and a Taylor series: klick-model ramps only (approximate anyway).
        var k = 0
        var r = self
        while abs(r) > 0.5 { r /= 2; k += 1 }
        var term = 1.0, sum = 1.0
        for n in 1...25 { term *= r / Double(n); sum += term }
        for _ in 0..<k { sum *= sum }
        return sum
    }
}
