// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase

/// share/web/protocol.js: the commands, field names and live-line types for the pages,
/// generated from `WireCommand`, `WireField` and `WireEvent` so the pages cannot spell one
/// the box does not know. TactusWireTests compares the file with this text byte for byte;
/// `TACTUS_REGENERATE=1 swift test --filter WireListTests` writes it (docs/dev/CONTRIBUTING.md).
public enum WireList {
    public static let path = "share/web/protocol.js"

    public static func javaScript() -> String {
        """
        // SPDX-License-Identifier: GPL-3.0-or-later
        // GENERATED from Sources/TactusWire (WireCommand, WireField, WireEvent): do not edit.
        // Regenerate: TACTUS_REGENERATE=1 swift test --filter WireListTests
        // Each name as the box spells it on the wire; an unknown name throws, so a typo fails
        // at once instead of sending a field the box does not know.
        const strict = (what, names) => new Proxy(Object.freeze(names), {
          get(target, key) {
            if (typeof key === "symbol" || key in target) return target[key];
            throw new Error(`protocol.js: no ${what} named ${String(key)}`);
          },
        });

        export const command = strict("command", {
        \(members(WireCommand.allCases.map { (String(describing: $0), $0.name) }))
        });

        export const field = strict("field", {
        \(members(WireField.allCases.map { (String(describing: $0), $0.name) }))
        });

        export const event = strict("event", {
        \(members(WireEvent.allCases.map { (String(describing: $0), $0.name) }))
        });

        """
    }

    /// `  key: "name",` lines, in the order of the Swift type.
    static func members(_ pairs: [(String, String)]) -> String {
        pairs.map { "  \($0.0): \(JSONString.quoted($0.1))," }.joined(separator: "\n")
    }
}
