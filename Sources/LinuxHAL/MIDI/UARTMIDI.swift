// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import HAL
import Synchronization
import TactusBase
import MIDIWire

/// DIN MIDI on a serial port (`[midi] uart = "/dev/ttyAMA0"`): raw bytes on a tty. MIDI runs
/// at 31 250 baud, which is no standard termios rate: on a Raspberry Pi the `midi-uart0`
/// overlay (`dtoverlay=midi-uart0` in config.txt) sets UART0's clock so that a requested
/// 38 400 baud is really 31 250, so the port is opened at B38400 (raw, 8N1, no flow
/// control). Output is written by the MIDI clock thread without blocking (a full transmit
/// buffer drops the message and counts it); input is read on its own thread and parsed with
/// `MIDIParser` (running status, real-time bytes anywhere, SysEx), each message stamped
/// with the time its bytes were read (a tty has no kernel stamps; one byte is 320 µs).
public final class UARTMIDI: MIDIPort, @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let log: HALLog
    private let writeFailures = Atomic<Int>(0)
    /// The input thread while started (start and stop come from one thread).
    private var reader: ReaderThread?

    /// Opens and configures the tty; errors name the device and what to check.
    public init(path: String, log: HALLog) throws(HALError) {
        self.path = path
        self.log = log
        let opened = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else {
            let code = errno
            let kind: HALError.Kind = code == ENOENT || code == ENODEV ? .deviceMissing : code == EACCES || code == EPERM ? .permissionDenied : code == EBUSY ? .busy : .io
            throw HALError(kind, errno: code, "cannot open the MIDI UART \(path): \(errnoDescription(code)) (dtoverlay=midi-uart0 in config.txt, the service in group dialout)")
        }
        var settings = termios()
        guard tcgetattr(opened, &settings) == 0 else {
            let code = errno
            close(opened)
            throw HALError(.unsupported, errno: code, "\(path) is not a serial port: \(errnoDescription(code))")
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        settings.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        // Read returns as soon as one byte is there.
        settings.c_cc.6 = 1 // VMIN
        settings.c_cc.5 = 0 // VTIME
        cfsetispeed(&settings, speed_t(B38400))
        cfsetospeed(&settings, speed_t(B38400))
        guard tcsetattr(opened, TCSANOW, &settings) == 0 else {
            let code = errno
            close(opened)
            throw HALError(.unsupported, errno: code, "cannot set \(path) to raw 38400 baud (31250 with midi-uart0): \(errnoDescription(code))")
        }
        fd = opened
    }

    deinit {
        stop()
        close(fd)
    }

    /// One write(2) of the message's bytes, never blocking (MIDI clock thread).
    public func sendNow(_ message: MIDIMessage) {
        let b = message.bytes
        // Three bytes in one integer on the stack (little-endian: first byte first).
        var packed = UInt32(b.0) | UInt32(b.1) << 8 | UInt32(b.2) << 16
        let written = write(fd, &packed, b.count)
        if written != b.count { writeFailures.add(1, ordering: .relaxed) }
    }

    /// Messages not (wholly) written: the transmit buffer was full or the device failed.
    public var failedWrites: Int { writeFailures.load(ordering: .relaxed) }

    /// Reads and parses input on its own thread until `stop()`.
    public func start(_ handler: @escaping @Sendable (MIDIMessage, Int64) -> Void) throws(HALError) {
        guard reader == nil else { return }
        let reader: ReaderThread
        do {
            reader = try ReaderThread(name: "tactus-uart-in")
        } catch {
            throw HALError(.io, error, "cannot create the UART wake-up pipe: \(errnoDescription(error.errno))")
        }
        self.reader = reader
        let result = reader.start { [self] in readInput(reader, handler) }
        if case .failure(let error) = result {
            self.reader = nil
            throw HALError(.io, errno: error.code, "cannot start the UART input thread: \(error)")
        }
        log.info("MIDI: DIN on \(path) (31250 baud through midi-uart0)")
    }

    public func stop() {
        reader?.stop()
        reader = nil
    }

    private func readInput(_ reader: ReaderThread, _ handler: @Sendable (MIDIMessage, Int64) -> Void) {
        var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), reader.wakeEntry]
        var buffer = [UInt8](repeating: 0, count: 256)
        var parser = MIDIParser()
        var reportedFailure = false
        while !reader.isStopping {
            guard (try? Syscalls.poll(&descriptors, timeoutMilliseconds: -1)) != nil else { break }
            _ = reader.consumeWake(descriptors[1])
            guard descriptors[0].revents != 0 else { continue }
            if descriptors[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && descriptors[0].revents & Int16(POLLIN) == 0 {
                if !reportedFailure { log.error("MIDI: \(path) failed; DIN input stopped") }
                reportedFailure = true
                break
            }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { continue }
            let time = Syscalls.monotonicNanoseconds()
            for byte in buffer.prefix(count) {
                if let message = parser.feed(byte) { handler(message, time) }
            }
        }
    }
}
