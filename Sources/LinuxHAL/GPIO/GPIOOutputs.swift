// SPDX-License-Identifier: GPL-3.0-or-later
#if !TACTUS_LIBGPIOD2
// libgpiod 1 (v1 API); the libgpiod 2 backend is in the *V2.swift files beside this one.
import CGPIOD
import Glibc
import HAL

/// LEDs and buzzer on GPIO output lines, with pulses timed by an `IndicatorPulser`.
public final class LinuxGPIOOutputs: IndicatorOutput, @unchecked Sendable {
    private final class Lines: @unchecked Sendable {
        var chips: [GPIOChip] = []
        var lines: [Indicator: (line: OpaquePointer, activeLow: Bool)] = [:]
        /// Only the pulser's timing thread calls this after init.
        func set(_ indicator: Indicator, _ on: Bool) {
            guard let entry = lines[indicator] else { return }
            _ = gpiod_line_set_value(entry.line, (on != entry.activeLow) ? 1 : 0)
        }
        func releaseAll() {
            for entry in lines.values { gpiod_line_release(entry.line) }
            lines.removeAll()
        }
    }

    private let lines: Lines
    private let pulser: IndicatorPulser

    /// Requests every output line now (off), so wiring errors show at start-up.
    public init(_ definitions: [OutputLineDefinition]) throws(HALError) {
        let lines = Lines()
        for definition in definitions {
            let chip: GPIOChip
            if let open = lines.chips.first(where: { $0.label == definition.chipLabel }) {
                chip = open
            } else {
                do {
                    chip = try GPIOChip.open(label: definition.chipLabel)
                } catch {
                    lines.releaseAll()
                    throw error
                }
                lines.chips.append(chip)
            }
            let line: OpaquePointer
            do { line = try chip.line(definition.line) } catch { lines.releaseAll(); throw error }
            let offLevel: Int32 = definition.activeLow ? 1 : 0
            if gpiod_line_request_output(line, gpioConsumerName, offLevel) < 0 {
                let code = errno
                lines.releaseAll()
                throw chip.requestError(code, line: line, selector: definition.line, purpose: "\(definition.indicator.rawValue) (output)")
            }
            lines.lines[definition.indicator] = (line, definition.activeLow)
        }
        self.lines = lines
        do {
            pulser = try IndicatorPulser { indicator, on in lines.set(indicator, on) }
        } catch {
            lines.releaseAll()
            throw error
        }
    }

    deinit {
        pulser.shutDown()
        lines.releaseAll()
    }

    public func pulse(_ indicator: Indicator, at start: MonotonicInstant, lastingNanoseconds nanoseconds: Int64) {
        pulser.pulse(indicator, at: start, lastingNanoseconds: nanoseconds)
    }

    public func set(_ indicator: Indicator, on: Bool) {
        pulser.set(indicator, on: on)
    }
}
#endif
