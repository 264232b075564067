// SPDX-License-Identifier: GPL-3.0-or-later
#if TACTUS_LIBGPIOD2
import CGPIOD
import Glibc
import HAL

/// LEDs and buzzer through libgpiod 2: one output line request per chip (the inputs hold a
/// request of their own), with pulses timed by an `IndicatorPulser`.
public final class LinuxGPIOOutputs: IndicatorOutput, @unchecked Sendable {
    private final class Lines: @unchecked Sendable {
        var requests: [OpaquePointer] = []
        var lines: [Indicator: (request: OpaquePointer, offset: UInt32, activeLow: Bool)] = [:]
        /// Only the pulser's timing thread calls this after init.
        func set(_ indicator: Indicator, _ on: Bool) {
            guard let entry = lines[indicator] else { return }
            _ = gpiod_line_request_set_value(entry.request, entry.offset,
                                             (on != entry.activeLow) ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE)
        }
        func releaseAll() {
            for request in requests { gpiod_line_request_release(request) }
            requests.removeAll()
            lines.removeAll()
        }
    }

    private let lines: Lines
    private let pulser: IndicatorPulser

    /// Requests every output line now (off), so wiring errors show at start-up.
    public init(_ definitions: [OutputLineDefinition]) throws(HALError) {
        let lines = Lines()
        var chipLabels: [String] = []
        for definition in definitions where !chipLabels.contains(definition.chipLabel) { chipLabels.append(definition.chipLabel) }
        do throws(HALError) {
            for label in chipLabels {
                let chip = try GPIOChip.open(label: label)
                var planned: [(offset: UInt32, settings: GPIOLineSettings)] = []
                var described: [(selector: GPIOLineSelector, offset: UInt32, purpose: String)] = []
                var offsets: [(Indicator, UInt32, Bool)] = []
                for definition in definitions where definition.chipLabel == label {
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
                    offsets.append((definition.indicator, offset, definition.activeLow))
                }
                let (request, code) = requestLines(on: chip, planned)
                guard let request else { throw chip.requestError(code, lines: described) }
                lines.requests.append(request)
                for (indicator, offset, activeLow) in offsets { lines.lines[indicator] = (request, offset, activeLow) }
            }
            self.lines = lines
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
