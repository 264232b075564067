// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusTimeline

/// Issue 19: input-derived values meet in overflow-reporting operations, numbers are
/// bounded where they are read, and exact values past 64 bits take the big-number path.
@Suite struct OverflowProofTests {
    @Test func checkedOperationsReportInsteadOfTrapping() {
        let big = Rational(Int64.max)
        #expect(big.adding(Rational(1)) == nil)
        #expect(big.multiplied(by: Rational(2)) == nil)
        #expect(big.divided(by: Rational(1, 2)) == nil)
        #expect(Rational(1).divided(by: .zero) == nil)
        #expect(Rational(-Int64.max).subtracting(Rational(2)) == nil)
        #expect(Rational(3, 4).adding(Rational(1, 4)) == Rational(1))
        #expect(Rational(2, 3).multiplied(by: Rational(3, 2)) == Rational(1))
    }

    @Test func emptyNumbersAreNotZero() {
        for text in ["", "-", ".", "-."] { #expect(Rational(parsing: text) == nil, "\(text)") }
        #expect(Rational(parsing: ".5") == Rational(1, 2))
        #expect(Rational(parsing: "1.2345", maximumDecimals: 3) == nil)
        #expect(Rational(parsing: "1.234", maximumDecimals: 3) == Rational(1234, 1000))
        #expect(Rational(1, 8).decimalPlaces == 3 && Rational(1, 3).decimalPlaces == nil && Rational(7).decimalPlaces == 0)
    }

    @Test func swingAndGrooveBoundsAreSaid() {
        #expect(throws: SettingError.self) { try Groove(parsingSwing: "9223372036854775807:1") }
        #expect(throws: SettingError.self) { try Groove(parsingGroove: "3,2,2,3*9223372036854775807/1") }
        #expect(throws: SettingError.self) { try Groove(parsingGroove: "3,2,2,3*") }
        #expect((try? Groove(parsingSwing: "3:2"))?.swingPosition == Rational(3, 5))
        do { _ = try Groove(parsingSwing: "1:9223372036854775807") } catch {
            #expect(error.allowed == "each side of A:B must be more than 0 and at most 10000, e.g. 2:1 or 3:2")
        }
    }

    @Test func segmentTempoDecimalsAreBounded() throws {
        #expect(throws: SettingError.self) { try TempoSegment(parsing: "36-47.43800282") }
        #expect(throws: SettingError.self) { try TempoSegment(parsing: "100+0.0001/2") }
        #expect(try TempoSegment(parsing: "248-193.083") == .rampTime(from: Rational(248), to: Rational(193_083, 1000)))
    }

    /// start + x * perMinute / t when the reduced product needs more than 64 bits: the big
    /// path gives the same exact time as the 128-bit path wherever both can.
    @Test func sectionTimesPastSixtyFourBitsStayExact() {
        let t = Rational(193_083, 1000).multiplied(by: Rational(8543, 10_000))! // 85.43 % of 193.083
        let x = Rational(999_999_937, 7)
        let perMinute = Rational(192_000 * 60)
        #expect(x.multiplied(by: perMinute).flatMap { $0.divided(by: t) } == nil, "the 64-bit path cannot hold it")
        let time = SegmentTimer.advance(SampleTime(0), beats: x, perMinute: perMinute, tempo: t)
        // Exact: x perMinute / t = 999999937 * 11520000 * 10^7 / (7 * 1649508069).
        let exact = BigFraction(BigInt(999_999_937) * BigInt(11_520_000) * BigInt(10_000_000), BigInt(7 * 1_649_508_069))
        #expect(time == exact.sampleTime)
        #expect(time.whole == 9_976_999_888_409)
    }

    /// 0.01 -> 999 BPM over one 4/4 bar: the quadratic rises again before the start, and
    /// the onsets used to walk there forever. Each one is now the half-sample rule's.
    @Test func steepRampOnsetsStayOnTheRisingBranch() {
        var timer = SegmentTimer(segment: .rampTime(from: Rational(1, 100), to: 999), start: SampleTime(0),
                                 lengthInBeats: 4, beatsPerBar: 4, sampleRate: 48000)
        var last: Int64 = -1
        for k in 0...16 {
            let x = Rational(Int64(k), 4)
            let n = timer.onset(atBeat: x)
            #expect(timer.isPast(x, atHalfAfter: n), "\(x)")
            #expect(n == 0 || !timer.isPast(x, atHalfAfter: n - 1), "\(x)")
            #expect(n > last)
            last = n
        }
        // The bar lasts 2 L / (T0 + T1) = 8 / 999.01 min = 23 062.832... samples.
        #expect(timer.onset(atBeat: 4) == 23_063)
    }
}
