// SPDX-License-Identifier: GPL-3.0-or-later
#if TACTUS_LIBGPIOD2
// The libgpiod 2 (v2 API: Debian 13, Raspberry Pi OS trixie, bookworm-backports) binding of
// GPIOBackend; LibgpiodV1.swift is the other.
import CGPIOD
import Glibc
import HAL
import TactusBase

/// An open GPIO chip, found by its label (`gpiodetect` prints it) rather than its number:
/// the Pi 5's header chip is gpiochip4 on some kernels and gpiochip0 on others. libgpiod 2
/// opens chips by path only, so the labels come from opening each /dev/gpiochipN in turn.
final class GPIOChip: @unchecked Sendable {
    let handle: OpaquePointer
    let label: String
    let name: String
    let lineCount: Int

    private init?(path: String) {
        guard let handle = gpiod_chip_open(path) else { return nil }
        guard let info = gpiod_chip_get_info(handle) else {
            gpiod_chip_close(handle)
            return nil
        }
        self.handle = handle
        self.label = String(cString: gpiod_chip_info_get_label(info))
        self.name = String(cString: gpiod_chip_info_get_name(info))
        self.lineCount = gpiod_chip_info_get_num_lines(info)
        gpiod_chip_info_free(info)
    }

    deinit { gpiod_chip_close(handle) }

    /// Calls `body` with each chip (in gpiochipN order) until it returns true.
    static func forEachChip(_ body: (GPIOChip) -> Bool) throws(HALError) {
        for path in chipPaths() {
            errno = 0
            guard let chip = GPIOChip(path: path) else {
                let code = errno
                if code == EACCES || code == EPERM { throw chipOpenError(code) }
                continue   // gone meanwhile, or not a GPIO chip after all
            }
            if body(chip) { return }
        }
    }

    /// /dev/gpiochipN in numeric order (gpiodetect's order).
    private static func chipPaths() -> [String] {
        guard let directory = opendir("/dev") else { return [] }
        defer { closedir(directory) }
        var numbers: [Int] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("gpiochip"), let number = Int(name.dropFirst(8)) else { continue }
            if gpiod_is_gpiochip_device("/dev/\(name)") { numbers.append(number) }
        }
        return numbers.sorted().map { "/dev/gpiochip\($0)" }
    }

    /// A line's offset, given by offset or by its device-tree name.
    func offset(_ selector: GPIOLineSelector) throws(HALError) -> UInt32 {
        switch selector {
        case .offset(let offset):
            guard offset >= 0, offset < lineCount else {
                throw HALError(.invalidArgument, "GPIO chip '\(label)' has lines 0...\(lineCount - 1); line \(offset) does not exist: check the board file")
            }
            return UInt32(offset)
        case .name(let name):
            errno = 0
            let offset = gpiod_chip_get_line_offset_from_name(handle, name)
            guard offset >= 0 else {
                throw HALError(.deviceMissing, errno: errno,
                               "GPIO chip '\(label)' has no line named '\(name)': load the Tactus overlay (overlays/README.md) or give the line's offset in the board file; `gpioinfo` lists the names")
            }
            return UInt32(offset)
        }
    }

    /// Who holds the line now (`gpioinfo` shows the same), or nil when it is free.
    func holder(of selector: GPIOLineSelector) throws(HALError) -> (offset: UInt32, consumer: String)? {
        try holder(ofOffset: try offset(selector))
    }

    func holder(ofOffset offset: UInt32) throws(HALError) -> (offset: UInt32, consumer: String)? {
        errno = 0
        guard let info = gpiod_chip_get_line_info(handle, offset) else {
            throw HALError(.io, errno: errno, "GPIO chip '\(label)': cannot read line \(offset)'s state: \(errnoDescription(errno))")
        }
        defer { gpiod_line_info_free(info) }
        guard gpiod_line_info_is_used(info) else { return nil }
        return (offset, gpiod_line_info_get_consumer(info).map { String(cString: $0) } ?? "")
    }

    /// Turns a failed request of `lines` into a message naming the line and, when busy, its
    /// holder. One request covers many lines, so the busy ones are found by asking each.
    func requestError(_ code: Int32, lines: [(selector: GPIOLineSelector, offset: UInt32, purpose: String)]) -> HALError {
        func what(_ line: (selector: GPIOLineSelector, offset: UInt32, purpose: String)) -> String {
            "GPIO \(line.selector) (offset \(line.offset)) on '\(label)' for \(line.purpose)"
        }
        let all = lines.count == 1 ? what(lines[0]) : "\(lines.count) GPIO lines on '\(label)' (\(lines.map { $0.purpose }.joined(separator: ", ")))"
        switch code {
        case EBUSY:
            let busy = lines.compactMap { line -> String? in
                guard let held = try? holder(ofOffset: line.offset) else { return nil }
                return "\(what(line)) is in use by \(held.consumer.isEmpty ? "another program or a kernel driver" : held.consumer)"
            }
            return HALError(.busy, errno: code,
                            "\(busy.isEmpty ? "\(all) is in use" : busy.joined(separator: "; ")): stop that program, or remove the dtoverlay that claims the pin (see `gpioinfo`)")
        case EACCES, EPERM:
            return HALError(.permissionDenied, errno: code, "no permission to request \(all): add the service's user to the 'gpio' group")
        case EINVAL where lines.contains(where: { $0.purpose.contains("pull") }):
            return HALError(.unsupported, errno: code,
                            "\(all) was refused (\(errnoDescription(code))): kernels before 5.5 cannot set bias from user space; set bias = \"as-is\" and use the overlay's pull-ups")
        default:
            return HALError(.io, errno: code, "cannot request \(all): \(errnoDescription(code))")
        }
    }
}


