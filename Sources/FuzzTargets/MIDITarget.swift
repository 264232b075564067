// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import Logging
import TactusApp
import TactusBase
import TactusInstrument
import TactusSimulation
import TactusTimeline
import MIDIWire

/// MIDI bytes from a cable or a raw port: first the byte parser alone, then what it makes of
/// them played into a whole simulated box (following or leading), which must neither trap
/// nor stop answering.
extension FuzzTargets {
    static func midi(_ bytes: [UInt8], _ budget: Budget) {
        var parser = MIDIParser()
        var messages: [MIDIMessage] = []
        for byte in bytes.prefix(maximumBytes) {
            guard let message = parser.feed(byte) else { continue }
            expectWireRoundTrip(message)
            messages.append(message)
        }
        guard let first = bytes.first else { return }
        playIntoABox(messages, following: first & 1 == 1, seconds: budget.scale, bytes: bytes)
    }

    /// A message the parser made, written back to the wire, reads as itself (SysEx and the
    /// ignored kinds are only counted, so they have no wire form to compare).
    static func expectWireRoundTrip(_ message: MIDIMessage) {
        switch message {
        case .systemExclusive, .other: return
        default: break
        }
        let wire = message.bytes
        var again = MIDIParser()
        var read: MIDIMessage?
        for byte in [wire.0, wire.1, wire.2].prefix(wire.count) { read = again.feed(byte) ?? read }
        if read != message { fail("MIDI \(message.hex) reads back as \(read.map(\.hex) ?? "nothing")") }
    }

    /// The messages as script lines at times the input picks (0-40 ms apart, a third of them
    /// at the same instant as the one before: a merger, a burst), into a headless box for at
    /// most `seconds` of simulated time: a clock run wherever a clock came in (1-999 BPM,
    /// jitter up to 20 ms, overlapping runs merged), the rest as they are.
    static func playIntoABox(_ messages: [MIDIMessage], following: Bool, seconds: Int64, bytes: [UInt8] = []) {
        var lines = [following ? "0 sync midi" : "0 press start"]
        // Times in whole milliseconds, written as seconds with three decimals.
        func text(_ ms: Int) -> String {
            let fraction = String(ms % 1000)
            return "\(ms / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        }
        // The input's own hash drives the timing, so a replay is the same run.
        var state = bytes.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        func random(_ n: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
        let limit = Int(seconds) * 1000
        var time = 0
        var clockUntil = 0
        var runs = 0
        for (i, message) in messages.enumerated() {
            if i > 0 { time += random(3) == 0 ? 0 : random(41) }
            guard time < limit else { break }
            let t = text(time)
            switch message {
            case .clock where time >= clockUntil || runs < 2:
                // A run of clocks at a tempo the message's place picks (1-999 BPM); a second run
                // may overlap the first (two streams merged).
                let bpm = random(4) == 0 ? 1 + random(999) : 30 + (i * 37) % 271
                clockUntil = max(clockUntil, time + 1 + random(2000))
                runs += 1
                lines.append("\(t) midi clock \(bpm) until \(text(max(clockUntil, time + 1))) jitter \(random(21)) seed \(i)")
            case .start: lines.append("\(t) midi start")
            case .stop: lines.append("\(t) midi stop")
            case .continue: lines.append("\(t) midi continue")
            case .songPosition(let n): lines.append("\(t) midi spp \(n)")
            case .noteOn(_, let note, let velocity): lines.append("\(t) midi note \(note) velocity \(velocity)")
            case .noteOff(_, let note, _): lines.append("\(t) midi note \(note) velocity 0")
            case .controlChange(_, let controller, let value): lines.append("\(t) midi cc \(controller) \(value)")
            case .programChange(_, let program): lines.append("\(t) midi program \(program)")
            default: continue
            }
        }
        lines.append("\(text(max(time, clockUntil) + 1)) end")
        let script: SimulationScript
        do { script = try SimulationScript(text: lines.joined(separator: "\n") + "\n", file: "midi.script") } catch {
            fail("script lines made from MIDI messages are refused: \(error)")
        }
        do {
            // Quiet: thousands of runs would each log the box starting.
            let simulation = try HeadlessSimulation(board: fuzzBoard, configuration: ConfigurationFile(), saved: SavedState(), problem: nil,
                                                    persistence: DiscardingPersistence(), output: DiscardingOutput(),
                                                    logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }))
            try simulation.run(script)
        } catch { fail("a box fed MIDI failed: \(error)") }
    }

    static let fuzzBoard: BoardDefinition = {
        let inputs = InputRole.allCases.enumerated().map { InputLineDefinition(role: $1, chipLabel: "sim", line: .offset($0)) }
        let outputs = IndicatorChannel.allCases.enumerated().map { OutputLineDefinition(indicator: $1, chipLabel: "sim", line: .offset(10 + $0)) }
        // A low rate and short periods keep a run fast.
        return BoardDefinition(identifier: "fuzz", model: "fuzz", inputs: inputs, outputs: outputs,
                               display: DisplayDefinition(controller: .ssd1306, address: I2CAddress(0x3C)!),
                               audio: AudioDefinition(sampleRate: rate))
    }()
}

private final class DiscardingOutput: SimulationOutput {
    func audio(_ interleaved: [Float]) throws {}
    func event(_ line: String) throws {}
    func frame(_ frame: Bitmap, milliseconds: Int64) throws {}
}

private struct DiscardingPersistence: SettingsPersistence {
    func save(_ saved: SavedState) throws {}
}
