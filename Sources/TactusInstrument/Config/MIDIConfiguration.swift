// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import TactusTimeline
import MIDIWire

/// What a mapped MIDI message does on the box.
public enum MIDIControl: Sendable, Hashable {
    case tap
    case startStop
    case footswitch
    case tempoUp
    case tempoDown
    case nextSection
    case previousSection
    /// Load preset N (1-based, as the menu lists them).
    case preset(Int)
    /// Load the setlist's song N (1-based).
    case song(Int)

    static let syntax = "allowed \"tap\", \"start-stop\", \"footswitch\", \"tempo-up\", \"tempo-down\", \"next-section\", \"previous-section\", \"preset N\" or \"song N\" (N from 1)"

    /// As `[midi.map]` writes it (`"tap"`, `"preset 2"`): what `parse` reads back.
    public var text: String {
        switch self {
        case .tap: "tap"
        case .startStop: "start-stop"
        case .footswitch: "footswitch"
        case .tempoUp: "tempo-up"
        case .tempoDown: "tempo-down"
        case .nextSection: "next-section"
        case .previousSection: "previous-section"
        case .preset(let n): "preset \(n)"
        case .song(let n): "song \(n)"
        }
    }

    static func parse(_ text: String) -> MIDIControl? {
        let words = text.split(separator: " ").map(String.init)
        guard let first = words.first else { return nil }
        if words.count == 1 {
            switch first {
            case "tap": return .tap
            case "start-stop": return .startStop
            case "footswitch": return .footswitch
            case "tempo-up": return .tempoUp
            case "tempo-down": return .tempoDown
            case "next-section": return .nextSection
            case "previous-section": return .previousSection
            default: return nil
            }
        }
        guard words.count == 2, let n = Int(words[1]), n >= 1, n <= 999 else { return nil }
        switch first {
        case "preset": return .preset(n)
        case "song": return .song(n)
        default: return nil
        }
    }
}

/// One `[midi.map]` entry: `"note 36" = "tap"`, `"cc 64 ch 10" = "footswitch"`,
/// `"program 4" = "preset 2"`. Channel 1-16, or any when not given.
public struct MIDIMapping: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case note, cc, program }
    public var kind: Kind
    public var number: Int
    /// 0-15, nil: any channel.
    public var channel: UInt8?
    public var control: MIDIControl

    static let keySyntax = "keys are \"note N\", \"cc N\" or \"program N\" (N 0-127), optionally followed by \"ch C\" (1-16)"

    public init(kind: Kind, number: Int, channel: UInt8?, control: MIDIControl) {
        self.kind = kind
        self.number = number
        self.channel = channel
        self.control = control
    }

    /// The `[midi.map]` key (`"cc 64 ch 10"`): what `parse(key:control:)` reads back.
    public var key: String {
        "\(kind.rawValue) \(number)" + (channel.map { " ch \(Int($0) + 1)" } ?? "")
    }

    static func parse(key: String, control: MIDIControl) -> MIDIMapping? {
        let words = key.split(separator: " ").map(String.init)
        guard words.count == 2 || (words.count == 4 && words[2] == "ch"), let kind = Kind(rawValue: words[0]),
              let number = Int(words[1]), (0...127).contains(number) else { return nil }
        var channel: UInt8?
        if words.count == 4 {
            guard let c = Int(words[3]), (1...16).contains(c) else { return nil }
            channel = UInt8(c - 1)
        }
        return MIDIMapping(kind: kind, number: number, channel: channel, control: control)
    }

    /// Whether `message` triggers this mapping: a note-on, a controller crossing up to 64
    /// or more (`pressed` tells a CC's press), a program change.
    public func matches(_ message: MIDIMessage) -> Bool {
        switch (kind, message) {
        // A note-on with velocity 0 is a note-off (MIDI 1.0): never a press.
        case (.note, .noteOn(let c, let n, let v)): v > 0 && Int(n) == number && (channel == nil || channel == c)
        case (.cc, .controlChange(let c, let n, _)): Int(n) == number && (channel == nil || channel == c)
        case (.program, .programChange(let c, let p)): Int(p) == number && (channel == nil || channel == c)
        default: false
        }
    }
}

