// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import HAL
import TactusBase
import Devices
import SimHAL

/// The exact bytes the drivers put on the bus, written out by hand from the datasheets
/// (SSD1306 Rev 1.1 §10.1 and its initialisation flow chart; SH1106 V2.3 command table),
/// so a change to the drivers' output has to be made here too, on purpose.
@Suite struct OLEDGoldenBytesTests {
    let address = I2CAddress(0x3C)!

    static let ssd1306x64InitCommands: [UInt8] = [
        0x00,             // control byte: commands follow
        0xAE,             // display off
        0xD5, 0x80,       // clock divide 1, oscillator mid
        0xA8, 0x3F,       // multiplex 64
        0xD3, 0x00,       // display offset 0
        0x40,             // start line 0
        0x8D, 0x14,       // charge pump on
        0x20, 0x02,       // page addressing mode
        0xA1, 0xC8,       // segment remap, COM scan reversed (module upright)
        0xDA, 0x12,       // alternative COM pins (64 rows)
        0x81, 0xCF,       // contrast
        0xD9, 0xF1,       // pre-charge
        0xDB, 0x40,       // VCOMH
        0xA4, 0xA6,       // show RAM, not inverted
    ]

    static let sh1106InitCommands: [UInt8] = [
        0x00, 0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40,
        0xAD, 0x8B,       // DC-DC on
        0x32,             // pump 8.0 V
        0xA1, 0xC8, 0xDA, 0x12,
        0x81, 0x80,       // contrast (reset value)
        0xD9, 0x22, 0xDB, 0x35, // pre-charge and VCOM reset values
        0xA4, 0xA6,
    ]

    func clearPages(pages: Int, columns: Int, chunk: Int) -> [[UInt8]] {
        var writes: [[UInt8]] = []
        for page in 0..<pages {
            writes.append([0x00, 0xB0 | UInt8(page), 0x00, 0x10])
            var left = columns
            while left > 0 {
                let n = min(chunk, left)
                writes.append([0x40] + [UInt8](repeating: 0, count: n))
                left -= n
            }
        }
        return writes
    }

    @Test func ssd1306InitOnPlainI2C() throws {
        let bus = PlaybackI2CBus(expectingWrites: [Self.ssd1306x64InitCommands] + clearPages(pages: 8, columns: 128, chunk: 128) + [[0x00, 0xAF]], to: address)
        let display = try OLEDDisplay(controller: .ssd1306, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        #expect(bus.mismatches == [])
        #expect(bus.isComplete)
    }

    @Test func ssd1306x32Init() throws {
        var commands = Self.ssd1306x64InitCommands
        commands[5] = 0x1F   // multiplex 32
        commands[16] = 0x02  // sequential COM pins
        commands[18] = 0x8F  // contrast for the 32-row module
        let bus = PlaybackI2CBus(expectingWrites: [commands] + clearPages(pages: 4, columns: 128, chunk: 128) + [[0x00, 0xAF]], to: address)
        let display = try OLEDDisplay(controller: .ssd1306, width: 128, height: 32, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        #expect(bus.mismatches == [])
        #expect(bus.isComplete)
    }

    @Test func sh1106InitClearsAll132Columns() throws {
        let bus = PlaybackI2CBus(expectingWrites: [Self.sh1106InitCommands] + clearPages(pages: 8, columns: 132, chunk: 128) + [[0x00, 0xAF]], to: address)
        let display = try OLEDDisplay(controller: .sh1106, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        #expect(bus.mismatches == [])
        #expect(bus.isComplete)
    }

    @Test func smbusModeCutsDataInto32ByteBlocks() throws {
        let bus = PlaybackI2CBus(expectingWrites: [Self.ssd1306x64InitCommands] + clearPages(pages: 8, columns: 128, chunk: 32) + [[0x00, 0xAF]],
                                 to: address, maximumWriteLength: 33)
        let display = try OLEDDisplay(controller: .ssd1306, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        #expect(bus.mismatches == [])
        #expect(bus.isComplete)
    }

    @Test(arguments: [DisplayController.ssd1306, .sh1106])
    func flushSendsOnlyChangedColumns(controller: DisplayController) throws {
        let bus = RecordingI2CBus()
        bus.attach(SimulatedOLEDPanel(controller: controller), at: address)
        let display = try OLEDDisplay(controller: controller, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        bus.clearRecording()

        var frame = display.blankFrame()
        frame[10, 0] = true
        frame[100, 63] = true
        try display.show(frame)
        let offset: UInt8 = controller == .sh1106 ? 2 : 0
        #expect(bus.writes == [
            [0x00, 0xB0, 0x0A + offset, 0x10], [0x40, 0x01],
            [0x00, 0xB7, 0x04 + offset, 0x16], [0x40, 0x80],
        ])

        bus.clearRecording()
        try display.show(frame)
        #expect(bus.writes == [], "an unchanged frame sends nothing")

        // Changes 5 columns apart go as one run (cheaper than a new address); 40 apart as two.
        frame[20, 9] = true
        frame[25, 9] = true
        frame[65, 9] = true
        bus.clearRecording()
        try display.show(frame)
        #expect(bus.writes == [
            [0x00, 0xB1, 0x04 + offset, 0x11], [0x40, 0x02, 0, 0, 0, 0, 0x02],
            [0x00, 0xB1, 0x01 + offset, 0x14], [0x40, 0x02],
        ])
    }

    @Test func contrastAndSleepCommands() throws {
        let bus = PlaybackI2CBus(expectingWrites: [[0x00, 0x81, 0x20], [0x00, 0xAE], [0x00, 0xAF]], to: address)
        let display = try OLEDDisplay(controller: .ssd1306, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.setContrast(0x20)
        try display.setSleeping(true)
        try display.setSleeping(false)
        #expect(bus.isComplete)
    }

    @Test func unsupportedGeometryIsRejected() {
        let bus = RecordingI2CBus()
        #expect(throws: HALError.self) {
            try OLEDDisplay(controller: .sh1106, width: 128, height: 32, transport: I2CDisplayTransport(bus: bus, address: address))
        }
    }
}