/// libgpiod 2's settings objects, freed when the Swift value goes.
final class GPIOLineSettings {
    let handle: OpaquePointer

    init() throws(HALError) {
        guard let handle = gpiod_line_settings_new() else {
            throw HALError(.io, errno: errno, "cannot allocate GPIO line settings: \(errnoDescription(errno))")
        }
        self.handle = handle
    }

    deinit { gpiod_line_settings_free(handle) }
}

/// One `gpiod_chip_request_lines` call: a line config with per-line settings and the
/// request config (consumer, queue size).
func requestLines(on chip: GPIOChip, _ lines: [(offset: UInt32, settings: GPIOLineSettings)], eventQueueSize: UInt32 = 0) -> (OpaquePointer?, Int32) {
    guard let lineConfig = gpiod_line_config_new() else { return (nil, errno) }
    defer { gpiod_line_config_free(lineConfig) }
    for line in lines {
        var offset = line.offset
        if gpiod_line_config_add_line_settings(lineConfig, &offset, 1, line.settings.handle) < 0 { return (nil, errno) }
    }
    guard let requestConfig = gpiod_request_config_new() else { return (nil, errno) }
    defer { gpiod_request_config_free(requestConfig) }
    gpiod_request_config_set_consumer(requestConfig, gpioConsumerName)
    if eventQueueSize > 0 { gpiod_request_config_set_event_buffer_size(requestConfig, Int(eventQueueSize)) }
    errno = 0
    let request = gpiod_chip_request_lines(chip.handle, requestConfig, lineConfig)
    return (request, request == nil ? errno : 0)
}

enum LibgpiodV2: GPIOBackend {
    static var libraryDescription: String { "libgpiod \(String(cString: gpiod_api_version()))" }

    /// One line request for all of a chip's input lines, so the kernel keeps one event queue
    /// for them, in the order the edges happened, with per-line sequence numbers.
    final class Inputs: GPIOInputLines {
        let chip: GPIOChip
        let definitions: [InputLineDefinition]
        let request: OpaquePointer
        let descriptors: [Int32]
        /// Offsets by role, definitions by offset: the kernel's events name the line by offset.
        private let offsets: [InputRole: UInt32]
        private let byOffset: [UInt32: InputLineDefinition]
        private let buffer: OpaquePointer
        private var sequences = LineSequenceTracker()

        fileprivate init(chip: GPIOChip, definitions: [InputLineDefinition], offsets: [InputRole: UInt32],
                         request: OpaquePointer, buffer: OpaquePointer) {
            self.chip = chip
            self.definitions = definitions
            self.request = request
            self.descriptors = [gpiod_line_request_get_fd(request)]
            self.offsets = offsets
            var byOffset: [UInt32: InputLineDefinition] = [:]
            for definition in definitions { if let offset = offsets[definition.role] { byOffset[offset] = definition } }
            self.byOffset = byOffset
            self.buffer = buffer
        }

        deinit {
            gpiod_edge_event_buffer_free(buffer)
            gpiod_line_request_release(request)
        }

        func readEdges(from index: Int, into batch: inout EdgeBatch, mayHaveLost: inout Set<InputRole>) -> Int? {
            let count = gpiod_line_request_read_edge_events(request, buffer, GPIOInputPolicy.readBatch)
            guard count >= 0 else { return nil }
            for i in 0..<Int(count) {
                guard let event = gpiod_edge_event_buffer_get_event(buffer, UInt(i)) else { continue }
                let offset = UInt32(gpiod_edge_event_get_line_offset(event))
                guard let definition = byOffset[offset] else { continue }
                let missed = sequences.missedBefore(offset: offset, sequence: UInt64(gpiod_edge_event_get_line_seqno(event)))
                if missed > 0 { mayHaveLost.insert(definition.role) }
                let level = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE
                batch.append(LineEdge(role: definition.role, level: level, isActive: level != definition.activeLow,
                                      timestamp: MonotonicTime(nanoseconds: Int64(bitPattern: gpiod_edge_event_get_timestamp_ns(event))),
                                      missedBefore: missed))
            }
            return Int(count)
        }

