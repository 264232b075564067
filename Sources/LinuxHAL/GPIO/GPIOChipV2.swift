// SPDX-License-Identifier: GPL-3.0-or-later
#if TACTUS_LIBGPIOD2
// libgpiod 2 (v2 API: Debian 13, Raspberry Pi OS trixie, bookworm-backports). The same
// types as the libgpiod 1 files beside it, so LinuxHAL's users do not know which one runs.
import CGPIOD
import Glibc
import HAL

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

/// The library this build uses, for `tactus check`.
let gpioLibraryDescription = "libgpiod \(String(cString: gpiod_api_version()))"

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
#endif
