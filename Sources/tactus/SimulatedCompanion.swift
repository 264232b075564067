// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import LinuxHAL
import TactusApp
import TactusInstrument

/// `tactus simulate --web ADDR:PORT`: the simulated box serves a control socket (where
/// `tactus ctl` looks by default when no box serves it: ControlSocketPaths; else in a
/// private temporary folder), switches its companion on, starts `tactus-web` against it
/// (from the folder of the `tactus` binary, else from PATH), waits until it listens and
/// prints the one line `web: http://ADDR:PORT pairing code NNNNNN`, flushed at once.
final class SimulatedCompanion: @unchecked Sendable {
    let folder: String
    let link: ControlSocketLink
    /// `web: http://ADDR:PORT pairing code NNNNNN`, as printed.
    private(set) var line = ""
    let pid: pid_t

    /// `switchOn` turns the companion on at the simulated box and shows the code (on its thread).
    static func start(post: @escaping ControlSocketLink.Post, listen: ListenAddress, practicePath: String?, soundsFolder: String?,
                      sampleRate: Int, control: String? = nil, pump: (() -> Void)? = nil,
                      switchOn: (String) async -> Void) async throws -> SimulatedCompanion {
        var template = Array("/tmp/tactus-simulate-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ExitError("--web: cannot make a temporary folder in /tmp", code: 1) }
        let folder = String(cString: made)
        let sounds = soundsFolder ?? "\(folder)/sounds"
        mkdir(sounds, 0o755)
        mkdir("\(folder)/spool", 0o700)
        let files = LinuxControlFiles(practicePath: practicePath, soundsFolder: sounds, sampleRate: sampleRate, spoolFolder: "\(folder)/spool")
        let link: ControlSocketLink
        do {
            link = try ControlSocketLink(path: control ?? ControlSocketPaths.forSimulation() ?? "\(folder)/control.sock", post: post, files: files,
                                         configuration: CompanionConfiguration(listen: listen.description))
        } catch { throw ExitError("--web: control socket: \(error)", code: 1) }
        var random = SystemRandomNumberGenerator()
        let code = Companion.code(from: random.next())
        // Switched on at the simulated box, as Menu > Settings > Companion would, with a code shown.
        await switchOn(code)
        guard let program = companionProgram() else {
            link.stop()
            throw ExitError("--web: tactus-web is not beside the tactus binary nor on PATH (swift build builds both)", code: 1)
        }
        let (pid, output) = try spawn(program, ["--control", link.server.path, "--spool", "\(folder)/spool", "--log-level", "warning", "--once"])
        let companion = SimulatedCompanion(folder: folder, link: link, pid: pid)
        // tactus-web says when it listens; only then is the address worth printing.
        guard let line = readLine(output, timeoutMilliseconds: 30_000, pump: pump), line.hasPrefix("tactus-web: listening") else {
            close(output)
            companion.stop()
            throw ExitError("--web: tactus-web did not start listening on \(listen) (is the port free?)", code: 1)
        }
        close(output)
        // Shown again now, so the code's 60 s count from the printed line, not from tactus-web's start.
        await switchOn(code)
        companion.line = SimulatedCompanion.line(listen, code)
        FileSystem.writeStandardOutput(companion.line + "\n")
        return companion
    }

    /// The one line `simulate --web` prints.
    static func line(_ listen: ListenAddress, _ code: String) -> String { "web: http://\(listen) pairing code \(code)" }

    /// What Menu > Settings > Companion does at the box: on, with a code for 60 s.
    static func switchOn(_ box: Box, code: String) {
        box.handle(.remote(.companion(on: true), at: box.now))
        box.handle(.remote(.showPairingCode(code), at: box.now))
    }

    private init(folder: String, link: ControlSocketLink, pid: pid_t) {
        self.folder = folder
        self.link = link
        self.pid = pid
    }

    /// Ends tactus-web, closes the socket and removes the temporary folder.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        link.stop()
        for name in FileSystem.entries(of: "\(folder)/spool") ?? [] { unlink("\(folder)/spool/\(name)") }
        rmdir("\(folder)/spool")
        if let entries = FileSystem.entries(of: "\(folder)/sounds") {
            for set in entries {
                for name in FileSystem.entries(of: "\(folder)/sounds/\(set)") ?? [] { unlink("\(folder)/sounds/\(set)/\(name)") }
                rmdir("\(folder)/sounds/\(set)")
            }
            rmdir("\(folder)/sounds")
        }
        rmdir(folder)
    }

    /// tactus-web beside this binary, else the first on PATH.
    static func companionProgram() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var candidates: [String] = []
        if n > 0 {
            let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            candidates.append(exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/tactus-web")
        }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        candidates += path.split(separator: ":").map { "\($0)/tactus-web" }
        return candidates.first { access($0, X_OK) == 0 }
    }

    /// Starts `program` with its stdout on a pipe (returned), stderr and stdin inherited.
    static func spawn(_ program: String, _ arguments: [String]) throws -> (pid_t, Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ExitError("--web: pipe failed", code: 1) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, nil, argv, environ)
        close(ends[1])
        guard result == 0 else {
            close(ends[0])
            throw ExitError("--web: cannot start \(program): \(String(cString: strerror(result)))", code: 1)
        }
        return (pid, ends[0])
    }

    /// One line from `fd`, or nil at its end or after the timeout.
    /// `pump` runs every 10 ms meanwhile (a headless box answers its socket only when asked to).
    static func readLine(_ fd: Int32, timeoutMilliseconds: Int32, pump: (() -> Void)? = nil) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        var waited: Int32 = 0
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let slice: Int32 = pump == nil ? timeoutMilliseconds : 10
            let ready = poll(&entry, 1, slice)
            if ready == 0, let pump, waited < timeoutMilliseconds {
                pump()
                waited += slice
                continue
            }
            guard ready > 0, read(fd, &byte, 1) == 1 else { return nil }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
