// SPDX-License-Identifier: GPL-3.0-or-later
import Devices
import Glibc
import HAL
import Synchronization
import TactusBase

/// `tactus check`: probes each part of a board and says, one line per part, whether it
/// works and, if not, why and what to do. Never throws: a missing part is a result.
public enum HardwareCheck {
    public struct Result: Equatable, Sendable, CustomStringConvertible {
        public enum Status: String, Sendable { case ok, missing, error }
        public var part: String
        public var status: Status
        public var detail: String

        public var description: String {
            func pad(_ text: String) -> String { text + String(repeating: " ", count: max(1, 8 - text.count)) }
            return pad(part) + pad(status.rawValue) + detail
        }
    }

    /// Runs every probe; the exit status of `tactus check` is 0 only if all are `.ok`.
    public static func run(_ board: BoardDefinition, log: HALLog = HALLog { _, _ in }) -> [Result] {
        checkGPIO(board, log: log) + [checkDisplay(board), checkAudio(board, log: log)]
    }

    static func result(_ part: String, _ error: HALError) -> Result {
        Result(part: part, status: error.kind == .deviceMissing || error.kind == .noAcknowledge ? .missing : .error, detail: error.message)
    }

    /// One result, or one per line that another program holds (then nothing is requested).
    public static func checkGPIO(_ board: BoardDefinition, log: HALLog) -> [Result] {
        let held = heldLines(board)
        return held.isEmpty ? [requestGPIO(board, log: log)] : held
    }

    /// Each board line that is in use already, with its holder's consumer name as the kernel
    /// reports it (`gpioinfo` shows the same). A chip that is missing is left to the request,
    /// which says so.
    public static func heldLines(_ board: BoardDefinition) -> [Result] {
        let lines = board.inputs.map { ($0.chipLabel, $0.line, $0.role.rawValue) }
            + board.outputs.map { ($0.chipLabel, $0.line, $0.indicator.rawValue) }
        var chips: [String: GPIOChip] = [:]
        var results: [Result] = []
        for (label, selector, purpose) in lines {
            guard let chip = chips[label] ?? (try? GPIOChip.open(label: label)) else { continue }
            chips[label] = chip
            guard let held = try? chip.holder(of: selector) else { continue }
            let line = if case .offset = selector { "\(selector)" } else { "\(selector) (offset \(held.offset))" }
            let holder = held.consumer.isEmpty ? "a kernel driver or a program that gave no name" : "'\(held.consumer)'"
            results.append(Result(part: "gpio", status: .error,
                                  detail: "\(line) (\(purpose)) is in use by \(holder): stop that program, or remove the dtoverlay that claims the pin (`gpioinfo` shows the holders)"))
        }
        return results
    }

    static func requestGPIO(_ board: BoardDefinition, log: HALLog) -> Result {
        do {
            let inputs = try LinuxGPIOInputs(board.inputs, log: log)
            let states = try inputs.currentStates()
            let outputs = try LinuxGPIOOutputs(board.outputs)
            // Blink each output once so the person running the check sees (and hears) them:
            // on, wait, off, one after another, so each gets its whole length even when this
            // process runs late on a busy machine (scheduled pulses whose time had passed were
            // skipped or cut short, and the last ones cut off when the outputs closed).
            for output in board.outputs {
                outputs.set(output.indicator, on: true)
                Syscalls.sleep(nanoseconds: output.indicator == .buzzer ? 20_000_000 : 100_000_000)
                outputs.set(output.indicator, on: false)
                Syscalls.sleep(nanoseconds: 50_000_000)
            }
            let pressed = states.filter { $0.value }.map(\.key.rawValue).sorted()
            let chips = Set(board.inputs.map(\.chipLabel) + board.outputs.map(\.chipLabel)).sorted().joined(separator: ", ")
            return Result(part: "gpio", status: .ok,
                          detail: "\(board.inputs.count) inputs and \(board.outputs.count) outputs on \(chips) (\(gpioLibraryDescription))" + (pressed.isEmpty ? "" : "; active now: \(pressed.joined(separator: ", "))"))
        } catch {
            return result("gpio", error)
        }
    }

