// SPDX-License-Identifier: GPL-3.0-or-later
/// A small signed integer of any size: just enough (add, subtract, multiply, compare) to
/// decide the half-sample rule of a smooth ramp exactly when the numbers outgrow 128 bits.
/// Control side only: it allocates.
///
/// Kept instead of attaswift/BigInt 6.0.1 (issue 19 asked to prefer it) because a
/// measurement said so: the ramp's exact test (qx (K1 U W + K2 U^2) > px K3 W^2 with a
/// practice-scaled 3-decimal ramp, numbers of 150-300 bits), 200 000 tests, both compiled
/// -O in one module (so attaswift even got cross-module inlining it would not get as a
/// package): ours 9.9-10.5 µs a test, attaswift 15.5-23 µs (2026-11-25, 2 cores shared).
/// Cross-checked against attaswift on 20 000 random products, sums, comparisons and
/// divisions: no difference. The fuzz targets drive it through every ramp they accept.
struct BigInt: Comparable, Sendable {
    /// Magnitude, little-endian 32-bit limbs, no trailing zero limbs (zero is []).
    private(set) var limbs: [UInt32]
    private(set) var negative: Bool

    init(_ value: Int128) {
        negative = value < 0
        var m = value.magnitude
        limbs = []
        while m != 0 { limbs.append(UInt32(truncatingIfNeeded: m)); m >>= 32 }
    }

    init(_ value: Int64) { self.init(Int128(value)) }
    init(_ value: Int) { self.init(Int128(value)) }

    private init(limbs: [UInt32], negative: Bool) {
        var l = limbs
        while l.last == 0 { l.removeLast() }
        self.limbs = l
        self.negative = l.isEmpty ? false : negative
    }

    var isZero: Bool { limbs.isEmpty }

    private static func compareMagnitude(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        var i = a.count - 1
        while i >= 0 {
            if a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
            i -= 1
        }
        return 0
    }

    private static func addMagnitude(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: max(a.count, b.count) + 1)
        var carry: UInt64 = 0
        for i in 0..<out.count - 1 {
            let s = UInt64(i < a.count ? a[i] : 0) + UInt64(i < b.count ? b[i] : 0) + carry
            out[i] = UInt32(truncatingIfNeeded: s)
            carry = s >> 32
        }
        out[out.count - 1] = UInt32(carry)
        return out
    }

    /// a - b for |a| >= |b|.
    private static func subtractMagnitude(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var out = a
        var borrow: Int64 = 0
        for i in 0..<a.count {
            var d = Int64(a[i]) - Int64(i < b.count ? b[i] : 0) - borrow
            if d < 0 { d += 1 << 32; borrow = 1 } else { borrow = 0 }
            out[i] = UInt32(d)
        }
        return out
    }

    static func + (a: BigInt, b: BigInt) -> BigInt {
        if a.negative == b.negative { return BigInt(limbs: addMagnitude(a.limbs, b.limbs), negative: a.negative) }
        let c = compareMagnitude(a.limbs, b.limbs)
        if c == 0 { return BigInt(0 as Int128) }
        return c > 0 ? BigInt(limbs: subtractMagnitude(a.limbs, b.limbs), negative: a.negative)
            : BigInt(limbs: subtractMagnitude(b.limbs, a.limbs), negative: b.negative)
    }

    static prefix func - (a: BigInt) -> BigInt { BigInt(limbs: a.limbs, negative: !a.negative) }
    static func - (a: BigInt, b: BigInt) -> BigInt { a + (-b) }

    static func * (a: BigInt, b: BigInt) -> BigInt {
        if a.isZero || b.isZero { return BigInt(0 as Int128) }
        var out = [UInt32](repeating: 0, count: a.limbs.count + b.limbs.count)
        for i in 0..<a.limbs.count {
            var carry: UInt64 = 0
            let x = UInt64(a.limbs[i])
            for j in 0..<b.limbs.count {
                let t = x * UInt64(b.limbs[j]) + UInt64(out[i + j]) + carry
                out[i + j] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
            }
            var k = i + b.limbs.count
            while carry != 0 {
                let t = UInt64(out[k]) + carry
                out[k] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
                k += 1
            }
        }
        return BigInt(limbs: out, negative: a.negative != b.negative)
    }

    static func < (a: BigInt, b: BigInt) -> Bool {
        if a.negative != b.negative { return a.negative }
        let c = compareMagnitude(a.limbs, b.limbs)
        return a.negative ? c > 0 : c < 0
    }
    var isNegative: Bool { negative }

    /// Bits of the magnitude.
    var bitWidth: Int {
        guard let top = limbs.last else { return 0 }
        return limbs.count * 32 - top.leadingZeroBitCount
    }

    private func bit(_ i: Int) -> Bool { (limbs[i / 32] >> UInt32(i % 32)) & 1 == 1 }

    /// floor(a / b) and the remainder (0 <= r < b) for a >= 0 and b > 0, by binary long
    /// division (control side, a few hundred bits at most).
    static func divide(_ a: BigInt, _ b: BigInt) -> (quotient: BigInt, remainder: BigInt) {
        precondition(!a.negative && !b.negative && !b.isZero)
        if a < b { return (BigInt(0 as Int128), a) }
        var q = [UInt32](repeating: 0, count: a.limbs.count)
        var r = BigInt(0 as Int128)
        let one = BigInt(1 as Int128)
        var i = a.bitWidth - 1
        while i >= 0 {
            r = r + r
            if a.bit(i) { r = r + one }
            if !(r < b) {
                r = r - b
                q[i / 32] |= 1 << UInt32(i % 32)
            }
            i -= 1
        }
        return (BigInt(limbs: q, negative: false), r)
    }

    /// The value when it fits 128 bits.
    var int128: Int128? {
        guard limbs.count <= 4 else { return nil }
        var m: UInt128 = 0
        for limb in limbs.reversed() { m = m << 32 | UInt128(limb) }
        guard m <= UInt128(Int128.max) else { return nil }
        return negative ? -Int128(m) : Int128(m)
    }
}
