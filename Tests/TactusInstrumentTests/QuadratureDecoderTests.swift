// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Testing
@testable import TactusMusic
@testable import TactusInstrument
import TactusBase

@Suite struct QuadratureDecoderTests {
    /// Gray sequence clockwise: 00 01 11 10.
    static let cw: [(Bool, Bool)] = [(false, false), (false, true), (true, true), (true, false)]

    /// The clean A/B states for `detents` (signed) from rest state 00 with N steps per detent.
    static func states(detents: [Int], stepsPerDetent n: Int) -> [(Bool, Bool)] {
        var index = 0
        var out: [(Bool, Bool)] = []
        for d in detents {
            for _ in 0..<n {
                index = (index + (d > 0 ? 1 : 3)) % 4
                out.append(cw[index])
            }
        }
        return out
    }

    func decode(_ states: [(Bool, Bool)], n: Int) throws -> [Int] {
        var decoder = try QuadratureDecoder(stepsPerDetent: n)
        return states.map { decoder.update(a: $0.0, b: $0.1) }.filter { $0 != 0 }
    }

    @Test(arguments: [1, 2, 4])
    func cleanTurnsCountOnePerDetent(n: Int) throws {
        let detents = [1, 1, 1, -1, -1, 1, -1, -1, -1, -1]
        #expect(try decode(Self.states(detents: detents, stepsPerDetent: n), n: n) == detents)
    }

    @Test func fourStepDetentReportsOnlyAtRest() throws {
        var decoder = try QuadratureDecoder(stepsPerDetent: 4)
        #expect(decoder.update(a: false, b: true) == 0)
        #expect(decoder.update(a: true, b: true) == 0)
        #expect(decoder.update(a: true, b: false) == 0)
        #expect(decoder.update(a: false, b: false) == 1)
        #expect(decoder.position == 1)
    }

    @Test func halfTurnAndBackIsNothing() throws {
        var decoder = try QuadratureDecoder(stepsPerDetent: 4)
        for (a, b) in [(false, true), (true, true), (false, true), (false, false)] {
            #expect(decoder.update(a: a, b: b) == 0)
        }
        #expect(decoder.position == 0)
    }

    @Test func invalidJumpIsIgnoredAndPhaseKept() throws {
        var decoder = try QuadratureDecoder(stepsPerDetent: 4)
        // 00 -> 11 skips a state: direction unknown, so this detent does not count...
        #expect(decoder.update(a: true, b: true) == 0)
        #expect(decoder.update(a: true, b: false) == 0)
        #expect(decoder.update(a: false, b: false) == 0)
        #expect(decoder.invalidTransitions == 1)
        // ...and the next clean detent counts normally.
        for (a, b) in [(false, true), (true, true), (true, false)] { _ = decoder.update(a: a, b: b) }
        #expect(decoder.update(a: false, b: false) == 1)
        #expect(decoder.position == 1)
    }

    @Test func edgesOfSingleLines() throws {
        var decoder = try QuadratureDecoder(stepsPerDetent: 4)
        #expect(decoder.edge(.b, isHigh: true) == 0)
        #expect(decoder.edge(.b, isHigh: true) == 0)  // repeated level: a lost edge, no change
        #expect(decoder.edge(.a, isHigh: true) == 0)
        #expect(decoder.edge(.b, isHigh: false) == 0)
        #expect(decoder.edge(.a, isHigh: false) == 1)
    }

    /// The kernel dropped A's rising edge of a counter-clockwise turn (one step per detent):
    /// B's rise then looks like a clockwise detent. After `lostEdges()` (the input layer saw
    /// the gap in the line's sequence numbers) nothing is counted across the hole, and the
    /// following real detent counts in its true direction.
    @Test func lostEdgesAreNotDecodedAcross() throws {
        var blind = try QuadratureDecoder(stepsPerDetent: 1)
        #expect(blind.edge(.b, isHigh: true) == 1, "without the reset the hole decodes as a wrong detent")

        var decoder = try QuadratureDecoder(stepsPerDetent: 1)
        decoder.lostEdges()
        #expect(decoder.edge(.b, isHigh: true) == 0)
        #expect(decoder.edge(.a, isHigh: false) == 0)   // A's level was right all along
        #expect(decoder.edge(.b, isHigh: false) == -1)  // 01 -> 00: counter-clockwise, as turned
        #expect(decoder.position == -1)
    }

