// SPDX-License-Identifier: GPL-3.0-or-later
#if !TACTUS_LIBGPIOD2
// The libgpiod 1 (v1 API, Debian 12) binding of GPIOBackend; LibgpiodV2.swift is the other.
import CGPIOD
import Glibc
import HAL
import TactusBase

/// An open GPIO chip, found by its label (`gpiodetect` prints it) rather than its number:
/// the Pi 5's header chip is gpiochip4 on some kernels and gpiochip0 on others.
final class GPIOChip: @unchecked Sendable {
    let handle: OpaquePointer
    let label: String
    let name: String

    private init(handle: OpaquePointer) {
        self.handle = handle
        self.label = String(cString: gpiod_chip_label(handle))
        self.name = String(cString: gpiod_chip_name(handle))
    }

    deinit { gpiod_chip_close(handle) }

    /// Calls `body` with each chip until it returns true; the chip it accepts stays open.
    static func forEachChip(_ body: (GPIOChip) -> Bool) throws(HALError) {
        errno = 0
        guard let iterator = gpiod_chip_iter_new() else {
            throw chipOpenError(errno)
        }
        defer { gpiod_chip_iter_free_noclose(iterator) }
        while let handle = gpiod_chip_iter_next_noclose(iterator) {
            if body(GPIOChip(handle: handle)) {
                // Close the ones after it: the iterator opened them all.
                while let rest = gpiod_chip_iter_next_noclose(iterator) { gpiod_chip_close(rest) }
                return
            }
        }
    }

    /// A line by offset or by its device-tree name.
    func line(_ selector: GPIOLineSelector) throws(HALError) -> OpaquePointer {
        errno = 0
        switch selector {
        case .offset(let offset):
            let count = Int(gpiod_chip_num_lines(handle))
            guard offset >= 0, offset < count else {
                throw HALError(.invalidArgument, "GPIO chip '\(label)' has lines 0...\(count - 1); line \(offset) does not exist: check the board file")
            }
            guard let line = gpiod_chip_get_line(handle, UInt32(offset)) else {
                throw HALError(.io, errno: errno, "GPIO chip '\(label)': cannot get line \(offset): \(errnoDescription(errno))")
            }
            return line
        case .name(let name):
            guard let line = gpiod_chip_find_line(handle, name) else {
                throw HALError(.deviceMissing, errno: errno,
                               "GPIO chip '\(label)' has no line named '\(name)': load the Tactus overlay (overlays/README.md) or give the line's offset in the board file; `gpioinfo` lists the names")
            }
            return line
        }
    }

    /// Turns a failed request into a message that names the line and, when busy, its holder.
    func requestError(_ code: Int32, line: OpaquePointer, selector: GPIOLineSelector, purpose: String) -> HALError {
        let offset = gpiod_line_offset(line)
        let what = "GPIO \(selector) (offset \(offset)) on '\(label)' for \(purpose)"
        switch code {
        case EBUSY:
            _ = gpiod_line_update(line)
            let holder = gpiod_line_consumer(line).map { String(cString: $0) } ?? "another program or a kernel driver"
            return HALError(.busy, errno: code,
                            "\(what) is in use by \(holder): stop that program, or remove the dtoverlay that claims the pin (see `gpioinfo`)")
        case EACCES, EPERM:
            return HALError(.permissionDenied, errno: code, "no permission to request \(what): add the service's user to the 'gpio' group")
        case EINVAL where purpose.contains("pull"):
            return HALError(.unsupported, errno: code,
                            "\(what) was refused (\(errnoDescription(code))): kernels before 5.5 cannot set bias from user space; set bias = \"as-is\" and use the overlay's pull-ups")
        default:
            return HALError(.io, errno: code, "cannot request \(what): \(errnoDescription(code))")
        }
    }
}

extension GPIOChip {
    /// Who holds the line now (`gpioinfo` shows the same), or nil when it is free.
    func holder(of selector: GPIOLineSelector) throws(HALError) -> (offset: UInt32, consumer: String)? {
        let line = try line(selector)
        _ = gpiod_line_update(line)
        guard gpiod_line_is_used(line) else { return nil }
        return (gpiod_line_offset(line), gpiod_line_consumer(line).map { String(cString: $0) } ?? "")
    }
}

enum LibgpiodV1: GPIOBackend {
    static var libraryDescription: String { "libgpiod \(String(cString: gpiod_version_string()))" }

