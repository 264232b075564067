// SPDX-License-Identifier: GPL-3.0-or-later
import CLinuxShim
import Glibc

/// The one crash-safe file writer of the project: the settings file and `tactus render`'s
/// WAV and events files all go through it.
///
/// A file is written under a temporary name beside its target (`.NAME.partial-PID`), made
/// durable (fsync) and renamed over the target (atomic within a file system), then the
/// folder is fsynced so the rename itself survives a power cut. A failure at any step
/// removes the temporary file and leaves the old target as it was.
public final class AtomicFile {
    public let path: String
    public let temporaryPath: String
    private let system: Syscalls
    private var fd: Int32
    /// Permission bits of the file being replaced, kept on the new one.
    private let keptMode: mode_t?
    /// Slot in the signal handler's list of files to remove (-1: none).
    private var signalSlot: Int32 = -1

    /// Creates the temporary file. The target is not touched until `commit()`.
    public init(replacing path: String, system: Syscalls = .live) throws(SystemError) {
        self.path = path
        self.system = system
        temporaryPath = AtomicFile.temporaryPath(for: path)
        var existing = stat()
        keptMode = stat(path, &existing) == 0 && FileKind(mode: existing.st_mode) == .regular ? existing.st_mode & 0o7777 : nil
        fd = try system.open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o644)
        signalSlot = tactus_partial_register(temporaryPath)
    }

    /// From now on SIGINT, SIGTERM and SIGHUP remove every temporary file still open, then
    /// end the process as the signal would have. For commands that own the process
    /// (`tactus render`), not for the service (swift-service-lifecycle handles its signals).
    public static func removeTemporaryFilesOnSignals() { tactus_partial_install_handlers() }

    deinit { if fd >= 0 || signalSlot >= 0 { discard() } }

    /// `.NAME.partial-PID` in the target's folder: unique per process, hidden, and easy to
    /// recognise (and remove) as a leftover.
    public static func temporaryPath(for path: String) -> String {
        let (folder, name) = split(path)
        return (folder.map { $0 == "/" ? "/" : $0 + "/" } ?? "") + ".\(name).partial-\(getpid())"
    }

    public func write(_ bytes: [UInt8]) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { buffer in
            do throws(SystemError) { try system.write(fd, buffer, path: temporaryPath) } catch { failure = error }
        }
        if let failure {
            discard()
            throw failure
        }
    }

    /// Overwrites bytes already written (a WAV header patched with its final size).
    public func rewrite(at offset: Int64, _ bytes: [UInt8]) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { buffer in
            do throws(SystemError) { try system.write(fd, buffer, at: offset, path: temporaryPath) } catch { failure = error }
        }
        if let failure {
            discard()
            throw failure
        }
    }

    /// fsync, keep the old file's permissions, rename into place, fsync the folder.
    public func commit() throws(SystemError) {
        do {
            if let keptMode { try system.fchmod(fd, keptMode, path: temporaryPath) }
            try system.fsync(fd, path: temporaryPath)
            let closing = fd
            fd = -1
            try system.close(closing, path: temporaryPath)
            try system.rename(temporaryPath, to: path)
            tactus_partial_unregister(signalSlot)
            signalSlot = -1
        } catch {
            discard()
            throw error
        }
        // The new file is in place; only its durability across a power cut is in question.
        try system.syncFolder(AtomicFile.folderName(of: path))
    }

    /// Removes the temporary file; the target is untouched.
    public func discard() {
        if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
        _ = Glibc.unlink(temporaryPath)
        tactus_partial_unregister(signalSlot)
        signalSlot = -1
    }

    // MARK: Whole files

    /// Replaces `path` with `bytes` (see the type's comment for the steps).
    public static func write(_ bytes: [UInt8], to path: String, system: Syscalls = .live) throws(SystemError) {
        let file = try AtomicFile(replacing: path, system: system)
        try file.write(bytes)
        try file.commit()
    }

    /// fsync of the folder holding `path`, which makes a rename or a new name durable.
    public static func syncFolder(of path: String, system: Syscalls = .live) throws(SystemError) {
        try system.syncFolder(folderName(of: path))
    }

    static func split(_ path: String) -> (folder: String?, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (nil, path) }
        let folder = slash == path.startIndex ? "/" : String(path[..<slash])
        return (folder, String(path[path.index(after: slash)...]))
    }

    static func folderName(of path: String) -> String { split(path).folder ?? "." }

    /// The whole file (bounded, regular files only), or nil when it does not exist.
    public static func read(_ path: String, limit: Int = BoundedFile.textLimit, system: Syscalls = .live) throws(FileReadError) -> [UInt8]? {
        do { return try BoundedFile.read(path, limit: limit, system: system) } catch {
            if error == .missing { return nil }
            throw error
        }
    }

    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Renames `path` to the first free `<stem>.corrupt-N<ext>` next to it and returns the
    /// new path: a bad file is never deleted, and never overwrites an earlier bad one.
    public static func keepAside(_ path: String, system: Syscalls = .live) throws(SystemError) -> String {
        let (stem, ext) = splitExtension(path)
        var n = 1
        while exists("\(stem).corrupt-\(n)\(ext)") { n += 1 }
        let aside = "\(stem).corrupt-\(n)\(ext)"
        try system.rename(path, to: aside)
        try syncFolder(of: path, system: system)
        return aside
    }

    /// Removes what killed writers of `path` left behind: `.NAME.partial-*` and the
    /// `NAME.tmp` of earlier versions. Call only while holding the folder's lock.
    /// Returns the names removed.
    @discardableResult
    public static func removeLeftovers(of path: String) -> [String] {
        let (folder, name) = split(path)
        let dir = folder ?? "."
        guard let stream = opendir(dir) else { return [] }
        defer { closedir(stream) }
        var removed: [String] = []
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard entryName.hasPrefix(".\(name).partial-") || entryName == "\(name).tmp" else { continue }
            let full = (folder.map { $0 == "/" ? "/" : $0 + "/" } ?? "") + entryName
            if Glibc.unlink(full) == 0 { removed.append(full) }
        }
        return removed.sorted()
    }

    static func splitExtension(_ path: String) -> (String, String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (path, "") }
        let ext = String(name[dot...])
        return (String(path.dropLast(ext.count)), ext)
    }
}
