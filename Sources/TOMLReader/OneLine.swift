// SPDX-License-Identifier: GPL-3.0-or-later
/// A message made safe to print as one line: newlines, tabs, escape sequences and every
/// other control character are written as escapes (`\n`, `\u{1B}`), so a value quoted from
/// a user's file can neither split the message nor rewrite the terminal. Used by every
/// error description that quotes user input (TOML, scripts, change files, flags).
public func oneLine(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControlCharacter) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if isControlCharacter(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out
}

/// C0 and C1 control characters and DEL.
public func isControlCharacter(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}
