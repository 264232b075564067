// SPDX-License-Identifier: GPL-3.0-or-later
import TactusWire
import ClickEngine
import Glibc
import LinuxHAL
import TactusStorage
import Logging
import Synchronization
import TactusApp
import TactusArithmetic
import TactusInstrument

/// The files behind the control socket: the practice log beside the settings, and sound
/// sets taken from the companion's spool folder into the box's sounds folder.
struct LinuxControlFiles: ControlFiles {
    /// The practice log (nil: none kept, e.g. a simulation without --state).
    let practicePath: String?
    /// The sounds folder (nil: the configuration has none, uploads are refused).
    let soundsFolder: String?
    let sampleRate: Int
    /// The companion's spool folder: `add-sound` takes files from here only (issue 32).
    var spoolFolder: String? = LinuxControlFiles.defaultSpool

    /// tactus-web's spool under systemd (systemd/tactus-web.service `--spool`).
    static let defaultSpool = "/var/lib/tactus-web/spool"

    /// One file of a set: 20 MB, as the companion's upload limit.
    static let maximumFileBytes = 20_000_000
    static let files = ["accent.wav", "beat.wav", "sub.wav", "poly.wav"]

    func practice() -> JSONObject {
        var answer = JSONObject()
        // "kept": false when the box runs without a state folder: the page says why it is empty.
        guard let practicePath, let log = try? PracticeLogFile(path: practicePath).load() else {
            answer.add(.minutes, JSONObject())
            answer.add(.sessions, [JSONObject]())
            answer.add(.kept, practicePath != nil)
            return answer
        }
        var days = JSONObject()
        for day in log.seconds.keys.sorted() { days.add(day, JSON.decimal(log.minutes(on: day), 2)) }
        let sessions = log.sessions.map { s in
            JSONObject {
                $0.add(.day, s.day)
                $0.add(.song, s.song)
                $0.add(.minutes, JSON.decimal(Double(s.seconds) / 60, 2))
                $0.add(.bpm, JSON.decimal(s.bpm, 3))
                guard let c = s.coach else { return }
                $0.add(.hits, c.hits)
                $0.add(.meanMs, JSON.decimal(c.meanMs, 1))
                $0.add(.sdMs, JSON.decimal(c.sdMs, 1))
                $0.add(.within10ms, JSON.decimal(c.within10Percent, 1))
                $0.add(.within25ms, JSON.decimal(c.within25Percent, 1))
                if !c.trainer.isEmpty { $0.add(.trainer, c.trainer.map(StateJSON.trainerStep)) }
            }
        }
        answer.add(.minutes, days)
        answer.add(.sessions, sessions)
        answer.add(.kept, true)
        return answer
    }

