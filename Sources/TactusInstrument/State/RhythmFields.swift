// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic
/// The rhythm fields the wheel sets, on the existing modes' rings (no new modes, so one
/// push per mode stays as it was):
/// - accents: after the beats, the Euclidean accents E(k, beats, r): k, then the rotation;
/// - subdivisions: after the layers, swing (stepping through the tempered positions
///   straight -> 4/7 -> 3/5 -> 2/3 -> 3/4), swing in 1 % steps (MPC scale), the swung layer,
///   a groove (from a short list), the groove's amount in 5 % steps, then each poly layer's
///   count ("N over ...", 0 = off) and span (the bar or K beats).
///
/// Every step goes to the next value in the turn's direction that the settings accept
/// (`MetronomeSettings.validate`): a value that clashes (a groove and swing on one layer)
/// or does not fit the exact grid is stepped over, and none left is a bump.
public enum RhythmField: Sendable, Hashable {
    /// Swing, in tempered steps (the detents of the swing amount).
    case swing
    /// Swing in whole percent (MPC/Linn: 50 straight, 66 = 33/50), 25 to 75.
    case swingPercent
    /// The layer swung: 2, 4, 6 or 8.
    case swingLayer
    /// The groove: none or one of `grooves`.
    case groove
    /// The groove's amount α, 0 to 150 % in 5 % steps (refusing amounts that reorder notes).
    case grooveAmount
    /// Euclidean accents: k onsets over the bar's beats.
    case euclidOnsets
    /// Euclidean accents: the left rotation r.
    case euclidRotation
    /// Poly layer m (1-4): its onsets N (0 removes it); for E(k,n) layers k.
    case polyCount(Int)
    /// Poly layer m (1-4): over the bar or over K beats.
    case polySpan(Int)

    /// The grooves the wheel offers after "none" (weights, layer = the weights' count).
    public static let grooves: [Groove] = ["3,2,2,3", "5,4,4,5", "2,1,2,1", "4,3,3"].map { try! Groove(parsingGroove: $0) }
    /// The finest swing step and its range, in percent.
    public static let swingPercentRange: ClosedRange<Int> = 25...75
    /// The groove amount's step, 5 %.
    public static let grooveAmountStep = Rational(1, 20)

    // MARK: rings

    /// The accents mode's Euclidean fields (n is the bar's beats: 1 to 99).
    public static func euclidFields(_ settings: MetronomeSettings) -> [RhythmField] {
        Euclid.stepRange.contains(settings.beatCount) ? [.euclidOnsets, .euclidRotation] : []
    }

    /// Swing and groove fields, always all five, so their places on the ring stay put.
    public static func swingFields(_ settings: MetronomeSettings) -> [RhythmField] {
        [.swing, .swingPercent, .swingLayer, .groove, .grooveAmount]
    }

    /// Each poly layer's count and span (no span for E(k,n) layers: those span the bar),
    /// then the count of the next layer while there is room for one.
    public static func polyFields(_ settings: MetronomeSettings) -> [RhythmField] {
        var fields: [RhythmField] = []
        for (index, layer) in settings.poly.layers.enumerated() {
            fields.append(.polyCount(index + 1))
            if euclid(layer) == nil { fields.append(.polySpan(index + 1)) }
        }
        if settings.poly.layers.count < PolyLayer.maximumLayers { fields.append(.polyCount(settings.poly.layers.count + 1)) }
        return fields
    }

    /// The soft accent's volume is offered when the accents use it.
    public static func usesSoftAccent(_ settings: MetronomeSettings) -> Bool {
        settings.accents.levels.contains(.soft)
    }

    // MARK: text

    /// The field's name in the event log.
    public var name: String {
        switch self {
        case .swing: "swing"
        case .swingPercent: "swing-percent"
        case .swingLayer: "swing-layer"
        case .groove: "groove"
        case .grooveAmount: "groove-amount"
        case .euclidOnsets: "euclid-onsets"
        case .euclidRotation: "euclid-rotation"
        case .polyCount(let m): "poly-\(m)"
        case .polySpan(let m): "poly-\(m)-span"
        }
    }

    public var label: String {
        switch self {
        case .swing: "swing"
        case .swingPercent: "swing %"
        case .swingLayer: "swing layer"
        case .groove: "groove"
        case .grooveAmount: "groove amount"
        case .euclidOnsets: "euclid onsets"
        case .euclidRotation: "euclid rotation"
        case .polyCount(let m): "poly \(m)"
        case .polySpan(let m): "poly \(m) span"
        }
    }

