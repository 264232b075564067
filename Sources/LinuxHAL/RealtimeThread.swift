// SPDX-License-Identifier: GPL-3.0-or-later
import CLinuxShim
import Glibc

/// A dedicated pthread (never the Swift concurrency pool, which is only as wide as the CPU count),
/// SCHED_FIFO when the process may, otherwise normal priority and the reason why.
final class DedicatedThread: @unchecked Sendable {
    /// Written once by `start` before anyone joins; joined once by the owner.
    private var thread = pthread_t()
    private var started = false

    /// Outcome of asking for real-time priority.
    enum Scheduling: Equatable {
        case fifo(priority: Int32)
        case normal
        case normalBecauseDenied(errno: Int32)
    }

    private final class Box {
        let name: String
        let body: () -> Void
        init(_ name: String, _ body: @escaping () -> Void) {
            self.name = String(decoding: name.utf8.prefix(15), as: UTF8.self)
            self.body = body
        }
    }

    /// Starts `body` on a new thread. With a priority, asks for SCHED_FIFO first and falls back
    /// to an ordinary thread when refused (EPERM without CAP_SYS_NICE or an RTPRIO limit).
    func start(name: String, fifoPriority: Int32?, _ body: @escaping () -> Void) -> Result<Scheduling, SystemError> {
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            // Named from inside: thread names show in `top -H` and `ps -L`.
            _ = tactus_name_current_thread(box.name)
            box.body()
            return nil
        }
        var denied: Int32?
        if let priority = fifoPriority {
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setinheritsched(&attributes, Int32(PTHREAD_EXPLICIT_SCHED))
            pthread_attr_setschedpolicy(&attributes, SCHED_FIFO)
            var parameters = sched_param(sched_priority: priority)
            pthread_attr_setschedparam(&attributes, &parameters)
            let context = Unmanaged.passRetained(Box(name, body)).toOpaque()
            let result = pthread_create(&thread, &attributes, entry, context)
            if result == 0 {
                started = true
                return .success(.fifo(priority: priority))
            }
            Unmanaged<Box>.fromOpaque(context).release()
            denied = result
        }
        let context = Unmanaged.passRetained(Box(name, body)).toOpaque()
        let result = pthread_create(&thread, nil, entry, context)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return .failure(SystemError(result, "pthread_create"))
        }
        started = true
        return .success(denied.map { .normalBecauseDenied(errno: $0) } ?? .normal)
    }

    func join() {
        guard started else { return }
        started = false
        pthread_join(thread, nil)
    }
}

/// Locks the process's memory so the audio path never waits for a page fault; nil on
/// success, else the errno (EPERM/ENOMEM without CAP_IPC_LOCK or a large RLIMIT_MEMLOCK).
func lockAllMemory() -> Int32? {
    mlockall(MCL_CURRENT | MCL_FUTURE) == 0 ? nil : errno
}
