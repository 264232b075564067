// SPDX-License-Identifier: GPL-3.0-or-later
#if !TACTUS_LIBGPIOD2
// libgpiod 1 (v1 API); the libgpiod 2 backend is in the *V2.swift files beside this one.
import CGPIOD
import Glibc
import HAL
import Synchronization

/// The box's input lines: both-edge events with kernel timestamps, read by one thread per
/// GPIO chip (not one per line), which polls every line's event descriptor at once.
public final class LinuxGPIOInputs: InputEventSource, @unchecked Sendable {
    private struct RequestedLine {
        let definition: InputLineDefinition
        let line: OpaquePointer
        let fd: Int32
    }

    private final class ChipGroup: @unchecked Sendable {
        let chip: GPIOChip
        var lines: [RequestedLine] = []
        let thread = DedicatedThread()
        init(chip: GPIOChip) { self.chip = chip }
    }

    private let groups: [ChipGroup]
    private let log: HALLog
    /// Written to wake the poll threads when stopping.
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)
    private let running = Atomic<Bool>(false)

    /// Opens the chips and requests every line now, so wiring errors show at start-up.
    public init(_ definitions: [InputLineDefinition], log: HALLog = .standardError) throws(HALError) {
        self.log = log
        var groups: [ChipGroup] = []
        for definition in definitions {
            let group: ChipGroup
            if let existing = groups.first(where: { $0.chip.label == definition.chipLabel }) {
                group = existing
            } else {
                group = ChipGroup(chip: try GPIOChip.open(label: definition.chipLabel))
                groups.append(group)
            }
            let line = try group.chip.line(definition.line)
            var config = gpiod_line_request_config()
            var flags: Int32 = 0
            switch definition.bias {
            case .pullUp: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
            case .pullDown: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
            case .disabled: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
            case .asIs: break
            }
            // Levels stay electrical here (no ACTIVE_LOW flag): the edge keeps both the raw
            // level and the logical state, and the kernel's inversion rules differ by version.
            let requested = gpioConsumerName.withCString { consumer -> Int32 in
                config.consumer = consumer
                config.request_type = Int32(GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES)
                config.flags = flags
                return gpiod_line_request(line, &config, 0)
            }
            if requested < 0 {
                let code = errno
                groups.forEach { $0.lines.forEach { gpiod_line_release($0.line) } }
                throw group.chip.requestError(code, line: line, selector: definition.line,
                                              purpose: "\(definition.role.rawValue) (input, \(definition.bias.rawValue))")
            }
            group.lines.append(RequestedLine(definition: definition, line: line, fd: gpiod_line_event_get_fd(line)))
        }
        self.groups = groups
    }

    deinit {
        stop()
        for group in groups { for line in group.lines { gpiod_line_release(line.line) } }
    }

    public func currentStates() throws(HALError) -> [InputRole: Bool] {
        var states: [InputRole: Bool] = [:]
        for group in groups {
            for line in group.lines {
                let value = gpiod_line_get_value(line.line)
                guard value >= 0 else {
                    throw HALError(.io, errno: errno, "cannot read GPIO \(line.definition.line) (\(line.definition.role.rawValue)): \(errnoDescription(errno))")
                }
                states[line.definition.role] = (value == 1) != line.definition.activeLow
            }
        }
        return states
    }

    /// Delivery runs (and keeps this object alive) until `stop()`.
    public func start(_ handler: @escaping @Sendable (LineEdge) -> Void) throws(HALError) {
        guard !running.exchange(true, ordering: .relaxed) else { return }
        var fds: [Int32] = [-1, -1]
        guard makeWakePipe(&fds) else {
            running.store(false, ordering: .relaxed)
            throw HALError(.io, errno: errno, "cannot create the GPIO wake-up pipe: \(errnoDescription(errno))")
        }
        wakePipe = (fds[0], fds[1])
        for group in groups {
            let wake = fds[0]
            // SCHED_FIFO when allowed (below the kernel's irq threads at 50, the indicators at 60
            // and audio): the kernel keeps only 16 events per line, and a reader starved by
            // other work let contact bounce overflow it (the newest, settled edge dropped).
            let result = group.thread.start(name: "tactus-gpio-in", fifoPriority: 45) { [self] in
                poll(group, wake: wake, handler: handler)
            }
            if case .failure(let error) = result {
                throw HALError(.io, errno: error.code, "cannot start the GPIO input thread: \(error)")
            }
        }
    }

    public func stop() {
        guard running.exchange(false, ordering: .relaxed) else { return }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
        for group in groups { group.thread.join() }
        close(wakePipe.read)
        close(wakePipe.write)
        wakePipe = (-1, -1)
    }

    /// One thread per chip. libgpiod v1 gives every line its own event queue (fd), so a
    /// wakeup can find edges on several lines, and a line read first may hold edges newer
    /// than another line's not yet read (an encoder's A and B under a stalled reader): each
    /// wakeup drains every line until none has more, then delivers the batch in kernel
    /// timestamp order (`EdgeBatch`). On stop, what is queued is still read and delivered.
    private func poll(_ group: ChipGroup, wake: Int32, handler: @Sendable (LineEdge) -> Void) {
        var descriptors = group.lines.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
        var events = [gpiod_line_event](repeating: gpiod_line_event(), count: 16)
        var batch = EdgeBatch()
        var reportedFailure = false
        /// Lines whose kernel queue may have overflowed (a read returned it full).
        var mayHaveOverflowed = [Bool](repeating: false, count: group.lines.count)
        var stopping = false
        while !stopping {
            let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                log.error("GPIO input poll on '\(group.chip.label)' failed: \(errnoDescription(errno)); inputs stop")
                return
            }
            // Drain: read every ready line, then look again without waiting, until a look
            // finds nothing (bounded: a line chattering without end cannot hold delivery).
            for _ in 0..<64 {
                if descriptors[descriptors.count - 1].revents != 0 { stopping = true }
                var readAny = false
                for (index, line) in group.lines.enumerated() where descriptors[index].revents & Int16(POLLIN) != 0 {
                    // Several edges may be queued (switch bounce, a fast encoder turn): read them all.
                    let count = gpiod_line_event_read_multiple(line.line, &events, UInt32(events.count))
                    if count < 0 {
                        if !reportedFailure {
                            log.error("reading GPIO events of \(line.definition.role.rawValue) failed: \(errnoDescription(errno))")
                            reportedFailure = true
                        }
                        continue
                    }
                    readAny = readAny || count > 0
                    if Int(count) == events.count { mayHaveOverflowed[index] = true }
                    // The kernel stamps v1 line events with CLOCK_MONOTONIC since Linux 5.7 (every
                    // bookworm kernel), the clock the rest of Tactus uses.
                    for event in events[0..<Int(count)] {
                        let level = event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE)
                        batch.append(LineEdge(role: line.definition.role, level: level, isActive: level != line.definition.activeLow,
                                              timestamp: MonotonicInstant(nanoseconds: timespecNanoseconds(event.ts))))
                    }
                }
                guard readAny, Glibc.poll(&descriptors, nfds_t(descriptors.count), 0) > 0 else { break }
            }
            // A full queue drops the newest edges, so the last one delivered may not be the
            // line's level now: when it differs, an edge to the level read now follows.
            for (index, line) in group.lines.enumerated() where mayHaveOverflowed[index] {
                mayHaveOverflowed[index] = false
                let value = gpiod_line_get_value(line.line)
                guard value >= 0, let last = batch.lastLevel(of: line.definition.role), last != (value == 1) else { continue }
                let level = value == 1
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                batch.append(LineEdge(role: line.definition.role, level: level, isActive: level != line.definition.activeLow,
                                      timestamp: MonotonicInstant(nanoseconds: timespecNanoseconds(now))))
            }
            batch.deliver(to: handler)
        }
    }
}
#endif
