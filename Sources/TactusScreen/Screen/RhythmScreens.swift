// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusArithmetic
import TactusMusic
import TactusInstrument
/// The rhythm fields' pages, drawn with symbols: swung pairs over the ladder of tempered
/// positions, a groove's moved notes, the Euclidean necklace on a ring, and m-over-n boxes
/// for poly layers. The page area is x 22...127 (the mode ring sits on the left); the top
/// 4 rows stay free for the beat strip while playing.
enum RhythmScreens {
    static let left = 24, right = 126

    /// The subdivisions mode's rhythm fields: swing and groove, or the poly layers.
    static func draw(_ settings: MetronomeSettings, field: RhythmField, into bitmap: inout Bitmap) {
        switch field {
        case .swing, .swingPercent, .swingLayer: drawSwing(settings, field: field, into: &bitmap)
        case .groove, .grooveAmount: drawGroove(settings, field: field, into: &bitmap)
        case .polyCount, .polySpan: drawPoly(settings, field: field, into: &bitmap)
        case .euclidOnsets, .euclidRotation: drawEuclid(settings, field: field, into: &bitmap)
        }
    }

    /// Text, inverted in a box when it is the value the wheel sets. Returns its right edge.
    @discardableResult
    static func label(_ text: String, at origin: Point, focused: Bool, into bitmap: inout Bitmap) -> Int {
        let width = SmallFont.width(of: text)
        if focused {
            bitmap.fill(Rect(x: origin.x - 2, y: origin.y - 2, width: width + 4, height: 11))
            SmallFont.draw(text, at: origin, into: &bitmap, .clear)
        } else {
            SmallFont.draw(text, at: origin, into: &bitmap)
        }
        return origin.x + width
    }

    /// A note head (5x4) with its stem up to `top`; returns the stem's x.
    static func drawNote(headX: Int, baseline: Int, top: Int, into bitmap: inout Bitmap) -> Int {
        bitmap.fill(Rect(x: headX, y: baseline - 3, width: 4, height: 4))
        bitmap.hline(headX + 1, headX + 4, baseline - 4)
        bitmap.hline(headX, headX + 2, baseline)
        let stem = headX + 4
        bitmap.vline(stem, top, baseline - 3)
        return stem
    }

    // MARK: swing

    /// The tempered positions (p) and the layer each lands on: 2 (straight), 7, 5, 3, 4.
    static let ladder: [(p: Rational, layer: Int)] = [(Rational(1, 2), 2), (Rational(4, 7), 7), (Rational(3, 5), 5), (Rational(2, 3), 3), (Rational(3, 4), 4)]

    /// Swung pairs: two beamed pairs of notes, the second of each at p of the pair, over the
    /// dotted even grid; below, the ladder from straight to dotted with the tuplet each
    /// position lands on, and a caret at the current swing.
    static func drawSwing(_ settings: MetronomeSettings, field: RhythmField, into bitmap: inout Bitmap) {
        let swing = settings.swing
        let p = swing?.swingPosition ?? Rational(1, 2)
        // Top line: the swing's name as written, and the layer.
        label(swing?.description.split(separator: "@").first.map(String.init) ?? "straight", at: Point(left, 6), focused: field == .swing, into: &bitmap)
        let layerText = swing.map { "on \($0.layer)" } ?? "on -"
        label(layerText, at: Point(right - SmallFont.width(of: layerText), 6), focused: field == .swingLayer, into: &bitmap)

        // Two pairs across x 28...120 (a pair is 46 px): notes at 0, p, 1, 1 + p.
        let x0 = 28, pairWidth = 46, baseline = 31, top = 17
        for even in 0...4 { bitmap.dottedVLine(x0 + even * pairWidth / 2 + 2, 33, 35) }
        for pair in 0..<2 {
            let first = x0 + pair * pairWidth
            let second = first + ScreenMath.pixel((p * Rational(Int64(pairWidth))).doubleValue)
            let a = drawNote(headX: first, baseline: baseline, top: top, into: &bitmap)
            let b = drawNote(headX: second, baseline: baseline, top: top, into: &bitmap)
            bitmap.fill(Rect(x: a, y: top, width: b - a + 1, height: 2))
        }

        // The percent and the ratio of the pair.
        let percent = RhythmField.percentText(p)
        label(percent, at: Point(left, 39), focused: field == .swingPercent, into: &bitmap)
        let ratio = Groove.swingText(p, .ratio)
        SmallFont.draw(ratio, at: Point(right - SmallFont.width(of: ratio), 39), into: &bitmap)

        // The ladder: 1/2 ... 3/4 across the page, a tick and a tuplet number at each step.
        func x(_ q: Rational) -> Int {
            let t = min(max(((q - Rational(1, 2)) * Rational(4)).doubleValue, -0.04), 1.04)
            return 30 + ScreenMath.pixel(t * 90)
        }
        let y = 58
        bitmap.hline(x(Rational(1, 2)), x(Rational(3, 4)), y)
        for step in ladder {
            bitmap.vline(x(step.p), y - 2, y)
            SmallFont.draw("\(step.layer)", centeredAt: x(step.p) + 1, y: y - 10, into: &bitmap)
        }
        bitmap.caretUp(tip: Point(x(p), y + 2), size: 3)
    }

