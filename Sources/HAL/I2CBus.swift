// SPDX-License-Identifier: GPL-3.0-or-later
/// A 7-bit I2C device address.
public struct I2CAddress: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    /// Returns nil outside the 7-bit range 0x03...0x77 that devices may use.
    public init?(_ rawValue: UInt8) {
        guard (0x03...0x77).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x" + (hex.count < 2 ? "0" + hex : hex)
    }
}

/// One message of a combined I2C transaction.
public enum I2CMessage: Equatable, Sendable {
    case write([UInt8])
    case read(count: Int)
}

/// An I2C bus master: the one primitive is a combined transaction (repeated starts between
/// messages, one stop at the end), as `ioctl(I2C_RDWR)` does it.
public protocol I2CBus: AnyObject {
    /// The longest single write this bus can do, or nil when unlimited. An SMBus-only adapter
    /// (the kernel's i2c-stub, some USB bridges) takes 1 command byte + 32 data bytes.
    var maximumWriteLength: Int? { get }

    /// Runs the messages as one transaction and returns the bytes of each read, in order.
    func transaction(_ address: I2CAddress, _ messages: [I2CMessage]) throws(HALError) -> [[UInt8]]
}

extension I2CBus {
    public func write(_ address: I2CAddress, _ bytes: [UInt8]) throws(HALError) {
        _ = try transaction(address, [.write(bytes)])
    }

    public func writeRead(_ address: I2CAddress, _ bytes: [UInt8], readCount: Int) throws(HALError) -> [UInt8] {
        try transaction(address, [.write(bytes), .read(count: readCount)]).first ?? []
    }
}