    /// libgpiod 1 requests line by line; each line has its own event queue and descriptor.
    final class Inputs: GPIOInputLines {
        let chip: GPIOChip
        let definitions: [InputLineDefinition]
        let lines: [OpaquePointer]
        let descriptors: [Int32]
        /// One read's worth: v1 kernels keep 16 events per line, so a full read may mean more were lost.
        private var events = [gpiod_line_event](repeating: gpiod_line_event(), count: 16)

        fileprivate init(chip: GPIOChip, definitions: [InputLineDefinition], lines: [OpaquePointer]) {
            self.chip = chip
            self.definitions = definitions
            self.lines = lines
            self.descriptors = lines.map { gpiod_line_event_get_fd($0) }
        }

        deinit { for line in lines { gpiod_line_release(line) } }

        func readEdges(from index: Int, into batch: inout EdgeBatch, mayHaveLost: inout Set<InputRole>) -> Int? {
            let definition = definitions[index]
            let count = gpiod_line_event_read_multiple(lines[index], &events, UInt32(events.count))
            guard count >= 0 else { return nil }
            if Int(count) == events.count { mayHaveLost.insert(definition.role) }
            // The kernel stamps v1 line events with CLOCK_MONOTONIC since Linux 5.7 (every
            // bookworm kernel).
            for event in events[0..<Int(count)] {
                let level = event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE)
                batch.append(LineEdge(role: definition.role, level: level, isActive: level != definition.activeLow,
                                      timestamp: MonotonicTime(nanoseconds: timespecNanoseconds(event.ts))))
            }
            return Int(count)
        }

        func level(of definition: InputLineDefinition) -> Bool? {
            guard let index = definitions.firstIndex(where: { $0.role == definition.role }) else { return nil }
            let value = gpiod_line_get_value(lines[index])
            return value < 0 ? nil : value == 1
        }
    }

    final class Outputs: GPIOOutputLines {
        let chip: GPIOChip
        let lines: [IndicatorChannel: (line: OpaquePointer, activeLow: Bool)]

        fileprivate init(chip: GPIOChip, lines: [IndicatorChannel: (line: OpaquePointer, activeLow: Bool)]) {
            self.chip = chip
            self.lines = lines
        }

        deinit { for entry in lines.values { gpiod_line_release(entry.line) } }

        func set(_ indicator: IndicatorChannel, on: Bool) {
            guard let entry = lines[indicator] else { return }
            _ = gpiod_line_set_value(entry.line, (on != entry.activeLow) ? 1 : 0)
        }
    }

    static func requestInputs(_ definitions: [InputLineDefinition], on chip: GPIOChip) throws(HALError) -> Inputs {
        var lines: [OpaquePointer] = []
        for definition in definitions {
            var config = gpiod_line_request_config()
            var flags: Int32 = 0
            switch definition.bias {
            case .pullUp: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
            case .pullDown: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
            case .disabled: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
            case .asIs: break
            }
            let line: OpaquePointer
            do { line = try chip.line(definition.line) } catch { lines.forEach { gpiod_line_release($0) }; throw error }
            let requested = gpioConsumerName.withCString { consumer -> Int32 in
                config.consumer = consumer
                config.request_type = Int32(GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES)
                config.flags = flags
                return gpiod_line_request(line, &config, 0)
            }
            if requested < 0 {
                let code = errno
                lines.forEach { gpiod_line_release($0) }
                throw chip.requestError(code, line: line, selector: definition.line,
                                        purpose: "\(definition.role.rawValue) (input, \(definition.bias.rawValue))")
            }
            lines.append(line)
        }
        return Inputs(chip: chip, definitions: definitions, lines: lines)
    }

    static func requestOutputs(_ definitions: [OutputLineDefinition], on chip: GPIOChip) throws(HALError) -> Outputs {
        var lines: [IndicatorChannel: (line: OpaquePointer, activeLow: Bool)] = [:]
        func releaseAll() { for entry in lines.values { gpiod_line_release(entry.line) } }
        for definition in definitions {
            let line: OpaquePointer
            do { line = try chip.line(definition.line) } catch { releaseAll(); throw error }
            // Off from the first instant: an active-low LED starts high.
            if gpiod_line_request_output(line, gpioConsumerName, definition.activeLow ? 1 : 0) < 0 {
                let code = errno
                releaseAll()
                throw chip.requestError(code, line: line, selector: definition.line, purpose: "\(definition.indicator.rawValue) (output)")
            }
            lines[definition.indicator] = (line, definition.activeLow)
        }
        return Outputs(chip: chip, lines: lines)
    }
}
#endif
