// SPDX-License-Identifier: GPL-3.0-or-later
/// Euclidean rhythms E(k, n, r): k onsets spread as evenly as possible over n steps.
///
/// The algorithm is Bjorklund's as written in Rohan Drape's hmt (and ported to Tidal and
/// Strudel), so the patterns are the ones their users know: E(3,8) = x..x..x.,
/// E(5,8) = x.xx.xx., E(2,3) = xx. (Toussaint prints some of these from another start;
/// they are the same necklaces). The rotation r turns the pattern LEFT by r steps
/// (Tidal's convention): step i of E(k,n,r) is step (i + r) mod n of E(k,n), so
/// E(3,8,2) = .x..x.x.
public enum Euclid {
    /// Steps 1-99, onsets 0...n, rotation 0..<n.
    public static let stepRange: ClosedRange<Int> = 1...99

    /// The pattern as booleans (true = onset). Preconditions: 0 <= k <= n, n >= 1.
    public static func pattern(_ k: Int, _ n: Int, rotation r: Int = 0) -> [Bool] {
        precondition(n >= 1 && k >= 0 && k <= n, "Euclid.pattern: need 0 <= k <= n, n >= 1")
        var a: [[Bool]] = Array(repeating: [true], count: k)
        var b: [[Bool]] = Array(repeating: [false], count: n - k)
        while min(a.count, b.count) > 1 {
            let m = min(a.count, b.count)
            let joined = (0..<m).map { a[$0] + b[$0] }
            let rest = a.count > b.count ? Array(a[m...]) : Array(b[m...])
            a = joined
            b = rest
        }
        let base = a.flatMap { $0 } + b.flatMap { $0 }
        let shift = ((r % n) + n) % n
        return (0..<n).map { base[($0 + shift) % n] }
    }

    /// `x` for onsets and `.` for rests, as the notes and Tidal print them.
    public static func text(_ k: Int, _ n: Int, rotation r: Int = 0) -> String {
        String(pattern(k, n, rotation: r).map { $0 ? "x" : "." })
    }

    /// Parses `E(k,n)` or `E(k,n,r)` (spaces allowed after commas); nil when the text has
    /// another shape. Range errors name the field.
    public static func parse(_ text: String, field: String) throws(SettingError) -> (k: Int, n: Int, r: Int)? {
        guard text.hasPrefix("E("), text.hasSuffix(")") else { return nil }
        let inner = text.dropFirst(2).dropLast()
        let parts = inner.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingSpaces }
        let allowed = "expected E(k,n) or E(k,n,r) with 1 <= n <= 99, 0 <= k <= n and rotation 0 <= r < n (e.g. E(3,8))"
        guard parts.count == 2 || parts.count == 3 else { throw SettingError(field: field, value: text, allowed: allowed) }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count else { throw SettingError(field: field, value: text, allowed: allowed) }
        let (k, n, r) = (numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
        guard stepRange.contains(n), (0...n).contains(k), (0..<n).contains(r) else {
            throw SettingError(field: field, value: text, allowed: allowed)
        }
        return (k, n, r)
    }

    /// `E(3,8)` or `E(3,8,2)`: the rotation only when it is not 0.
    public static func notation(_ k: Int, _ n: Int, rotation r: Int) -> String {
        r == 0 ? "E(\(k),\(n))" : "E(\(k),\(n),\(r))"
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
