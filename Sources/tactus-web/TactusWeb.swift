// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import TactusInstrument

/// `tactus-web`: the browser companion (README "Companion"). Its own process and user: it
/// reaches the box only through the control socket, and listens only while the box says
/// the companion is switched on (Menu > Settings > Companion), on the box's `[web] listen`.
@main
struct TactusWeb {
    static let usage = """
        usage: tactus-web [--control /run/tactus/control.sock] [--share DIR] [--spool DIR] [--log-level info] [--once]
        """

    static func main() async {
        var control = "/run/tactus/control.sock"
        var share: String?
        var spool: String?
        var level = Logger.Level.info
        // --once: serve this box and exit when its socket closes (`tactus simulate --web`).
        var once = false
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            if flag == "--once" { once = true; continue }
            guard ["--control", "--share", "--spool", "--log-level"].contains(flag), let value = arguments.popFirst() else {
                fail(flag == "--help" || flag == "-h" ? usage : "tactus-web: error: '\(flag)' is unknown or has no value\n\(usage)", code: flag == "--help" ? 0 : 2)
            }
            switch flag {
            case "--control": control = value
            case "--share": share = value
            case "--spool": spool = value
            default:
                guard let l = Logger.Level(rawValue: value) else { fail("tactus-web: error: --log-level '\(value)' is invalid: allowed trace, debug, info, notice, warning, error, critical", code: 2) }
                level = l
            }
        }
        let chosenLevel = level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = chosenLevel
            return handler
        }
        let logger = Logger(label: "tactus-web")
        guard let shareFolder = share ?? findShare() else {
            fail("tactus-web: error: the pages are not found (index.html in /usr/share/tactus/web or beside the binary); give --share DIR", code: 2)
        }
        let spoolFolder = spool ?? ((getenv("STATE_DIRECTORY").map { String(cString: $0) } ?? "/var/lib/tactus-web") + "/spool")
        mkdir(spoolFolder, 0o750)
        guard let kind = fileKind(spoolFolder), kind == S_IFDIR else { fail("tactus-web: error: --spool '\(spoolFolder)' is not a folder", code: 2) }
        // Left by a process that was killed mid-upload.
        if let entries = folderEntries(spoolFolder) { for name in entries where name.hasPrefix("upload-") { unlink("\(spoolFolder)/\(name)") } }

        let live = LiveHub()
        let box = BoxLink(path: control)
        var announcedWaiting = false
        while true {
            // The subscription tells when the companion is switched on or off at the box.
            let (switches, switched) = AsyncStream<Bool?>.makeStream()
            let subscription: BoxConnection
            do {
                subscription = try BoxConnection(path: control, onEvent: { value in
                    if value["type"]?.stringValue == "beat" {
                        live.publish(value.json, isState: false)
                    } else if value["type"]?.stringValue == "state" {
                        live.publish(value.json, isState: true)
                        if let on = value["companion"]?.boolValue { switched.yield(on) }
                    }
                }, onClose: { switched.yield(nil); switched.finish() })
            } catch {
                if once { fail("tactus-web: error: \(error)", code: 1) }
                if !announcedWaiting { logger.warning("\(error); waiting for the box") }
                announcedWaiting = true
                try? await Task.sleep(for: .seconds(2))
                continue
            }
            announcedWaiting = false
            subscription.send("{\"cmd\":\"subscribe\"}")
            var on = false
            var listen = ListenAddress("0.0.0.0:8080")!
            if let answer = try? await box.request("\"cmd\":\"web\"") {
                on = answer["on"]?.boolValue ?? false
                if let text = answer["listen"]?.stringValue, let address = ListenAddress(text) { listen = address }
            }
            var iterator = switches.makeAsyncIterator()
            var boxGone = false
            while !boxGone {
                if !on {
                    logger.info("companion is off at the box: not listening")
                    while let next = await iterator.next() {
                        guard let value = next else { boxGone = true; break }
                        if value { on = true; break }
                    }
                    if boxGone || !on { boxGone = true; break }
                    if let answer = try? await box.request("\"cmd\":\"web\""), let text = answer["listen"]?.stringValue,
                       let address = ListenAddress(text) { listen = address }
                }
                let address = listen
                let server = CompanionServer(listen: address, box: box, live: live, share: shareFolder, spool: spoolFolder, logger: logger)
                let app = server.makeApplication {
                    logger.info("listening on http://\(address)")
                    ready("tactus-web: listening on http://\(address)\n")
                }
                let group = ServiceGroup(services: [app], logger: logger)
                let running = Task { try await group.run() }
                while let next = await iterator.next() {
                    guard let value = next else { boxGone = true; break }
                    if !value { on = false; break }
                }
                if iterator.isFinished { boxGone = true }
                await group.triggerGracefulShutdown()
                live.finishAll()
                do { try await running.value } catch { logger.error("server: \(error)"); try? await Task.sleep(for: .seconds(2)) }
                logger.info(boxGone ? "the box went away: not listening" : "companion switched off at the box: not listening")
            }
            subscription.shutdown()
            if once { exit(0) }
            try? await Task.sleep(for: .seconds(1))
        }
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

extension AsyncStream<Bool?>.Iterator {
    /// Never true here: the stream ends only after its nil, which ends the loops first.
    var isFinished: Bool { false }
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
