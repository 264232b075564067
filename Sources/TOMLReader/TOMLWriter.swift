// SPDX-License-Identifier: GPL-3.0-or-later
// MARK: - Writer

public enum TOMLWriter {
    static func key(_ key: String) -> String {
        !key.isEmpty && key.utf8.allSatisfy(TOMLParser.isBareKeyByte) ? key : quoted(key)
    }

    /// A basic string literal. Its escapes are a subset of JSON's, so it is a valid JSON
    /// string too (the simulator's event log uses it).
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
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

    static func float(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        let text = "\(d)"
        // Swift writes 1e-05 and 5.0: both are valid TOML floats; make sure a dot or an
        // exponent is present so the value reads back as a float.
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    static func isTableArray(_ value: TOMLValue) -> Bool {
        guard let items = value.array, !items.isEmpty else { return false }
        return items.allSatisfy { $0.table != nil }
    }

    static func write(_ table: TOMLTable, path: [String], into out: inout String) {
        for key in table.keys {
            let value = table[key]!
            if value.table != nil || isTableArray(value) { continue }
            out += "\(self.key(key)) = \(value.tomlText)\n"
        }
        for key in table.keys {
            let value = table[key]!
            let childPath = path + [key]
            let header = childPath.map(self.key).joined(separator: ".")
            if let child = value.table {
                if !out.isEmpty { out += "\n" }
                out += "[\(header)]\n"
                write(child, path: childPath, into: &out)
            } else if isTableArray(value) {
                for item in value.array! {
                    if !out.isEmpty { out += "\n" }
                    out += "[[\(header)]]\n"
                    write(item.table!, path: childPath, into: &out)
                }
            }
        }
    }
}
