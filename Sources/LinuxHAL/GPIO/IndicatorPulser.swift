// SPDX-License-Identifier: GPL-3.0-or-later
import CLinuxShim
import Glibc
import HAL
import Synchronization
import TactusBase

/// Turns scheduled pulses into line changes at their instants, on one timing thread that sleeps
/// until the next change (or a new pulse). The lines themselves are behind `setLevel`, so the
/// same timing serves GPIO LEDs, the buzzer, and tests.
public final class IndicatorPulser: IndicatorOutput, @unchecked Sendable {
    private let timeline = Mutex(PulseTimeline())
    private let setLevel: @Sendable (IndicatorChannel, Bool) -> Void
    private let clock = SystemMonotonicClock()
    private let reader: ReaderThread

    /// `setLevel` is called only from the timing thread, with logical levels (true = on).
    /// The thread asks for SCHED_FIFO `realtimePriority` (below the audio thread's) so a beat
    /// LED lights when the click is heard, and runs at normal priority when refused.
    public init(realtimePriority: Int32? = 60, setLevel: @escaping @Sendable (IndicatorChannel, Bool) -> Void) throws(HALError) {
        self.setLevel = setLevel
        do {
            reader = try ReaderThread(name: "tactus-pulses")
        } catch {
            throw HALError(.io, error, "cannot create the indicator wake-up pipe: \(errnoDescription(error.errno))")
        }
        let result = reader.start(fifoPriority: realtimePriority) { [self] in run() }
        if case .failure(let error) = result {
            throw HALError(.io, errno: error.code, "cannot start the indicator thread: \(error)")
        }
    }

    deinit { shutDown() }

    public func pulse(_ indicator: IndicatorChannel, at start: MonotonicTime, lastingNanoseconds nanoseconds: Int64) {
        timeline.withLock { $0.add(indicator, start: start, lastingNanoseconds: nanoseconds) }
        wake()
    }

    public func set(_ indicator: IndicatorChannel, on: Bool) {
        timeline.withLock { $0.hold(indicator, on: on) }
        wake()
    }

    /// Stops the timing thread and turns every indicator off.
    public func shutDown() {
        reader.stop()
    }

    private func wake() { reader.wake() }

    private func run() {
        // Pulses of a millisecond need wake-ups more precise than the default 50 µs slack.
        _ = tactus_set_timer_slack(10_000)
        var levels: [IndicatorChannel: Bool] = [:]
        var descriptors = [reader.wakeEntry]
        while !reader.isStopping {
            let now = clock.now()
            let (wanted, next) = timeline.withLock { timeline -> ([IndicatorChannel: Bool], MonotonicTime?) in
                timeline.removeFinished(before: now)
                var wanted: [IndicatorChannel: Bool] = [:]
                for indicator in IndicatorChannel.allCases { wanted[indicator] = timeline.isOn(indicator, at: now) }
                return (wanted, timeline.nextChange(after: now))
            }
            for indicator in IndicatorChannel.allCases where levels[indicator] != wanted[indicator] {
                setLevel(indicator, wanted[indicator] ?? false)
                levels[indicator] = wanted[indicator]
            }
            let wait = next.map { max(0, $0.nanoseconds(since: clock.now())) } ?? -1
            // A signal returns as a timeout: the wait is worked out again from the clock.
            if (try? Syscalls.poll(&descriptors, timeoutNanoseconds: wait)) ?? 0 > 0 { _ = reader.consumeWake(descriptors[0]) }
        }
        for indicator in IndicatorChannel.allCases where levels[indicator] == true { setLevel(indicator, false) }
    }
}
