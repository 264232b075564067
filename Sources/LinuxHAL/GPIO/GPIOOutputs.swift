// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// LEDs and buzzer on GPIO output lines (one request per chip through `Libgpiod`; the inputs
/// hold requests of their own), with pulses timed by an `IndicatorPulser`.
public final class LinuxGPIOOutputs: IndicatorOutput, Sendable {
    /// libgpiod's handles are not Sendable; after init only the pulser's one thread uses them.
    private final class Lines: @unchecked Sendable {
        let requests: [Libgpiod.Outputs]
        init(_ requests: [Libgpiod.Outputs]) { self.requests = requests }
        /// Only the pulser's timing thread calls this after init.
        func set(_ indicator: IndicatorChannel, _ on: Bool) {
            for request in requests { request.set(indicator, on: on) }
        }
    }

    private let pulser: IndicatorPulser

    /// Requests every output line now (off), so wiring errors show at start-up.
    public init(_ definitions: [OutputLineDefinition]) throws(HALError) {
        var requests: [Libgpiod.Outputs] = []
        for label in chipLabels(definitions.map(\.chipLabel)) {
            let chip = try GPIOChip.open(label: label)
            requests.append(try Libgpiod.requestOutputs(definitions.filter { $0.chipLabel == label }, on: chip))
        }
        let lines = Lines(requests)
        // The pulser holds the lines: they are released when it has stopped using them.
        pulser = try IndicatorPulser { indicator, on in lines.set(indicator, on) }
    }

    deinit { pulser.shutDown() }

    public func pulse(_ indicator: IndicatorChannel, at start: MonotonicTime, lastingNanoseconds nanoseconds: Int64) {
        pulser.pulse(indicator, at: start, lastingNanoseconds: nanoseconds)
    }

    public func set(_ indicator: IndicatorChannel, on: Bool) {
        pulser.set(indicator, on: on)
    }
}
