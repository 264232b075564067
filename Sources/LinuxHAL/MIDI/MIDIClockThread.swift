// SPDX-License-Identifier: GPL-3.0-or-later
import CLinuxShim
import Glibc
import HAL
import Synchronization
import TactusBase
import MIDIWire

/// Somewhere the MIDI clock thread sends bytes to at once: the sequencer port, the UART.
public protocol MIDIPort: AnyObject, Sendable {
    /// Sends `message` now. Called only on the MIDI clock thread: it must not allocate,
    /// lock or log (a failure is counted, not reported, here).
    func sendNow(_ message: MIDIMessage)
}

/// One message and the CLOCK_MONOTONIC instant it is to leave.
public struct TimedMIDIMessage: BitwiseCopyable, Sendable {
    public var deadline: Int64
    public var message: MIDIMessage

    public init(deadline: Int64, message: MIDIMessage) {
        self.deadline = deadline
        self.message = message
    }
}

/// Where the clock thread takes its messages itself (`tactus run`: the engine's MIDI ring,
/// each message's deadline when its sample is heard), so no other thread stands between the
/// render thread and the wire. `next` is called on the clock thread only and must not
/// allocate, lock or log; nil when there is nothing yet.
public final class MIDIClockFeed: Sendable {
    let next: @Sendable () -> TimedMIDIMessage?

    public init(_ next: @escaping @Sendable () -> TimedMIDIMessage?) { self.next = next }
}

/// The MIDI clock thread: messages handed over by one producer (the control thread) through
/// a preallocated lock-free ring, each sent to every wire at its absolute deadline
/// (`clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`), direct, never through a kernel
/// queue. SCHED_FIFO when the process may (below the render thread's 70, above the
/// indicators' 60), else normal priority with a 10 µs timer slack.
///
/// It sleeps to `earlyWake` before each deadline and finishes with a short busy wait on the
/// vDSO clock: on a kernel without full preemption (`preempt=none`, as on this build machine
/// and many distribution kernels) a wakeup waits for whatever another process is doing in
/// the kernel on that core, now and then for milliseconds; a thread that is already awake
/// and running at the deadline does not (see `make bench`). The thread's loop never
/// allocates, locks or logs (Tests/LinuxHALTests/MIDIClockThreadTests audits it): when the
/// ring is empty it waits on a pipe the producer writes one byte to.
public final class MIDIClockThread: @unchecked Sendable {
    /// What the thread runs at (for the log and `make bench`).
    public enum Priority: Sendable, Equatable {
        case realtime(Int32)
        case normal(reason: String)
    }

    public static let defaultPriority: Int32 = 65
    /// How long before a deadline the thread wakes (then waits on the clock): above the
    /// p99.9 of this machine's wakeup latency with both cores busy, 0.07-0.18 ms (`make
    /// bench`). At 120 BPM (48 clocks a second) the wait costs under 2.5 % of one core.
    public static let defaultEarlyWakeNanoseconds: Int64 = 500_000

    private let ring: SPSCRing<TimedMIDIMessage>
    /// A plain buffer, walked by index: iterating a Swift array of existentials allocates
    /// (the audit caught it in debug builds).
    private let wires: UnsafeMutablePointer<any MIDIPort>
    private let wireCount: Int
    /// The consumer is (about to be) waiting on the wake pipe: the producer wakes it.
    private let idle = Atomic<Bool>(false)
    private let reader: ReaderThread
    private let sentCount = Atomic<Int>(0)
    private let worstLateness = Atomic<Int64>(0)
    /// Lateness of the first `latenessCapacity` messages (nanoseconds after the deadline
    /// when the thread woke), for `make bench` and tests; preallocated.
    private let lateness: UnsafeMutablePointer<Int64>
    private let latenessCapacity: Int
    private let latenessCount = Atomic<Int>(0)
    /// The same for the wakeups out of the sleep (against the deadline, so negative when
    /// the thread woke early as asked): what the busy wait made up for.
    private let wakeLateness: UnsafeMutablePointer<Int64>
    private let earlyWake: Int64
    /// Set once (`take(from:)`); read on the clock thread without a lock.
    private let feed = AtomicLazyReference<MIDIClockFeed>()
    /// Lateness histogram of every message sent, in 10 us bins up to 10 ms (the last bin
    /// holds the rest): written by the clock thread only, read at the end (`latenessSummary`).
    private let histogram: UnsafeMutablePointer<Int>
    static let histogramBins = 1001
    public private(set) var priority: Priority = .normal(reason: "not started")

    /// `capacity`: messages in flight (the render thread places them at most one buffer,
    /// a few ms, ahead; clocks come at most 960 a second at 600 BPM).
    public init(wires: [any MIDIPort], realtimePriority: Int32? = MIDIClockThread.defaultPriority,
                capacity: Int = 1024, recordLateness: Int = 0,
                earlyWakeNanoseconds: Int64 = MIDIClockThread.defaultEarlyWakeNanoseconds) throws(HALError) {
        earlyWake = max(earlyWakeNanoseconds, 0)
        wireCount = wires.count
        self.wires = .allocate(capacity: max(wires.count, 1))
        self.wires.initialize(from: wires, count: wires.count)
        ring = SPSCRing(minimumCapacity: capacity)
        latenessCapacity = recordLateness
        lateness = .allocate(capacity: max(recordLateness, 1))
        wakeLateness = .allocate(capacity: max(recordLateness, 1))
        histogram = .allocate(capacity: Self.histogramBins)
        histogram.initialize(repeating: 0, count: Self.histogramBins)
        do {
            reader = try ReaderThread(name: "tactus-midi")
        } catch {
            lateness.deallocate()
            wakeLateness.deallocate()
            histogram.deallocate()
            self.wires.deinitialize(count: wireCount)
            self.wires.deallocate()
            throw HALError(.io, error, "cannot create the MIDI wake-up pipe: \(errnoDescription(error.errno))")
        }
        switch reader.start(fifoPriority: realtimePriority, { [self] in run() }) {
        case .success(.fifo(let p)): priority = .realtime(p)
        case .success(.normalBecauseDenied(let code)): priority = .normal(reason: "SCHED_FIFO \(realtimePriority ?? 0) refused: \(errnoDescription(code))")
        case .success(.normal): priority = .normal(reason: "no real-time priority asked")
        case .failure(let error):
            // Fully initialized: deinit closes the pipe and frees the buffers.
            throw HALError(.io, errno: error.code, "cannot start the MIDI thread: \(error)")
        }
    }

