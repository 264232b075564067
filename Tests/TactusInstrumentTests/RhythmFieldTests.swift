// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import TactusArithmetic
@testable import TactusInstrument
import TactusBase

/// The rhythm fields on the box (RhythmFields.swift) through the reducer: swing in tempered
/// detents and in percent, the swung layer, grooves and their amount, Euclidean accents,
/// poly layers and their volumes. Every step reaches the engine (`applySettings`) and the
/// settings file.
extension BoxStateTests {
    /// Short pushes to `mode`, then one push-and-turn to `field` (the shorter way round).
    mutating func go(_ b: inout BoxState, to mode: WheelMode, _ field: Field) {
        while b.mode != mode { _ = press(&b, .wheel) }
        let fields = mode.fields(for: b.settings)
        let index = fields.firstIndex(of: field)!
        if index > 0 { _ = pushTurn(&b, index <= fields.count - index ? index : index - fields.count) }
        #expect(b.field == field)
    }

    /// One slow detent (300 ms after the last); its effects.
    mutating func step(_ b: inout BoxState, _ direction: Int) -> [Effect] {
        b.handle(.detent(direction, at: clock.advance(ms: 300)))
    }

    @Test mutating func aSlowTurnStepsSwingThroughTheTemperedPositions() throws {
        var b = try box()
        go(&b, to: .subdivisions, .rhythm(.swing))
        #expect(b.fieldLabel == "swing")
        #expect(b.fieldValue == "straight")
        var positions: [Rational?] = [b.settings.swing?.swingPosition]
        for _ in 0..<4 {
            let effects = step(&b, 1)
            #expect(effects.contains(.buzzer(.tick, at: clock.now)))
            #expect(effects.contains(.applySettings(b.settings)))
            positions.append(b.settings.swing?.swingPosition)
        }
        #expect(positions == [nil, Rational(4, 7), Rational(3, 5), Rational(2, 3), Rational(3, 4)])
        #expect(b.settings.swing?.description == "dotted")
        #expect(b.settings.swing?.layer == 2)
        // Past dotted: a bump, nothing changes, nothing goes to the engine.
        let past = step(&b, 1)
        #expect(past.contains(.buzzer(.bump, at: clock.now)))
        #expect(!past.contains { if case .applySettings = $0 { true } else { false } })
        // And back down the same steps to straight (no swing at all).
        var down: [String] = []
        for _ in 0..<4 {
            _ = step(&b, -1)
            down.append(b.fieldValue)
        }
        #expect(down == ["triplet", "quintuplet", "septuplet", "straight"])
        #expect(b.settings.swing == nil)
        #expect(step(&b, -1).contains(.buzzer(.bump, at: clock.now)))
    }

    @Test mutating func swingIsSavedTwoSecondsAfterTheLastDetent() throws {
        var b = try box()
        go(&b, to: .subdivisions, .rhythm(.swing))
        for _ in 0..<3 { _ = step(&b, 1) }
        let effects = b.handle(.tick(at: clock.advance(ms: 2100)))
        let saved = effects.compactMap { if case .save(let s) = $0 { s } else { nil } }
        #expect(saved.map { $0.settings.swing?.description } == ["triplet"])
    }

    @Test mutating func swingPercentStepsWholePercentAndSixtySixIsNotTheTriplet() throws {
        var b = try box()
        go(&b, to: .subdivisions, .rhythm(.swing))
        for _ in 0..<3 { _ = step(&b, 1) }                       // triplet, 2/3
        _ = pushTurn(&b, 1)
        #expect(b.field == .rhythm(.swingPercent))
        #expect(b.fieldValue == "66.7%")
        _ = step(&b, -1)
        #expect(b.settings.swing?.swingPosition == Rational(33, 50))
        #expect(b.settings.swing?.description == "66%")
        _ = step(&b, 1)
        #expect(b.settings.swing?.swingPosition == Rational(67, 100))
        // From 2/3 up is 67 %, from 66 % down is 65 %; 50 % is straight; 25 % is the end.
        for _ in 0..<17 { _ = step(&b, -1) }
        #expect(b.settings.swing == nil)
        for _ in 0..<25 { _ = step(&b, -1) }
        #expect(b.settings.swing?.swingPosition == Rational(1, 4))
        #expect(step(&b, -1).contains(.buzzer(.bump, at: clock.now)))
    }

