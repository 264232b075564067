// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusTimeline
import TactusBase

/// Where a program's bar grid is pinned to the sample clock: musical position (`bar`,
/// `grid + numerator / denominator` grid units into that bar) is at sample `twice / 2`
/// exactly. The position is never rounded: a change re-anchors at the exact position the
/// old grid had reached, so onsets that do not depend on the change (same tempo) stay on
/// the very same samples. A negative offset means the bar starts later: after a meter
/// shrank, the current beat is still finishing.
///
/// Why the fraction stays small: between two anchors time moves by whole half samples and
/// the grid speed is (beat-unit denominator x BPM x 1000) / (rate x 60000 x ...), so every
/// kept position is a multiple of 1 / (2 x 60000 x rate x beat-unit denominators) of a
/// whole note, whatever the number of changes. A program made of sections keeps one
/// anchor per section boundary the same way.
struct Anchor: BitwiseCopyable, Equatable {
    var twice: Int64
    var bar: Int64
    var grid: Int64
    /// The fraction of a grid unit, 0 <= numerator < denominator.
    var numerator: Int64 = 0
    var denominator: Int64 = 1

    static func start(atSample sample: Int64) -> Anchor {
        Anchor(twice: 2 * sample, bar: 0, grid: 0)
    }

    /// `whole + numerator / denominator` from an exact 128-bit fraction (denominator > 0),
    /// floored. Denominators that cannot occur in practice (see above) but would not fit
    /// 64 bits are rounded up, so a kept position never moves back over a played onset.
    static func split(_ numerator: Int128, _ denominator: Int128) -> (whole: Int64, numerator: Int64, denominator: Int64) {
        var whole = Rational.floorDivide(numerator, denominator)
        var n = numerator - whole * denominator
        var d = denominator
        let g = Rational.gcd(n, d)
        n /= g
        d /= g
        while d > Int128(Int64.max) {
            n = (n + 1) >> 1
            d >>= 1
        }
        if n >= d {
            whole += 1
            (n, d) = (0, 1)
        }
        if n == 0 { d = 1 }
        return (Int64(whole), Int64(n), Int64(d))
    }
}

extension Anchor {
    /// a + b for fractions with positive denominators, reduced.
    static func add(_ a: (numerator: Int128, denominator: Int128), _ b: (numerator: Int128, denominator: Int128))
        -> (numerator: Int128, denominator: Int128) {
        let g = Rational.gcd(a.denominator, b.denominator)
        let denominator = a.denominator / g * b.denominator
        let numerator = a.numerator * (b.denominator / g) + b.numerator * (a.denominator / g)
        let h = Rational.gcd(numerator, denominator)
        return (numerator / h, denominator / h)
    }
}

extension EngineProgram {
    /// Grid units travelled between two half-sample times (exact): dt / 2 x G x D / N.
    func travelled(fromTwice: Int64, toTwice: Int64) -> (numerator: Int128, denominator: Int128) {
        let numerator = Int128(toTwice - fromTwice) * Int128(gridPerWhole) * Int128(samplesPerWholeDenominator)
        let denominator = 2 * Int128(samplesPerWholeNumerator)
        let h = Rational.gcd(numerator, denominator)
        return (numerator / h, denominator / h)
    }

    /// The exact position reached at half-sample time `twice` (>= the anchor's), with the bar
    /// normalized so the offset lies in the bar (or stays negative before a pending downbeat).
    func position(from anchor: Anchor, atTwice twice: Int64) -> Anchor {
        precondition(twice >= anchor.twice)
        // Grid units travelled: (twice - anchor.twice) / 2 samples x G x D / N.
        let travelled = Int128(twice - anchor.twice) * Int128(gridPerWhole) * Int128(samplesPerWholeDenominator)
        let travelledDenominator = 2 * Int128(samplesPerWholeNumerator)
        let total = Int128(anchor.grid) * Int128(anchor.denominator) + Int128(anchor.numerator)
        // total / anchor.denominator + travelled / travelledDenominator, exactly.
        let whole = Rational.floorDivide(travelled, travelledDenominator)
        let rest = travelled - whole * travelledDenominator
        let g = Rational.gcd(Int128(anchor.denominator), travelledDenominator)
        let common = Int128(anchor.denominator) / g * travelledDenominator
        let sum = total * (travelledDenominator / g) + rest * (Int128(anchor.denominator) / g)
        let parts = Anchor.split(sum, common)
        var result = Anchor(twice: twice, bar: anchor.bar, grid: parts.whole + Int64(whole),
                            numerator: parts.numerator, denominator: parts.denominator)
        if result.grid >= 0 {
            let bars = result.grid / barGrid
            result.bar += bars
            result.grid -= bars * barGrid
        }
        return result
    }

