// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Testing
@testable import LinuxHAL

/// The one EINTR rule in its three spellings, and the wake pipe every LinuxHAL thread uses.
@Suite struct EINTRRuleTests {
    @Test func posixCallsAreRetriedWhileTheyFailWithEINTR() {
        var calls = 0
        let result = Syscalls.retryingEINTR { () -> Int32 in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        #expect(result == 7)
        #expect(calls == 3)
        var other = 0
        let failed = Syscalls.retryingEINTR { () -> Int32 in other += 1; errno = EIO; return -1 }
        #expect(failed == -1 && other == 1 && errno == EIO)
    }

    @Test func negativeErrnoCallsAreRetriedOnMinusEINTROnly() {
        var calls = 0
        #expect(Syscalls.retryingNegativeEINTR { calls += 1; return calls < 4 ? -EINTR : -ENXIO } == -ENXIO)
        #expect(calls == 4)
    }

    @Test func returnedErrnoCallsAreRetriedOnEINTROnly() {
        var calls = 0
        #expect(Syscalls.retryingReturnedEINTR { calls += 1; return calls < 2 ? EINTR : 0 } == 0)
        #expect(calls == 2)
    }

    @Test func aWakePipeWakesPollAndDrainsEmpty() throws {
        let pipe = try Syscalls.wakePipe()
        defer { close(pipe.read); close(pipe.write) }
        var descriptors = [pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0)]
        #expect(try Syscalls.poll(&descriptors, timeoutMilliseconds: 0) == 0)
        Syscalls.wake(pipe.write)
        Syscalls.wake(pipe.write)
        #expect(try Syscalls.poll(&descriptors, timeoutMilliseconds: 0) == 1)
        Syscalls.drainWake(pipe.read)
        #expect(try Syscalls.poll(&descriptors, timeoutMilliseconds: 0) == 0)
        // Non-blocking and close-on-exec, so a full pipe never blocks a waker.
        #expect(fcntl(pipe.write, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(pipe.read, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func sleepWaitsAtLeastItsTime() {
        let clock = SystemMonotonicClock()
        let start = clock.now()
        Syscalls.sleep(nanoseconds: 5_000_000)
        #expect(clock.now().nanoseconds(since: start) >= 5_000_000)
    }
}
