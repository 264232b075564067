// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
import Glibc
#endif
import TactusBase
import TestSupport

// The hand-model benchmark (issue 11): a scripted hand reaches 50 seeded random targets
// between 30 and 300 BPM from random starts, on Tactus's wheel and, side by side, on a
// plain 1 BPM/detent wheel and a 4/1 BPM gear wheel. Lower is better in every column.

func targets() -> [(start: Int, target: Int)] {
    var random = SplitMix64(state: 11)
    return (0..<50).map { _ in
        var pair = (Int.random(in: 30...300, using: &random), Int.random(in: 30...300, using: &random))
        while pair.0 == pair.1 { pair.1 = Int.random(in: 30...300, using: &random) }
        return pair
    }
}

/// Each target is reached `tries` times with fresh noise, so the means say more about the
/// wheel than about one draw of the hand's spread.
let tries = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20

func run<W: HandWheel>(_ type: W.Type) -> (name: String, detents: Double, seconds: Double, overshoot: Int) {
    var hand = Hand(random: SplitMix64(state: 2026))
    var detents = 0, seconds = 0.0, overshoot = 0
    let cases = targets()
    for _ in 0..<tries {
        for (start, target) in cases {
            let r = hand.reach(W.self, from: start, to: target)
            detents += r.detents
            seconds += r.seconds
            overshoot = max(overshoot, r.overshoot)
        }
    }
    let count = Double(cases.count * tries)
    return (W(bpm: 120).name, Double(detents) / count, seconds / count, overshoot)
}

/// How far past its target a quick 2-detent nudge (2 detents in 50 ms) lands.
func nudgeOvershoot<W: HandWheel>(_ type: W.Type) -> Int {
    var worst = 0
    for start in [30, 120, 300] {
        var wheel = W(bpm: start)
        let end = Hand.turn(&wheel, detents: 2, seconds: 0.05, from: .seconds(1))
        _ = wheel.rest(after: end)
        worst = max(worst, wheel.shown - (start + 2))
    }
    return worst
}

print("Hand model: 50 seeded targets in 30-300 BPM from random starts, each reached \(tries) times "
      + "(a flick sized to the distance with the hand's spread, then slow corrections)")
print("wheel               mean detents  mean time  worst overshoot  2-detent nudge overshoot")
let rows = [
    (run(TactusHandWheel.self), nudgeOvershoot(TactusHandWheel.self)),
    (run(PlainHandWheel.self), nudgeOvershoot(PlainHandWheel.self)),
    (run(GearHandWheel.self), nudgeOvershoot(GearHandWheel.self)),
]
/// A fixed-point decimal without Foundation's String(format:).
func decimal(_ x: Double, places: Int) -> String {
    var scale = 1
    for _ in 0..<places { scale *= 10 }
    let n = Int((x * Double(scale)).rounded())
    let fraction = String(n % scale)
    return "\(n / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
}

func column(_ text: String, _ width: Int, left: Bool = false) -> String {
    let pad = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + pad : pad + text
}

for (row, nudge) in rows {
    print(column(row.name, 18, left: true) + column(decimal(row.detents, places: 1), 14) + column(decimal(row.seconds, places: 2) + " s", 11)
          + column("\(row.overshoot) BPM", 17) + column("\(nudge) BPM", 26))
}
