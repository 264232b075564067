// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import MIDIWire

@Suite struct MIDIParserTests {
    func parse(_ bytes: [UInt8]) -> [MIDIMessage] {
        var parser = MIDIParser()
        return bytes.compactMap { parser.feed($0) }
    }

    @Test func runningStatusAndVelocityZero() {
        #expect(parse([0x90, 60, 100, 62, 90, 60, 0]) == [
            .noteOn(channel: 0, note: 60, velocity: 100), .noteOn(channel: 0, note: 62, velocity: 90),
            .noteOff(channel: 0, note: 60, velocity: 0),
        ])
        #expect(parse([0xB3, 64, 127, 64, 0]) == [.controlChange(channel: 3, controller: 64, value: 127),
                                                 .controlChange(channel: 3, controller: 64, value: 0)])
        #expect(parse([0xC1, 5, 6]) == [.programChange(channel: 1, program: 5), .programChange(channel: 1, program: 6)])
    }

    @Test func realTimeInsideMessages() {
        // F8 between status and data, and between the two data bytes, leaves the note whole.
        #expect(parse([0x92, 0xF8, 60, 0xFA, 100, 0xF8]) == [.clock, .start, .noteOn(channel: 2, note: 60, velocity: 100), .clock])
        #expect(parse([0xF2, 0x10, 0xF8, 0x00, 0xFB]) == [.clock, .songPosition(16), .continue])
        // Real time inside SysEx does not end it.
        #expect(parse([0xF0, 0x7E, 0xF8, 0x01, 0xF7, 0xFC]) == [.clock, .systemExclusive(length: 4), .stop])
    }

    @Test func sysExAndStrayBytes() {
        // Data with no status is dropped; SysEx cancels running status; a status ends an
        // unterminated SysEx.
        #expect(parse([60, 100, 0x90, 60, 1, 0xF0, 1, 2, 3, 0xF7, 61, 1]) == [.noteOn(channel: 0, note: 60, velocity: 1),
                                                                           .systemExclusive(length: 5)])
        #expect(parse([0xF0, 1, 2, 0x80, 60, 0]) == [.noteOff(channel: 0, note: 60, velocity: 0)])
        // System common cancels running status.
        #expect(parse([0x90, 60, 1, 0xF2, 0, 0, 61, 1]) == [.noteOn(channel: 0, note: 60, velocity: 1), .songPosition(0)])
    }

    @Test func floodsAreBounded() {
        var parser = MIDIParser()
        var clocks = 0
        for _ in 0..<10_000 { if parser.feed(0xF8) == .clock { clocks += 1 } }
        #expect(clocks == 10_000)
        // A million SysEx data bytes: nothing stored, the message comes out with its length.
        _ = parser.feed(0xF0)
        for _ in 0..<1_000_000 { #expect(parser.feed(0x55) == nil) }
        #expect(parser.feed(0xF7) == .systemExclusive(length: 1_000_002))
        #expect(MemoryLayout<MIDIParser>.size <= 32)
    }

    @Test func hexAndSongPosition() {
        #expect(MIDIMessage.clock.hex == "F8")
        #expect(MIDIMessage.songPosition(16).hex == "F2 10 00")
        #expect(MIDIMessage.songPosition(sixteenths: 200).hex == "F2 48 01")
        #expect(MIDIMessage.songPosition(sixteenths: 16383) == .songPosition(16383))
        #expect(MIDIMessage.songPosition(sixteenths: 16384) == .songPosition(16383))
        #expect(MIDIMessage.songPosition(sixteenths: 1_000_000).hex == "F2 7F 7F")
        #expect(MIDIMessage.noteOn(channel: 9, note: 36, velocity: 127).hex == "99 24 7F")
    }
}
