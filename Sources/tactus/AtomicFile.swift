import Foundation

/// Writes to a temporary file beside the target and renames it into place only on
/// success, so a failed run never leaves a partial file or destroys an existing one.
final class AtomicFile {
    let path: String
    private let temporaryPath: String
    private let handle: FileHandle

    init(path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporaryPath = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)").path
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil),
              let handle = FileHandle(forUpdatingAtPath: temporaryPath)
        else { throw ExitError("cannot create '\(temporaryPath)' next to '\(path)'", code: 1) }
        self.handle = handle
    }

    func write(_ bytes: [UInt8]) throws {
        do { try handle.write(contentsOf: bytes) } catch {
            throw ExitError("writing '\(path)' failed: \(error.localizedDescription)", code: 1)
        }
    }

    func rewrite(at offset: UInt64, _ bytes: [UInt8]) throws {
        do {
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: bytes)
        } catch { throw ExitError("writing '\(path)' failed: \(error.localizedDescription)", code: 1) }
    }

    func commit() throws {
        do {
            try handle.synchronize()
            try handle.close()
        } catch { throw ExitError("writing '\(path)' failed: \(error.localizedDescription)", code: 1) }
        guard rename(temporaryPath, path) == 0 else {
            throw ExitError("cannot move the output into place at '\(path)': \(String(cString: strerror(errno)))", code: 1)
        }
    }

    func discard() {
        try? handle.close()
        unlink(temporaryPath)
    }
}
