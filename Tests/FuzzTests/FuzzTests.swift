// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import BoardFiles
import HAL
import TactusBase
import TOMLReader
import TactusApp
import TactusSimulation
import TactusArithmetic
import TactusMusic
import TactusInstrument
import TactusTimeline
import TestSupport
import Testing
import TactusCommandLine
import MIDIWire

/// Seeded, bounded fuzzing of every parser that reads user input: the TOML reader (and the
/// settings, config and board files on top of it), the number parser, the simulation script
/// and change-file parsers, and the WAV decoder. Each input must give a valid result or one
/// clear error (one line, naming where); a crash fails the whole run. The seeds are fixed,
/// so a failure replays; `FuzzReport.iterations` is printed for the figures.
///
/// Mutations: delete, replace or insert bytes from an alphabet of the format's own syntax,
/// duplicate a slice (nesting), and splice in hostile tokens (huge numbers, deep brackets,
/// invalid UTF-8, control characters).
struct Mutator {
    var random: SplitMix64
    let alphabet: [UInt8]
    let tokens: [[UInt8]]

    init(seed: UInt64, alphabet: String, tokens: [String]) {
        random = SplitMix64(state: seed)
        self.alphabet = Array(alphabet.utf8)
        self.tokens = tokens.map { Array($0.utf8) } + [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0x00], [0x1B, 0x5B, 0x32, 0x4A]]
    }

    mutating func mutate(_ seed: [UInt8], maxBytes: Int = 1 << 16) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            if bytes.isEmpty { bytes = seed }
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes.remove(at: at)
            case 1: bytes[at] = alphabet.randomElement(using: &random)!
            case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
            case 3:
                let end = min(bytes.count, at + Int.random(in: 1...16, using: &random))
                let slice = bytes[at..<end]
                for _ in 0..<Int.random(in: 1...8, using: &random) { bytes.insert(contentsOf: slice, at: at) }
            default: bytes.insert(contentsOf: tokens.randomElement(using: &random)!, at: at)
            }
        }
        return Array(bytes.prefix(maxBytes))
    }
}

/// A message must be one line (the caller prefixes `tactus: error:`).
func isOneLine(_ message: String) -> Bool {
    !message.isEmpty && !message.contains("\n")
}

@Suite struct FuzzTests {
    static let hostile = ["99999999999999999999", "-9223372036854775808", "9223372036854775807.9", "1/-9223372036854775808",
                          "1e999999", "0x", "nan", "-inf", String(repeating: "[", count: 200), String(repeating: "{a=", count: 50),
                          String(repeating: "a.", count: 100) + "b", "\"\\u", "'''", "\"\"\"", "\r", "\t", "#"]

