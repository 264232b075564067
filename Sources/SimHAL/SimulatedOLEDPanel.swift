// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// An SSD1306 or SH1106 module on a simulated I2C bus: it decodes the control bytes, commands
/// and display data that a driver sends and keeps the controller's RAM and registers, so
/// `visibleFrame` is what a person would see on the glass.
///
/// Orientation model: modules mount the glass so that the image is upright with segment remap
/// (A1h) and reversed COM scan (C8h), which is what drivers send; with A0h/C0h the image is
/// mirrored accordingly. SH1106 modules show RAM columns 2...129 of 132.
public final class SimulatedOLEDPanel: SimulatedI2CDevice {
    public let controller: DisplayController
    public let width: Int
    public let height: Int
    public let ramColumns: Int
    public let columnOffset: Int

    /// ram[page][column]
    public private(set) var ram: [[UInt8]]
    public private(set) var displayOn = false
    public private(set) var contrast: UInt8 = 0x7F
    public private(set) var segmentRemap = false
    public private(set) var comScanRemapped = false
    public private(set) var inverse = false
    public private(set) var entireDisplayOn = false
    public private(set) var multiplexRatio = 63
    public private(set) var displayOffset = 0
    public private(set) var startLine = 0
    public private(set) var addressingMode = 2
    public private(set) var chargePumpOn = false
    /// Command bytes it did not understand, to fail tests that send garbage.
    public private(set) var unknownCommands: [UInt8] = []
    public private(set) var commandCount = 0
    public private(set) var dataByteCount = 0

    private var page = 0
    private var column = 0
    private var columnStart = 0
    private var columnEnd: Int
    private var pageStart = 0
    private var pageEnd = 7
    /// An opcode waiting for its parameter bytes.
    private var pending: (opcode: UInt8, needed: Int, parameters: [UInt8])?

    public init(controller: DisplayController, width: Int = 128, height: Int = 64) {
        self.controller = controller
        self.width = width
        self.height = height
        self.ramColumns = controller == .sh1106 ? 132 : 128
        self.columnOffset = controller == .sh1106 ? 2 : 0
        self.columnEnd = ramColumns - 1
        // Power-on RAM is random on real parts; a pattern makes "forgot to clear" visible in tests.
        self.ram = (0..<8).map { page in (0..<(controller == .sh1106 ? 132 : 128)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ page &* 101) } }
    }

    public func handle(_ messages: [I2CMessage]) throws(HALError) -> [[UInt8]] {
        for message in messages {
            switch message {
            case .write(let bytes): receive(bytes)
            case .read(let count):
                // The status read (D/C=0) is the only read these controllers offer over I2C; not simulated.
                _ = count
                throw HALError(.unsupported, "the simulated \(controller.rawValue) does not support reads")
            }
        }
        return []
    }

    /// One I2C write: control byte(s) followed by commands or data (SSD1306 §8.1.5.2).
    public func receive(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            let control = bytes[index]
            index += 1
            let continuation = control & 0x80 != 0
            let isData = control & 0x40 != 0
            // Co = 1: one byte follows, then another control byte. Co = 0: the rest is all one kind.
            let end = continuation ? min(index + 1, bytes.count) : bytes.count
            for byte in bytes[index..<end] {
                if isData { writeData(byte) } else { command(byte) }
            }
            index = end
        }
    }

    /// What the glass shows now.
    public var visibleFrame: Bitmap {
        var frame = Bitmap(width: width, height: height)
        guard displayOn else { return frame }
        for y in 0..<height {
            let com = comScanRemapped ? y : (multiplexRatio - y)
            let ramRow = ((com + startLine + displayOffset) % 64 + 64) % 64
            for x in 0..<width {
                let ramColumn = segmentRemap ? x + columnOffset : ramColumns - 1 - columnOffset - x
                let bit = ram[ramRow / 8][ramColumn] & (1 << UInt8(ramRow % 8)) != 0
                frame[x, y] = entireDisplayOn || (bit != inverse)
            }
        }
        return frame
    }

    private func parameterCount(_ opcode: UInt8) -> Int? {
        switch opcode {
        case 0x81, 0xA8, 0xD3, 0xD5, 0xD9, 0xDA, 0xDB: return 1
        case 0x20, 0x8D: return controller == .ssd1306 ? 1 : nil
        case 0x21, 0x22: return controller == .ssd1306 ? 2 : nil
        case 0xAD: return controller == .sh1106 ? 1 : nil
        default: return 0
        }
    }

    private func command(_ byte: UInt8) {
        if var waiting = pending {
            waiting.parameters.append(byte)
            if waiting.parameters.count == waiting.needed {
                pending = nil
                execute(waiting.opcode, waiting.parameters)
            } else {
                pending = waiting
            }
            return
        }
        guard let count = parameterCount(byte) else { unknownCommands.append(byte); return }
        if count == 0 { execute(byte, []) } else { pending = (byte, count, []) }
    }

    private func execute(_ opcode: UInt8, _ parameters: [UInt8]) {
        commandCount += 1
        switch opcode {
        case 0x00...0x0F: column = (column & 0xF0) | Int(opcode & 0x0F)
        case 0x10...0x1F: column = (column & 0x0F) | (Int(opcode & 0x0F) << 4)
        case 0x20: addressingMode = Int(parameters[0] & 0x03)
        case 0x21:
            columnStart = Int(parameters[0] & 0x7F); columnEnd = Int(parameters[1] & 0x7F); column = columnStart
        case 0x22:
            pageStart = Int(parameters[0] & 0x07); pageEnd = Int(parameters[1] & 0x07); page = pageStart
        case 0x30...0x33 where controller == .sh1106: break
        case 0x40...0x7F: startLine = Int(opcode & 0x3F)
        case 0x81: contrast = parameters[0]
        case 0x8D: chargePumpOn = parameters[0] & 0x04 != 0
        case 0xAD: chargePumpOn = parameters[0] & 0x01 != 0
        case 0xA0, 0xA1: segmentRemap = opcode == 0xA1
        case 0xA4, 0xA5: entireDisplayOn = opcode == 0xA5
        case 0xA6, 0xA7: inverse = opcode == 0xA7
        case 0xA8: multiplexRatio = Int(parameters[0] & 0x3F)
        case 0xAE, 0xAF: displayOn = opcode == 0xAF
        case 0xB0...0xB7: page = Int(opcode & 0x07)
        case 0xC0...0xCF: comScanRemapped = opcode & 0x08 != 0
        case 0xD3: displayOffset = Int(parameters[0] & 0x3F)
        case 0xD5, 0xD9, 0xDA, 0xDB, 0xE3: break
        default: unknownCommands.append(opcode); commandCount -= 1
        }
    }

    private func writeData(_ byte: UInt8) {
        dataByteCount += 1
        if column < ramColumns { ram[page][column] = byte }
        switch (controller, addressingMode) {
        case (.ssd1306, 0): // horizontal: along the column window, then the next page
            if column >= columnEnd { column = columnStart; page = page >= pageEnd ? pageStart : page + 1 } else { column += 1 }
        case (.ssd1306, 1): // vertical: down the page window, then the next column
            if page >= pageEnd { page = pageStart; column = column >= columnEnd ? columnStart : column + 1 } else { page += 1 }
        default: // page addressing: the column advances and stops at the end of RAM (SH1106) or wraps (SSD1306)
            if controller == .ssd1306 { column = column >= ramColumns - 1 ? 0 : column + 1 } else { column = min(column + 1, ramColumns) }
        }
    }
}
