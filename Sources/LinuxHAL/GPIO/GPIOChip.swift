// SPDX-License-Identifier: GPL-3.0-or-later
#if !TACTUS_LIBGPIOD2
// libgpiod 1 (v1 API); the libgpiod 2 backend is in the *V2.swift files beside this one.
import CGPIOD
import Glibc
import HAL

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

/// The library this build uses, for `tactus check`.
let gpioLibraryDescription = "libgpiod \(String(cString: gpiod_version_string()))"

func timespecNanoseconds(_ time: timespec) -> Int64 {
    Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}
#endif
