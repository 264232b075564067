// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusMusic
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
        /// The drawn length approaches these: long enough to read at 999 BPM, short enough to
        /// fit above the bottom edge with the bob.
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
        public static let mainScreen = Geometry(pivot: Point(97, 3), pixelsPerMeter: 120, minimumLength: 10,
                                                maximumLength: 58, maximumReach: 26, reachPerLength: 0.8, bobRadius: 3)
    }

    /// A pendulum that reaches an end on every beat has a period of two beats.
    public static func periodSeconds(beatSeconds: Double) -> Double { 2 * beatSeconds }

    /// L = g (T / 2 pi)^2 in metres for a period of T seconds.
    public static func lengthMeters(periodSeconds: Double) -> Double {
        let t = periodSeconds / (2 * ScreenMath.pi)
        return gravity * t * t
    }

    /// The drawn rod length in pixels. A real pendulum's length goes with the square of its
    /// period (L = g (T / 2 pi)^2), 256 times longer at 30 BPM than at 480: no screen holds
    /// that, and clamping would draw one length for a wide range. So the length is a
    /// logistic curve over octaves of tempo, through the real length at the reference tempo
    /// (120 BPM: 0.248 m x 120 px/m = 30 px), longer for slower tempi and shorter for faster
    /// ones over the whole range, approaching but never reaching the shortest and longest
    /// rods the screen holds: 30, 60, 120, 240 and 480 BPM are 49, 40, 30, 21 and 15 px.
    public static func drawnLength(beatSeconds: Double, geometry: Geometry) -> Int {
        guard beatSeconds.isFinite, beatSeconds > 0 else { return geometry.maximumLength }
        let low = Double(geometry.minimumLength), high = Double(geometry.maximumLength)
        let reference = lengthMeters(periodSeconds: periodSeconds(beatSeconds: 60 / referenceBPM)) * geometry.pixelsPerMeter
        let share = min(max((reference - low) / (high - low), 0.01), 0.99)
        // Octaves slower than the reference tempo (negative: faster).
        let octaves = ScreenMath.log2(beatSeconds * referenceBPM / 60)
        let x = octavesSteepness * octaves + ScreenMath.logit(share)
        return ScreenMath.pixel(low + (high - low) * ScreenMath.logistic(x))
    }

    /// The tempo whose real pendulum length is drawn as it is.
    public static let referenceBPM = 120.0
    /// How fast the drawn length changes per octave of tempo around the reference.
    public static let octavesSteepness = 0.9

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
