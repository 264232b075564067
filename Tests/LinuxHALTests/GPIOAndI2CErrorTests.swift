// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import HAL
import LinuxHAL
import Synchronization
import TactusBase

/// Without a kernel GPIO chip or I2C adapter (this build machine has neither; the QEMU tier
/// covers the real paths), the failures must be clear and say what to do.
@Suite struct GPIOAndI2CErrorTests {
    static let noChipsHere = !FileManager.default.fileExists(atPath: "/dev/gpiochip0")

    /// Skipped (not failed) where GPIO chips exist, as on a Pi: the QEMU tier tests them there.
    @Test(.enabled(if: noChipsHere, "this machine has GPIO chips; the QEMU tier tests them"))
    func missingChipIsNamedWithTheFix() throws {
        let definition = InputLineDefinition(role: .tap, chipLabel: "pinctrl-bcm2711", line: .offset(23))
        #expect {
            _ = try LinuxGPIOInputs([definition], log: HALLog { _, _ in })
        } throws: { error in
            guard let error = error as? HALError else { return false }
            return error.kind == .deviceMissing && error.message.contains("gpiodetect")
        }
        #expect(throws: HALError.self) {
            _ = try LinuxGPIOOutputs([OutputLineDefinition(indicator: .buzzer, chipLabel: "pinctrl-rp1", line: .offset(12))])
        }
    }

    @Test func missingI2CAdapterSaysHowToEnableIt() {
        #expect {
            _ = try LinuxI2CBus(bus: 97)
        } throws: { error in
            guard let error = error as? HALError else { return false }
            return error.kind == .deviceMissing && error.errno == ENOENT && error.message.contains("dtparam=i2c_arm=on")
        }
    }

    @Test func aFileThatIsNotAnAdapterIsRefused() {
        #expect {
            _ = try LinuxI2CBus(path: "/dev/null")
        } throws: { error in
            guard let error = error as? HALError else { return false }
            return error.kind == .unsupported && error.errno == ENOTTY && error.message.contains("not an I2C adapter")
        }
    }
}

/// The timing thread behind LEDs and buzzer, on the real clock, with the lines recorded.
@Suite struct IndicatorPulserTests {
    @Test func pulsesStartAndEndOnTime() throws {
        let changes = Mutex<[(IndicatorChannel, Bool, MonotonicTime)]>([])
        let clock = SystemMonotonicClock()
        let pulser = try IndicatorPulser { indicator, on in
            changes.withLock { $0.append((indicator, on, clock.now())) }
        }
        let start = clock.now().advanced(byNanoseconds: 30_000_000)
        pulser.pulse(.buzzer, at: start, lastingNanoseconds: 5_000_000)
        pulser.pulse(.beatLED, at: start, lastingNanoseconds: 20_000_000)
        usleep(120_000)
        pulser.shutDown()
        // The thread first drives every line off; the pulses come after that.
        let all = changes.withLock { $0 }
        #expect(all.prefix(IndicatorChannel.allCases.count).allSatisfy { !$0.1 })
        let recorded = Array(all.dropFirst(IndicatorChannel.allCases.count))
        let buzzer = recorded.filter { $0.0 == .buzzer }
        let led = recorded.filter { $0.0 == .beatLED }
        try #require(buzzer.count == 2 && led.count == 2, "changes: \(recorded.map { "\($0.0) \($0.1)" })")
        #expect(buzzer[0].1 && !buzzer[1].1)
        // Never early; late only by scheduling delay (kept generous: CI machines are shared).
        let buzzerLate = buzzer[0].2.nanoseconds(since: start)
        let buzzerOffLate = buzzer[1].2.nanoseconds(since: start.advanced(byNanoseconds: 5_000_000))
        print("buzzer pulse: on \(Double(buzzerLate) / 1e6) ms late, off \(Double(buzzerOffLate) / 1e6) ms late (asked 5 ms)")
        #expect(buzzerLate >= 0 && buzzerLate < 25_000_000)
        #expect(buzzerOffLate >= 0 && buzzerOffLate < 25_000_000)
        #expect(led[0].2 >= start)
        #expect(led[1].2 >= start.advanced(byNanoseconds: 20_000_000))
    }

    @Test func shutDownTurnsHeldIndicatorsOff() throws {
        let levels = Mutex<[IndicatorChannel: Bool]>([:])
        let pulser = try IndicatorPulser { indicator, on in levels.withLock { $0[indicator] = on } }
        pulser.set(.accentLED, on: true)
        #expect(waitUntil(timeoutSeconds: 1) { levels.withLock { $0[.accentLED] == true } })
        pulser.shutDown()
        #expect(levels.withLock { $0[.accentLED] } == false)
    }
}