/// The `[midi]` table of the configuration:
///
/// ```toml
/// [midi]
/// out = ["USB MIDI Interface"]   # also connect the clock to these (client or port name)
/// uart = "/dev/ttyAMA0"          # DIN through the midi-uart0 overlay: raw bytes on a tty
/// offset_ms = 0                  # -20 to +20: send this much earlier (receiver latency)
/// clock_when_stopped = true      # clocks go on while stopped, at the current tempo
/// start_at_count_in = false      # Start before the count-in's first clock, not bar 0's
/// [midi.map]
/// "note 36" = "tap"
/// "cc 64" = "start-stop"
/// "program 0 ch 10" = "song 1"
/// ```
public struct MIDIConfiguration: Sendable, Hashable {
    public var out: [String] = []
    public var uart: String?
    public var offsetMilliseconds = 0
    public var clockWhenStopped = true
    /// Start goes out before the count-in's first clock instead of bar 0's.
    public var startAtCountIn = false
    public var map: [MIDIMapping] = []

    public static let offsetRange = -20...20

    public init() {}

    /// Reads `[midi]`; errors name the file, line, field and what is allowed.
    public static func parse(_ section: TOMLSection) throws(TOMLError) -> MIDIConfiguration {
        var midi = MIDIConfiguration()
        try section.rejectUnknownKeys(allowed: ["out", "uart", "offset_ms", "clock_when_stopped", "start_at_count_in", "map"])
        if let value = section.table["out"] {
            var names: [String] = []
            if case .array(let items) = value.content {
                for item in items {
                    if let name = item.string, !name.isEmpty { names.append(name) } else { names = []; break }
                }
                if names.count != items.count { names = [] }
            }
            guard !names.isEmpty || value.content == .array([]) else {
                throw section.invalid("out", allowed: "expected a list of port or client names, e.g. [\"USB MIDI Interface\"]")
            }
            midi.out = names
        }
        if let uart = try section.string("uart") {
            guard uart.hasPrefix("/dev/"), uart.count > 5 else {
                throw section.invalid("uart", allowed: "expected a tty device path, e.g. \"/dev/ttyAMA0\"")
            }
            midi.uart = uart
        }
        if let v = try section.integer("offset_ms", in: offsetRange) { midi.offsetMilliseconds = v }
        if let v = try section.bool("clock_when_stopped") { midi.clockWhenStopped = v }
        if let v = try section.bool("start_at_count_in") { midi.startAtCountIn = v }
        if let map = try section.section("map") { midi.map = try Self.map(from: map) }
        return midi
    }

    /// Reads a `[midi.map]` table, in its order (the first match wins): the configuration's,
    /// or the one edited at the companion and kept in the settings file.
    public static func map(from map: TOMLSection) throws(TOMLError) -> [MIDIMapping] {
        var mappings: [MIDIMapping] = []
        for key in map.table.keys {
            guard let text = try map.string(key) else { continue }
            guard let control = MIDIControl.parse(text) else { throw map.invalid(key, allowed: MIDIControl.syntax) }
            guard let mapping = MIDIMapping.parse(key: key, control: control) else { throw map.invalid(key, allowed: MIDIMapping.keySyntax) }
            mappings.append(mapping)
        }
        return mappings
    }

    /// The map as a `[midi.map]` table.
    public static func table(_ map: [MIDIMapping]) -> TOMLTable {
        var table = TOMLTable()
        for mapping in map { table[mapping.key] = .string(mapping.control.text) }
        return table
    }

    /// What `message` does: the first mapping that matches; a program change not mapped
    /// selects the setlist's song N (program 0 selects nothing).
    public func control(for message: MIDIMessage) -> MIDIControl? { control(for: message, map: map) }

    /// The same with another map (the companion's, which takes the configuration's place).
    public func control(for message: MIDIMessage, map: [MIDIMapping]) -> MIDIControl? {
        if let mapped = map.first(where: { $0.matches(message) }) {
            if case .controlChange(_, _, let value) = message, value < 64 { return nil }
            return mapped.control
        }
        if case .programChange(_, let program) = message, program > 0 { return .song(Int(program)) }
        return nil
    }
}