    @Test func lostEdgesInsideADetentCountNothingUntilRest() throws {
        var decoder = try QuadratureDecoder(stepsPerDetent: 4)
        #expect(decoder.edge(.b, isHigh: true) == 0)
        decoder.lostEdges()
        for (line, high) in [(QuadratureDecoder.Line.a, true), (.b, false), (.a, false)] {
            #expect(decoder.edge(line, isHigh: high) == 0)
        }
        // A whole clean detent after the rest state counts again.
        for (line, high) in [(QuadratureDecoder.Line.b, true), (.a, true), (.b, false)] { _ = decoder.edge(line, isHigh: high) }
        #expect(decoder.edge(.a, isHigh: false) == 1)
        #expect(decoder.position == 1)
    }

    @Test func restStateComesFromPowerUpLevels() throws {
        // Wheel resting at 11 (pull-ups, contacts open): detents end at 11.
        var decoder = try QuadratureDecoder(stepsPerDetent: 4, initialA: true, initialB: true)
        for (a, b) in [(true, false), (false, false), (false, true)] { #expect(decoder.update(a: a, b: b) == 0) }
        #expect(decoder.update(a: true, b: true) == 1)
    }

    @Test func rejectsUnsupportedStepCounts() {
        #expect(throws: SettingError.self) { try QuadratureDecoder(stepsPerDetent: 3) }
    }

    /// Property: contact bounce (a line flipping back and forth any number of times) on
    /// top of a clean random turn never changes the decoded count.
    @Test(arguments: [1, 2, 4])
    func randomBounceDecodesTheCleanCountExactly(n: Int) throws {
        var random = SplitMix64(state: UInt64(n) * 1_000_003)
        for _ in 0..<300 {
            let detents = (0..<Int.random(in: 1...40, using: &random)).map { _ in Bool.random(using: &random) ? 1 : -1 }
            var noisy: [(Bool, Bool)] = []
            var current = (false, false)
            for state in Self.states(detents: detents, stepsPerDetent: n) {
                // Bounce on the line that is about to change, or on the other one (vibration).
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let line = Bool.random(using: &random)
                    let flipped = line ? (!current.0, current.1) : (current.0, !current.1)
                    noisy.append(flipped)
                    noisy.append(current)
                }
                noisy.append(state)
                current = state
                // Bounce right after the change: back to the old level and forward again.
                if Bool.random(using: &random) {
                    let changedA = noisy.count >= 2 && noisy[noisy.count - 2].0 != state.0
                    let back = changedA ? (!state.0, state.1) : (state.0, !state.1)
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        noisy.append(back)
                        noisy.append(state)
                    }
                }
            }
            var decoder = try QuadratureDecoder(stepsPerDetent: n)
            var total = 0
            for (a, b) in noisy { total += decoder.update(a: a, b: b) }
            #expect(total == detents.reduce(0, +), "detents \(detents)")
            #expect(decoder.invalidTransitions == 0)
        }
    }

    @Test func oneEdgeCostsMicroseconds() throws {
        var decoder = try QuadratureDecoder(stepsPerDetent: 4)
        let states = Self.states(detents: Array(repeating: 1, count: 25_000), stepsPerDetent: 4)
        let clock = ContinuousClock()
        var total = 0
        let elapsed = clock.measure {
            for (a, b) in states { total += decoder.update(a: a, b: b) }
        }
        #expect(total == 25_000)
        // 100 000 edges well under a second even in a debug build: microseconds per edge.
        #expect(elapsed < .seconds(1))
    }
}