    @Test func tomlAndTheFilesOnTopOfIt() throws {
        let seeds = [
            SettingsFile.encode(SavedState()),
            "board = \"pi4b\"\nsettings_file = \"/var/lib/tactus/settings.toml\"\n[audio]\ndevice = \"hw:1,0\"\nsample_rate = 48000\n[controls]\ndebounce_ms = 8\n",
            "[board]\nmodel = \"x\"\n[gpio]\nchip = \"c\"\n[inputs.encoder_a]\nline = 17\n[inputs.encoder_b]\nline = 27\n[outputs.buzzer]\nline = 12\n[audio]\nchannels = 2\n[display]\naddress = 0x3C\n",
            "a = [1, 0x1F, 2.5e3, { c = 'd' }]\n[[p]]\nq.r = true\nm = \"\"\"\nx\\\n  y\"\"\"\n",
        ].map { Array($0.utf8) }
        var mutator = Mutator(seed: 0x70_4D_4C, alphabet: "[]{}=\"'.,#\\\n \t01xeE+-_abtrufn", tokens: Self.hostile)
        var outcomes = [0, 0]
        for i in 0..<FuzzReport.tomlIterations {
            let bytes = mutator.mutate(seeds[i % seeds.count])
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                _ = try TOML.parse(text, file: "f.toml")
                outcomes[0] += 1
            } catch {
                #expect(error.file == "f.toml")
                #expect(isOneLine(error.description), "\(error.description)")
                outcomes[1] += 1
            }
            switch i % 3 {
            case 0: if let e = catching({ () throws(TOMLError) in _ = try SettingsFile.decode(text, file: "s.toml") }) { #expect(isOneLine(e.description)) }
            case 1: if let e = catching({ () throws(TOMLError) in _ = try ConfigurationFile.parse(text, file: "c.toml") }) { #expect(isOneLine(e.description)) }
            default: if let e = catching({ () throws(TOMLError) in _ = try BoardFile.parse(text, file: "b.toml", identifier: "b") }) { #expect(isOneLine(e.description)) }
            }
        }
        #expect(outcomes[0] > 0 && outcomes[1] > 0, "both valid and invalid inputs were exercised")
    }

    @Test func numbersNeverTrap() {
        var random = SplitMix64(state: 0x4E_55_4D)
        let pieces = ["0", "1", "9", "-", "+", ".", "/", "00", "999", "9223372036854775807", "9223372036854775808",
                      "-9223372036854775808", "000000000", "1234567890", "e", " ", "٣", "½"]
        var valid = 0
        for _ in 0..<FuzzReport.numberIterations {
            let text = (0..<Int.random(in: 1...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            if let value = Rational(parsing: text) {
                valid += 1
                #expect(value.denominator > 0)
                _ = value.decimalDescription
            }
            do { _ = try Tempo(parsing: text) } catch { #expect(isOneLine(error.allowed)) }
        }
        #expect(valid > 0)
    }

    @Test func simulationAndChangeScripts() {
        let simulation = Array("0.000 press start\n1.2 turn +5 over 2.5\n5 turn -40 over 0.3\n6 tap\n7 press wheel long # x\n9 end\n".utf8)
        let changes = Array("1.0 set bpm=150 meter=5/4\n2.5 set subdivisions=none volume=accent=80,beat=60\n4 stop\n5 start\n".utf8)
        var mutator = Mutator(seed: 0x53_43_52, alphabet: "0123456789.+-/ \n#=,abcdeghilmnoprstuvwxyz", tokens: Self.hostile)
        var outcomes = [0, 0]
        for i in 0..<FuzzReport.scriptIterations {
            let text = String(decoding: mutator.mutate(i % 2 == 0 ? simulation : changes, maxBytes: 4096), as: UTF8.self)
            do {
                let script = try SimulationScript(text: text, file: "s.txt")
                outcomes[0] += 1
                #expect(script.endTime >= .zero && script.steps.allSatisfy { $0.line >= 1 })
            } catch {
                #expect(error.file == "s.txt" && error.line >= 1 && isOneLine(error.description), "\(error.description)")
                outcomes[1] += 1
            }
            do {
                var settings = MetronomeSettings()
                for (_, _, step) in try ChangeScript(text: text, file: "c.txt").steps {
                    if case .set(let assignments) = step {
                        for (name, value) in assignments { try? settings.assign(name, value) }
                    }
                }
            } catch {
                #expect(error.file == "c.txt" && error.line >= 1 && isOneLine(error.description), "\(error.description)")
            }
        }
        #expect(outcomes[0] > 0 && outcomes[1] > 0)
    }

    @Test func wavDecoder() {
        let encoder = WAVEncoder(sampleRate: 44100, channels: 2, format: .s24)
        let seeds: [[UInt8]] = [
            encoder.encodeFile((0..<64).map { Float($0) / 64 }),
            WAVEncoder(sampleRate: 8000, channels: 1, format: .f32).encodeFile((0..<32).map { Float($0) / 32 }),
            WAVEncoder(sampleRate: 48000, channels: 1, format: .s16).encodeFile([0.5, -0.5, 1, -1]),
        ]
        var mutator = Mutator(seed: 0x57_41_56, alphabet: "RIFFWAVEfmt data\u{01}\u{02}\u{03}\u{10}\u{FF}", tokens: ["data", "fmt ", "RIFF", "LIST"])
        var outcomes = [0, 0]
        for i in 0..<FuzzReport.wavIterations {
            var bytes = mutator.mutate(seeds[i % seeds.count], maxBytes: 4096)
            // Random chunk sizes too: headers are where decoders go wrong.
            if bytes.count > 44, i % 4 == 0 {
                let at = [4, 16, 40][i % 3]
                for k in 0..<4 { bytes[at + k] = UInt8.random(in: 0...255, using: &mutator.random) }
            }
            do {
                let audio = try WAVDecoder.decode(bytes)
                outcomes[0] += 1
                #expect(audio.frames.allSatisfy { $0.isFinite && abs($0) <= 1 })
                #expect(audio.frames.count % audio.channels == 0)
                let layout = try WAVDecoder.layout(Array(bytes.prefix(64)), fileSize: bytes.count)
                #expect(layout.frameCount == audio.frameCount)
            } catch {
                #expect(isOneLine(error.description))
                outcomes[1] += 1
            }
        }
        #expect(outcomes[0] > 0 && outcomes[1] > 0)
    }
}

/// Runs `body`, returning its typed error (nil when it succeeded).
func catching<E: Error>(_ body: () throws(E) -> Void) -> E? {
    do { try body(); return nil } catch { return error }
}

/// Iteration counts: bounded so the suite takes seconds in a debug build.
enum FuzzReport {
    static let tomlIterations = 6000
    static let numberIterations = 20000
    static let scriptIterations = 4000
    static let wavIterations = 6000
}


/// MIDI bytes (DIN, raw MIDI): any stream gives only well-formed messages and never traps;
/// SysEx is counted, never kept.
@Suite struct MIDIParserFuzzTests {
    @Test func randomStreamsGiveWellFormedMessages() {
        var random = SplitMix64(state: 2026)
        var parser = MIDIParser()
        var messages = 0
        for _ in 0..<200 {
            let length = Int(random.next() % 4096)
            for _ in 0..<length {
                // Biased to status bytes, real time and SysEx so every path is hit.
                let r = random.next()
                let byte: UInt8 = switch r % 8 {
                case 0: 0xF8 + UInt8(r >> 8 % 8)
                case 1: [0xF0, 0xF7, 0xF2, 0xF1, 0xF3, 0xF6][Int((r >> 8) % 6)]
                case 2, 3: 0x80 | UInt8((r >> 8) & 0x7F)
                default: UInt8((r >> 8) & 0x7F)
                }
                guard let message = parser.feed(byte) else { continue }
                messages += 1
                let bytes = message.bytes
                #expect(bytes.count >= 1 && bytes.count <= 3)
                switch message {
                case .noteOn(_, let n, let v): #expect(n < 128 && v > 0 && v < 128)
                case .songPosition(let p): #expect((0...16383).contains(p))
                case .systemExclusive(let l): #expect(l >= 2)
                default: break
                }
                #expect(!message.hex.isEmpty)
            }
        }
        #expect(messages > 10_000)
    }
}
