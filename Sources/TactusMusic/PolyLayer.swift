// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// A polyrhythm layer: its own even pulse against the beat, placed exactly in the bar.
///
/// - `N`: N onsets evenly over the bar (`3` in 4/4 is "3 against 4");
/// - `N/Kb`: N onsets evenly over K beats, starting again every K beats from the downbeat
///   (the last span is cut at the bar's end);
/// - `E(k,n)` / `E(k,n,r)`: n equal steps over the bar, sounding on the Euclidean onsets.
/// Onset i of a span starting at s is at s + S·i/N exactly: nothing accumulates, so the
/// layer cannot drift from the beat however long it plays.
public struct PolyLayer: Sendable, Hashable, CustomStringConvertible {
    public enum Span: Sendable, Hashable {
        case bar
        case beats(Int)
    }

    /// Steps in one span.
    public let steps: Int
    public let span: Span
    /// Which steps sound (all of them for `N` and `N/Kb`).
    public let mask: [Bool]
    private let text: String

    public static let maximumLayers = 4
    public static let range: ClosedRange<Int> = 1...99

    static let allowed = "expected N (N onsets over the bar), N/Kb (N over K beats) or E(k,n[,r]) (Euclidean over the bar), N and K 1 to 99"

    public init(parsing text: String) throws(SettingError) {
        let failure = SettingError(field: "poly", value: text, allowed: PolyLayer.allowed)
        if let (k, n, r) = try Euclid.parse(text, field: "poly") {
            steps = n
            span = .bar
            mask = Euclid.pattern(k, n, rotation: r)
            self.text = Euclid.notation(k, n, rotation: r)
            return
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard let n = Int(parts[0]), PolyLayer.range.contains(n) else { throw failure }
        switch parts.count {
        case 1:
            span = .bar
        case 2 where parts[1] == "bar":
            // "3/bar", as the songs notes write it, is "3".
            span = .bar
        case 2:
            guard parts[1].hasSuffix("b"), let k = Int(parts[1].dropLast()), PolyLayer.range.contains(k) else { throw failure }
            span = .beats(k)
        default:
            throw failure
        }
        steps = n
        mask = Array(repeating: true, count: n)
        self.text = span == .bar ? "\(n)" : "\(n)/\(parts[1])"
    }

    /// The onsets of one bar as (position in beats from the downbeat, step index in its span);
    /// positions at or past the bar's end are left out.
    public func onsets(beatsPerBar: Rational) -> [(position: Rational, index: Int)] {
        var result: [(Rational, Int)] = []
        let length: Rational
        switch span {
        case .bar: length = beatsPerBar
        case .beats(let k): length = Rational(Int64(k))
        }
        var start = Rational.zero
        while start < beatsPerBar {
            for i in 0..<steps where mask[i] {
                let position = start + length * Rational(Int64(i), Int64(steps))
                if position < beatsPerBar { result.append((position, i)) }
            }
            start = start + length
        }
        return result
    }

    public var description: String { text }
}

/// Up to four poly layers, in order (layer 1 first).
public struct PolyLayers: Sendable, Hashable, CustomStringConvertible {
    public let layers: [PolyLayer]

    public init(_ layers: [PolyLayer]) throws(SettingError) {
        guard layers.count <= PolyLayer.maximumLayers else {
            throw SettingError(field: "poly", value: layers.map(\.description).joined(separator: ","),
                               allowed: "at most \(PolyLayer.maximumLayers) poly layers")
        }
        self.layers = layers
    }

    public static let none = try! PolyLayers([])

    /// What an event says of poly layer `m` (1-4): its steps n and its span in beats (0: the
    /// bar), as `{"kind":"poly","layer":1,"n":3,"span":"bar"}` has them.
    public func eventShape(layer m: Int) -> (steps: Int, spanBeats: Int) {
        guard layers.indices.contains(m - 1) else { return (0, 0) }
        let layer = layers[m - 1]
        switch layer.span {
        case .bar: return (layer.steps, 0)
        case .beats(let k): return (layer.steps, k)
        }
    }

    /// `3,5/2b,E(3,8)` or `none`. Commas inside E(...) belong to the pattern.
    public init(parsing text: String) throws(SettingError) {
        if text == "none" || text.isEmpty { self = .none; return }
        var items: [String] = []
        var current = ""
        var depth = 0
        for c in text {
            if c == "(" { depth += 1 }
            if c == ")" { depth -= 1 }
            if c == "," && depth == 0 {
                items.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        items.append(current)
        var layers: [PolyLayer] = []
        for item in items {
            do { layers.append(try PolyLayer(parsing: item)) } catch {
                throw SettingError(field: "poly", value: text, allowed: error.allowed)
            }
        }
        do { try self.init(layers) } catch { throw SettingError(field: "poly", value: text, allowed: error.allowed) }
    }

    public var description: String { layers.isEmpty ? "none" : layers.map(\.description).joined(separator: ",") }
}
