// SPDX-License-Identifier: GPL-3.0-or-later

/// A JSON string literal, quotes included: `"`, `\\` and control characters escaped (short
/// forms where JSON has them, `\u00XX` otherwise; DEL as `\u007F`, which JSON allows). Here
/// so that writers of JSON below the file-format layer (ClickEngine's onset events) need not
/// borrow the TOML writer's quoting.
public enum JSONString {
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
