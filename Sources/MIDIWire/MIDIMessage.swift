// SPDX-License-Identifier: GPL-3.0-or-later

/// One MIDI 1.0 message as the box sends or understands it (MIDI 1.0 spec, Table 5 and the
/// channel voice messages). Plain data: the MIDI threads pass these without allocating.
public enum MIDIMessage: Sendable, Hashable, BitwiseCopyable {
    case clock
    case start
    case `continue`
    case stop
    /// Song Position Pointer: 16ths (6 clocks each) from the song's start, 0...16383.
    case songPosition(Int)
    /// Channels are 0...15 here (1...16 to people).
    case noteOn(channel: UInt8, note: UInt8, velocity: UInt8)
    case noteOff(channel: UInt8, note: UInt8, velocity: UInt8)
    case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
    case programChange(channel: UInt8, program: UInt8)
    /// Any other complete message (aftertouch, pitch bend, other system common and real
    /// time bytes): ignored by the box, still shown in the events.
    case other(status: UInt8, data1: UInt8, data2: UInt8, length: UInt8)
    /// A complete System Exclusive message: only its length is kept (the bytes are skipped).
    case systemExclusive(length: Int)

    /// The largest 14-bit Song Position Pointer.
    public static let maximumSongPosition = 16383

    /// SPP for a position of `sixteenths` from the song's start, saturated at 16383 (the
    /// most the 14-bit field holds; later positions cannot be expressed).
    public static func songPosition(sixteenths: Int64) -> MIDIMessage {
        .songPosition(Int(min(max(sixteenths, 0), Int64(maximumSongPosition))))
    }

    /// The wire bytes (at most 3; SysEx is never sent by the box and encodes as F0 F7).
    public var bytes: (UInt8, UInt8, UInt8, count: Int) {
        switch self {
        case .clock: (0xF8, 0, 0, 1)
        case .start: (0xFA, 0, 0, 1)
        case .continue: (0xFB, 0, 0, 1)
        case .stop: (0xFC, 0, 0, 1)
        case .songPosition(let value): (0xF2, UInt8(value & 0x7F), UInt8((value >> 7) & 0x7F), 3)
        case .noteOn(let c, let n, let v): (0x90 | (c & 0x0F), n & 0x7F, v & 0x7F, 3)
        case .noteOff(let c, let n, let v): (0x80 | (c & 0x0F), n & 0x7F, v & 0x7F, 3)
        case .controlChange(let c, let n, let v): (0xB0 | (c & 0x0F), n & 0x7F, v & 0x7F, 3)
        case .programChange(let c, let p): (0xC0 | (c & 0x0F), p & 0x7F, 0, 2)
        case .other(let s, let a, let b, let length): (s, a, b, Int(length))
        case .systemExclusive: (0xF0, 0xF7, 0, 2)
        }
    }

    /// The bytes in upper-case hex, space-separated: "F8", "F2 10 00" (events lines).
    public var hex: String {
        if case .systemExclusive(let length) = self { return "F0 ... F7 (\(length) bytes)" }
        let b = bytes
        let all = [b.0, b.1, b.2].prefix(b.count)
        return all.map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined(separator: " ")
    }
}

/// Turns a byte stream (a DIN cable, raw MIDI) into messages, one byte at a time, with the
/// MIDI 1.0 rules: running status; real-time bytes (F8-FF) anywhere, even inside another
/// message, without disturbing it; SysEx (F0 ... F7) skipped whatever its length, only
/// counted; a system common status cancels running status; data bytes with no status are
/// dropped. Fixed state, no allocation: a flood costs one branch per byte.
public struct MIDIParser: Sendable {
    private var status: UInt8 = 0
    private var data1: UInt8 = 0
    private var haveData1 = false
    private var inSysEx = false
    private var sysExLength = 0

    public init() {}

    /// Feeds one byte; returns the message it completes, if any.
    public mutating func feed(_ byte: UInt8) -> MIDIMessage? {
        if byte >= 0xF8 {
            // Real time: never changes running status or an unfinished message.
            switch byte {
            case 0xF8: return .clock
            case 0xFA: return .start
            case 0xFB: return .continue
            case 0xFC: return .stop
            default: return byte == 0xF9 || byte == 0xFD ? nil : .other(status: byte, data1: 0, data2: 0, length: 1)
            }
        }
        if byte >= 0x80 {
            if inSysEx {
                inSysEx = false
                if byte == 0xF7 { return .systemExclusive(length: sysExLength + 2) }
                // Any other status ends an unterminated SysEx; it is then taken as itself.
            }
            haveData1 = false
            switch byte {
            case 0xF0:
                inSysEx = true
                sysExLength = 0
                status = 0
                return nil
            case 0xF6:
                status = 0
                return .other(status: 0xF6, data1: 0, data2: 0, length: 1)
            case 0xF7, 0xF4, 0xF5:
                status = 0 // a stray EOX or an undefined status
                return nil
            default:
                status = byte // channel status, or F1 / F2 / F3 (no running status after)
                return nil
            }
        }
        if inSysEx {
            // Counted, never stored: endless SysEx costs nothing but the count (saturating).
            if sysExLength < Int.max - 2 { sysExLength += 1 }
            return nil
        }
        guard status != 0 else { return nil }
        let needed = MIDIParser.dataLength(status)
        if needed == 1 {
            let message = MIDIParser.message(status, byte, 0)
            if status >= 0xF0 { status = 0 }
            return message
        }
        if !haveData1 {
            data1 = byte
            haveData1 = true
            return nil
        }
        haveData1 = false
        let message = MIDIParser.message(status, data1, byte)
        if status >= 0xF0 { status = 0 }
        return message
    }

    static func dataLength(_ status: UInt8) -> Int {
        switch status & 0xF0 {
        case 0xC0, 0xD0: return 1
        case 0xF0: return status == 0xF2 ? 2 : 1 // F1 MTC quarter frame, F3 song select: one byte
        default: return 2
        }
    }

    static func message(_ status: UInt8, _ a: UInt8, _ b: UInt8) -> MIDIMessage {
        let channel = status & 0x0F
        switch status & 0xF0 {
        case 0x90: return b == 0 ? .noteOff(channel: channel, note: a, velocity: 0) : .noteOn(channel: channel, note: a, velocity: b)
        case 0x80: return .noteOff(channel: channel, note: a, velocity: b)
        case 0xB0: return .controlChange(channel: channel, controller: a, value: b)
        case 0xC0: return .programChange(channel: channel, program: a)
        default:
            if status == 0xF2 { return .songPosition(Int(a) | Int(b) << 7) }
            return .other(status: status, data1: a, data2: b, length: UInt8(1 + dataLength(status)))
        }
    }
}
