// SPDX-License-Identifier: GPL-3.0-or-later
/// printf's "%.Nf" in pure Swift: the exact binary value of `value` rounded to `decimals`
/// places, ties to even (as glibc does), so the events files read the same digits on every
/// path without a C call. For |value| x 10^decimals below 2^62; larger values (never an
/// event's time or tempo) fall back to Swift's own description.
public func fixedDecimal(_ value: Double, decimals: Int) -> String {
    precondition((0...9).contains(decimals), "0 to 9 decimals")
    guard value.isFinite else { return value.description }
    var scale: Int128 = 1
    for _ in 0..<decimals { scale *= 10 }
    // value = significand x 2^exponent exactly, significand < 2^53.
    let negative = value.sign == .minus
    let magnitude = value.magnitude
    guard magnitude < 4e18 / Double(scale) else { return value.description }
    // Subnormals (below 2^-1022) round to zero at any precision given here.
    let exponent = magnitude.isNormal ? Int(magnitude.exponent) - 52 : -1074
    let significand = Int128(magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0))
    var units: Int128
    if magnitude == 0 || !magnitude.isNormal {
        units = 0
    } else if exponent >= 0 {
        units = (significand << exponent) * scale
    } else if -exponent > 120 {
        units = 0 // below 2^-67 x 10^9: rounds to zero
    } else {
        let numerator = significand * scale
        let shift = -exponent
        units = numerator >> shift
        let remainder = numerator - (units << shift)
        let half = Int128(1) << (shift - 1)
        if remainder > half || (remainder == half && units & 1 == 1) { units += 1 }
    }
    let whole = units / scale
    var text = "\(whole)"
    if decimals > 0 {
        var fraction = "\(units % scale)"
        while fraction.count < decimals { fraction = "0" + fraction }
        text += "." + fraction
    }
    return negative ? "-" + text : text // printf writes -0.000 too
}
