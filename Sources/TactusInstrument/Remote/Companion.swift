// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
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
    /// Too many wrong codes: pairing is closed until this time.
    case locked(until: MonotonicTime)
}

/// Pairing with the browser companion (issue 23): a 6-digit code shown on the box for 60 s,
/// at most 5 wrong codes a minute (then pairing is locked for a minute), the paired
/// browsers as token hashes. Pure: codes come in from the caller, time from the actions.
public struct Companion: Sendable, Hashable {
    public static let codeLifetime: Duration = .seconds(60)
    public static let wrongCodesAllowed = 5
    public static let wrongCodeWindow: Duration = .seconds(60)
    public static let lockout: Duration = .seconds(60)

    public internal(set) var code: String?
    public internal(set) var codeUntil: MonotonicTime?
    public internal(set) var lockedUntil: MonotonicTime?
    public internal(set) var browsers: [PairedBrowser] = []
    /// The last pairing attempt's outcome (read by the control socket after the action).
    public internal(set) var lastPairing: PairingResult?
    var wrongCodes: [MonotonicTime] = []
    var nextID = 1

    public init(browsers: [PairedBrowser] = []) {
        self.browsers = browsers
        nextID = (browsers.map(\.id).max() ?? 0) + 1
    }

    /// A 6-digit code from a random number (the box draws it; the reducer draws nothing).
    public static func code(from random: UInt64) -> String {
        let digits = String(random % 1_000_000)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    public func validCode(at now: MonotonicTime) -> String? {
        guard let code, let until = codeUntil, now < until else { return nil }
        return code
    }

    public func isLocked(at now: MonotonicTime) -> Bool { lockedUntil.map { now < $0 } ?? false }

    mutating func show(code: String, at now: MonotonicTime) {
        self.code = code
        codeUntil = now + Companion.codeLifetime
    }

    mutating func pair(code attempt: String, token: String, name: String, at now: MonotonicTime) -> PairingResult {
        if let until = lockedUntil, now < until { return .locked(until: until) }
        lockedUntil = nil
        guard let code = validCode(at: now), constantTimeEqual(attempt, code) else {
            wrongCodes = wrongCodes.filter { now < $0 + Companion.wrongCodeWindow } + [now]
            if wrongCodes.count >= Companion.wrongCodesAllowed {
                wrongCodes = []
                let until = now + Companion.lockout
                lockedUntil = until
                return .locked(until: until)
            }
            return .wrongCode
        }
        // One code, one browser: the next one needs a new code from the box.
        self.code = nil
        codeUntil = nil
        wrongCodes = []
        let browser = PairedBrowser(id: nextID, name: name, tokenHash: SHA256.hex(token))
        nextID += 1
        browsers.append(browser)
        return .paired(id: browser.id)
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
