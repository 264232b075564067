// SPDX-License-Identifier: GPL-3.0-or-later
import CLinuxShim
import Glibc
import Synchronization

/// The file system calls Tactus makes, in the spirit of swift-system: each returns its
/// result or throws one `SystemError` carrying errno, EINTR is retried in one place, and a
/// test can make any call fail (`fault`) to prove that no failure loses a file.
///
/// Values, not globals: a test passes its own `Syscalls` with a fault to the code under
/// test, so tests running in parallel never see each other's faults.
public struct Syscalls: Sendable {
    public enum Operation: String, Sendable, CaseIterable {
        case open, read, write, fsync, close, rename, unlink, openFolder, fsyncFolder, fstat, fchmod, lock
    }

    /// Called before each call; returning an errno makes the call fail with it instead.
    public var fault: (@Sendable (Operation, String) -> Int32?)?

    public init(fault: (@Sendable (Operation, String) -> Int32?)? = nil) { self.fault = fault }

    /// The real calls, no faults.
    public static let live = Syscalls()

    /// Fails the `nth` call (from 1) of `operation` with `code`, once (fault injection for
    /// the tests of everything that writes files).
    /// (`code` nil: EIO. Not a default argument: a release build resolves EIO there through
    /// CALSA, which this file does not import, and refuses it.)
    public static func failing(_ operation: Operation, nth: Int = 1, errno code: Int32? = nil) -> Syscalls {
        let code = code ?? EIO
        let count = Mutex(0)
        return Syscalls { op, _ in
            guard op == operation else { return nil }
            let n = count.withLock { $0 += 1; return $0 }
            return n == nth ? code : nil
        }
    }

    // The one EINTR rule, for every system call in LinuxHAL: a call a signal interrupted
    // before it did anything runs again, at once (close excepted: on Linux the descriptor is
    // gone either way; ALSA's calls excepted: snd_pcm_recover handles their -EINTR). C
    // reports failure three ways, so the rule has three spellings; none allocates, so the
    // real-time threads use them too.

