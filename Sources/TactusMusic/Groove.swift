// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
/// Swing and grooves: the notes of one subdivision layer L moved off the even grid, exactly.
///
/// The layer's notes are taken in groups of n (n divides L); note i of a group sits at
/// p_i of the group instead of i/n, with p_i(α) = i/n + α·(w_i − i/n) for a target w
/// (w_0 = 0 < w_1 < … < w_{n−1} < 1) and an amount α (0 = straight, 1 = the target, above
/// extrapolates). Note j = g·n + i of beat b is at b + (g + p_i)·n/L beats. Swing is the
/// case n = 2 with the second note's position p given directly (α = 1).
///
/// Every value is an exact Rational; the notation the user wrote is kept for display.
public struct Groove: Sendable, Hashable, CustomStringConvertible {
    /// How a swing amount was written, so it is shown back the same way.
    public enum Notation: Sendable, Hashable {
        /// `66%`: the second note at N % of the pair (MPC/Linn); 66 % is 33/50, not 2/3.
        case percent
        /// `2:1`: the ratio of the pair's two notes (MusicXML, Tack).
        case ratio
        /// `2/3`: the position itself.
        case fraction
        /// `straight`, `septuplet`, `quintuplet`, `triplet`, `dotted`.
        case name(String)
        /// `3,2,2,3`: a groove from weights.
        case weights([Int])
    }

    /// The subdivision layer moved (2-9; swing only on 2, 4, 6, 8).
    public let layer: Int
    /// Target positions w_i as fractions of a group; w_0 = 0; count = group size n.
    public let target: [Rational]
    /// α: 0 straight, 1 the target, up to 3/2.
    public let amount: Rational
    /// Per-step gain in percent (0-100), one per note of the group.
    public let gains: [Int]
    public let notation: Notation

    public static let layerRange: ClosedRange<Int> = 2...9
    public static let swingLayers = [2, 4, 6, 8]
    public static let maximumAmount = Rational(3, 2)
    /// The tempered swing positions: the swung note lands on that tuplet layer's onset.
    public static let names: [(name: String, position: Rational)] = [
        ("straight", Rational(1, 2)), ("septuplet", Rational(4, 7)), ("quintuplet", Rational(3, 5)),
        ("triplet", Rational(2, 3)), ("dotted", Rational(3, 4)),
    ]
    /// Finest denominator a written position or amount may have (keeps the engine's grid small).
    public static let maximumDenominator: Int64 = 10_000
    /// Largest side of a swing ratio A:B (finer ratios are refused by `maximumDenominator`).
    public static let maximumRatioSide = Rational(10_000)

    public var groupSize: Int { target.count }

    /// Position of note i of a group, as a fraction of the group.
    public func position(_ i: Int) -> Rational {
        let even = Rational(Int64(i), Int64(groupSize))
        return even + amount * (target[i] - even)
    }

    /// The positions p_0 ... p_{n-1}.
    public var positions: [Rational] { (0..<groupSize).map(position) }

    /// For swing: the second note's position.
    public var swingPosition: Rational { position(1) }

    public var isSwing: Bool {
        if case .weights = notation { return false }
        return true
    }

    // MARK: swing

    /// A swing: the second note of each pair of layer-L notes at `position` of the pair.
    public init(swing position: Rational, layer: Int = 2, notation: Notation = .fraction) throws(SettingError) {
        let text = Groove.swingText(position, notation) + (layer == 2 ? "" : "@\(layer)")
        guard Groove.swingLayers.contains(layer) else {
            throw SettingError(field: "swing", value: text, allowed: "the layer after @ must be 2, 4, 6 or 8")
        }
        guard position > .zero, position < .one else {
            throw SettingError(field: "swing", value: text, allowed: "the second note must lie inside the pair: more than 0 % and less than 100 %")
        }
        self.layer = layer
        self.target = [.zero, position]
        self.amount = .one
        self.gains = [100, 100]
        self.notation = notation
    }

    static let swingAllowed = "expected N% (MPC: 50 straight, 66 = 33/50), A:B (2:1 triplet), P/Q (position of the second note, e.g. 2/3) or straight, septuplet, quintuplet, triplet, dotted; optionally @2, @4, @6 or @8 for the layer"

