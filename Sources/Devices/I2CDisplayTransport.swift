// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// SSD1306/SH1106 over I2C: every write starts with a control byte, 0x00 for a run of
/// commands and 0x40 for display data (SSD1306 §8.1.5.2, SH1106 "I2C-bus Interface").
///
/// Writes are cut to the bus's maximum write length so SMBus-only adapters (32 data bytes)
/// work; a command is never cut in two, because the controller does not promise to keep a
/// half-received command across a stop condition.
public final class I2CDisplayTransport: DisplayTransport {
    public static let commandControlByte: UInt8 = 0x00
    public static let dataControlByte: UInt8 = 0x40

    public let bus: any I2CBus
    public let address: I2CAddress
    /// Upper bound on one write even on a plain I2C bus: keeps each ioctl short (a 128-byte page
    /// plus control byte fits) so a stuck bus fails quickly instead of holding the adapter.
    private let writeLengthCap = 129

    public init(bus: any I2CBus, address: I2CAddress) {
        self.bus = bus
        self.address = address
    }

    private var maximumWrite: Int { min(bus.maximumWriteLength ?? writeLengthCap, writeLengthCap) }

    public func sendCommands(_ commands: [[UInt8]]) throws(HALError) {
        var write: [UInt8] = [Self.commandControlByte]
        for command in commands {
            if write.count > 1 && write.count + command.count > maximumWrite {
                try bus.write(address, write)
                write = [Self.commandControlByte]
            }
            write += command
        }
        if write.count > 1 { try bus.write(address, write) }
    }

    public func sendData(_ bytes: ArraySlice<UInt8>) throws(HALError) {
        let chunk = maximumWrite - 1
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = min(start + chunk, bytes.endIndex)
            try bus.write(address, [Self.dataControlByte] + bytes[start..<end])
            start = end
        }
    }
}