    /// Runs `call` again while it fails with -1 and errno EINTR (POSIX calls).
    @inline(__always)
    public static func retryingEINTR<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// Runs `call` again while it returns -EINTR (libi2c's SMBus calls return -errno).
    @inline(__always)
    public static func retryingNegativeEINTR(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result == -EINTR { continue }
            return result
        }
    }

    /// Runs `call` again while it returns EINTR (clock_nanosleep returns the errno itself).
    @inline(__always)
    public static func retryingReturnedEINTR(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result == EINTR { continue }
            return result
        }
    }

    /// A non-blocking, close-on-exec pipe that wakes a thread out of poll() (pipe2 is not
    /// imported).
    public static func wakePipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { throw SystemError(errno, "pipe") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return (fds[0], fds[1])
    }

    /// Writes one byte to a wake pipe; a full pipe already wakes its reader, so that is no error.
    public static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = retryingEINTR { Glibc.write(fd, &byte, 1) }
    }

    /// Empties a wake pipe (non-blocking) so the next poll waits again.
    public static func drainWake(_ fd: Int32) {
        var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        _ = withUnsafeMutableBytes(of: &bytes) { buffer in retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) } }
    }

    /// poll(2): descriptors ready, 0 on timeout. Retried on EINTR (the timeout starts again,
    /// which only ever waits 0 or forever here).
    public static func poll(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        let ready = descriptors.withUnsafeMutableBufferPointer { buffer in
            retryingEINTR { Glibc.poll(buffer.baseAddress, nfds_t(buffer.count), timeoutMilliseconds) }
        }
        guard ready >= 0 else { throw SystemError(errno, "poll") }
        return Int(ready)
    }

    /// poll(2) (ppoll) with a timeout in nanoseconds (negative: forever): descriptors ready,
    /// 0 on timeout. A signal (EINTR) also returns 0: the callers' loops work out their wait
    /// again from the clock, so the rule needs no remaining-time bookkeeping here.
    public static func poll(_ descriptors: inout [pollfd], timeoutNanoseconds: Int64) throws(SystemError) -> Int {
        let ready = descriptors.withUnsafeMutableBufferPointer { buffer in
            tactus_poll_nanoseconds(buffer.baseAddress, UInt(buffer.count), timeoutNanoseconds)
        }
        if ready < 0 && errno == EINTR { return 0 }
        guard ready >= 0 else { throw SystemError(errno, "poll") }
        return Int(ready)
    }

    /// The one read of CLOCK_MONOTONIC in LinuxHAL (nanoseconds): the clock of GPIO edge
    /// stamps, ALSA positions, MIDI stamps and every deadline.
    @inline(__always)
    public static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// close(2) where nothing can be done about a failure (a pipe, a socket being dropped):
    /// on Linux the descriptor is gone either way, so EINTR is not retried.
    public static func closeIgnoringErrors(_ fd: Int32) {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
    }

    /// Sleeps on CLOCK_MONOTONIC until `deadline` (absolute, nanoseconds), resuming after signals.
    public static func sleep(untilNanoseconds deadline: Int64) {
        var wake = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        _ = retryingReturnedEINTR { clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nil) }
    }

    /// Sleeps `nanoseconds` on CLOCK_MONOTONIC, resuming after signals.
    public static func sleep(nanoseconds: Int64) {
        sleep(untilNanoseconds: monotonicNanoseconds() + nanoseconds)
    }

    private func injected(_ operation: Operation, _ path: String, as name: String) throws(SystemError) {
        if let code = fault?(operation, path) { throw SystemError(name, path, errno: code) }
    }

    public func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(SystemError) -> Int32 {
        let name = flags & O_CREAT != 0 ? "create" : "open"
        try injected(.open, path, as: name)
        let fd = Syscalls.retryingEINTR { Glibc.open(path, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw SystemError(name, path, errno: errno) }
        return fd
    }

    /// Reads up to `count` bytes into `buffer`; 0 at the end of the file.
    public func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(SystemError) -> Int {
        try injected(.read, path, as: "read")
        let n = Syscalls.retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        guard n >= 0 else { throw SystemError("read", path, errno: errno) }
        return n
    }

    /// Writes all of `bytes` (short writes continue where they stopped).
    public func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(SystemError) {
        try injected(.write, path, as: "write")
        var done = 0
        while done < bytes.count {
            let n = Syscalls.retryingEINTR { Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done) }
            guard n >= 0 else { throw SystemError("write", path, errno: errno) }
            done += n
        }
    }

    /// Writes all of `bytes` at `offset` without moving the file position.
    public func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws(SystemError) {
        try injected(.write, path, as: "write")
        var done = 0
        while done < bytes.count {
            let n = Syscalls.retryingEINTR { pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
            guard n >= 0 else { throw SystemError("write", path, errno: errno) }
            done += n
        }
    }

    public func fsync(_ fd: Int32, path: String) throws(SystemError) {
        try injected(.fsync, path, as: "fsync")
        guard Syscalls.retryingEINTR({ Glibc.fsync(fd) }) == 0 else { throw SystemError("fsync", path, errno: errno) }
    }

    /// Closes `fd`. Not retried on EINTR: on Linux the descriptor is gone either way.
    public func close(_ fd: Int32, path: String) throws(SystemError) {
        if let code = fault?(.close, path) {
            _ = Glibc.close(fd)
            throw SystemError("close", path, errno: code)
        }
        guard Glibc.close(fd) == 0 else { throw SystemError("close", path, errno: errno) }
    }

    public func rename(_ from: String, to: String) throws(SystemError) {
        try injected(.rename, to, as: "rename \(from) to")
        guard Syscalls.retryingEINTR({ Glibc.rename(from, to) }) == 0 else {
            throw SystemError("rename \(from) to", to, errno: errno)
        }
    }

    public func unlink(_ path: String) throws(SystemError) {
        try injected(.unlink, path, as: "remove")
        guard Glibc.unlink(path) == 0 else { throw SystemError("remove", path, errno: errno) }
    }

    public func fstat(_ fd: Int32, path: String) throws(SystemError) -> stat {
        try injected(.fstat, path, as: "stat")
        var info = stat()
        guard Glibc.fstat(fd, &info) == 0 else { throw SystemError("stat", path, errno: errno) }
        return info
    }

    public func fchmod(_ fd: Int32, _ mode: mode_t, path: String) throws(SystemError) {
        try injected(.fchmod, path, as: "set the permissions of")
        guard Syscalls.retryingEINTR({ Glibc.fchmod(fd, mode) }) == 0 else {
            throw SystemError("set the permissions of", path, errno: errno)
        }
    }

    /// fsync of a folder, which makes a rename or a new name in it durable.
    public func syncFolder(_ folder: String) throws(SystemError) {
        try injected(.openFolder, folder, as: "open folder")
        let fd = Syscalls.retryingEINTR { Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError("open folder", folder, errno: errno) }
        defer { _ = Glibc.close(fd) }
        try injected(.fsyncFolder, folder, as: "fsync folder")
        guard Syscalls.retryingEINTR({ Glibc.fsync(fd) }) == 0 else { throw SystemError("fsync folder", folder, errno: errno) }
    }

    /// An exclusive, non-blocking flock on `fd`; false when another process holds it.
    public func tryLock(_ fd: Int32, path: String) throws(SystemError) -> Bool {
        try injected(.lock, path, as: "lock")
        if Syscalls.retryingEINTR({ flock(fd, LOCK_EX | LOCK_NB) }) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw SystemError("lock", path, errno: errno)
    }
}

/// What kind of file a `stat` describes, for messages ("a FIFO", "a folder").
public enum FileKind: Sendable, Hashable {
    case regular, directory, fifo, characterDevice, blockDevice, socket, symbolicLink, other

    public init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        case S_IFLNK: self = .symbolicLink
        default: self = .other
        }
    }

    public var name: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a folder"
        case .fifo: "a FIFO (named pipe)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .symbolicLink: "a symbolic link"
        case .other: "not a regular file"
        }
    }
}
