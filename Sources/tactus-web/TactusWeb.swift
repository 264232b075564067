// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import TactusWire

/// `tactus-web`: the browser companion (README "Companion"). Its own process and user: it
/// reaches the box only through the control socket, and listens only while the box says
/// the companion is switched on (Menu > Settings > Companion), on the box's `[web] listen`.
@main
struct TactusWeb {
    static let usage = """
        usage: tactus-web [--control /run/tactus/control.sock] [--share DIR] [--spool DIR] [--log-level info] [--once]
        """

    /// The command line.
    struct Options {
        var control = "/run/tactus/control.sock"
        var share: String?
        var spool: String?
        var level = Logger.Level.info
        /// Serve this box and exit when its socket closes (`tactus simulate --web`).
        var once = false
    }

    /// Where the companion serves from, as the box says (`web` on the control socket).
    struct Served {
        let shareFolder: String
        let spoolFolder: String
        let live: LiveHub
        let box: BoxLink
        let logger: Logger
    }

    static func main() async {
        let options = parseArguments()
        bootstrapLogging(options.level)
        let logger = Logger(label: "tactus-web")
        guard let shareFolder = options.share ?? findShare() else {
            fail("tactus-web: error: the pages are not found (index.html in /usr/share/tactus/web or beside the binary); give --share DIR", code: 2)
        }
        let served = Served(shareFolder: shareFolder, spoolFolder: prepareSpool(options.spool), live: LiveHub(),
                            box: BoxLink(path: options.control), logger: logger)
        var announcedWaiting = false
        while true {
            // The subscription tells when the companion is switched on or off at the box.
            let (switches, switched) = AsyncStream<Bool?>.makeStream()
            let subscription: BoxConnection
            do {
                subscription = try subscribe(options.control, live: served.live, switched: switched)
            } catch {
                if options.once { fail("tactus-web: error: \(error)", code: 1) }
                if !announcedWaiting { logger.warning("\(error); waiting for the box") }
                announcedWaiting = true
                try? await Task.sleep(for: .seconds(2))
                continue
            }
            announcedWaiting = false
            subscription.send(WireCommand.subscribe.request().text)
            await serveWhileConnected(served, switches: switches)
            subscription.shutdown()
            if options.once { exit(0) }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    static func parseArguments() -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            if flag == "--once" { options.once = true; continue }
            guard ["--control", "--share", "--spool", "--log-level"].contains(flag), let value = arguments.popFirst() else {
                fail(flag == "--help" || flag == "-h" ? usage : "tactus-web: error: '\(flag)' is unknown or has no value\n\(usage)", code: flag == "--help" ? 0 : 2)
            }
            switch flag {
            case "--control": options.control = value
            case "--share": options.share = value
            case "--spool": options.spool = value
            default:
                guard let l = Logger.Level(rawValue: value) else { fail("tactus-web: error: --log-level '\(value)' is invalid: allowed trace, debug, info, notice, warning, error, critical", code: 2) }
                options.level = l
            }
        }
        return options
    }

    static func bootstrapLogging(_ level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// The spool folder (made if missing), emptied of uploads left by a process killed mid-upload.
    static func prepareSpool(_ given: String?) -> String {
        let folder = given ?? ((getenv("STATE_DIRECTORY").map { String(cString: $0) } ?? "/var/lib/tactus-web") + "/spool")
        mkdir(folder, 0o750)
        guard let kind = fileKind(folder), kind == S_IFDIR else { fail("tactus-web: error: --spool '\(folder)' is not a folder", code: 2) }
        if let entries = folderEntries(folder) { for name in entries where name.hasPrefix("upload-") { unlink("\(folder)/\(name)") } }
        return folder
    }

    /// The box's live lines: beats and announced beats to every live view, states too, and
    /// the companion switch to `switched` (nil when the box goes away).
    static func subscribe(_ control: String, live: LiveHub, switched: AsyncStream<Bool?>.Continuation) throws -> BoxConnection {
        try BoxConnection(path: control, onEvent: { value in
            switch value[WireField.type.name]?.stringValue {
            case WireEvent.beat.name, WireEvent.beats.name:
                live.publish(value.json, isState: false)
            case WireEvent.state.name:
                live.publish(value.json, isState: true)
                if let on = value[WireField.companion.name]?.boolValue { switched.yield(on) }
            default: break
            }
        }, onClose: { switched.yield(nil); switched.finish() })
    }

    /// While the box is there: listens whenever the companion is switched on at the box,
    /// on the address the box gives, and stops listening when it is switched off.
    static func serveWhileConnected(_ served: Served, switches: AsyncStream<Bool?>) async {
        let logger = served.logger
        var (on, listen) = await companionSwitch(served.box)
        var iterator = switches.makeAsyncIterator()
        while true {
            if !on {
                logger.info("companion is off at the box: not listening")
                while let next = await iterator.next() {
                    guard let value = next else { return }
                    if value { on = true; break }
                }
                if !on { return }
                listen = await companionSwitch(served.box).listen ?? listen
            }
            let address = listen ?? ListenAddress("0.0.0.0:8080")!
            let server = CompanionServer(listen: address, box: served.box, live: served.live, share: served.shareFolder,
                                         spool: served.spoolFolder, logger: logger)
            let app = server.makeApplication {
                logger.info("listening on http://\(address)")
                ready("tactus-web: listening on http://\(address)\n")
            }
            let group = ServiceGroup(services: [app], logger: logger)
            let running = Task { try await group.run() }
            var boxGone = true
            while let next = await iterator.next() {
                guard let value = next else { break }
                if !value { on = false; boxGone = false; break }
            }
            await group.triggerGracefulShutdown()
            served.live.finishAll()
            do { try await running.value } catch { logger.error("server: \(error)"); try? await Task.sleep(for: .seconds(2)) }
            logger.info(boxGone ? "the box went away: not listening" : "companion switched off at the box: not listening")
            if boxGone { return }
        }
    }

    /// Whether the companion is switched on at the box, and where it is to listen.
    static func companionSwitch(_ box: BoxLink) async -> (on: Bool, listen: ListenAddress?) {
        guard let answer = try? await box.request(.web) else { return (false, nil) }
        return (answer[WireField.on.name]?.boolValue ?? false, answer[WireField.listen.name]?.stringValue.flatMap(ListenAddress.init))
    }

    /// index.html in the package's share folder: installed (`/usr/share/tactus/web`,
    /// `/usr/local/share/tactus/web`, `../share/tactus/web` beside the binary) or the
    /// source tree's `share/web` above a development build.
    static func findShare() -> String? {
        var candidates: [String] = []
        if let env = getenv("TACTUS_WEB_SHARE") { candidates.append(String(cString: env)) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var folder = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            candidates.append(folder + "/../share/tactus/web")
            for _ in 0..<5 {
                candidates.append(folder + "/share/web")
                folder = folder.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            }
        }
        candidates += ["/usr/share/tactus/web", "/usr/local/share/tactus/web"]
        return candidates.first { fileKind("\($0)/index.html") == S_IFREG }
    }
}

func fileKind(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & S_IFMT
}

func folderEntries(_ path: String) -> [String]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(cString: raw.bindMemory(to: CChar.self).baseAddress!) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// The one line on stdout, flushed at once: `tactus simulate --web` waits for it.
func ready(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String, code: Int32) -> Never {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(code == 0 ? 1 : 2, $0.baseAddress, $0.count) }
    exit(code)
}