    public func value(in settings: MetronomeSettings) -> String {
        switch self {
        case .swing: return settings.swing?.description ?? "straight"
        case .swingPercent:
            return RhythmField.percentText(settings.swing?.swingPosition ?? Rational(1, 2))
        case .swingLayer: return settings.swing.map { "\($0.layer)" } ?? "-"
        case .groove: return settings.groove?.description ?? "none"
        case .grooveAmount: return settings.groove.map { RhythmField.percentText($0.amount) } ?? "-"
        case .euclidOnsets, .euclidRotation:
            guard case .euclid(let k, let n, let r, _) = settings.accents.form else { return "off" }
            return self == .euclidOnsets ? Euclid.notation(k, n, rotation: r) : "\(r)"
        case .polyCount(let m):
            return m <= settings.poly.layers.count ? settings.poly.layers[m - 1].description : "off"
        case .polySpan(let m):
            guard m <= settings.poly.layers.count else { return "-" }
            switch settings.poly.layers[m - 1].span {
            case .bar: return "bar"
            case .beats(let k): return k == 1 ? "1 beat" : "\(k) beats"
            }
        }
    }

    /// `p` in percent: whole or with one decimal (4/7 is 57.1 %), for the screen only.
    public static func percentText(_ p: Rational) -> String {
        let tenths = (p * Rational(1000)).rounded
        return tenths % 10 == 0 ? "\(tenths / 10)%" : "\(tenths / 10).\(tenths % 10)%"
    }

    // MARK: stepping

    /// One step in `direction`; false (a bump) when no value in that direction is accepted.
    public func adjust(by direction: Int, in settings: inout MetronomeSettings) -> Bool {
        for candidate in candidates(direction > 0 ? 1 : -1, settings) where candidate != settings {
            if (try? candidate.validate()) != nil {
                settings = candidate
                return true
            }
        }
        return false
    }

    /// The settings this field can step to, nearest first in `direction`.
    func candidates(_ direction: Int, _ settings: MetronomeSettings) -> [MetronomeSettings] {
        func with(_ change: (inout MetronomeSettings) -> Void) -> MetronomeSettings {
            var s = settings
            change(&s)
            return s
        }
        switch self {
        case .swing:
            let p = settings.swing?.swingPosition ?? Rational(1, 2)
            let layer = RhythmField.swingLayer(settings)
            let names = direction > 0 ? Groove.names.filter { $0.position > p } : Groove.names.filter { $0.position < p }.reversed()
            return names.map { named in
                with { $0.swing = named.position == Rational(1, 2) ? nil : try? Groove(swing: named.position, layer: layer, notation: .name(named.name)) }
            }
        case .swingPercent:
            let percent = (settings.swing?.swingPosition ?? Rational(1, 2)) * Rational(100)
            let range = RhythmField.swingPercentRange
            let steps = walk(from: direction > 0 ? Int(percent.floor) + 1 : Int(percent.ceiling) - 1, direction, within: range)
            let layer = RhythmField.swingLayer(settings)
            return steps.map { step in
                with { $0.swing = step == 50 ? nil : try? Groove(swing: Rational(Int64(step), 100), layer: layer, notation: .percent) }
            }
        case .swingLayer:
            guard let swing = settings.swing else { return [] }
            let layers = direction > 0 ? Groove.swingLayers.filter { $0 > swing.layer } : Groove.swingLayers.filter { $0 < swing.layer }.reversed()
            return layers.map { layer in with { $0.swing = try? Groove(swing: swing.swingPosition, layer: layer, notation: swing.notation) } }
        case .groove:
            let choices: [Groove?] = [nil] + RhythmField.grooves.map(Optional.some)
            let current = settings.groove
            // A groove from the settings file that is not on the list sits between none and the list.
            let index: Double = current.flatMap { g in
                RhythmField.grooves.firstIndex { $0.with(amount: .one) == g.with(amount: .one) }.map { Double($0 + 1) }
            } ?? (current == nil ? 0 : 0.5)
            let picked = choices.indices.filter { direction > 0 ? Double($0) > index : Double($0) < index }
            return (direction > 0 ? picked : picked.reversed()).map { i in
                with { s in
                    guard let groove = choices[i] else { s.groove = nil; return }
                    // The amount set so far carries over when the new groove allows it.
                    s.groove = current.flatMap { groove.with(amount: $0.amount) } ?? groove
                }
            }
        case .grooveAmount:
            guard let groove = settings.groove else { return [] }
            let steps = groove.amount / RhythmField.grooveAmountStep
            let top = Int((Groove.maximumAmount / RhythmField.grooveAmountStep).floor)
            let range = walk(from: direction > 0 ? Int(steps.floor) + 1 : Int(steps.ceiling) - 1, direction, within: 0...top)
            return range.compactMap { step in
                groove.with(amount: Rational(Int64(step)) * RhythmField.grooveAmountStep).map { g in with { $0.groove = g } }
            }
        case .euclidOnsets, .euclidRotation:
            let n = settings.beatCount
            guard Euclid.stepRange.contains(n) else { return [] }
            var (k, r, muted) = (settings.accents.levels.prefix(n).filter { $0 == .accent }.count, 0, false)
            if case .euclid(let k0, let n0, let r0, let m0) = settings.accents.form, n0 == n { (k, r, muted) = (k0, r0, m0) }
            if self == .euclidOnsets {
                let next = k + direction
                guard (0...n).contains(next) else { return [] }
                return [with { $0.accents = .euclid(next, n, rotation: r, mutedRests: muted) }]
            }
            guard n > 1 else { return [] }
            return [with { $0.accents = .euclid(k, n, rotation: ((r + direction) % n + n) % n, mutedRests: muted) }]
        case .polyCount(let m):
            return polyCountCandidates(m, direction, settings)
        case .polySpan(let m):
            let layers = settings.poly.layers
            guard m <= layers.count, euclid(layers[m - 1]) == nil else { return [] }
            let layer = layers[m - 1]
            let current = switch layer.span { case .bar: 0; case .beats(let k): k }
            // 0 is the bar, k > 0 is k beats.
            let spans = walk(from: current + direction, direction, within: 0...PolyLayer.range.upperBound)
            return spans.compactMap { k in
                RhythmField.replacing(m, in: settings, with: k == 0 ? "\(layer.steps)" : "\(layer.steps)/\(k)b")
            }
        }
    }

