// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization

/// The one shape of every LinuxHAL thread that waits on descriptors (GPIO input, the
/// indicator pulses, MIDI in, the control socket): a dedicated thread, a wake pipe in its
/// poll set, and a stop that marks it stopping, wakes it, joins it and closes the pipe.
///
/// The body loops `while !reader.isStopping`, adds `reader.wakeEntry` to what it polls,
/// waits with `Syscalls.poll` (the one EINTR rule), and calls `reader.consumeWake` on the
/// wake pipe's entry. Everything else (what to read, when to stop after draining) is the
/// body's own. Nothing here allocates after `start`, so real-time threads use it too.
final class ReaderThread: @unchecked Sendable {
    let name: String
    private let thread = DedicatedThread()
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let pipe: (read: Int32, write: Int32)

    /// Makes the wake pipe; the thread starts with `start`.
    init(name: String) throws(SystemError) {
        self.name = name
        pipe = try Syscalls.wakePipe()
    }

    deinit {
        stop()
        Syscalls.closeIgnoringErrors(pipe.read)
        Syscalls.closeIgnoringErrors(pipe.write)
    }

    /// Runs `body` on a new thread named `name` (SCHED_FIFO at `fifoPriority` when allowed).
    func start(fifoPriority: Int32? = nil, _ body: @escaping () -> Void) -> Result<DedicatedThread.Scheduling, SystemError> {
        let result = thread.start(name: name, fifoPriority: fifoPriority, body)
        if case .success = result { started.store(true, ordering: .releasing) }
        return result
    }

    /// True once `stop` began: the body finishes what it must (drains queued input) and returns.
    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Wakes the thread out of its poll (a new pulse, a reply to send, a stop).
    func wake() { Syscalls.wake(pipe.write) }

    /// The wake pipe's poll entry, to add to the body's descriptors.
    var wakeEntry: pollfd { pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0) }

    /// True when the wake pipe's entry fired; empties the pipe so the next poll waits again.
    func consumeWake(_ entry: pollfd) -> Bool {
        guard entry.revents != 0 else { return false }
        Syscalls.drainWake(pipe.read)
        return true
    }

    /// Marks the thread stopping, wakes it and waits for it to end (once; later calls return).
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake()
        if started.load(ordering: .acquiring) { thread.join() }
    }
}
