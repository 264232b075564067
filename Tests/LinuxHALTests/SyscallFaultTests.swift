// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
import Glibc
import Synchronization
import Testing
import TestSupport
@testable import LinuxHAL
import TactusMusic
import TactusInstrument
import TactusBase

/// Each step of the atomic save fails in turn; the settings file is always whole (old or
/// new, never empty or partial) and no temporary file is left behind.
@Suite struct SyscallFaultTests {
    @Test(arguments: [Syscalls.Operation.open, .write, .fchmod, .fsync, .close, .rename])
    func aFailedStepBeforeTheRenameKeepsTheOldFile(_ operation: Syscalls.Operation) throws {
        let folder = makeTemporaryFolder()
        let path = folder + "/settings.toml"
        try AtomicFile.write(Array("old\n".utf8), to: path)
        chmod(path, 0o640)  // so fchmod runs
        do {
            try AtomicFile.write(Array("new\n".utf8), to: path, system: Syscalls.failing(operation))
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
            try AtomicFile.write(Array("new\n".utf8), to: path, system: Syscalls.failing(operation))
        }
        // The rename happened: only its durability across a power cut is unknown.
        #expect(text(path) == "new\n")
        #expect(!AtomicFile.exists(AtomicFile.temporaryPath(for: path)))
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
