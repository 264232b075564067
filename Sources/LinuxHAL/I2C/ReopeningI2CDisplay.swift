// SPDX-License-Identifier: GPL-3.0-or-later
import Devices
import HAL
import TactusBase

/// The board's OLED over /dev/i2c-N, opened (and reopened) on `initialize`, so a panel or
/// adapter that is missing at start, or unplugged later, can come back: wrap it in a
/// `ResilientDisplay`, which calls `initialize` again when a retry is due.
public final class ReopeningI2CDisplay: MonochromeDisplay {
    public let definition: DisplayDefinition
    private var display: OLEDDisplay?

    public init(_ definition: DisplayDefinition) { self.definition = definition }

    public var width: Int { definition.width }
    public var height: Int { definition.height }

    public func initialize() throws(HALError) {
        display = nil
        let bus = try LinuxI2CBus(path: "/dev/i2c-\(definition.i2cBus)", mode: definition.transferMode)
        let opened = try OLEDDisplay(definition, bus: bus)
        try opened.initialize()
        display = opened
    }

    private func opened() throws(HALError) -> OLEDDisplay {
        guard let display else { throw HALError(.deviceMissing, "display not open") }
        return display
    }

    public func show(_ frame: Bitmap) throws(HALError) { try opened().show(frame) }
    public func setContrast(_ level: UInt8) throws(HALError) { try opened().setContrast(level) }
    public func setSleeping(_ sleeping: Bool) throws(HALError) { try opened().setSleeping(sleeping) }
}
