// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import Glibc
import TactusWire

/// share/web/protocol.js is generated from the Swift types: the pages' names cannot drift
/// from the box's. TACTUS_REGENERATE=1 writes it instead of comparing.
@Suite struct WireListTests {
    static let root: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    @Test func protocolListIsUpToDate() throws {
        let path = "\(Self.root)/\(WireList.path)"
        let expected = WireList.javaScript()
        if getenv("TACTUS_REGENERATE") != nil {
            let file = try #require(fopen(path, "w"))
            fputs(expected, file)
            fclose(file)
        }
        let actual = try #require(Self.read(path), "\(WireList.path) is missing: TACTUS_REGENERATE=1 swift test --filter WireListTests")
        #expect(actual == expected, "\(WireList.path) differs from Sources/TactusWire: regenerate it with TACTUS_REGENERATE=1 swift test --filter WireListTests")
    }

    /// Every command and field is in the list as the box spells it.
    @Test func theListNamesEveryCommandAndField() {
        let text = WireList.javaScript()
        for command in WireCommand.allCases { #expect(text.contains(": \"\(command.name)\",")) }
        for field in WireField.allCases { #expect(text.contains("  \(String(describing: field)): \"\(field.name)\",\n")) }
        #expect(text.contains("  putSongs: \"put-songs\",\n"))
        #expect(text.contains("  beatUnit: \"beat_unit\",\n"))
    }

    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
