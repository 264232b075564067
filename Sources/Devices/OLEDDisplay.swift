// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// An SSD1306 (128x64 or 128x32) or SH1106 (128x64 shown from a 132-column RAM) panel.
///
/// Both controllers are driven in page addressing mode, the one mode they share, so one flush
/// routine serves both: for every 8-row page, only the runs of columns that differ from what
/// the panel already shows are sent. After a failed transfer the panel's RAM is unknown, so
/// the next `show` sends everything.
public final class OLEDDisplay: MonochromeDisplay {
    public let controller: DisplayController
    public let width: Int
    public let height: Int
    public let transport: any DisplayTransport
    /// Runs of changed columns closer than this are sent as one: a new run costs a command
    /// write (control byte + 3 commands) plus a data write header, about 7 bytes on the bus.
    public var mergeGap = 8

    /// What the panel's RAM holds, or nil when unknown (before init, after an error).
    private var shown: Bitmap?
    private var contrast: UInt8

    /// SH1106 modules wire the 128-pixel glass to the middle of the 132-column RAM.
    private var columnOffset: Int { controller == .sh1106 ? 2 : 0 }
    private var ramColumns: Int { controller == .sh1106 ? 132 : 128 }

    public init(controller: DisplayController, width: Int = 128, height: Int = 64, transport: any DisplayTransport) throws(HALError) {
        switch (controller, width, height) {
        case (.ssd1306, 128, 64), (.ssd1306, 128, 32), (.sh1106, 128, 64): break
        default:
            throw HALError(.invalidArgument, "a \(controller.rawValue) display of \(width)x\(height) is not supported: use 128x64 or 128x32 (SSD1306) or 128x64 (SH1106)")
        }
        self.controller = controller
        self.width = width
        self.height = height
        self.transport = transport
        self.contrast = controller == .sh1106 ? 0x80 : (height == 32 ? 0x8F : 0xCF)
    }

    public convenience init(_ definition: DisplayDefinition, bus: any I2CBus) throws(HALError) {
        try self.init(controller: definition.controller, width: definition.width, height: definition.height,
                      transport: I2CDisplayTransport(bus: bus, address: definition.address))
    }

    /// The power-on sequence, display still off; values follow each datasheet's recommended
    /// initialisation (SSD1306 Rev 1.1 "Software Initialization" flow chart; SH1106 V2.3 reset values).
    public var initializationCommands: [OLEDCommand] {
        let common: [OLEDCommand] = [
            .setDisplayOn(false),
            .setClockDivide(0x80),
            .setMultiplexRatio(UInt8(height - 1)),
            .setDisplayOffset(0),
            .setDisplayStartLine(0),
        ]
        // Modules mount the glass rotated, so remapped segments and COM scan show it upright.
        let orientation: [OLEDCommand] = [.setSegmentRemap(true), .setCOMScanRemapped(true)]
        switch controller {
        case .ssd1306:
            return common + [.setChargePump(true), .setMemoryAddressingMode(2)] + orientation + [
                .setCOMPinsConfiguration(height == 32 ? 0x02 : 0x12),
                .setContrast(contrast),
                .setPrechargePeriod(0xF1),
                .setVCOMHDeselectLevel(0x40),
                .entireDisplayOn(false),
                .setInverse(false),
            ]
        case .sh1106:
            return common + [.setDCDCConverter(true), .setPumpVoltage(2)] + orientation + [
                .setCOMPinsConfiguration(0x12),
                .setContrast(contrast),
                .setPrechargePeriod(0x22),
                .setVCOMHDeselectLevel(0x35),
                .entireDisplayOn(false),
                .setInverse(false),
            ]
        }
    }

    public func initialize() throws(HALError) {
        shown = nil
        try transport.sendCommands(initializationCommands.map(\.bytes))
        // Clear all of the RAM rows the panel shows, including the SH1106's hidden edge columns.
        let blankPage = [UInt8](repeating: 0, count: ramColumns)
        for page in 0..<(height / 8) {
            try transport.sendCommands(addressCommands(page: page, ramColumn: 0))
            try transport.sendData(blankPage[...])
        }
        try transport.sendCommands([OLEDCommand.setDisplayOn(true).bytes])
        shown = blankFrame()
    }

    public func show(_ frame: Bitmap) throws(HALError) {
        guard frame.width == width, frame.height == height else {
            throw HALError(.invalidArgument, "frame is \(frame.width)x\(frame.height) but the display is \(width)x\(height)")
        }
        let previous = shown
        shown = nil
        for page in 0..<frame.pageCount {
            let new = frame.page(page)
            for run in changedRuns(new, previous?.page(page)) {
                try transport.sendCommands(addressCommands(page: page, ramColumn: run.lowerBound + columnOffset))
                try transport.sendData(new[(new.startIndex + run.lowerBound)..<(new.startIndex + run.upperBound)])
            }
        }
        shown = frame
    }

    public func setContrast(_ level: UInt8) throws(HALError) {
        contrast = level
        try transport.sendCommands([OLEDCommand.setContrast(level).bytes])
    }

    public func setSleeping(_ sleeping: Bool) throws(HALError) {
        try transport.sendCommands([OLEDCommand.setDisplayOn(!sleeping).bytes])
    }

    private func addressCommands(page: Int, ramColumn: Int) -> [[UInt8]] {
        [OLEDCommand.setPageStart(UInt8(page)).bytes,
         OLEDCommand.setLowerColumn(UInt8(ramColumn & 0x0F)).bytes,
         OLEDCommand.setHigherColumn(UInt8(ramColumn >> 4)).bytes]
    }

    /// Column ranges (relative to the page) where `new` differs from `old`; all of it when `old` is unknown.
    private func changedRuns(_ new: ArraySlice<UInt8>, _ old: ArraySlice<UInt8>?) -> [Range<Int>] {
        guard let old else { return [0..<new.count] }
        var runs: [Range<Int>] = []
        var column = 0
        while column < new.count {
            guard new[new.startIndex + column] != old[old.startIndex + column] else { column += 1; continue }
            var end = column + 1
            var gap = 0
            var probe = end
            while probe < new.count && gap < mergeGap {
                if new[new.startIndex + probe] != old[old.startIndex + probe] { end = probe + 1; gap = 0 } else { gap += 1 }
                probe += 1
            }
            runs.append(column..<end)
            column = end
        }
        return runs
    }
}
