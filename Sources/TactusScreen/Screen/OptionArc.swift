// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// Options placed along an arc whose centre is off screen; the arc turns with the knob's
/// (fractional) position, and the entry at the mark is the selection. The screen moves the
/// way the hand does, and the neighbours show what one more detent brings.
public struct OptionArc: Sendable, Hashable {
    public var center: Point
    public var radius: Double
    /// Angle between neighbouring entries, in half-turns (1 = 180 degrees).
    public var step: Double
    /// Entries beyond this angle (half-turns) are not drawn.
    public var visibleAngle: Double

    public init(center: Point, radius: Double, step: Double, visibleAngle: Double) {
        self.center = center
        self.radius = radius
        self.step = step
        self.visibleAngle = visibleAngle
    }

    /// The menu's and sound sets' text ring: the selection sits at the left, mid-height.
    public static let text = OptionArc(center: Point(-70, 32), radius: 86, step: 0.062, visibleAngle: 0.16)
    /// The wheel modes' icon ring on the left edge.
    public static let icons = OptionArc(center: Point(-20, 32), radius: 30, step: 0.19, visibleAngle: 0.25)

    /// Where entry `index` sits when the knob is at `position`, or nil when out of view.
    public func point(index: Int, position: Double) -> Point? {
        let angle = (Double(index) - position) * step
        guard abs(angle) <= visibleAngle else { return nil }
        return Point(center.x + ScreenMath.pixel(radius * ScreenMath.cosPi(angle)),
                     center.y + ScreenMath.pixel(radius * ScreenMath.sinPi(angle)))
    }

    /// Dots along the visible part of the arc.
    public func drawTrack(into bitmap: inout Bitmap) {
        var angle = -visibleAngle
        while angle <= visibleAngle {
            bitmap.plot(center.x + ScreenMath.pixel(radius * ScreenMath.cosPi(angle)),
                        center.y + ScreenMath.pixel(radius * ScreenMath.sinPi(angle)))
            angle += 0.02
        }
    }

    /// Text entries to the right of the arc, the selected one inverted in a box. With a
    /// `valueColumn`, each entry's value is right-aligned at that x and the label is fitted
    /// into the room left of it, so a value is never cut short; a value being edited is
    /// boxed with arrows either side.
    /// Entries whose box would start above `top` are left out (a title sits there).
    public func drawLabels(_ choice: ScreenChoice, valueColumn: Int? = nil, top: Int = Int.min, into bitmap: inout Bitmap) {
        drawTrack(into: &bitmap)
        let selected = choice.selectedIndex
        for (index, entry) in choice.entries.enumerated() {
            guard let p = point(index: index, position: choice.position), p.y - 5 >= top else { continue }
            let origin = Point(p.x + 5, p.y - 3)
            let value = valueColumn == nil ? nil : choice.value(at: index)
            // On and off are a box, filled or empty: symbols over words, and room for the label.
            let isSwitch = value == "on" || value == "off"
            let valueWidth = isSwitch ? 7 : value.map { SmallFont.width(of: $0) } ?? 0
            let right = valueColumn ?? (origin.x + 100)
            let labelRoom = value == nil ? right - origin.x : right - valueWidth - 6 - origin.x
            let text = SmallFont.fitting(entry, maxWidth: max(labelRoom, 6))
            let isSelected = index == selected
            if isSelected {
                let boxRight = value == nil ? origin.x + SmallFont.width(of: text) + 2 : right + 2
                bitmap.fill(Rect(x: origin.x - 2, y: origin.y - 2, width: boxRight - origin.x + 2, height: 11))
            }
            SmallFont.draw(text, at: origin, into: &bitmap, isSelected ? .clear : .set)
            if let value {
                let valueOrigin = Point(right - valueWidth, origin.y)
                if isSelected && choice.editing {
                    // Edit mode: the value in its own lit box, with arrows, inside the inverted row.
                    let box = Rect(x: valueOrigin.x - 5, y: origin.y - 1, width: valueWidth + 8, height: 9)
                    bitmap.fill(box, .set)
                    bitmap.fill(Rect(x: box.x - 1, y: box.y - 1, width: 1, height: box.height + 2), .clear)
                    drawValue(value, isSwitch: isSwitch, at: valueOrigin, .clear, into: &bitmap)
                    bitmap.plot(box.x + 1, box.y + 4, .clear); bitmap.vline(box.x + 2, box.y + 3, box.y + 5, .clear)
                } else {
                    drawValue(value, isSwitch: isSwitch, at: valueOrigin, isSelected ? .clear : .set, into: &bitmap)
                }
            }
            bitmap.disc(center: p, radius: isSelected ? 2 : 1)
        }
    }

    private func drawValue(_ value: String, isSwitch: Bool, at origin: Point, _ mode: DrawMode, into bitmap: inout Bitmap) {
        guard isSwitch else {
            SmallFont.draw(value, at: origin, into: &bitmap, mode)
            return
        }
        let box = Rect(x: origin.x, y: origin.y, width: 7, height: 7)
        bitmap.strokeRect(box, mode)
        if value == "on" { bitmap.fill(box.insetBy(2), mode) }
    }
}
