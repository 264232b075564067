// SPDX-License-Identifier: GPL-3.0-or-later
// Finding a chip by label and the errors of opening chips: the same for both libgpiod
// backends, written on top of each backend's `GPIOChip.forEachChip`.
import Glibc
import HAL
import TactusBase

extension GPIOChip {
    /// The labels of every chip present, for error messages and `tactus check`.
    static func availableLabels() throws(HALError) -> [String] {
        var labels: [String] = []
        try forEachChip { chip in labels.append("\(chip.name) [\(chip.label)]"); return false }
        return labels
    }

    static func open(label: String) throws(HALError) -> GPIOChip {
        var found: GPIOChip?
        var seen: [String] = []
        try forEachChip { chip in
            if chip.label == label { found = chip; return true }
            seen.append("\(chip.name) [\(chip.label)]")
            return false
        }
        if let found { return found }
        if seen.isEmpty {
            throw HALError(.deviceMissing, errno: ENOENT,
                           "no GPIO chip found (no /dev/gpiochip*): this is not a Raspberry Pi, or the kernel lacks GPIO character devices; run `gpiodetect` to check")
        }
        throw HALError(.deviceMissing,
                       "no GPIO chip labelled '\(label)'; chips present: \(seen.joined(separator: ", ")). Set gpio.chip in the board file to one of these labels")
    }

    static func chipOpenError(_ code: Int32) -> HALError {
        switch code {
        case EACCES, EPERM:
            return HALError(.permissionDenied, errno: code,
                            "no permission to open /dev/gpiochip*: add the service's user to the 'gpio' group (Raspberry Pi OS) or run it with a udev rule granting access")
        case ENOENT, ENODEV:
            return HALError(.deviceMissing, errno: code, "no GPIO chip found (no /dev/gpiochip*): run `gpiodetect` to check")
        default:
            return HALError(.io, errno: code, "cannot list GPIO chips: \(errnoDescription(code))")
        }
    }
}
