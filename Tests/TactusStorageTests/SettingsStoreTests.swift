// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
import Glibc
import Testing
import TestSupport
import LinuxHAL
@testable import TactusStorage
import TactusMusic
import TactusInstrument
import TactusBase

@Suite struct SettingsStoreTests {
    @Test func savesAndLoads() throws {
        let folder = makeTemporaryFolder()
        let store = SettingsStore(path: folder + "/settings.toml")
        // No file yet: a first start, with the demo songs (nothing is written until a save).
        #expect(store.load().saved == .firstStart)
        #expect(store.load().saved.library.songs.count == 4)
        #expect(store.load().problem == nil)
        #expect(!AtomicFile.exists(folder + "/settings.toml"))
        var saved = SavedState()
        saved.settings.tempo = Tempo(clampingWholeBPM: 77)
        saved.presets = [Preset(name: "x", settings: MetronomeSettings())]
        try store.save(saved)
        let loaded = store.load()
        #expect(loaded.saved == saved)
        #expect(loaded.problem == nil)
        #expect(!AtomicFile.exists(AtomicFile.temporaryPath(for: folder + "/settings.toml")))
    }

    @Test func corruptFileIsKeptAsideAndReported() throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        try AtomicFile.write(Array("schema = 1\n[current]\nbpm = 5000\n".utf8), to: path)
        let first = SettingsStore(path: path).load()
        #expect(first.saved == SavedState())
        #expect(first.problem == "\(path):3: current.bpm = 5000 is invalid: allowed 1 to 999, at most 3 decimals; file kept as \(folder)/settings.corrupt-1.toml, using defaults")
        #expect(first.notice == "Bad settings file kept aside (corrupt-1), using defaults")
        #expect(!AtomicFile.exists(path))
        #expect(text(folder + "/settings.corrupt-1.toml")?.contains("bpm = 5000") == true)
        // A second bad file does not overwrite the first one kept aside.
        try AtomicFile.write([0xFF, 0xFE, 0x00], to: path)
        let second = SettingsStore(path: path).load()
        #expect(second.problem?.contains("not UTF-8") == true)
        #expect(second.problem?.contains("settings.corrupt-2.toml") == true)
        #expect(AtomicFile.exists(folder + "/settings.corrupt-1.toml"))
    }

    @Test func errorsExplainTheCause() {
        do {
            try AtomicFile.write([1], to: "/nonexistent-folder/settings.toml")
            Issue.record("write succeeded")
        } catch {
            #expect(error.errno == ENOENT)
            #expect(error.description.hasPrefix("cannot create /nonexistent-folder/.settings.toml.partial-\(getpid()): No such file or directory"))
        }
    }

    /// Kills a child process at random moments while it saves, hundreds of times: the file
    /// is always exactly the old or the new content, and parses.
    @Test func killedWhileSavingLeavesOldOrNewFile() throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        var a = SavedState()
        a.settings.tempo = Tempo(clampingWholeBPM: 60)
        var b = SavedState()
        b.settings.tempo = Tempo(clampingWholeBPM: 180)
        // Large enough that a write is not a single instant.
        b.presets = (0..<300).map { Preset(name: "preset \($0)", settings: MetronomeSettings()) }
        let contents = [Array(SettingsFile.encode(a).utf8), Array(SettingsFile.encode(b).utf8)]
        try AtomicFile.write(contents[0], to: path)

        var random = UInt64(42)
        var seen = [0, 0]
        for round in 0..<300 {
            let pid = fork()
            if pid == 0 {
                // Child: keep replacing the file, alternating the two contents, until killed.
                var i = round % 2
                while true {
                    i ^= 1
                    try? AtomicFile.write(contents[i], to: path)
                }
            }
            #expect(pid > 0)
            random = random &* 6364136223846793005 &+ 1442695040888963407
            usleep(UInt32(200 + (random >> 33) % 3000))
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            let bytes = try #require(try AtomicFile.read(path))
            let which = contents.firstIndex(of: bytes)
            #expect(which != nil, "round \(round): the file is neither the old nor the new content")
            if let which { seen[which] += 1 }
            #expect((try? SettingsFile.decode(String(decoding: bytes, as: UTF8.self), file: path)) != nil)
        }
        // The child really was caught at different points: both contents were left behind.
        #expect(seen[0] > 0 && seen[1] > 0)
    }
}
#endif
