// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// A device that can sit on a simulated I2C bus (a panel, later a sensor or an EEPROM).
public protocol SimulatedI2CDevice: AnyObject {
    /// Handles one transaction addressed to it and returns the bytes of each read.
    func handle(_ messages: [I2CMessage]) throws(HALError) -> [[UInt8]]
}

/// One transaction as it crossed the bus.
public struct I2CTransaction: Equatable, Sendable, CustomStringConvertible {
    public var address: I2CAddress
    public var messages: [I2CMessage]

    public init(address: I2CAddress, messages: [I2CMessage]) {
        self.address = address
        self.messages = messages
    }

    public static func write(_ address: I2CAddress, _ bytes: [UInt8]) -> Self {
        Self(address: address, messages: [.write(bytes)])
    }

    public var description: String {
        let parts = messages.map { message -> String in
            switch message {
            case .write(let bytes): "W " + bytes.map(Self.hex).joined(separator: " ")
            case .read(let count): "R \(count)"
            }
        }
        return "\(address): " + parts.joined(separator: " | ")
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}

/// A bus that records every transaction and passes it to the device at that address;
/// no device there is a NACK, as on real hardware.
public final class RecordingI2CBus: I2CBus {
    public private(set) var transactions: [I2CTransaction] = []
    public var devices: [I2CAddress: any SimulatedI2CDevice] = [:]
    public var maximumWriteLength: Int?

    /// `maximumWriteLength: 33` behaves like an SMBus-only adapter (1 command + 32 data bytes).
    public init(maximumWriteLength: Int? = nil) {
        self.maximumWriteLength = maximumWriteLength
    }

    public func attach(_ device: any SimulatedI2CDevice, at address: I2CAddress) {
        devices[address] = device
    }

    public func clearRecording() { transactions.removeAll() }

    /// Every byte written, in order, per transaction: convenient for golden comparisons.
    public var writes: [[UInt8]] {
        transactions.flatMap { $0.messages.compactMap { if case .write(let bytes) = $0 { bytes } else { nil } } }
    }

    public func transaction(_ address: I2CAddress, _ messages: [I2CMessage]) throws(HALError) -> [[UInt8]] {
        if let limit = maximumWriteLength {
            for case .write(let bytes) in messages where bytes.count > limit {
                throw HALError(.unsupported, "a write of \(bytes.count) bytes exceeds this bus's limit of \(limit)")
            }
        }
        transactions.append(I2CTransaction(address: address, messages: messages))
        guard let device = devices[address] else {
            throw HALError(.noAcknowledge, "no device acknowledged at \(address) on the simulated bus")
        }
        return try device.handle(messages)
    }
}

/// A bus that expects an exact list of transactions (embedded-hal-mock style): anything
/// else is recorded as a mismatch and fails like a NACK, so a test sees both where and what.
public final class PlaybackI2CBus: I2CBus {
    public struct Expectation: Sendable {
        public var transaction: I2CTransaction
        public var reads: [[UInt8]]
        public init(_ transaction: I2CTransaction, reads: [[UInt8]] = []) {
            self.transaction = transaction
            self.reads = reads
        }
    }

    public let maximumWriteLength: Int?
    private var expectations: [Expectation]
    private var position = 0
    public private(set) var mismatches: [String] = []

    public init(expecting expectations: [Expectation], maximumWriteLength: Int? = nil) {
        self.expectations = expectations
        self.maximumWriteLength = maximumWriteLength
    }

    public convenience init(expectingWrites writes: [[UInt8]], to address: I2CAddress, maximumWriteLength: Int? = nil) {
        self.init(expecting: writes.map { Expectation(.write(address, $0)) }, maximumWriteLength: maximumWriteLength)
    }

    /// True when every expected transaction happened and nothing else did.
    public var isComplete: Bool { position == expectations.count && mismatches.isEmpty }

    public var remaining: [I2CTransaction] { expectations[position...].map(\.transaction) }

    public func transaction(_ address: I2CAddress, _ messages: [I2CMessage]) throws(HALError) -> [[UInt8]] {
        let actual = I2CTransaction(address: address, messages: messages)
        guard position < expectations.count else {
            mismatches.append("#\(position): unexpected extra transaction \(actual)")
            throw HALError(.io, "playback bus: unexpected transaction \(actual)")
        }
        let expected = expectations[position]
        guard expected.transaction == actual else {
            mismatches.append("#\(position): expected \(expected.transaction), got \(actual)")
            throw HALError(.io, "playback bus: transaction #\(position) differs")
        }
        position += 1
        return expected.reads
    }
}