    private func polyCountCandidates(_ m: Int, _ direction: Int, _ settings: MetronomeSettings) -> [MetronomeSettings] {
        let layers = settings.poly.layers
        guard m <= layers.count else {
            // The next layer: turning up adds it, over the bar.
            guard m == layers.count + 1, direction > 0 else { return [] }
            return PolyLayer.range.compactMap { RhythmField.replacing(m, in: settings, with: "\($0)") }
        }
        let layer = layers[m - 1]
        if let (k, n, r) = euclid(layer) {
            // E(k,n): the wheel sets k; below 1 the layer goes.
            let ks = walk(from: k + direction, direction, within: 0...n)
            return ks.compactMap { RhythmField.replacing(m, in: settings, with: $0 == 0 ? nil : Euclid.notation($0, n, rotation: r)) }
        }
        let spanText = switch layer.span { case .bar: ""; case .beats(let k): "/\(k)b" }
        let counts = walk(from: layer.steps + direction, direction, within: 0...PolyLayer.range.upperBound)
        return counts.compactMap { RhythmField.replacing(m, in: settings, with: $0 == 0 ? nil : "\($0)\(spanText)") }
    }

    /// The settings with poly layer m replaced by (or added as) `text`, or removed for nil.
    static func replacing(_ m: Int, in settings: MetronomeSettings, with text: String?) -> MetronomeSettings? {
        var layers = settings.poly.layers
        if let text {
            guard let layer = try? PolyLayer(parsing: text) else { return nil }
            if m <= layers.count { layers[m - 1] = layer } else { layers.append(layer) }
        } else {
            layers.remove(at: m - 1)
        }
        guard let poly = try? PolyLayers(layers) else { return nil }
        var s = settings
        s.poly = poly
        return s
    }

    /// The layer swing goes on: the current one, else the first even layer that sounds and
    /// has no groove, else 2 (or the first one the groove leaves free).
    static func swingLayer(_ settings: MetronomeSettings) -> Int {
        if let swing = settings.swing { return swing.layer }
        let free = Groove.swingLayers.filter { $0 != settings.groove?.layer }
        return free.first { settings.subdivisions.layers.contains($0) } ?? free.first ?? 2
    }
}

/// Whole numbers from `first` on, one by one in `direction` (+1 or -1), up to the end of
/// `range` (a `first` outside the range starts at its near end).
private func walk(from first: Int, _ direction: Int, within range: ClosedRange<Int>) -> [Int] {
    if direction > 0 {
        let start = max(first, range.lowerBound)
        return start <= range.upperBound ? Array(start...range.upperBound) : []
    }
    let start = min(first, range.upperBound)
    return start >= range.lowerBound ? Array((range.lowerBound...start).reversed()) : []
}

/// (k, n, r) of an E(k,n,r) poly layer, nil for N and N/Kb layers.
func euclid(_ layer: PolyLayer) -> (k: Int, n: Int, r: Int)? {
    (try? Euclid.parse(layer.description, field: "poly")) ?? nil
}