    // MARK: groove

    /// One group of the groove twice: the even grid dotted, each note a bar at its moved
    /// position, its height the note's gain.
    static func drawGroove(_ settings: MetronomeSettings, field: RhythmField, into bitmap: inout Bitmap) {
        guard let groove = settings.groove else {
            label("groove: none", at: Point(left, 6), focused: field == .groove, into: &bitmap)
            SmallFont.draw("amount -", at: Point(left, 48), into: &bitmap)
            return
        }
        let weights: String = if case .weights(let w) = groove.notation { w.map(String.init).joined(separator: ",") } else { groove.description }
        label(weights, at: Point(left, 6), focused: field == .groove, into: &bitmap)
        let layerText = "on \(groove.layer)"
        SmallFont.draw(layerText, at: Point(right - SmallFont.width(of: layerText), 6), into: &bitmap)
        let x0 = 28, groupWidth = 46, floor = 42, tallest = 22
        let n = groove.groupSize
        for group in 0..<2 {
            let start = x0 + group * groupWidth
            for i in 0..<n {
                bitmap.dottedVLine(start + i * groupWidth / n + 1, floor + 2, floor + 4)
                let x = start + ScreenMath.pixel((groove.position(i) * Rational(Int64(groupWidth))).doubleValue)
                let height = max(2, tallest * groove.gains[i] / 100)
                bitmap.fill(Rect(x: x, y: floor - height, width: 3, height: height))
            }
        }
        label("amount " + RhythmField.percentText(groove.amount), at: Point(left, 51), focused: field == .grooveAmount, into: &bitmap)
    }

    // MARK: Euclid

    /// The necklace: n beads on a ring (clockwise from the top), onsets filled and joined
    /// into their polygon, with E(k,n[,r]) and the rotation beside it.
    static func drawEuclid(_ settings: MetronomeSettings, field: RhythmField, into bitmap: inout Bitmap) {
        let n = settings.beatCount
        var k = 0, r = 0
        var pattern = (0..<n).map { settings.accents.level(ofBeat: $0) == .accent }
        if case .euclid(let k0, let n0, let r0, _) = settings.accents.form, n0 == n {
            (k, r) = (k0, r0)
            pattern = Euclid.pattern(k, n, rotation: r)
        } else {
            k = pattern.filter { $0 }.count
        }
        let center = Point(52, 35), radius = 24
        func bead(_ i: Int) -> Point {
            let angle = 2 * ScreenMath.pi * Double(i) / Double(max(n, 1))
            return Point(center.x + ScreenMath.pixel(Double(radius) * ScreenMath.sin(angle)),
                         center.y - ScreenMath.pixel(Double(radius) * ScreenMath.cos(angle)))
        }
        let onsets = pattern.indices.filter { pattern[$0] }
        if onsets.count > 1 {
            for (a, b) in zip(onsets, onsets.dropFirst() + [onsets[0]]) { bitmap.line(bead(a), bead(b)) }
        }
        let beadRadius = n <= 16 ? 3 : n <= 32 ? 2 : 1
        for i in 0..<n {
            if pattern[i] {
                bitmap.disc(center: bead(i), radius: beadRadius)
            } else {
                bitmap.disc(center: bead(i), radius: beadRadius, .clear)
                if beadRadius > 1 { bitmap.circle(center: bead(i), radius: beadRadius - 1) } else { bitmap.plot(bead(i).x, bead(i).y) }
            }
        }
        // Beat 1 is marked outside the ring, at the top.
        bitmap.vline(center.x, center.y - radius - 7, center.y - radius - 5)
        let euclidean: Bool = if case .euclid = settings.accents.form { true } else { false }
        let textX = 84
        label(euclidean ? "E(\(k),\(n))" : "k \(k)/\(n)", at: Point(textX, 14), focused: field == .euclidOnsets, into: &bitmap)
        label("rot \(r)", at: Point(textX, 30), focused: field == .euclidRotation, into: &bitmap)
        if n <= 12 {
            let text = String(pattern.map { $0 ? "x" : "." })
            SmallFont.draw(text, at: Point(textX, 46), into: &bitmap)
        }
    }

