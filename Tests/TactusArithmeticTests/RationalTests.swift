// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing
@testable import TactusArithmetic
import TactusBase

@Suite struct RationalTests {
    @Test func reducesAndNormalisesSign() {
        let r = Rational(6, -8)
        #expect(r.numerator == -3)
        #expect(r.denominator == 4)
    }

    @Test func arithmetic() {
        #expect(Rational(1, 3) + Rational(1, 6) == Rational(1, 2))
        #expect(Rational(1, 3) - Rational(1, 2) == Rational(-1, 6))
        #expect(Rational(2, 3) * Rational(9, 4) == Rational(3, 2))
        #expect(Rational(2, 3) / Rational(4, 9) == Rational(3, 2))
        #expect(Rational(7, 8) < Rational(8, 9))
    }

    @Test func roundingIsHalfUp() {
        #expect(Rational(5, 2).rounded == 3)
        #expect(Rational(-5, 2).rounded == -2)
        #expect(Rational(7, 3).rounded == 2)
        #expect(Rational(-7, 3).floor == -3)
        #expect(Rational(-7, 3).ceiling == -2)
    }

    @Test func parsesDecimalsAndFractions() {
        #expect(Rational(parsing: "92.5") == Rational(185, 2))
        #expect(Rational(parsing: "7/8") == Rational(7, 8))
        #expect(Rational(parsing: "-0.25") == Rational(-1, 4))
        #expect(Rational(parsing: "1.2.3") == nil)
        #expect(Rational(parsing: "x") == nil)
        #expect(Rational(185, 2).decimalDescription == "92.5")
        #expect(Rational(-1, 4).decimalDescription == "-0.25")
    }

    @Test func largeIntermediatesStayExact() {
        // 24 h at 192 kHz in samples times a 999.999 BPM denominator stays exact.
        let samples = Rational(192_000 * 86_400)
        let perBeat = Rational(192_000 * 60 * 1000, 999_999)
        let beats = samples / perBeat
        #expect(beats * perBeat == samples)
    }
}

/// The events' numbers: `fixedDecimal` gives printf's "%.Nf" digits without a C call.
@Suite struct FixedDecimalTests {
    @Test func matchesPrintfOnTiesAndOrdinaryValues() {
        var random = SplitMix64(state: 7)
        var values: [Double] = [0, -0.0, 0.5, 1.5, 2.5, 0.125, 0.0625, 0.4379583333, 137.4772708486752, 1e-300, 86399.9999995,
                                -1.0005, 120, 92.5, 9999.9995]
        for _ in 0..<2000 { values.append(Double(random.next() % 10_000_000_000) / 1e6 * (random.next() % 2 == 0 ? 1 : -1)) }
        for value in values {
            for decimals in [0, 3, 6] {
                #expect(fixedDecimal(value, decimals: decimals) == String(format: "%.\(decimals)f", value), "\(value)")
            }
        }
    }
}
