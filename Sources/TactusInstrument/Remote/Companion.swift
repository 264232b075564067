// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusWire
/// A browser paired with the companion: the box keeps only the SHA-256 of its token.
public struct PairedBrowser: Sendable, Hashable {
    public var id: Int
    /// What the browser said it is (its User-Agent, shortened), for the list on the box.
    public var name: String
    public var tokenHash: String

    public init(id: Int, name: String, tokenHash: String) {
        self.id = id
        self.name = name
        self.tokenHash = tokenHash
    }
}

/// How a pairing attempt ended.
public enum PairingResult: Sendable, Hashable {
    case paired(id: Int)
    /// The code does not match, or none is shown (both look the same to the browser).
    case wrongCode
    /// Too many wrong codes from this client: pairing is closed to it until this time.
    case locked(until: MonotonicTime)
    /// Already `Companion.maximumBrowsers` paired: one must be revoked first.
    case full
}

/// Pairing with the browser companion (issues 23 and 32): a 6-digit code shown on the box
/// for 60 s, at most 5 wrong codes a minute from one client address (then pairing is locked
/// for that address, and only that one, for a minute), at most 32 paired browsers kept as
/// token hashes. A flood of wrong codes from one host never refuses the right code from
/// another and never changes the code shown. Pure: codes come in from the caller, time
/// from the actions.
public struct Companion: Sendable, Hashable {
    public static let codeLifetime: Duration = .seconds(60)
    public static let wrongCodesAllowed = 5
    public static let wrongCodeWindow: Duration = .seconds(60)
    public static let lockout: Duration = .seconds(60)
    /// Paired browsers kept at most (the settings file's reader takes as many).
    public static let maximumBrowsers = 32
    /// A browser's name (its User-Agent) is cut to this many bytes, on a character boundary.
    public static let maximumNameBytes = Pairing.maximumNameBytes
    /// Client addresses whose wrong codes are remembered; the oldest is forgotten first.
    static let maximumClients = 256

    /// One client address's wrong codes and lock.
    struct Attempts: Sendable, Hashable {
        var wrongCodes: [MonotonicTime] = []
        var lockedUntil: MonotonicTime?
        var lastSeen: MonotonicTime
    }

    public internal(set) var code: String?
    public internal(set) var codeUntil: MonotonicTime?
    public internal(set) var browsers: [PairedBrowser] = []
    /// The last pairing attempt's outcome (read by the control socket after the action).
    public internal(set) var lastPairing: PairingResult?
    var clients: [String: Attempts] = [:]
    var nextID = 1

    public init(browsers: [PairedBrowser] = []) {
        self.browsers = browsers
        nextID = (browsers.map(\.id).max() ?? 0) + 1
    }

    /// A 6-digit code from a random number (the box draws it; the reducer draws nothing).
    public static func code(from random: UInt64) -> String { Pairing.code(from: random) }

    public func validCode(at now: MonotonicTime) -> String? {
        guard let code, let until = codeUntil, now < until else { return nil }
        return code
    }

    /// Whether pairing is locked for this client address.
    public func isLocked(_ client: String, at now: MonotonicTime) -> Bool { clients[client]?.lockedUntil.map { now < $0 } ?? false }

    /// Until when this client's pairing is locked (nil: it is not).
    public func lockedUntil(_ client: String, at now: MonotonicTime) -> MonotonicTime? {
        guard let until = clients[client]?.lockedUntil, now < until else { return nil }
        return until
    }

    /// `name` cut to `maximumNameBytes` bytes without splitting a character.
    public static func shortName(_ name: String) -> String { Pairing.shortName(name) }

    mutating func show(code: String, at now: MonotonicTime) {
        self.code = code
        codeUntil = now + Companion.codeLifetime
    }

    mutating func pair(code attempt: String, token: String, name: String, client: String, at now: MonotonicTime) -> PairingResult {
        var attempts = clients[client] ?? Attempts(lastSeen: now)
        attempts.lastSeen = now
        defer { remember(client, attempts) }
        if let until = attempts.lockedUntil, now < until { return .locked(until: until) }
        attempts.lockedUntil = nil
        guard let code = validCode(at: now), constantTimeEqual(attempt, code) else {
            attempts.wrongCodes = attempts.wrongCodes.filter { now < $0 + Companion.wrongCodeWindow } + [now]
            // The 5th wrong code is still answered as a wrong code; the lock holds from the next attempt on.
            if attempts.wrongCodes.count >= Companion.wrongCodesAllowed {
                attempts.wrongCodes = []
                attempts.lockedUntil = now + Companion.lockout
            }
            return .wrongCode
        }
        guard browsers.count < Companion.maximumBrowsers else { return .full }
        // The code stays good for the rest of its 60 s: a phone and a laptop (or a script) may
        // pair from one showing; wrong codes are still counted against the lock.
        attempts.wrongCodes = []
        let browser = PairedBrowser(id: nextID, name: Companion.shortName(name), tokenHash: SHA256.hex(token))
        nextID += 1
        browsers.append(browser)
        return .paired(id: browser.id)
    }

    /// Keeps a client's attempts; the map stays bounded (a host may change address).
    private mutating func remember(_ client: String, _ attempts: Attempts) {
        clients[client] = attempts
        guard clients.count > Companion.maximumClients else { return }
        if let oldest = clients.filter({ $0.key != client }).min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
            clients[oldest] = nil
        }
    }

    /// The browser holding this token, if it is paired.
    public func browser(token: String) -> PairedBrowser? {
        let hash = SHA256.hex(token)
        return browsers.first { constantTimeEqual($0.tokenHash, hash) }
    }

    mutating func revoke(_ id: Int) -> Bool {
        let before = browsers.count
        browsers.removeAll { $0.id == id }
        return browsers.count != before
    }
}

/// Compares without stopping at the first difference, so timing tells nothing of a code.
func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    var difference = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<min(x.count, y.count) { difference |= x[i] ^ y[i] }
    return difference == 0
}
