// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
import Glibc
import Synchronization
import Testing
import TestSupport
import LinuxHAL
@testable import TactusStorage
import TactusMusic
import TactusInstrument
import TactusBase

/// The settings store when the system calls under it fail (Syscalls' fault injection).
@Suite struct SettingsStoreFaultTests {
    @Test func storeSaveFailuresKeepTheOldSettings() throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        var saved = SavedState()
        saved.settings.tempo = Tempo(clampingWholeBPM: 91)
        try SettingsStore(path: path).save(saved)
        for operation in [Syscalls.Operation.write, .fsync, .rename] {
            var changed = saved
            changed.settings.tempo = Tempo(clampingWholeBPM: 150)
            #expect(throws: SystemError.self) { try SettingsStore(path: path, system: Syscalls.failing(operation)).save(changed) }
            #expect(SettingsStore(path: path).load().saved == saved)
        }
    }

    /// A settings file that cannot be read (root-owned 0600 for the tactus user) and not
    /// moved aside is never overwritten: saves are refused for the run, and that is said.
    @Test func unreadableSettingsAreNeverOverwritten() throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        try AtomicFile.write(Array("schema = 1\n[current]\nbpm = 77\n".utf8), to: path)
        let denied = Syscalls { op, _ in op == .open || op == .rename ? EACCES : nil }
        let store = SettingsStore(path: path, system: denied)
        let loaded = store.load()
        #expect(loaded.saved == SavedState())
        #expect(loaded.problem == "\(path): permission denied (check the file's owner and mode); could not keep it aside (cannot rename \(path) to \(folder)/settings.corrupt-1.toml: Permission denied (check the file's and folder's owner and permissions for the tactus user)), so it is left as it is and changes will not be saved; using defaults")
        #expect(throws: SystemError.self) { try store.save(SavedState()) }
        #expect(text(path) == "schema = 1\n[current]\nbpm = 77\n")
        // Readable but not movable is not the case here; a readable file loads as usual.
        #expect(SettingsStore(path: path).load().saved.settings.tempo == Tempo(clampingWholeBPM: 77))
    }

    @Test func nestedOrHugeSettingsAreKeptAside() throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        try AtomicFile.write(Array(("a = " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8), to: path)
        let loaded = SettingsStore(path: path).load()
        #expect(loaded.problem?.hasPrefix("\(path):1:") == true)
        #expect(loaded.problem?.contains("nested too deeply") == true)
        #expect(AtomicFile.exists(folder + "/settings.corrupt-1.toml"))
        #expect(mkfifo(path, 0o644) == 0)
        let fifo = SettingsStore(path: path).load()
        #expect(fifo.problem == "\(path): is a FIFO (named pipe); allowed only a regular file; file kept as \(folder)/settings.corrupt-2.toml, using defaults")
    }

    @Test func leftoversOfKilledSavesAreRemovedAtLoad() throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        try AtomicFile.write(Array("schema = 1\n".utf8), to: path)
        try AtomicFile.write([1, 2], to: path + ".tmp")
        try AtomicFile.write([3], to: folder + "/.settings.toml.partial-999999")
        try AtomicFile.write([4], to: folder + "/other.toml.tmp")
        #expect(SettingsStore(path: path).load().problem == nil)
        #expect(!AtomicFile.exists(path + ".tmp"))
        #expect(!AtomicFile.exists(folder + "/.settings.toml.partial-999999"))
        #expect(AtomicFile.exists(folder + "/other.toml.tmp"))
    }
}
#endif