    @Test mutating func swingLayerStepsOverTheGroovesLayer() throws {
        var saved = SavedState()
        try saved.settings.assign(all: [("subdivisions", "4"), ("groove", "3,2,2,3@4")])
        var b = try box(saved)
        go(&b, to: .subdivisions, .rhythm(.swingLayer))
        #expect(step(&b, 1).contains(.buzzer(.bump, at: clock.now)))  // no swing yet: no layer to move
        _ = pushTurn(&b, -2)
        #expect(b.field == .rhythm(.swing))
        _ = step(&b, 1)
        // Layer 4 sounds but carries the groove, so swing goes on the free layer 2.
        #expect(b.settings.swing?.layer == 2)
        _ = pushTurn(&b, 2)
        _ = step(&b, 1)
        #expect(b.settings.swing?.layer == 6)                    // 4 is the groove's: stepped over
        #expect(b.settings.swing?.description == "septuplet@6")
        _ = step(&b, 1)
        #expect(b.settings.swing?.layer == 8)
        #expect(step(&b, 1).contains(.buzzer(.bump, at: clock.now)))
    }

    @Test mutating func grooveFromTheListAndItsAmountInFivePercentSteps() throws {
        var b = try box()
        go(&b, to: .subdivisions, .rhythm(.groove))
        #expect(b.fieldValue == "none")
        _ = step(&b, 1)
        #expect(b.settings.groove?.description == "3,2,2,3")
        #expect(b.settings.groove?.layer == 4)
        _ = pushTurn(&b, 1)
        #expect(b.field == .rhythm(.grooveAmount))
        #expect(b.fieldValue == "100%")
        _ = step(&b, -1)
        #expect(b.settings.groove?.amount == Rational(19, 20))
        for _ in 0..<11 { _ = step(&b, 1) }
        #expect(b.settings.groove?.amount == Rational(3, 2))
        #expect(b.settings.groove?.description == "3,2,2,3*150%")
        #expect(step(&b, 1).contains(.buzzer(.bump, at: clock.now)))
        // The next groove keeps the amount; back to none, then the amount has nothing to set.
        _ = pushTurn(&b, -1)
        _ = step(&b, 1)
        #expect(b.settings.groove?.description == "5,4,4,5*150%")
        _ = step(&b, -1); _ = step(&b, -1)
        #expect(b.settings.groove == nil)
        _ = pushTurn(&b, 1)
        #expect(step(&b, 1).contains(.buzzer(.bump, at: clock.now)))
    }

    @Test mutating func euclideanAccentsSetKAndRotationOverTheBarsBeats() throws {
        var saved = SavedState()
        try saved.settings.assign(all: [("meter", "8/8")])
        var b = try box(saved)
        go(&b, to: .accents, .rhythm(.euclidOnsets))
        #expect(WheelMode.accents.fields(for: b.settings).suffix(2) == [.rhythm(.euclidOnsets), .rhythm(.euclidRotation)])
        #expect(b.fieldValue == "off")
        _ = step(&b, 1); _ = step(&b, 1)                        // one accent (beat 1) -> E(2,8) -> E(3,8)
        #expect(b.settings.accents.description == "E(3,8)")
        #expect(b.settings.accents.symbols == "XxxXxxXx")
        _ = pushTurn(&b, 1)
        #expect(b.field == .rhythm(.euclidRotation))
        _ = step(&b, 1); _ = step(&b, 1)
        #expect(b.settings.accents.description == "E(3,8,2)")
        #expect(b.settings.accents.symbols == "xXxxXxXx")
        for _ in 0..<3 { _ = step(&b, -1) }                     // 2 -> 1 -> 0 -> 7: the rotation wraps
        #expect(b.settings.accents.description == "E(3,8,7)")
        _ = pushTurn(&b, -1)
        for _ in 0..<3 { _ = step(&b, -1) }
        #expect(b.settings.accents.description == "E(0,8,7)")
        #expect(step(&b, -1).contains(.buzzer(.bump, at: clock.now)))
        for _ in 0..<8 { _ = step(&b, 1) }
        #expect(b.settings.accents.symbols == "XXXXXXXX")
        #expect(step(&b, 1).contains(.buzzer(.bump, at: clock.now)))
    }

