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

    /// Text entries to the right of the arc, the selected one inverted in a box.
    public func drawLabels(_ choice: ScreenChoice, into bitmap: inout Bitmap) {
        drawTrack(into: &bitmap)
        let selected = choice.selectedIndex
        for (index, entry) in choice.entries.enumerated() {
            guard let p = point(index: index, position: choice.position) else { continue }
            let text = SmallFont.fitting(entry, maxWidth: 100)
            let origin = Point(p.x + 5, p.y - 3)
            if index == selected {
                bitmap.fill(Rect(x: origin.x - 2, y: origin.y - 2, width: SmallFont.width(of: text) + 4, height: 11))
                SmallFont.draw(text, at: origin, into: &bitmap, .clear)
            } else {
                SmallFont.draw(text, at: origin, into: &bitmap)
            }
            bitmap.disc(center: p, radius: index == selected ? 2 : 1)
        }
    }
}