    /// A set's name: letters, digits, space, `-` and `_`, 1-32 characters, not starting
    /// with a dot or a space, so it never leaves the sounds folder.
    static func checkName(_ set: String) throws(ControlError) {
        let allowed = set.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x2D || b == 0x5F || b == 0x20
        }
        guard !set.isEmpty, set.utf8.count <= 32, allowed, set.first != " " else {
            throw ControlError(400, "sound set name \(JSONValue.quoted(set)) is invalid: allowed 1 to 32 letters, digits, spaces, - and _")
        }
    }

    func addSound(set: String, file: String, from path: String) throws(ControlError) -> SoundSet? {
        try LinuxControlFiles.checkName(set)
        guard LinuxControlFiles.files.contains(file) else {
            throw ControlError(400, "file \(JSONValue.quoted(file)) is invalid: allowed \(LinuxControlFiles.files.joined(separator: ", "))")
        }
        guard let soundsFolder else { throw ControlError(409, "this box has no sounds_folder in its configuration") }
        try checkSpooled(path)
        // The spooled file as it is, never through a link, and no larger than the limit.
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ControlError(400, "the uploaded file \(path) is missing or not a regular file")
        }
        guard Int(info.st_size) <= LinuxControlFiles.maximumFileBytes else { throw ControlError(413, "\(file) is larger than 20 MB") }
        let bytes: [UInt8]
        do { bytes = try BoundedFile.read(path, limit: LinuxControlFiles.maximumFileBytes) } catch {
            throw ControlError(400, "the uploaded \(file) cannot be read: \(error)")
        }
        // Never a word of the file's own bytes in an answer: the header is checked here first.
        guard bytes.count >= 12, ["RIFF", "RF64"].contains(String(decoding: bytes[0..<4], as: UTF8.self)),
              String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE" else {
            throw ControlError(422, "\(set)/\(file) is not a WAV file (no RIFF/WAVE header)")
        }
        let kind = SoundLoadError.File(rawValue: file)!
        // The same checks as a sounds folder's files at start: a WAV the decoder takes, at most 2 s.
        do { _ = try UserSoundSet.clip(bytes, file: kind, sampleRate: sampleRate) } catch {
            throw ControlError(422, "\(set)/\(error.description)")
        }
        let folder = "\(soundsFolder)/\(set)"
        do {
            try FileSystem.createFolders(folder)
            try AtomicFile.write(bytes, to: "\(folder)/\(file)")
        } catch { throw ControlError(500, "\(folder)/\(file) cannot be written: \(error)") }
        guard ["accent.wav", "beat.wav", "sub.wav"].allSatisfy({ AtomicFile.exists("\(folder)/\($0)") }) else { return nil }
        do { return try SoundFolder.load(folder, name: set, sampleRate: sampleRate) } catch {
            throw ControlError(422, "\(folder): \(error.message)")
        }
    }

    /// An installed voice set (`make voices`), unless the sounds folder has its own of that name.
    func isInstalled(set: String) -> Bool {
        guard SoundFolder.voiceFolder(named: set) != nil else { return false }
        return !(soundsFolder.map { FileSystem.isDirectory("\($0)/\(set)") } ?? false)
    }

    func removeSound(set: String) throws(ControlError) {
        try LinuxControlFiles.checkName(set)
        guard let soundsFolder else { throw ControlError(409, "this box has no sounds_folder in its configuration") }
        let folder = "\(soundsFolder)/\(set)"
        guard FileSystem.isDirectory(folder) else { throw ControlError(404, "no sound set \(JSONValue.quoted(set))") }
        for file in LinuxControlFiles.files { unlink("\(folder)/\(file)") }
        // What killed uploads left (`.NAME.wav.partial-PID`) goes with the set.
        LinuxControlFiles.removePartials(in: folder)
        guard rmdir(folder) == 0 else { throw ControlError(409, "\(folder) holds other files: remove them by hand") }
    }
}

