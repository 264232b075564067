// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization
import TactusApp
import TactusSimulation

/// Set by SIGTERM or SIGINT during a real-time simulation (a signal handler may only store).
private let stopRequested = Atomic<Int64>(0)

/// `simulate --headless --realtime`: each simulated moment waits for the same moment on
/// CLOCK_MONOTONIC, counted from the start of the run; SIGTERM or SIGINT end the run where
/// it is, as the script's `end` would (everything is still written).
final class RealtimePacer: SimulationPacer {
    private(set) var originNanoseconds: Int64

    init() {
        originNanoseconds = Self.monotonicNanoseconds()
        stopRequested.store(0, ordering: .relaxed)
        let handler: @convention(c) (Int32) -> Void = { _ in
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            stopRequested.store(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), ordering: .relaxed)
        }
        signal(SIGTERM, handler)
        signal(SIGINT, handler)
    }

    func begin() { originNanoseconds = Self.monotonicNanoseconds() }

    static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// How far behind the real clock a step started, at worst (a loaded machine): the
    /// simulated times then run late, which the command reports.
    private(set) var worstLateness: Int64 = 0

    func wait(until nanoseconds: Int64) -> Int64? {
        let deadline = originNanoseconds + nanoseconds
        worstLateness = max(worstLateness, Self.monotonicNanoseconds() - deadline)
        var wake = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while true {
            let stoppedAt = stopRequested.load(ordering: .relaxed)
            if stoppedAt != 0 { return stoppedAt - originNanoseconds }
            // EINTR: a signal (perhaps ours) arrived; look again. Another thread may take the
            // signal instead, so a period's wait is the longest an end is noticed late.
            guard clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nil) == EINTR else { break }
        }
        let stoppedAt = stopRequested.load(ordering: .relaxed)
        return stoppedAt != 0 ? stoppedAt - originNanoseconds : nil
    }
}
