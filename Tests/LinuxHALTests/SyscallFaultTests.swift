// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
import Glibc
import Synchronization
import Testing
@testable import LinuxHAL
import TactusMusic
import TactusInstrument
import TactusBase

/// Each step of the atomic save fails in turn; the settings file is always whole (old or
/// new, never empty or partial) and no temporary file is left behind.
@Suite struct SyscallFaultTests {
    /// Fails the `nth` call (from 1) of `operation`, once.
    static func failing(_ operation: Syscalls.Operation, nth: Int = 1, errno code: Int32 = EIO) -> Syscalls {
        let count = Mutex(0)
        return Syscalls { op, _ in
            guard op == operation else { return nil }
            let n = count.withLock { $0 += 1; return $0 }
            return n == nth ? code : nil
        }
    }

    @Test(arguments: [Syscalls.Operation.open, .write, .fchmod, .fsync, .close, .rename])
    func aFailedStepBeforeTheRenameKeepsTheOldFile(_ operation: Syscalls.Operation) throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        try AtomicFile.write(Array("old\n".utf8), to: path)
        chmod(path, 0o640)  // so fchmod runs
        do {
            try AtomicFile.write(Array("new\n".utf8), to: path, system: Self.failing(operation))
            Issue.record("the save succeeded although \(operation) failed")
        } catch {
            #expect(error.errno == EIO)
            #expect(error.description.contains("Input/output error"))
        }
        #expect(text(path) == "old\n")
        #expect(!AtomicFile.exists(AtomicFile.temporaryPath(for: path)))
        // The next save works and replaces it.
        try AtomicFile.write(Array("new\n".utf8), to: path)
        #expect(text(path) == "new\n")
    }

    @Test(arguments: [Syscalls.Operation.openFolder, .fsyncFolder])
    func aFailedFolderSyncReportsButTheNewFileIsWhole(_ operation: Syscalls.Operation) throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        try AtomicFile.write(Array("old\n".utf8), to: path)
        #expect(throws: SystemError.self) {
            try AtomicFile.write(Array("new\n".utf8), to: path, system: Self.failing(operation))
        }
        // The rename happened: only its durability across a power cut is unknown.
        #expect(text(path) == "new\n")
        #expect(!AtomicFile.exists(AtomicFile.temporaryPath(for: path)))
    }

    @Test func storeSaveFailuresKeepTheOldSettings() throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        var saved = SavedState()
        saved.settings.tempo = Tempo(clampingWholeBPM: 91)
        try SettingsStore(path: path).save(saved)
        for operation in [Syscalls.Operation.write, .fsync, .rename] {
            var changed = saved
            changed.settings.tempo = Tempo(clampingWholeBPM: 150)
            #expect(throws: SystemError.self) { try SettingsStore(path: path, system: Self.failing(operation)).save(changed) }
            #expect(SettingsStore(path: path).load().saved == saved)
        }
    }

    @Test func eintrIsRetried() {
        var calls = 0
        let result: Int32 = Syscalls.retryingEINTR {
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        #expect(result == 7)
        #expect(calls == 3)
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
}

@Suite struct BoundedFileTests {
    @Test func fifoAndDevicesAreRefusedWithoutHanging() throws {
        let folder = makeTemporaryFolder()
        let fifo = folder + "/settings.toml"
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(throws: FileReadError.notRegular(.fifo)) { try BoundedFile.read(fifo) }
        let zero = folder + "/zero.toml"
        #expect(symlink("/dev/zero", zero) == 0)
        #expect(throws: FileReadError.notRegular(.characterDevice)) { try BoundedFile.read(zero) }
        #expect(throws: FileReadError.notRegular(.directory)) { try BoundedFile.read(folder) }
        #expect(throws: FileReadError.missing) { try BoundedFile.read(folder + "/nothing") }
    }

    @Test func sizeIsCheckedBeforeReading() throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/big.toml"
        let fd = open(path, O_WRONLY | O_CREAT, 0o644)
        #expect(ftruncate(fd, 1 << 30) == 0)  // 1 GiB, sparse: reading it would cost 1 GiB
        close(fd)
        #expect(throws: FileReadError.tooLarge(bytes: 1 << 30, limit: 1 << 20)) { try BoundedFile.read(path) }
        #expect(FileReadError.tooLarge(bytes: 1 << 30, limit: 1 << 20).description == "is 1073741824 bytes; allowed at most 1048576")
    }

    @Test func invalidUTF8NamesTheLine() throws {
        #expect(throws: FileReadError.notUTF8(line: 3, byte: 0xFF)) { try BoundedFile.text(Array("a\nb\nc\u{FF}".utf8).dropLast(2) + [0xFF]) }
        #expect(FileReadError.notUTF8(line: 3, byte: 0xFF).description == "line 3: not UTF-8 text (invalid byte 0xFF)")
        #expect(try BoundedFile.text(Array("é\n".utf8)) == "é\n")
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

    @Test func oneProcessPerStateFolder() throws {
        let folder = makeTemporaryFolder()
        let lock = try StateLock(folder: folder)
        #expect(text(folder + "/tactus.lock") == "\(getpid())\n")
        // flock is per open file: a second open in this process conflicts like another process.
        #expect(throws: StateLock.Failure.held(path: folder + "/tactus.lock", pid: getpid())) { try StateLock(folder: folder) }
        withExtendedLifetime(lock) {}
    }
}
#endif
