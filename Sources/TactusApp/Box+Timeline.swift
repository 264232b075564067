// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import TactusArithmetic
import TactusTimeline

/// The one write path of an outside timeline (a followed MIDI clock, a Link session, the
/// live view's start): "bar b at position p is heard at host time t" goes into the engine in
/// its exact unit (twice the engine sample), and the render thread publishes the grid every
/// reader reads. No caller keeps a samples-per-whole of its own.
extension Box {
    /// Twice the engine sample heard at host time `nanoseconds` on `clock`, to the nearest:
    /// the one conversion of an outside time into the timeline's unit.
    static func twice(heardAtNanoseconds nanoseconds: Int64, on clock: AudioOutputClock) -> Int64 {
        Int64((2 * clock.heardSample(atNanoseconds: nanoseconds)).rounded())
    }

    /// Bar `bar` at `position` (whole notes into it) is heard at host time `nanoseconds`;
    /// `lateWithin` (samples), `relocatesClock`: see `ClickEngine.align`.
    func place(bar: Int64, position: Rational, heardAtNanoseconds nanoseconds: Int64, on clock: AudioOutputClock,
               lateWithin: Int64? = nil, relocatesClock: Bool = false) {
        engine.align(atTwice: Box.twice(heardAtNanoseconds: nanoseconds, on: clock), bar: bar, position: position, lateWithin: lateWithin,
                     relocatesClock: relocatesClock)
    }

    /// Starts playing with bar 0's downbeat heard at host time `nanoseconds`; returns where
    /// that is (twice the engine sample).
    @discardableResult
    func startGrid(heardAtNanoseconds nanoseconds: Int64, on clock: AudioOutputClock) -> Int64 {
        let twice = Box.twice(heardAtNanoseconds: nanoseconds, on: clock)
        engine.start(atTwice: twice)
        return twice
    }

    /// START on the box's own: at the next render call; with a live view open, bar 0's
    /// downbeat `liveViewStartLead` ahead, so the view is told of it before it sounds (the
    /// render thread publishes the grid when it takes the start up, a period before the first
    /// click otherwise, too late for news that crosses two processes and a browser).
    func startAhead() {
        guard controlObserver?.followsBeats == true, let clock = outputClock else { return engine.start() }
        let lead = Box.liveViewStartLead + engine.startLead * 1_000_000_000 / Int64(engine.renderer.sampleRate)
        let at = now.advanced(byNanoseconds: lead)
        startGrid(heardAtNanoseconds: at.nanoseconds, on: clock)
    }

    /// How far ahead START places the first downbeat while a live view is open (ns).
    public static let liveViewStartLead: Int64 = 40_000_000
}
