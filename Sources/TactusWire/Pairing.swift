// SPDX-License-Identifier: GPL-3.0-or-later

/// The two pairing rules the companion applies before the box sees a request (the code as
/// six digits, the browser's name cut to size); the box's pairing state is `Companion`.
public enum Pairing {
    /// A browser's name (its User-Agent) is cut to this many bytes, on a character boundary.
    public static let maximumNameBytes = 64

    /// A 6-digit code from a random number (the box draws it; a script may send 42137 for 042137).
    public static func code(from random: UInt64) -> String {
        let digits = String(random % 1_000_000)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// `name` cut to `maximumNameBytes` bytes without splitting a character.
    public static func shortName(_ name: String) -> String {
        guard name.utf8.count > maximumNameBytes else { return name }
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= maximumNameBytes else { break }
            cut.append(character)
        }
        return cut
    }
}