        func level(of definition: InputLineDefinition) -> Bool? {
            guard let offset = offsets[definition.role] else { return nil }
            errno = 0
            let value = gpiod_line_request_get_value(request, offset)
            return value == GPIOD_LINE_VALUE_ERROR ? nil : value == GPIOD_LINE_VALUE_ACTIVE
        }
    }

    /// One output line request per chip.
    final class Outputs: GPIOOutputLines {
        let request: OpaquePointer
        let lines: [IndicatorChannel: (offset: UInt32, activeLow: Bool)]

        fileprivate init(request: OpaquePointer, lines: [IndicatorChannel: (offset: UInt32, activeLow: Bool)]) {
            self.request = request
            self.lines = lines
        }

        deinit { gpiod_line_request_release(request) }

        func set(_ indicator: IndicatorChannel, on: Bool) {
            guard let entry = lines[indicator] else { return }
            _ = gpiod_line_request_set_value(request, entry.offset,
                                             (on != entry.activeLow) ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE)
        }
    }

    static func requestInputs(_ definitions: [InputLineDefinition], on chip: GPIOChip) throws(HALError) -> Inputs {
        var offsets: [InputRole: UInt32] = [:]
        var planned: [(offset: UInt32, settings: GPIOLineSettings)] = []
        var described: [(selector: GPIOLineSelector, offset: UInt32, purpose: String)] = []
        for definition in definitions {
            let offset = try chip.offset(definition.line)
            if let other = definitions.first(where: { offsets[$0.role] == offset }) {
                throw HALError(.invalidArgument,
                               "GPIO \(definition.line) on '\(chip.label)' is given for both \(other.role.rawValue) and \(definition.role.rawValue): check the board file")
            }
            offsets[definition.role] = offset
            planned.append((offset, try inputSettings(for: definition)))
            described.append((definition.line, offset, "\(definition.role.rawValue) (input, \(definition.bias.rawValue))"))
        }
        let (request, code) = requestLines(on: chip, planned, eventQueueSize: GPIOInputPolicy.eventQueueSize)
        guard let request else { throw chip.requestError(code, lines: described) }
        guard let buffer = gpiod_edge_event_buffer_new(GPIOInputPolicy.readBatch) else {
            let code = errno
            gpiod_line_request_release(request)
            throw HALError(.io, errno: code, "cannot allocate the GPIO event buffer: \(errnoDescription(code))")
        }
        return Inputs(chip: chip, definitions: definitions, offsets: offsets, request: request, buffer: buffer)
    }

    /// Both edges, bias from the board file, edge timestamps on CLOCK_MONOTONIC, kernel
    /// debounce where GPIOInputPolicy allows it.
    private static func inputSettings(for definition: InputLineDefinition) throws(HALError) -> GPIOLineSettings {
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

    static func requestOutputs(_ definitions: [OutputLineDefinition], on chip: GPIOChip) throws(HALError) -> Outputs {
        var planned: [(offset: UInt32, settings: GPIOLineSettings)] = []
        var described: [(selector: GPIOLineSelector, offset: UInt32, purpose: String)] = []
        var lines: [IndicatorChannel: (offset: UInt32, activeLow: Bool)] = [:]
        for definition in definitions {
            let offset = try chip.offset(definition.line)
            let settings = try GPIOLineSettings()
            // Off from the first instant: an active-low LED starts high.
            guard gpiod_line_settings_set_direction(settings.handle, GPIOD_LINE_DIRECTION_OUTPUT) == 0,
                  gpiod_line_settings_set_output_value(settings.handle,
                                                       definition.activeLow ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE) == 0
            else {
                throw HALError(.io, errno: errno, "cannot set up GPIO \(definition.line) for \(definition.indicator.rawValue): \(errnoDescription(errno))")
            }
            planned.append((offset, settings))
            described.append((definition.line, offset, "\(definition.indicator.rawValue) (output)"))
            lines[definition.indicator] = (offset, definition.activeLow)
        }
        let (request, code) = requestLines(on: chip, planned)
        guard let request else { throw chip.requestError(code, lines: described) }
        return Outputs(request: request, lines: lines)
    }
}
#endif