    public static func checkDisplay(_ board: BoardDefinition) -> Result {
        guard let definition = board.display else {
            return Result(part: "display", status: .ok, detail: "none configured")
        }
        do {
            let bus = try LinuxI2CBus(bus: definition.i2cBus, mode: definition.transferMode)
            let display = try OLEDDisplay(definition, bus: bus)
            try display.initialize()
            try display.show(testCard(width: definition.width, height: definition.height))
            return Result(part: "display", status: .ok,
                          detail: "\(definition.controller.rawValue) \(definition.width)x\(definition.height) at \(definition.address) on \(bus.path) (\(bus.mode.rawValue)): test card shown")
        } catch {
            return result("display", error)
        }
    }

    /// A border, a diagonal and a checkerboard: dead columns, swapped pages and offsets show at a glance.
    public static func testCard(width: Int, height: Int) -> Bitmap {
        var frame = Bitmap(width: width, height: height)
        for x in 0..<width { frame[x, 0] = true; frame[x, height - 1] = true }
        for y in 0..<height { frame[0, y] = true; frame[width - 1, y] = true }
        for x in 0..<width { frame[x, x * (height - 1) / (width - 1)] = true }
        for y in 8..<(height - 8) { for x in (width - 24)..<(width - 8) where (x / 4 + y / 4) % 2 == 0 { frame[x, y] = true } }
        return frame
    }

    public static func checkAudio(_ board: BoardDefinition, log: HALLog) -> Result {
        var configuration = ALSASink.Configuration(board.audio)
        // A short beep needs no locked memory, but it keeps the service's real-time priority
        // (when allowed): at normal priority a busy machine starved it into underruns, and the
        // VM suite captured 220 ms with gaps where 150 ms of tone were played.
        configuration.lockMemory = false
        let sink = ALSASink(configuration, log: log)
        do {
            let format = try sink.negotiate()
            let beep = Beep(sampleRate: format.sampleRate, channels: format.channels)
            try sink.start(beep)
            // Until the whole beep (and a period of silence after it) went to the device, not
            // a fixed time: on a busy machine opening and filling the device can take longer
            // than the beep, and a fixed 300 ms cut it short (14.7 ms heard in the VM suite
            // under load). stop() then lets what was written play out. At most 5 s.
            let clock = SystemMonotonicClock()
            let deadline = clock.now().advanced(byNanoseconds: 5_000_000_000)
            while beep.renderedFrames < beep.length + 2 * max(format.periodFrames, 1) && clock.now() < deadline {
                Syscalls.sleep(nanoseconds: 10_000_000)
            }
            sink.stop()
            let xruns = sink.xrunCount
            return Result(part: "audio", status: .ok,
                          detail: "'\(board.audio.device)': \(format); short beep played" + (xruns > 0 ? "; \(xruns) underrun(s)" : ""))
        } catch {
            return result("audio", error)
        }
    }

    /// 880 Hz for 150 ms with a 5 ms fade in and out, then silence.
    final class Beep: AudioRenderer {
        let sampleRate: Int
        let channels: Int
        private let frame = Atomic<Int>(0)
        /// The beep's own length in frames (silence follows).
        var length: Int { sampleRate * 150 / 1000 }
        /// Frames handed to the device so far.
        var renderedFrames: Int { frame.load(ordering: .relaxed) }

        init(sampleRate: Int, channels: Int) {
            self.sampleRate = sampleRate
            self.channels = channels
        }

        func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) {
            let start = frame.load(ordering: .relaxed)
            let fade = sampleRate * 5 / 1000
            for i in 0..<frameCount {
                let n = start + i
                var value: Float = 0
                if n < length {
                    let envelope = Float(min(1, Double(min(n, length - n)) / Double(fade)))
                    value = 0.3 * envelope * Float(sin(2 * Double.pi * 880 * Double(n) / Double(sampleRate)))
                }
                for c in 0..<channels { buffer[i * channels + c] = value }
            }
            frame.store(start + frameCount, ordering: .relaxed)
        }
    }
}