    @Test mutating func polyLayersByCountAndSpanWithTheirVolumes() throws {
        var b = try box()
        // The last field of the subdivisions ring: poly layer 1, off.
        _ = press(&b, .wheel); _ = press(&b, .wheel); _ = press(&b, .wheel)
        _ = pushTurn(&b, -1)
        #expect(b.field == .rhythm(.polyCount(1)))
        #expect(b.fieldValue == "off")
        #expect(step(&b, -1).contains(.buzzer(.bump, at: clock.now)))
        for _ in 0..<3 { _ = step(&b, 1) }
        #expect(b.settings.poly.description == "3")
        _ = pushTurn(&b, 1)
        #expect(b.field == .rhythm(.polySpan(1)))
        #expect(b.fieldValue == "bar")
        _ = step(&b, 1); _ = step(&b, 1)
        #expect(b.settings.poly.description == "3/2b")
        #expect(b.fieldValue == "2 beats")
        _ = pushTurn(&b, 1)
        #expect(b.field == .rhythm(.polyCount(2)))
        for _ in 0..<5 { _ = step(&b, 1) }
        #expect(b.settings.poly.description == "3/2b,5")
        #expect(WheelMode.subdivisions.fields(for: b.settings).suffix(5).map(\.name) == ["poly-1", "poly-1-span", "poly-2", "poly-2-span", "poly-3"])
        // Volumes: one per poly layer after the layers.
        #expect(WheelMode.volumes.fields(for: b.settings).suffix(2) == [.volume(.poly(1)), .volume(.poly(2))])
        // Layer 1 turned down to nothing goes; layer 2 becomes layer 1.
        _ = pushTurn(&b, -2)
        #expect(b.field == .rhythm(.polyCount(1)))
        for _ in 0..<3 { _ = step(&b, -1) }
        #expect(b.settings.poly.description == "5")
    }

    @Test mutating func aEuclideanPolyLayerFromTheFileTurnsItsOnsets() throws {
        var saved = SavedState()
        try saved.settings.assign(all: [("poly", "E(3,8,1)")])
        var b = try box(saved)
        _ = press(&b, .wheel); _ = press(&b, .wheel); _ = press(&b, .wheel)
        _ = pushTurn(&b, -2)
        #expect(b.field == .rhythm(.polyCount(1)))               // no span field: E(k,n) spans the bar
        _ = step(&b, 1)
        #expect(b.settings.poly.description == "E(4,8,1)")
        for _ in 0..<4 { _ = step(&b, -1) }
        #expect(b.settings.poly.description == "none")
    }

    @Test mutating func softAccentVolumeIsOfferedWithGroupings() throws {
        var saved = SavedState()
        try saved.settings.assign(all: [("meter", "7/8"), ("accents", "3+2+2")])
        var b = try box(saved)
        #expect(WheelMode.volumes.fields(for: b.settings).prefix(4) == [.volume(.master), .volume(.accent), .volume(.soft), .volume(.beat)])
        go(&b, to: .volumes, .volume(.soft))
        #expect(b.fieldLabel == "soft volume")
        _ = step(&b, -1)
        #expect(b.settings.volumes.soft == 65)
    }
}
