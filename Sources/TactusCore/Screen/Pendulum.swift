/// The pendulum on the main screen: it swings one way per beat and reaches an end exactly
/// on each beat, so the player sees the next beat coming. A full period is two beats, which
/// also halves the visual rate compared with a flash and keeps fast tempi readable.
public enum Pendulum {
    /// Standard gravity, m/s^2.
    public static let gravity = 9.806_65

    /// Where it hangs and how metres become pixels.
    public struct Geometry: Sendable, Hashable {
        public var pivot: Point
        /// Scale of the real length; 120 px/m puts 120 BPM (a 0.248 m pendulum) at 30 px.
        public var pixelsPerMeter: Double
        /// Short enough to fit above the bottom edge with the bob, long enough to read at 999 BPM.
        public var minimumLength: Int
        public var maximumLength: Int
        /// The bob's horizontal travel either side of the pivot, at most.
        public var maximumReach: Int
        /// The reach as a share of the length when the rod is short (the swing angle's sine).
        public var reachPerLength: Double
        public var bobRadius: Int

        public init(pivot: Point, pixelsPerMeter: Double, minimumLength: Int, maximumLength: Int,
                    maximumReach: Int, reachPerLength: Double, bobRadius: Int) {
            self.pivot = pivot
            self.pixelsPerMeter = pixelsPerMeter
            self.minimumLength = minimumLength
            self.maximumLength = maximumLength
            self.maximumReach = maximumReach
            self.reachPerLength = reachPerLength
            self.bobRadius = bobRadius
        }

        /// The right-hand part of the main screen.
        public static let mainScreen = Geometry(pivot: Point(97, 3), pixelsPerMeter: 120, minimumLength: 16,
                                                maximumLength: 56, maximumReach: 26, reachPerLength: 0.8, bobRadius: 3)
    }

    /// A pendulum that reaches an end on every beat has a period of two beats.
    public static func periodSeconds(beatSeconds: Double) -> Double { 2 * beatSeconds }

    /// L = g (T / 2 pi)^2 in metres for a period of T seconds.
    public static func lengthMeters(periodSeconds: Double) -> Double {
        let t = periodSeconds / (2 * ScreenMath.pi)
        return gravity * t * t
    }

    /// The drawn rod length in pixels: the real length scaled, then clamped to the screen.
    public static func drawnLength(beatSeconds: Double, geometry: Geometry) -> Int {
        let pixels = lengthMeters(periodSeconds: periodSeconds(beatSeconds: beatSeconds)) * geometry.pixelsPerMeter
        guard pixels.isFinite else { return geometry.maximumLength }
        return min(max(ScreenMath.pixel(pixels), geometry.minimumLength), geometry.maximumLength)
    }

    /// -1 at the left end, +1 at the right end: on beat k (counted from bar 0's downbeat) it
    /// is at the left end when k is even and the right end when k is odd, exactly, and
    /// moves between them as a real pendulum does, along -cos.
    public static func swing(beatIndex: Int64, fraction: Double) -> Double {
        let value = ScreenMath.cosPi(fraction)
        return beatIndex & 1 == 0 ? -value : value
    }

    /// Horizontal travel either side for a rod of `length` pixels.
    public static func reach(length: Int, geometry: Geometry) -> Int {
        min(geometry.maximumReach, ScreenMath.pixel(Double(length) * geometry.reachPerLength))
    }

    /// The bob's centre: horizontal offset reach x swing, and on the circle of the rod's length.
    public static func bobCenter(swing: Double, length: Int, geometry: Geometry) -> Point {
        let dx = Double(reach(length: length, geometry: geometry)) * swing
        let dy = (Double(length * length) - dx * dx).squareRoot()
        return Point(geometry.pivot.x + ScreenMath.pixel(dx), geometry.pivot.y + ScreenMath.pixel(dy))
    }

    /// Draws the pivot, the rod, the bob and two small marks where the beats land.
    public static func draw(swing: Double, length: Int, geometry: Geometry, into bitmap: inout Bitmap) {
        let pivot = geometry.pivot
        for side in [-1, 1] {
            let end = bobCenter(swing: Double(side), length: length, geometry: geometry)
            let inner = end.x + side * (geometry.bobRadius + 2)
            bitmap.hline(inner, inner + side, end.y)
        }
        let bob = bobCenter(swing: swing, length: length, geometry: geometry)
        bitmap.disc(center: pivot, radius: 1)
        bitmap.line(pivot, bob)
        bitmap.disc(center: bob, radius: geometry.bobRadius)
    }
}

/// The ring that spreads from the pivot on each beat: thick and wide on accents, thin on
/// beats; seen from the corner of the eye while reading music.
public enum PulseRing {
    /// Length of the animation, at most half a beat so rings never pile up.
    public static let maximumSeconds = 0.25
    public static let startRadius = 4

    public static func maximumRadius(for level: AccentLevel) -> Int { level == .accent ? 44 : 30 }
    public static func thickness(for level: AccentLevel) -> Int { level == .accent ? 3 : 1 }

    /// The ring's radius `secondsSinceBeat` after the beat, or nil once it has faded
    /// (and for muted beats, which make no sound).
    public static func radius(secondsSinceBeat: Double, beatSeconds: Double, level: AccentLevel) -> Int? {
        guard level != .muted, secondsSinceBeat >= 0 else { return nil }
        let duration = min(maximumSeconds, beatSeconds / 2)
        guard secondsSinceBeat < duration else { return nil }
        let progress = secondsSinceBeat / duration
        return startRadius + ScreenMath.pixel(Double(maximumRadius(for: level) - startRadius) * progress)
    }

    public static func draw(center: Point, radius: Int, level: AccentLevel, into bitmap: inout Bitmap) {
        bitmap.annulus(center: center, outer: radius, inner: radius - thickness(for: level), .set)
    }
}
