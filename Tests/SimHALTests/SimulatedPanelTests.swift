// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import TactusScreen
import Testing
import HAL
import Devices
import SimHAL
import TactusBase

@Suite struct SimulatedPanelTests {
    let address = I2CAddress(0x3C)!

    struct Setup: CustomTestStringConvertible, Sendable {
        var controller: DisplayController
        var height: Int
        var maximumWriteLength: Int?
        var testDescription: String { "\(controller.rawValue) 128x\(height) \(maximumWriteLength.map { "SMBus \($0)" } ?? "I2C")" }
    }

    static let setups = [
        Setup(controller: .ssd1306, height: 64, maximumWriteLength: nil),
        Setup(controller: .ssd1306, height: 32, maximumWriteLength: nil),
        Setup(controller: .sh1106, height: 64, maximumWriteLength: nil),
        Setup(controller: .ssd1306, height: 64, maximumWriteLength: 33),
        Setup(controller: .sh1106, height: 64, maximumWriteLength: 33),
    ]

    @Test(arguments: setups)
    func randomFramesRoundTripThroughThePanel(setup: Setup) throws {
        let bus = RecordingI2CBus(maximumWriteLength: setup.maximumWriteLength)
        let panel = SimulatedOLEDPanel(controller: setup.controller, height: setup.height)
        bus.attach(panel, at: address)
        let display = try OLEDDisplay(controller: setup.controller, height: setup.height,
                                      transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        #expect(panel.visibleFrame == display.blankFrame(), "init clears the visible RAM")
        #expect(panel.displayOn)

        var random = SplitMix64(state: 0x7AC7_0500 + UInt64(setup.height))
        var frame = display.blankFrame()
        for round in 0..<40 {
            if round % 4 == 0 {
                // A whole new random frame.
                for page in 0..<frame.pageCount {
                    for column in 0..<frame.width { frame.setByte(page: page, column: column, UInt8.random(in: 0...255, using: &random)) }
                }
            } else {
                // A few scattered pixels, like a pendulum moving.
                for _ in 0..<Int.random(in: 1...12, using: &random) {
                    let x = Int.random(in: 0..<frame.width, using: &random)
                    let y = Int.random(in: 0..<frame.height, using: &random)
                    frame[x, y].toggle()
                }
            }
            try display.show(frame)
            #expect(panel.visibleFrame == frame, "round \(round)")
        }
        #expect(panel.unknownCommands == [])
    }

    @Test func panelFollowsSleepContrastAndOrientation() throws {
        let bus = RecordingI2CBus()
        let panel = SimulatedOLEDPanel(controller: .ssd1306)
        bus.attach(panel, at: address)
        let display = try OLEDDisplay(controller: .ssd1306, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        var frame = display.blankFrame()
        frame[0, 0] = true
        try display.show(frame)
        #expect(panel.visibleFrame[0, 0])

        try display.setContrast(0x11)
        #expect(panel.contrast == 0x11)
        try display.setSleeping(true)
        #expect(panel.visibleFrame == display.blankFrame())
        try display.setSleeping(false)
        #expect(panel.visibleFrame == frame)

        // Without the remaps the same RAM shows mirrored: the panel decodes orientation, not just bytes.
        panel.receive([0x00, 0xA0, 0xC0])
        #expect(panel.visibleFrame[127, 63])
        #expect(!panel.visibleFrame[0, 0])
    }

    @Test func absentDisplayFailsWithNoAcknowledgeAndWorksWhenItReturns() throws {
        let bus = RecordingI2CBus()
        let display = try OLEDDisplay(controller: .ssd1306, transport: I2CDisplayTransport(bus: bus, address: address))
        #expect {
            try display.initialize()
        } throws: { error in
            (error as? HALError)?.kind == .noAcknowledge
        }
        let panel = SimulatedOLEDPanel(controller: .ssd1306)
        bus.attach(panel, at: address)
        try display.initialize()
        var frame = display.blankFrame()
        frame[64, 32] = true
        try display.show(frame)
        #expect(panel.visibleFrame == frame)
    }

    @Test func failedFlushResendsEverythingNextTime() throws {
        let bus = RecordingI2CBus()
        let panel = SimulatedOLEDPanel(controller: .ssd1306)
        bus.attach(panel, at: address)
        let display = try OLEDDisplay(controller: .ssd1306, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        var frame = display.blankFrame()
        frame[1, 1] = true
        bus.devices[address] = nil
        #expect(throws: HALError.self) { try display.show(frame) }
        // The module was power-cycled meanwhile: its RAM is garbage until re-initialised.
        let replugged = SimulatedOLEDPanel(controller: .ssd1306)
        bus.attach(replugged, at: address)
        try display.initialize()
        try display.show(frame)
        #expect(replugged.visibleFrame == frame)
    }
}

@Suite struct ResilientDisplayTests {
    let address = I2CAddress(0x3C)!

    @Test func runsWithoutThePanelAndPicksItUpWhenItAnswers() throws {
        let bus = RecordingI2CBus()
        let clock = ManualClock()
        var reports: [ResilientDisplay.Status] = []
        let oled = try OLEDDisplay(controller: .ssd1306, transport: I2CDisplayTransport(bus: bus, address: address))
        let display = ResilientDisplay(oled, clock: clock, retryNanoseconds: 5_000_000_000) { reports.append($0) }

        var frame = oled.blankFrame()
        frame[3, 3] = true
        display.show(frame)
        #expect(!display.isWorking)
        #expect(reports.count == 1)
        guard case .unavailable(let error) = reports.first else { Issue.record("expected a failure report"); return }
        #expect(error.kind == .noAcknowledge)

        // Within the retry interval nothing touches the bus.
        bus.clearRecording()
        clock.advance(byNanoseconds: 1_000_000_000)
        display.show(frame)
        display.setContrast(0x40)
        #expect(bus.transactions.isEmpty)

        // Still missing at the next retry: no new report.
        clock.advance(byNanoseconds: 5_000_000_000)
        display.poll()
        #expect(reports.count == 1)

        // Plugged in: the next retry initialises it and shows the latest frame and contrast.
        let panel = SimulatedOLEDPanel(controller: .ssd1306)
        bus.attach(panel, at: address)
        clock.advance(byNanoseconds: 5_000_000_000)
        display.poll()
        #expect(display.isWorking)
        #expect(reports.last == .working)
        #expect(panel.visibleFrame == frame)
        #expect(panel.contrast == 0x40)

        // Unplugged again mid-use: one report, and the box carries on.
        bus.devices[address] = nil
        frame[4, 4] = true
        display.show(frame)
        #expect(!display.isWorking)
        #expect(reports.count == 3)
    }
}

@Suite struct SnapshotTests {
    @Test func pbmRoundTripsAndStaysReadable() throws {
        var random = SplitMix64(state: 42)
        var frame = Bitmap(width: 128, height: 64)
        for page in 0..<8 { for x in 0..<128 { frame.setByte(page: page, column: x, UInt8.random(in: 0...255, using: &random)) } }
        let text = PBM.encode(frame)
        #expect(text.hasPrefix("P1\n128 64\n"))
        #expect(text.split(separator: "\n").count == 66)
        #expect(PBM.decode(text) == frame)
        #expect(PBM.decode("P1\n# comment\n3 2\n1 0 1\n0 1 0\n").map { [$0[0, 0], $0[1, 0], $0[1, 1]] } == [true, false, true])
        #expect(PBM.decode("P1\n3 2\n101\n01") == nil)
    }

    @Test func terminalPictureUsesHalfBlocks() {
        var frame = Bitmap(width: 3, height: 2)
        frame[0, 0] = true
        frame[1, 1] = true
        frame[2, 0] = true
        frame[2, 1] = true
        #expect(TerminalPicture.render(frame) == ["▀▄█"])
    }

    /// An 80x24 terminal gets the Braille rendering (66x21), a large one half blocks
    /// (130x37), a smaller one a message with the size needed.
    @Test func terminalLayoutFitsTheTerminal() {
        #expect(TerminalPicture.layout(columns: 80, rows: 24) == .braille)
        #expect(TerminalPicture.layout(columns: 130, rows: 37) == .halfBlocks)
        #expect(TerminalPicture.layout(columns: 130, rows: 36) == .braille)
        #expect(TerminalPicture.layout(columns: 66, rows: 21) == .braille)
        guard case .tooSmall(let message) = TerminalPicture.layout(columns: 65, rows: 24) else {
            Issue.record("65 columns cannot hold the Braille screen")
            return
        }
        #expect(message == "The simulator needs a terminal of at least 66x21 characters (130x37 for the screen at full size); this one is 65x24. Enlarge it, or press q.")
    }

    @Test func brailleHoldsTwoByFourPixelsPerCharacter() {
        var frame = Bitmap(width: 4, height: 4)
        frame[0, 0] = true
        frame[1, 3] = true
        for y in 0..<4 { frame[2, y] = true; frame[3, y] = true }
        // Dots 1 and 8 (0x01 + 0x80); all eight (0xFF).
        #expect(TerminalPicture.braille(frame) == ["\u{2881}\u{28FF}"])
        let screen = TerminalPicture.braille(Bitmap(width: 128, height: 64))
        #expect(screen.count == 16 && screen.allSatisfy { $0.count == 64 })
    }

    /// The dimmed screen's half-lit (checkerboard) digits read solid in the terminal.
    @Test func dimmedContentIsUndithered() {
        var frame = Bitmap(width: 8, height: 4)
        frame.fill(Rect(x: 1, y: 0, width: 6, height: 4))
        frame.dither(Rect(x: 1, y: 0, width: 6, height: 4))
        let solid = TerminalPicture.undithered(frame)
        for y in 0..<4 { for x in 2..<7 { #expect(solid[x, y]) } }
        #expect(!solid[0, 0])
    }
}
