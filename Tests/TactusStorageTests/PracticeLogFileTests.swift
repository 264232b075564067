// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
import Glibc
import Testing
import TestSupport
import LinuxHAL
@testable import TactusStorage
import TactusBase

/// The practice log in the state folder: minutes per day, written atomically, added to;
/// a corrupt file is kept aside, never overwritten.
@Suite struct PracticeLogFileTests {
    @Test func addsPerDayAndKeepsACorruptFileAside() throws {
        let folder = makeTemporaryFolder()
        let file = PracticeLogFile(path: folder + "/practice.toml")
        try file.add(seconds: 600, day: "2026-11-23")
        try file.add(seconds: 90, day: "2026-11-23")
        try file.add(seconds: 30, day: "2026-11-24")
        #expect(text(folder + "/practice.toml")
                == "# Tactus practice log: minutes played per day (local time)\nschema = 1\n\n[minutes]\n2026-11-23 = 11.50\n2026-11-24 = 0.50\n")
        #expect(try file.load().minutes(on: "2026-11-23") == 11.5)
        try "[minutes]\n2026-11-23 = \"lots\"\n".write(toFile: folder + "/practice.toml")
        try file.add(seconds: 60, day: "2026-11-25")
        #expect(text(folder + "/practice.corrupt-1.toml") == "[minutes]\n2026-11-23 = \"lots\"\n")
        #expect(try file.load().minutes(on: "2026-11-25") == 1)
        #expect(PracticeLogFile.today().count == 10)
    }
}

extension String {
    fileprivate func write(toFile path: String) throws {
        try AtomicFile.write(Array(utf8), to: path)
    }
}
#endif
