// SPDX-License-Identifier: GPL-3.0-or-later
/// The subdivision layers played at once: each n in 2...9 splits every beat into n.
public struct Subdivisions: Sendable, Hashable, CustomStringConvertible {
    public static let range: ClosedRange<Int> = 2...9

    /// Sorted, without repeats.
    public let layers: [Int]

    public init(_ layers: [Int]) throws(SettingError) {
        guard layers.allSatisfy(Subdivisions.range.contains) else {
            throw SettingError(field: "subdivisions", value: layers.map(String.init).joined(separator: ","),
                               allowed: "each layer must be 2 to 9")
        }
        self.layers = Array(Set(layers)).sorted()
    }

    public static let none = try! Subdivisions([])

    /// "2,3" or "none".
    public init(parsing text: String) throws(SettingError) {
        // Empty is not "none": a flag or key given without a value is a mistake.
        if text == "none" { self = .none; return }
        var values: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let n = Int(part) else {
                throw SettingError(field: "subdivisions", value: text,
                                   allowed: "expected layers 2 to 9 separated by commas (e.g. 2,3) or none")
            }
            values.append(n)
        }
        do { try self.init(values) } catch { throw SettingError(field: "subdivisions", value: text, allowed: error.allowed) }
    }

    public var description: String { layers.isEmpty ? "none" : layers.map(String.init).joined(separator: ",") }
}