    // MARK: poly

    /// m-over-n boxes: the bar's beats as a row of boxes, each poly layer a row below over
    /// the same width (onsets outlined, Euclidean rests dotted); the layer being set has an
    /// arrow, its value is boxed on the top line.
    static func drawPoly(_ settings: MetronomeSettings, field: RhythmField, into bitmap: inout Bitmap) {
        let focusLayer: Int
        switch field {
        case .polyCount(let m), .polySpan(let m): focusLayer = m
        default: focusLayer = 0
        }
        // "poly 2" and the value being set, boxed: the layer ("5/2b", "off") or its span.
        SmallFont.draw("poly \(focusLayer)", at: Point(left, 6), into: &bitmap)
        let value = SmallFont.fitting(FieldEditor.value(.rhythm(field), in: settings), maxWidth: 60)
        label(value, at: Point(right - SmallFont.width(of: value), 6), focused: true, into: &bitmap)
        let x0 = 32, width = 94, rowHeight = 7, firstRow = 17, gap = 2
        let bar = settings.beatsPerBar
        func x(_ beats: Rational) -> Int { x0 + ScreenMath.pixel((beats / bar * Rational(Int64(width))).doubleValue) }
        func box(from a: Rational, to b: Rational, y: Int, sounding: Bool) {
            let left = x(a), right = x(b) - 1
            if right - left >= 2 {
                if sounding { bitmap.strokeRect(Rect(x: left, y: y, width: right - left, height: rowHeight)) }
                else { bitmap.dottedHLine(left, right - 1, y + rowHeight - 1) }
            } else if sounding {
                bitmap.vline(left, y, y + rowHeight - 1)
            }
        }
        // The beats: the note counted, then one box per beat (the last one cut by the bar's end).
        Icons.drawNote(settings.beatUnit, head: Point(22, firstRow + 2), stem: 5, compact: true, into: &bitmap)
        for beat in 0..<settings.beatCount {
            let start = Rational(Int64(beat))
            box(from: start, to: min(start + .one, bar), y: firstRow, sounding: true)
        }
        let layers = settings.poly.layers
        for row in 0..<min(layers.count + 1, PolyLayer.maximumLayers) {
            let m = row + 1
            let y = firstRow + (row + 1) * (rowHeight + gap)
            SmallFont.draw("\(m)", at: Point(22, y), into: &bitmap)
            // The layer being set: an arrow between its number and its row.
            if m == focusLayer { bitmap.arrow(tip: Point(31, y + 3), direction: 1, size: 4) }
            guard row < layers.count else {
                // The next layer, not yet on: a dotted line to turn it on from.
                bitmap.dottedHLine(x0, x0 + width, y + rowHeight / 2)
                continue
            }
            let layer = layers[row]
            let span: Rational = switch layer.span { case .bar: bar; case .beats(let k): Rational(Int64(k)) }
            var start = Rational.zero
            while start < bar {
                for i in 0..<layer.steps {
                    let a = start + span * Rational(Int64(i), Int64(layer.steps))
                    guard a < bar else { break }
                    box(from: a, to: min(start + span * Rational(Int64(i + 1), Int64(layer.steps)), bar), y: y, sounding: layer.mask[i])
                }
                start = start + span
            }
        }
    }

    /// The poly volume's icon (7x7): m short strokes (layer m) over a bracket.
    static func drawPolyIcon(_ m: Int, at origin: Point, _ mode: DrawMode, into bitmap: inout Bitmap) {
        let columns = [[3], [1, 5], [1, 3, 5], [0, 2, 4, 6]][min(max(m, 1), 4) - 1]
        for column in columns { bitmap.vline(origin.x + column, origin.y, origin.y + 3, mode) }
        bitmap.hline(origin.x, origin.x + 6, origin.y + 6, mode)
        bitmap.plot(origin.x, origin.y + 5, mode)
        bitmap.plot(origin.x + 6, origin.y + 5, mode)
    }
}
