// SPDX-License-Identifier: GPL-3.0-or-later

/// Follows an incoming MIDI clock (24 per quarter note) with a second-order delay-locked
/// loop (F. Adriaensen, "Using a DLL to filter time", LAC 2005; PipeWire's spa/utils/dll.h):
/// per tick e = t_in - t_pred; t_pred += period + b e; period += c e, with b = sqrt(2) w,
/// c = w^2, w = 2 pi B T (B the loop bandwidth, T the tick period). Wide (0.5 Hz) while
/// locking, narrow (0.2 Hz) once locked: averaging intervals alone lags and drifts in phase.
/// Times are nanoseconds of the kernel's arrival stamps; fixed state, no allocation.
public struct MIDIClockFollower: Sendable {
    public enum Lock: String, Sendable, Hashable {
        /// No clock yet, or none for two beats.
        case lost
        case locking
        case locked
    }

    public static let wideBandwidth = 0.5
    public static let narrowBandwidth = 0.2
    /// Ticks averaged for the tempo shown (`bpm` in the state): four beats.
    public static let displayTicks = 96

    public private(set) var lock = Lock.lost
    /// Predicted arrival of the next tick (ns) and the filtered tick period (ns).
    public private(set) var nextTick: Double = 0
    public private(set) var period: Double = 0
    /// Ticks received since the clock (re)appeared.
    public private(set) var ticks: Int64 = 0
    private var last: Int64 = 0
    /// Recent arrival times for the shown tempo (a ring of displayTicks + 1).
    private var history: [Int64]
    private var historyCount = 0
    private var historyHead = 0
    /// Consecutive ticks whose error was small (lock) or large (a jump: re-lock wide).
    private var calm = 0
    private var wild = 0

    public init() {
        history = [Int64](repeating: 0, count: MIDIClockFollower.displayTicks + 1)
    }

    /// Forgets the clock (Stop does not: the clock goes on while stopped).
    public mutating func reset() {
        lock = .lost
        ticks = 0
        historyCount = 0
        calm = 0
        wild = 0
    }

    /// The tempo of the filtered clock in quarter notes per minute, 0 before two ticks.
    public var quarterBPM: Double { period > 0 ? 60e9 / (24 * period) : 0 }

    /// The tempo averaged over the last 96 ticks (fewer at first), in quarter notes per minute.
    public var shownQuarterBPM: Double {
        guard historyCount >= 2 else { return quarterBPM }
        let newest = history[(historyHead + history.count - 1) % history.count]
        let oldest = history[(historyHead + history.count - historyCount) % history.count]
        return 60e9 * Double(historyCount - 1) / (24 * Double(newest - oldest))
    }

    /// Whether the clock has been silent for two beats at `now` (then it is `lost`).
    public mutating func checkSilence(now: Int64) -> Bool {
        guard lock != .lost, period > 0, Double(now - last) > 48 * period else { return false }
        lock = .lost
        ticks = 0
        historyCount = 0
        calm = 0
        wild = 0
        return true
    }

    /// One Clock byte, stamped `time` (ns).
    public mutating func tick(at time: Int64) {
        remember(time)
        ticks += 1
        defer { last = time }
        if ticks == 1 {
            lock = .locking
            return
        }
        if ticks == 2 {
            period = Double(time - last)
            nextTick = Double(time) + period
            return
        }
        let error = Double(time) - nextTick
        // A jump (tempo step, a restarted sender): re-seed the period from the last ticks
        // and lock again, wide.
        if abs(error) > 0.15 * period {
            wild += 1
            if wild >= 2 {
                let span = min(historyCount - 1, 3)
                period = Double(time - history[(historyHead + history.count - 1 - span) % history.count]) / Double(span)
                nextTick = Double(time) + period
                lock = .locking
                calm = 0
                wild = 0
                historyCount = 0
                remember(time)
                return
            }
        } else {
            wild = 0
        }
        let bandwidth = lock == .locked ? MIDIClockFollower.narrowBandwidth : MIDIClockFollower.wideBandwidth
        let w = 2 * Double.pi * bandwidth * period / 1e9
        let b = 2.0.squareRoot() * w
        let c = w * w
        nextTick += period + b * error
        period += c * error
        // Locked once the loop has settled: errors within the jitter a clock has (1 ms)
        // for two beats running.
        if abs(error) < 1_000_000 { calm += 1 } else { calm = 0 }
        if lock == .locking && calm >= 48 { lock = .locked }
        if lock == .locked && calm == 0 && abs(error) > 3_000_000 { lock = .locking }
    }

    private mutating func remember(_ time: Int64) {
        history[historyHead] = time
        historyHead = (historyHead + 1) % history.count
        historyCount = min(historyCount + 1, history.count)
    }
}