    /// The same line as `anchor` (a steady grid), re-pinned at the earlier half-sample time
    /// `twice`: the position reached there, exact, the bar normalized so the offset lies in it.
    func position(from anchor: Anchor, rewoundTo twice: Int64) -> Anchor {
        precondition(twice <= anchor.twice)
        let back = travelled(fromTwice: twice, toTwice: anchor.twice)
        let total = (Int128(anchor.grid) * Int128(anchor.denominator) + Int128(anchor.numerator), Int128(anchor.denominator))
        let reached = Anchor.add(total, (-back.numerator, back.denominator))
        let parts = Anchor.split(reached.numerator, reached.denominator)
        let bars = Rational.floorDivide(Int128(parts.whole), Int128(barGrid))
        return Anchor(twice: twice, bar: anchor.bar + Int64(bars), grid: parts.whole - Int64(bars) * barGrid,
                      numerator: parts.numerator, denominator: parts.denominator)
    }

    /// The index of the first onset of a bar at or after `position`'s offset in it (an onset
    /// exactly on a position with a fraction lies before it); `onsetCount` when none is.
    func firstOnset(atOrAfter position: Anchor) -> Int {
        var index = 0
        while index < onsetCount
                && (onsets[index].offset < position.grid || (onsets[index].offset == position.grid && position.numerator != 0)) {
            index += 1
        }
        return index
    }

    /// The same musical position on this program's grid (exact), from `old`'s grid.
    func converted(_ position: Anchor, from old: EngineProgram) -> Anchor {
        if old.gridPerWhole == gridPerWhole { return position }
        let numerator = (Int128(position.grid) * Int128(position.denominator) + Int128(position.numerator)) * Int128(gridPerWhole)
        let parts = Anchor.split(numerator, Int128(position.denominator) * Int128(old.gridPerWhole))
        return Anchor(twice: position.twice, bar: position.bar, grid: parts.whole,
                      numerator: parts.numerator, denominator: parts.denominator)
    }

    /// Grid units (exact, on this grid) from `position` to the end of the beat it is in,
    /// a beat ending early at the bar's end (the short last beat of 4/5 in quarters).
    func remainingInBeat(_ position: Anchor) -> (numerator: Int128, denominator: Int128) {
        let next = position.numerator == 0
            ? (position.grid + beatGrid - 1) / beatGrid * beatGrid
            : (position.grid / beatGrid + 1) * beatGrid
        let end = Int128(min(next, barGrid))
        let d = Int128(position.denominator)
        return (end * d - Int128(position.grid) * d - Int128(position.numerator), d)
    }

    /// Everything the render loop needs to turn grid positions into samples from `anchor`.
    func placement(of anchor: Anchor) -> Placement {
        // The fraction of a grid unit, as time: numerator x N / (denominator x G x D) samples.
        let lag = Int128(anchor.numerator) * Int128(samplesPerWholeNumerator)
        let lagDenominator = Int128(anchor.denominator) * Int128(gridPerWhole) * Int128(samplesPerWholeDenominator)
        return Placement(anchor: anchor, lag: HalfSampleRule.Lag(numerator: lag, denominator: lagDenominator))
    }

    /// Exact sample of grid position `grid` counted from a start at sample 0.
    func sample(fromStart grid: Int128) -> Int64 {
        let bars = Rational.floorDivide(grid, Int128(barGrid))
        return sample(bar: Int64(bars), offset: Int64(grid - bars * Int128(barGrid)), placement: placement(of: .start(atSample: 0)))
    }

    /// Exact sample (halves rounded up, `HalfSampleRule`) of grid position `offset` in bar `bar`.
    @inline(__always)
    func sample(bar: Int64, offset: Int64, placement p: Placement) -> Int64 {
        let k = Int128(bar - p.anchor.bar) * Int128(barGrid) + Int128(offset - p.anchor.grid)
        // k grid units are k N / (G D) samples.
        return HalfSampleRule.sample(twice: p.anchor.twice, travelNumerator: k * Int128(samplesPerWholeNumerator),
                                     travelDenominator: Int128(gridPerWhole) * Int128(samplesPerWholeDenominator), lag: p.lag)
    }
}

/// An anchor with the time of its fractional grid part precomputed for one program.
struct Placement: BitwiseCopyable {
    var anchor: Anchor
    var lag: HalfSampleRule.Lag
}