extension LinuxControlFiles {
    /// `path` must be a file right in the spool folder (`upload-*`), named without links or
    /// `..`: the socket never reads elsewhere, whatever a client asks.
    func checkSpooled(_ path: String) throws(ControlError) {
        guard let spoolFolder, let spool = LinuxControlFiles.realPath(spoolFolder) else {
            throw ControlError(409, "this box takes uploads from no spool folder")
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let name = parts.last, name.hasPrefix("upload-"), !parts.contains(".."),
              let folder = LinuxControlFiles.realPath(parts.dropLast().joined(separator: "/")), folder == spool else {
            throw ControlError(403, "path must be a file the companion spooled in \(spoolFolder)")
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Removes the temporary files of uploads a killed box left in every set's folder (at
    /// start) or in one (`folder`, before it is deleted).
    static func removePartials(in folder: String) {
        for name in FileSystem.entries(of: folder) ?? [] where name.hasPrefix(".") && name.contains(".wav.partial-") {
            unlink("\(folder)/\(name)")
        }
    }

    static func removePartials(sounds folder: String?) {
        guard let folder else { return }
        for set in FileSystem.entries(of: folder) ?? [] where FileSystem.isDirectory("\(folder)/\(set)") { removePartials(in: "\(folder)/\(set)") }
    }
}

/// The control socket wired to a running box: requests go to the box's control thread,
/// answers come back through the socket's thread.
final class ControlSocketLink: @unchecked Sendable {
    static let defaultPath = "/run/tactus/control.sock"
    let server: ControlSocketServer
    let hub: ControlHub

    /// Runs work on the box's own thread (its control loop, or a headless simulation's steps).
    typealias Post = @Sendable (@escaping @Sendable (Box) -> Void) -> Void

    convenience init(path: String, loop: ControlLoop, files: LinuxControlFiles, configuration: CompanionConfiguration) throws(SystemError) {
        try self.init(path: path, post: { loop.post(work: $0) }, files: files, configuration: configuration)
    }

    init(path: String, post loopPost: @escaping Post, files: LinuxControlFiles, configuration: CompanionConfiguration) throws(SystemError) {
        let loop = (post: loopPost, ())
        let server = try ControlSocketServer(path: path)
        LinuxControlFiles.removePartials(sounds: files.soundsFolder)
        let hub = ControlHub(send: { [weak server] client, line in server?.send(line, to: client) }, files: files,
                             configuration: configuration)
        self.server = server
        self.hub = hub
        loop.post { box in box.controlObserver = hub }
        server.start(line: { client, line in loop.post { box in hub.handle(line, from: client, box: box) } },
                     closed: { client in loop.post { _ in hub.closed(client) } })
    }

    func stop() { server.stop() }
}

/// Work for a headless simulation's thread, taken at each of its steps.
final class ControlQueue: @unchecked Sendable {
    private let items = Mutex<[@Sendable (Box) -> Void]>([])

    func post(_ work: @escaping @Sendable (Box) -> Void) { items.withLock { $0.append(work) } }

    func drain(_ box: Box) {
        for work in items.withLock({ items -> [@Sendable (Box) -> Void] in defer { items = [] }; return items }) { work(box) }
    }
}

/// Where the control socket is when no path is given: the box's (`/run/tactus/control.sock`),
/// else, for a simulation run by a user who cannot write /run/tactus, `/tmp/tactus-UID/control.sock`.
/// `tactus simulate --web` serves the first it may take (none that a running box serves), so a
/// plain `tactus ctl state` reaches the simulated box as it would the real one.
enum ControlSocketPaths {
    static var user: String { "/tmp/tactus-\(getuid())/control.sock" }

    /// The socket `tactus ctl` talks to: the box's, else this user's simulation's when only
    /// that one exists and its folder is this user's own (0700, made so if it was not).
    static func forCtl() -> String {
        if answers(ControlSocketLink.defaultPath) || !usableFolder("/tmp/tactus-\(getuid())", privateToUser: true) || !answers(user) {
            return ControlSocketLink.defaultPath
        }
        return user
    }

    /// The path a simulation may serve, or nil (then it uses a private temporary folder).
    static func forSimulation() -> String? {
        if usableFolder("/run/tactus", privateToUser: false), !answers(ControlSocketLink.defaultPath) { return ControlSocketLink.defaultPath }
        if usableFolder("/tmp/tactus-\(getuid())", privateToUser: true), !answers(user) { return user }
        return nil
    }

    private static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// A folder (made if missing) this process may bind a socket in; a shared /tmp's must be
    /// this user's own real folder, not a link or another user's.
    static func usableFolder(_ path: String, privateToUser: Bool) -> Bool {
        mkdir(path, privateToUser ? 0o700 : 0o755)
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, access(path, W_OK | X_OK) == 0 else { return false }
        guard privateToUser else { return true }
        guard info.st_uid == getuid() else { return false }
        // Our own folder left open by an older version (or a umask): closed to others first.
        if info.st_mode & 0o077 != 0 {
            guard chmod(path, 0o700) == 0, lstat(path, &info) == 0, info.st_mode & 0o077 == 0 else { return false }
        }
        return true
    }

    /// Whether a process serves this socket now (a stale file left by a crash does not).
    private static func answers(_ path: String) -> Bool {
        guard isSocket(path) else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b } }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0 || errno != ECONNREFUSED
    }
}
