// SPDX-License-Identifier: GPL-3.0-or-later
#if TACTUS_LIBGPIOD2
import CGPIOD
import Glibc
import HAL
import Synchronization

/// The box's input lines through libgpiod 2: one line request per chip for all its input
/// lines, so the kernel keeps one event queue for them, in the order the edges happened,
/// with CLOCK_MONOTONIC timestamps and per-line sequence numbers. One thread reads every
/// chip's queue (one chip on every supported board).
public final class LinuxGPIOInputs: InputEventSource, @unchecked Sendable {
    private final class ChipRequest: @unchecked Sendable {
        let chip: GPIOChip
        let request: OpaquePointer
        let fd: Int32
        /// Definitions by offset: the kernel's events name the line by offset.
        let lines: [UInt32: InputLineDefinition]
        init(chip: GPIOChip, request: OpaquePointer, lines: [UInt32: InputLineDefinition]) {
            self.chip = chip
            self.request = request
            self.fd = gpiod_line_request_get_fd(request)
            self.lines = lines
        }
        deinit { gpiod_line_request_release(request) }
    }

    private let requests: [ChipRequest]
    private let log: HALLog
    private let thread = DedicatedThread()
    /// Written to wake the reader thread when stopping.
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)
    private let running = Atomic<Bool>(false)

    /// Opens the chips and requests every line now, so wiring errors show at start-up.
    public init(_ definitions: [InputLineDefinition], log: HALLog = .standardError) throws(HALError) {
        self.log = log
        var chipLabels: [String] = []
        for definition in definitions where !chipLabels.contains(definition.chipLabel) { chipLabels.append(definition.chipLabel) }
        var requests: [ChipRequest] = []
        for label in chipLabels {
            let chip = try GPIOChip.open(label: label)
            var lines: [UInt32: InputLineDefinition] = [:]
            var planned: [(offset: UInt32, settings: GPIOLineSettings)] = []
            var described: [(selector: GPIOLineSelector, offset: UInt32, purpose: String)] = []
            for definition in definitions where definition.chipLabel == label {
                let offset = try chip.offset(definition.line)
                if let other = lines[offset] {
                    throw HALError(.invalidArgument,
                                   "GPIO \(definition.line) on '\(label)' is given for both \(other.role.rawValue) and \(definition.role.rawValue): check the board file")
                }
                lines[offset] = definition
                planned.append((offset, try Self.settings(for: definition)))
                described.append((definition.line, offset, "\(definition.role.rawValue) (input, \(definition.bias.rawValue))"))
            }
            let (request, code) = requestLines(on: chip, planned, eventQueueSize: GPIOInputPolicy.eventQueueSize)
            guard let request else { throw chip.requestError(code, lines: described) }
            requests.append(ChipRequest(chip: chip, request: request, lines: lines))
        }
        self.requests = requests
    }

    /// Both edges, bias from the board file, edge timestamps on CLOCK_MONOTONIC (the clock the
    /// rest of Tactus uses), kernel debounce where GPIOInputPolicy allows it. Levels stay
    /// electrical (no active-low flag): the edge keeps both the raw level and the logical state.
    private static func settings(for definition: InputLineDefinition) throws(HALError) -> GPIOLineSettings {
        let settings = try GPIOLineSettings()
        let bias: gpiod_line_bias = switch definition.bias {
        case .pullUp: GPIOD_LINE_BIAS_PULL_UP
        case .pullDown: GPIOD_LINE_BIAS_PULL_DOWN
        case .disabled: GPIOD_LINE_BIAS_DISABLED
        case .asIs: GPIOD_LINE_BIAS_AS_IS
        }
        let debounce = GPIOInputPolicy.kernelDebounceMicroseconds(for: definition.role)
        guard gpiod_line_settings_set_direction(settings.handle, GPIOD_LINE_DIRECTION_INPUT) == 0,
              gpiod_line_settings_set_edge_detection(settings.handle, GPIOD_LINE_EDGE_BOTH) == 0,
              gpiod_line_settings_set_bias(settings.handle, bias) == 0,
              gpiod_line_settings_set_event_clock(settings.handle, GPIOD_LINE_CLOCK_MONOTONIC) == 0
        else {
            throw HALError(.io, errno: errno, "cannot set up GPIO \(definition.line) for \(definition.role.rawValue): \(errnoDescription(errno))")
        }
        gpiod_line_settings_set_debounce_period_us(settings.handle, UInt(debounce))
        return settings
    }

    deinit { stop() }

    public func currentStates() throws(HALError) -> [InputRole: Bool] {
        var states: [InputRole: Bool] = [:]
        for request in requests {
            for (offset, definition) in request.lines {
                errno = 0
                let value = gpiod_line_request_get_value(request.request, offset)
                guard value != GPIOD_LINE_VALUE_ERROR else {
                    throw HALError(.io, errno: errno, "cannot read GPIO \(definition.line) (\(definition.role.rawValue)): \(errnoDescription(errno))")
                }
                states[definition.role] = (value == GPIOD_LINE_VALUE_ACTIVE) != definition.activeLow
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
        let wake = fds[0]
        let result = thread.start(name: "tactus-gpio-in", fifoPriority: nil) { [self] in
            read(wake: wake, handler: handler)
        }
        if case .failure(let error) = result {
            throw HALError(.io, errno: error.code, "cannot start the GPIO input thread: \(error)")
        }
    }

    public func stop() {
        guard running.exchange(false, ordering: .relaxed) else { return }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
        thread.join()
        close(wakePipe.read)
        close(wakePipe.write)
        wakePipe = (-1, -1)
    }

    private func read(wake: Int32, handler: @Sendable (LineEdge) -> Void) {
        var descriptors = requests.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
        guard let buffer = gpiod_edge_event_buffer_new(GPIOInputPolicy.readBatch) else {
            log.error("cannot allocate the GPIO event buffer: \(errnoDescription(errno)); inputs stop")
            return
        }
        defer { gpiod_edge_event_buffer_free(buffer) }
        var sequences = LineSequenceTracker()
        var batch: [LineEdge] = []
        batch.reserveCapacity(GPIOInputPolicy.readBatch * requests.count)
        var reportedFailure = false
        while running.load(ordering: .relaxed) {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                log.error("GPIO input poll failed: \(errnoDescription(errno)); inputs stop")
                return
            }
            if descriptors[descriptors.count - 1].revents != 0 { return }
            batch.removeAll(keepingCapacity: true)
            for (index, request) in requests.enumerated() where descriptors[index].revents & Int16(POLLIN) != 0 {
                let count = gpiod_line_request_read_edge_events(request.request, buffer, GPIOInputPolicy.readBatch)
                if count < 0 {
                    if !reportedFailure {
                        log.error("reading GPIO events on '\(request.chip.label)' failed: \(errnoDescription(errno))")
                        reportedFailure = true
                    }
                    continue
                }
                // The kernel queues a request's events in the order they happened (global
                // sequence numbers), so within one chip they are already in time order.
                for i in 0..<Int(count) {
                    guard let event = gpiod_edge_event_buffer_get_event(buffer, UInt(i)) else { continue }
                    let offset = UInt32(gpiod_edge_event_get_line_offset(event))
                    guard let definition = request.lines[offset] else { continue }
                    let missed = sequences.missedBefore(offset: offset, sequence: UInt64(gpiod_edge_event_get_line_seqno(event)))
                    if missed > 0 { log.warning(lostEdgesMessage(role: definition.role, missed: missed)) }
                    let level = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE
                    batch.append(LineEdge(role: definition.role, level: level, isActive: level != definition.activeLow,
                                          timestamp: MonotonicInstant(nanoseconds: Int64(bitPattern: gpiod_edge_event_get_timestamp_ns(event))),
                                          missedBefore: missed))
                }
            }
            // Events of several chips (none of the supported boards has that) merge by time.
            if requests.count > 1 { batch = mergedByTime(batch) }
            for edge in batch { handler(edge) }
        }
    }
}
#endif