    deinit {
        stop()
        lateness.deallocate()
        wakeLateness.deallocate()
        histogram.deallocate()
        wires.deinitialize(count: wireCount)
        wires.deallocate()
    }

    /// Producer side (one thread: the control thread). False when the ring is full (the
    /// message is dropped and counted by the ring).
    @discardableResult
    public func schedule(_ message: MIDIMessage, atNanoseconds deadline: Int64) -> Bool {
        guard ring.push(TimedMIDIMessage(deadline: deadline, message: message)) else { return false }
        if idle.load(ordering: .sequentiallyConsistent) { reader.wake() }
        return true
    }

    /// Messages sent so far, and the latest wakeup after a deadline (nanoseconds).
    public var sent: Int { sentCount.load(ordering: .relaxed) }
    public var worstLatenessNanoseconds: Int64 { worstLateness.load(ordering: .relaxed) }
    /// Messages refused because the ring was full.
    public var dropped: Int { ring.refusedCount }

    /// The lateness recorded so far (at most `recordLateness` values), in nanoseconds.
    public func recordedLateness() -> [Int64] {
        let count = min(latenessCount.load(ordering: .acquiring), latenessCapacity)
        return Array(UnsafeBufferPointer(start: lateness, count: count))
    }

    /// When the thread woke out of its sleep for each recorded message, against the
    /// deadline (nanoseconds; about -`earlyWakeNanoseconds` when on time).
    public func recordedWakeLateness() -> [Int64] {
        let count = min(latenessCount.load(ordering: .acquiring), latenessCapacity)
        return Array(UnsafeBufferPointer(start: wakeLateness, count: count))
    }

    /// From now on the thread also takes messages from `source` itself, looking every
    /// `feedPollNanoseconds` while it has none (the render thread places them a buffer
    /// ahead, 8 ms on a Pi). Set once; later calls are ignored.
    public func take(from source: MIDIClockFeed) {
        _ = feed.storeIfNil(source)
        reader.wake()
    }

    /// How often an idle thread looks at its feed (poll's timeout, whole milliseconds).
    public static let feedPollMilliseconds: Int32 = 2

    /// The lateness of every message sent so far (after `stop()`): count, p50, p99, p99.9
    /// (to the 10 us bin's upper edge) and worst, in microseconds.
    public func latenessSummary() -> (count: Int, p50: Int, p99: Int, p999: Int, worst: Int) {
        var total = 0
        for i in 0..<Self.histogramBins { total += histogram[i] }
        func percentile(_ p: Double) -> Int {
            guard total > 0 else { return 0 }
            let rank = Int((p * Double(total)).rounded(.up))
            var seen = 0
            for i in 0..<Self.histogramBins {
                seen += histogram[i]
                if seen >= rank { return (i + 1) * 10 }
            }
            return Self.histogramBins * 10
        }
        return (total, percentile(0.5), percentile(0.99), percentile(0.999), Int(worstLatenessNanoseconds / 1000))
    }

    /// Ends the thread (messages still in the ring are not sent) and waits for it.
    public func stop() { reader.stop() }

    private func run() {
        _ = tactus_set_timer_slack(10_000)
        var descriptors = [reader.wakeEntry]
        while !reader.isStopping {
            let source = feed.load()
            var popped = ring.pop() ?? source?.next()
            if popped == nil {
                // Announce the wait, then look once more: a push before the announcement is
                // seen here, one after it writes to the pipe. A feed is looked at again
                // after a short wait (nobody writes to the pipe for it).
                idle.store(true, ordering: .sequentiallyConsistent)
                popped = ring.pop()
                if popped == nil {
                    _ = try? Syscalls.poll(&descriptors, timeoutMilliseconds: source == nil ? 100 : Self.feedPollMilliseconds)
                    _ = reader.consumeWake(descriptors[0])
                }
                idle.store(false, ordering: .sequentiallyConsistent)
            }
            guard let next = popped else { continue }
            let wakeAt = next.deadline - earlyWake
            Syscalls.sleep(untilNanoseconds: wakeAt)
            let woke = Syscalls.monotonicNanoseconds()
            var current = woke
            // The rest on the clock (vDSO, no system call): the thread stays on its core.
            while current < next.deadline { current = Syscalls.monotonicNanoseconds() }
            let late = current - next.deadline
            var w = 0
            while w < wireCount {
                wires[w].sendNow(next.message)
                w += 1
            }
            let n = sentCount.add(1, ordering: .relaxed).oldValue
            if n < latenessCapacity {
                lateness[n] = late
                wakeLateness[n] = woke - next.deadline
                latenessCount.store(n + 1, ordering: .releasing)
            }
            if late > worstLateness.load(ordering: .relaxed) { worstLateness.store(late, ordering: .relaxed) }
            histogram[min(Int(max(late, 0) / 10_000), Self.histogramBins - 1)] += 1
        }
    }
}
