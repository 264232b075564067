// SPDX-License-Identifier: GPL-3.0-or-later
/// A hardware failure, with the errno kept (when there is one) and a message that says what to do.
///
/// `kind` lets the service decide (retry later, run without the part, give up); `message`
/// is for the person reading the log: it names the device and suggests the fix.
public struct HALError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The device node, chip, card or line does not exist (ENOENT, ENODEV, unknown label).
        case deviceMissing
        /// The device exists but this user may not open it (EACCES, EPERM).
        case permissionDenied
        /// Another process or driver holds it (EBUSY).
        case busy
        /// Nothing acknowledged on the bus (ENXIO, EREMOTEIO): not wired, wrong address, unpowered.
        case noAcknowledge
        /// The device cannot do what was asked (format, rate, bus transfer type).
        case unsupported
        /// A value given by configuration or by the caller is not usable.
        case invalidArgument
        /// Any other I/O failure.
        case io
    }

    public var kind: Kind
    /// The errno reported by the system call or library, when there was one.
    public var errno: Int32?
    public var message: String

    public init(_ kind: Kind, errno: Int32? = nil, _ message: String) {
        self.kind = kind
        self.errno = errno
        self.message = message
    }

    public var description: String {
        if let errno { return "\(message) [errno \(errno)]" }
        return message
    }
}
