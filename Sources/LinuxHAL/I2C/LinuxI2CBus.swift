// SPDX-License-Identifier: GPL-3.0-or-later
import CI2C
import Glibc
import HAL
import TactusBase

/// A /dev/i2c-N adapter. Plain I2C transactions go through ioctl(I2C_RDWR); adapters that
/// only speak SMBus (the kernel's i2c-stub, some USB bridges) get SMBus I2C-block writes of
/// at most 32 data bytes, which the display transport respects via `maximumWriteLength`.
public final class LinuxI2CBus: I2CBus {
    public let path: String
    public let mode: I2CTransferMode
    private let fd: Int32
    /// The address last set with I2C_SLAVE (SMBus mode only).
    private var selectedAddress: I2CAddress?

    /// 1 command byte + 32 data bytes: the SMBus block limit.
    public static let smbusMaximumWriteLength = 33

    public convenience init(bus number: Int, mode: I2CTransferMode = .automatic) throws(HALError) {
        try self.init(path: "/dev/i2c-\(number)", mode: mode)
    }

    public init(path: String, mode requested: I2CTransferMode = .automatic) throws(HALError) {
        self.path = path
        let fd: Int32
        do { fd = try Syscalls.live.open(path, O_RDWR) } catch { throw Self.openError(path, error.errno) }
        var functions: UInt = 0
        guard Syscalls.retryingEINTR({ tactus_i2c_functionality(fd, &functions) }) == 0 else {
            let code = errno
            close(fd)
            throw HALError(.unsupported, errno: code, "\(path) is not an I2C adapter (I2C_FUNCS: \(errnoDescription(code)))")
        }
        let plain = functions & UInt(I2C_FUNC_I2C) != 0
        let smbusBlock = functions & UInt(I2C_FUNC_SMBUS_WRITE_I2C_BLOCK) != 0
        switch (requested, plain, smbusBlock) {
        case (.automatic, true, _), (.i2c, true, _): mode = .i2c
        case (.automatic, false, true), (.smbus, _, true): mode = .smbus
        default:
            close(fd)
            throw HALError(.unsupported, "\(path) supports neither \(requested == .smbus ? "SMBus I2C-block writes" : "plain I2C transfers")\(requested == .automatic ? " nor SMBus I2C-block writes" : ""): the display cannot be driven through it")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    static func openError(_ path: String, _ code: Int32) -> HALError {
        switch code {
        case ENOENT, ENODEV, ENXIO:
            return HALError(.deviceMissing, errno: code,
                            "\(path) does not exist: enable I2C (dtparam=i2c_arm=on in config.txt, or raspi-config) and make sure the i2c-dev module is loaded")
        case EACCES, EPERM:
            return HALError(.permissionDenied, errno: code, "no permission to open \(path): add the service's user to the 'i2c' group")
        default:
            return HALError(.io, errno: code, "cannot open \(path): \(errnoDescription(code))")
        }
    }

    public var maximumWriteLength: Int? { mode == .smbus ? Self.smbusMaximumWriteLength : nil }

    public func transaction(_ address: I2CAddress, _ messages: [I2CMessage]) throws(HALError) -> [[UInt8]] {
        switch mode {
        case .smbus: return try smbusTransaction(address, messages)
        default: return try plainTransaction(address, messages)
        }
    }

    private func transferError(_ code: Int32, _ address: I2CAddress) -> HALError {
        let bus = path.hasPrefix("/dev/i2c-") ? String(path.dropFirst("/dev/i2c-".count)) : "N"
        switch code {
        case ENXIO, EREMOTEIO, EIO:
            return HALError(.noAcknowledge, errno: code,
                            "no device answered at \(address) on \(path): check the wiring, power and address (`i2cdetect -y \(bus)` lists what answers)")
        case ETIMEDOUT, EAGAIN:
            return HALError(.io, errno: code, "\(path) timed out talking to \(address): the bus may be held low (check SDA/SCL and pull-ups)")
        case EBUSY:
            return HALError(.busy, errno: code, "\(address) on \(path) is claimed by a kernel driver: remove the overlay or driver bound to it")
        default:
            return HALError(.io, errno: code, "I2C transfer to \(address) on \(path) failed: \(errnoDescription(code))")
        }
    }

    private func plainTransaction(_ address: I2CAddress, _ messages: [I2CMessage]) throws(HALError) -> [[UInt8]] {
        // Buffers stay alive (and at fixed addresses) for the duration of the ioctl.
        var buffers: [UnsafeMutablePointer<UInt8>] = []
        defer { buffers.forEach { $0.deallocate() } }
        var raw: [i2c_msg] = []
        for message in messages {
            switch message {
            case .write(let bytes):
                let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
                buffer.initialize(from: bytes, count: bytes.count)
                buffers.append(buffer)
                raw.append(i2c_msg(addr: UInt16(address.rawValue), flags: 0, len: UInt16(bytes.count), buf: buffer))
            case .read(let count):
                let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
                buffer.initialize(repeating: 0, count: max(count, 1))
                buffers.append(buffer)
                raw.append(i2c_msg(addr: UInt16(address.rawValue), flags: UInt16(I2C_M_RD), len: UInt16(count), buf: buffer))
            }
        }
        let result = Syscalls.retryingEINTR { tactus_i2c_rdwr(fd, &raw, UInt32(raw.count)) }
        guard result >= 0 else { throw transferError(errno, address) }
        var reads: [[UInt8]] = []
        for (index, message) in messages.enumerated() {
            if case .read(let count) = message { reads.append(Array(UnsafeBufferPointer(start: buffers[index], count: count))) }
        }
        return reads
    }

    private func smbusTransaction(_ address: I2CAddress, _ messages: [I2CMessage]) throws(HALError) -> [[UInt8]] {
        if selectedAddress != address {
            guard Syscalls.retryingEINTR({ tactus_i2c_set_address(fd, Int32(address.rawValue)) }) == 0 else { throw transferError(errno, address) }
            selectedAddress = address
        }
        if messages.count == 1, case .write(let bytes) = messages[0], bytes.count == 1 {
            try retryingEINTR(address) { i2c_smbus_write_byte(fd, bytes[0]) }
            return []
        }
        if messages.count == 1, case .write(let bytes) = messages[0], (2...Self.smbusMaximumWriteLength).contains(bytes.count) {
            var data = Array(bytes.dropFirst())
            try retryingEINTR(address) { i2c_smbus_write_i2c_block_data(fd, bytes[0], UInt8(data.count), &data) }
            return []
        }
        if messages.count == 2, case .write(let command) = messages[0], command.count == 1,
           case .read(let count) = messages[1], (1...32).contains(count) {
            var data = [UInt8](repeating: 0, count: 32)
            var got: Int32 = 0
            try retryingEINTR(address) {
                got = i2c_smbus_read_i2c_block_data(fd, command[0], UInt8(count), &data)
                return got
            }
            return [Array(data.prefix(Int(got)))]
        }
        throw HALError(.unsupported, "\(path) is in SMBus mode: only writes of 1...33 bytes and register reads of up to 32 bytes are possible")
    }

    /// libi2c returns the negative errno (and sets errno); EINTR is retried (`Syscalls`).
    private func retryingEINTR(_ address: I2CAddress, _ call: () -> Int32) throws(HALError) {
        let result = Syscalls.retryingNegativeEINTR(call)
        if result < 0 { throw transferError(-result, address) }
    }
}
