// SPDX-License-Identifier: GPL-3.0-or-later

/// The speed trainer: `step` BPM every `bars` bars. With a `windowMilliseconds` the coach
/// gates it ("earn the tempo"): the tempo steps up only after `bars` bars in a row whose
/// hits lie within the window (their mean error and its SD both within +-window ms), holds
/// otherwise, and steps back down after `downBars` bars in a row out of it (0: never).
public struct Trainer: Sendable, Hashable {
    public static let stepRange: ClosedRange<Int> = -20...20
    public static let barsRange: ClosedRange<Int> = 1...32
    /// 0 is off: the plain trainer, which steps whatever the player does.
    public static let windowRange: ClosedRange<Int> = 0...50
    public static let downBarsRange: ClosedRange<Int> = 0...32

    /// BPM added at each step (0: off; negative slows down).
    public var step: Int
    public var bars: Int
    public var windowMilliseconds: Int
    public var downBars: Int

    public init(step: Int = 0, bars: Int = 4, windowMilliseconds: Int = 0, downBars: Int = 0) {
        self.step = step
        self.bars = bars
        self.windowMilliseconds = windowMilliseconds
        self.downBars = downBars
    }

    public var isOn: Bool { step != 0 }
    /// The coach decides when to step (the song's constant sections are not pre-stepped).
    public var isEarned: Bool { step != 0 && windowMilliseconds > 0 }

    /// The trainer in the song page's program line: "+5/4", "+5/4 10ms down 2".
    public var programText: String {
        guard isOn else { return "" }
        var text = "\(step > 0 ? "+" : "")\(step)/\(bars)"
        if windowMilliseconds > 0 { text += " \(windowMilliseconds)ms" + (downBars > 0 ? " down \(downBars)" : "") }
        return text
    }
}