    /// `66%`, `2:1`, `2/3`, `triplet`, each optionally followed by `@LAYER`.
    public init(parsingSwing text: String) throws(SettingError) {
        let failure = SettingError(field: "swing", value: text, allowed: Groove.swingAllowed)
        var body = Substring(text)
        var layer = 2
        if let at = body.firstIndex(of: "@") {
            guard let l = Int(body[body.index(after: at)...]) else { throw failure }
            layer = l
            body = body[..<at]
        }
        let position: Rational
        let notation: Notation
        if let named = Groove.names.first(where: { $0.name == body }) {
            (position, notation) = (named.position, .name(named.name))
        } else if body.hasSuffix("%") {
            guard let percent = Rational(parsing: String(body.dropLast())), !body.contains("/"),
                  percent.denominator <= 100 else { throw failure }
            (position, notation) = (percent / Rational(100), .percent)
        } else if body.contains(":") {
            let parts = body.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let a = Rational(parsing: String(parts[0])), let b = Rational(parsing: String(parts[1])),
                  !parts.contains(where: { $0.contains("/") }), a > .zero, b > .zero else { throw failure }
            // Bounded before they meet: a / (a + b) of two 64-bit values can overflow.
            guard a <= Groove.maximumRatioSide, b <= Groove.maximumRatioSide,
                  let sum = a.adding(b), let p = a.divided(by: sum) else {
                throw SettingError(field: "swing", value: text,
                                   allowed: "each side of A:B must be more than 0 and at most \(Groove.maximumRatioSide.numerator), e.g. 2:1 or 3:2")
            }
            (position, notation) = (p, .ratio)
        } else if body.contains("/") {
            guard let p = Rational(parsing: String(body)) else { throw failure }
            (position, notation) = (p, .fraction)
        } else {
            throw failure
        }
        guard position.denominator <= Groove.maximumDenominator else {
            throw SettingError(field: "swing", value: text, allowed: "at most \(Groove.maximumDenominator) steps per pair (the position's denominator)")
        }
        do { try self.init(swing: position, layer: layer, notation: notation) } catch {
            throw SettingError(field: "swing", value: text, allowed: error.allowed)
        }
    }

    // MARK: groove

    /// A groove from weights: w_i = (sum of the weights before i) / (sum of all).
    public init(weights: [Int], gains: [Int]? = nil, layer: Int? = nil, amount: Rational = .one) throws(SettingError) {
        let text = Groove.grooveText(weights, gains, layer ?? weights.count, amount)
        guard (2...9).contains(weights.count), weights.allSatisfy({ (1...99).contains($0) }) else {
            throw SettingError(field: "groove", value: text, allowed: "2 to 9 weights, each a whole number from 1 to 99 (e.g. 3,2,2,3)")
        }
        let n = weights.count
        let l = layer ?? n
        guard Groove.layerRange.contains(l), l % n == 0 else {
            throw SettingError(field: "groove", value: text,
                               allowed: "the layer after @ must be 2 to 9 and a multiple of the \(n) weights")
        }
        guard amount >= .zero, amount <= Groove.maximumAmount, amount.denominator <= Groove.maximumDenominator else {
            throw SettingError(field: "groove", value: text, allowed: "the amount after * must be 0 to 150 % (at most 2 decimals, or a fraction P/Q with Q up to 10000)")
        }
        let gains = gains ?? Array(repeating: 100, count: n)
        guard gains.count == n, gains.allSatisfy(Volumes.range.contains) else {
            throw SettingError(field: "groove", value: text, allowed: "one gain per weight, 0 to 100 (percent), written W:GAIN")
        }
        let total = Int64(weights.reduce(0, +))
        var sum: Int64 = 0
        var target: [Rational] = []
        for w in weights {
            target.append(Rational(sum, total))
            sum += Int64(w)
        }
        self.layer = l
        self.target = target
        self.amount = amount
        self.gains = gains
        self.notation = .weights(weights)
        // Above 100 % the notes move past the target: refuse an amount that reorders them.
        let limit = Groove.reorderingAmount(target)
        if let limit, amount >= limit {
            throw SettingError(field: "groove", value: text,
                               allowed: "an amount of \(Groove.percentText(amount)) % reorders the notes; this groove allows less than \(Groove.percentText(limit)) %")
        }
    }

    /// The smallest amount at which two neighbouring notes of a group meet (or the last
    /// reaches the next group), or nil if none up to any amount. Always above 1.
    static func reorderingAmount(_ target: [Rational]) -> Rational? {
        let n = target.count
        var limit: Rational?
        for j in 0..<n {
            let even = Rational(Int64(j), Int64(n))
            let nextEven = Rational(Int64(j + 1), Int64(n))
            let nextTarget = j + 1 < n ? target[j + 1] : .one
            // p_j(a) < p_{j+1}(a) <=> a * slope < nextEven - even
            let slope = (target[j] - even) - (nextTarget - nextEven)
            if slope > .zero {
                let a = (nextEven - even) / slope
                limit = limit.map { min($0, a) } ?? a
            }
        }
        return limit
    }

    static let grooveAllowed = "expected weights W1,W2,... (2 to 9 whole numbers 1-99, each optionally W:GAIN with GAIN 0-100 %), then optionally @LAYER (2-9, a multiple of the count) and *AMOUNT (0-150 %, e.g. *80% or *4/5); e.g. 3,2,2,3@4*100%"

    /// `3,2,2,3`, `3:100,2:60,2:80,3:60@8*80%`, `2,1*9999/10000`.
    public init(parsingGroove text: String) throws(SettingError) {
        let failure = SettingError(field: "groove", value: text, allowed: Groove.grooveAllowed)
        var body = Substring(text)
        var amount = Rational.one
        if let star = body.firstIndex(of: "*") {
            var a = body[body.index(after: star)...]
            let percent = a.hasSuffix("%")
            if percent { a = a.dropLast() }
            guard let value = Rational(parsing: String(a)) else { throw failure }
            if a.contains("/") {
                guard !percent else { throw failure }
                amount = value
            } else {
                amount = value / Rational(100)
            }
            // Bounded here, before the groove's text (amount x 100) is formed from it.
            guard amount >= .zero, amount <= Groove.maximumAmount, amount.denominator <= Groove.maximumDenominator else {
                throw SettingError(field: "groove", value: text, allowed: "the amount after * must be 0 to 150 % (at most 2 decimals, or a fraction P/Q with Q up to 10000)")
            }
            body = body[..<star]
        }
        var layer: Int?
        if let at = body.firstIndex(of: "@") {
            guard let l = Int(body[body.index(after: at)...]) else { throw failure }
            layer = l
            body = body[..<at]
        }
        var weights: [Int] = []
        var gains: [Int] = []
        var anyGain = false
        for item in body.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(pair.count), let w = Int(pair[0]) else { throw failure }
            weights.append(w)
            if pair.count == 2 {
                guard let g = Int(pair[1]) else { throw failure }
                gains.append(g)
                anyGain = true
            } else {
                gains.append(100)
            }
        }
        do { try self.init(weights: weights, gains: anyGain ? gains : nil, layer: layer, amount: amount) } catch {
            throw SettingError(field: "groove", value: text, allowed: error.allowed)
        }
    }

    /// The same groove at another amount (the box's wheel); nil when it would reorder notes.
    public func with(amount newAmount: Rational) -> Groove? {
        guard case .weights(let weights) = notation else { return nil }
        return try? Groove(weights: weights, gains: gains, layer: layer, amount: newAmount)
    }

    // MARK: text

    public var description: String {
        switch notation {
        case .weights(let weights): Groove.grooveText(weights, gains, layer, amount)
        default: Groove.swingText(swingPosition, notation) + (layer == 2 ? "" : "@\(layer)")
        }
    }

    /// The swing position in the notation it was written in (exact; a fraction when the
    /// scale cannot show it exactly).
    public static func swingText(_ p: Rational, _ notation: Notation) -> String {
        switch notation {
        case .name(let name): return name
        case .percent:
            // Shown before the value is checked: the product may not fit.
            guard let percent = p.multiplied(by: Rational(100)) else { return p.description }
            let text = percent.decimalDescription
            return text.contains("/") ? p.description : text + "%"
        case .ratio:
            // a:b = p : (1 - p), in lowest terms
            guard let rest = Rational.one.subtracting(p), let q = p.divided(by: rest) else { return p.description }
            return q.isInteger ? "\(q.numerator):1" : "\(q.numerator):\(q.denominator)"
        case .fraction, .weights: return p.description
        }
    }

    static func grooveText(_ weights: [Int], _ gains: [Int]?, _ layer: Int, _ amount: Rational) -> String {
        var text = zip(weights, gains ?? Array(repeating: 100, count: weights.count))
            .map { $1 == 100 ? "\($0)" : "\($0):\($1)" }.joined(separator: ",")
        if layer != weights.count { text += "@\(layer)" }
        if amount != .one { text += "*" + (Groove.percentExact(amount) ?? amount.description) }
        return text
    }

    static func percentExact(_ amount: Rational) -> String? {
        guard let percent = amount.multiplied(by: Rational(100)) else { return nil }
        let text = percent.decimalDescription
        return text.contains("/") ? nil : text + "%"
    }

    static func percentText(_ amount: Rational) -> String {
        guard let percent = amount.multiplied(by: Rational(100)) else { return String(amount.doubleValue * 100) }
        let text = percent.decimalDescription
        return text.contains("/") ? String(percent.doubleValue) : text
    }
}
