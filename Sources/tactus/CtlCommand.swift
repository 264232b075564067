// SPDX-License-Identifier: GPL-3.0-or-later
import TactusWire
import ArgumentParser
import CLinuxShim
import Glibc
import LinuxHAL
import TactusInstrument

/// `tactus ctl`: the running box's control socket from a shell (README "Control socket").
struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Talks to the running box over its control socket: state, set NAME=VALUE..., start, stop, tap, practice, browsers, revoke N, send JSON.",
        discussion: """
            tactus ctl state                    the box's state as one JSON object
            tactus ctl set bpm=132 meter=7/8    change settings (volume.master=80, swing=none); prints the new state
            tactus ctl start | stop             START/STOP
            tactus ctl tap                      TAP, as the box's button (its tap tolerance)
            tactus ctl practice                 minutes played per day
            tactus ctl browsers | revoke N      the companion's paired browsers
            tactus ctl send '{"cmd":"songs"}'   any request line; prints the answer
            """
    )

    @Option(name: [.customLong("socket"), .customLong("control")],
            help: "The box's control socket (default: /run/tactus/control.sock, else a simulation's /tmp/tactus-UID/control.sock).")
    var socket: String?
    @Argument(help: "state, set, start, stop, tap, practice, browsers, revoke, send") var command: String
    @Argument(help: "NAME=VALUE pairs for set, N for revoke, a JSON line for send.") var arguments: [String] = []

    func run() throws {
        let request: String
        var member = WireField.state.name
        switch command {
        case "state": request = WireCommand.state.request().text
        case "set":
            guard !arguments.isEmpty else { throw ExitError("ctl set needs NAME=VALUE pairs, e.g. bpm=132 meter=7/8") }
            let fields = try CtlCommand.fields(arguments)
            request = WireCommand.set.request(JSONObject { $0.add(.fields, fields) }).text
        case "start", "stop": request = WireCommand.transport.request(JSONObject { $0.add(.playing, command == "start") }).text
        case "tap": request = WireCommand.tap.request().text
        case "practice": request = WireCommand.practice.request().text; member = WireField.minutes.name
        case "browsers": request = WireCommand.browsers.request().text; member = WireField.browsers.name
        case "revoke":
            guard arguments.count == 1, let id = Int(arguments[0]) else { throw ExitError("ctl revoke needs the browser's number (see ctl browsers)") }
            request = WireCommand.revoke.request(JSONObject { $0.add(.browser, id) }).text; member = ""
        case "send":
            guard arguments.count == 1 else { throw ExitError("ctl send needs one JSON request line") }
            request = arguments[0]; member = ""
        default:
            throw ExitError("ctl '\(command)' is unknown: allowed \(CtlCommand.verbs.joined(separator: ", "))")
        }
        let answer = try CtlCommand.exchange(request, socket: socket ?? ControlSocketPaths.forCtl())
        guard let reply = try? JSONValue.parse(answer) else { throw ExitError("the box answered something that is not JSON: \(answer)", code: 1) }
        guard reply[WireField.ok.name]?.boolValue == true else {
            throw ExitError(reply[WireField.error.name]?.stringValue ?? answer, code: 2)
        }
        print(member.isEmpty ? answer : (reply[member]?.json ?? answer))
    }

    static let verbs = ["state", "set", "start", "stop", "tap", "practice", "browsers", "revoke", "send"]

    /// `bpm=132 meter=7/8 volume.master=80 swing=none` as the fields object of `set`; the
    /// names as the state object spells them (`beat-unit` is read as `beat_unit`).
    static func fields(_ pairs: [String]) throws(ExitError) -> JSONObject {
        var top = JSONObject()
        var volumes = JSONObject()
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ExitError("'\(pair)' is invalid: allowed NAME=VALUE, e.g. bpm=132")
            }
            let name = String(pair[..<equals]), text = String(pair[pair.index(after: equals)...])
            let value: any JSONWritable
            if name == WireField.bpm.name || name.hasPrefix("volume."), (try? JSONValue.parse(text)).map({ if case .number = $0 { true } else { false } }) == true {
                value = JSONNumber(text)
            } else if name == WireField.playing.name, text == "true" || text == "false" {
                value = text == "true"
            } else if name == WireField.swing.name || name == WireField.groove.name, text == "none" {
                value = JSONValue.null
            } else {
                value = text
            }
            if name.hasPrefix("volume.") { volumes.add(String(name.dropFirst(7)), value) } else { top.add(WireField.canonical(name), value) }
        }
        if !volumes.isEmpty { top.add(.volume, volumes) }
        return top
    }

    /// One request line out, one answer line back.
    static func exchange(_ request: String, socket path: String) throws(ExitError) -> String {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ExitError("socket: \(String(cString: strerror(errno)))", code: 1) }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw ExitError("--socket '\(path)' is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            throw ExitError("cannot connect to the box at \(path): \(String(cString: strerror(errno))) (is tactus running, and may this user use its socket?)", code: 1)
        }
        try checkOwner(fd, path)
        let line = Array((request + "\n").utf8)
        var sent = 0
        while sent < line.count {
            let n = line.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, line.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ExitError("writing to \(path) failed: \(String(cString: strerror(errno)))", code: 1) }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !answer.contains(0x0A) {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { throw ExitError("the box closed \(path) without an answer", code: 1) }
            answer.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: answer[..<answer.firstIndex(of: 0x0A)!], as: UTF8.self)
    }
}

extension CtlCommand {
    /// The users a box's socket may belong to: root, the box's service user (`tactus`), and
    /// this user (a simulation it runs itself).
    static func trustedUsers() -> Set<uid_t> {
        var users: Set<uid_t> = [0, getuid()]
        if let entry = getpwnam("tactus") { users.insert(entry.pointee.pw_uid) }
        return users
    }

    /// Nothing is sent before the process serving the socket is known (SO_PEERCRED) to run
    /// as one of `trustedUsers`: a socket another local user planted gets no request.
    static func checkOwner(_ fd: Int32, _ path: String) throws(ExitError) {
        var uid: UInt32 = 0
        guard tactus_peer_uid(fd, &uid) == 0 else {
            throw ExitError("cannot tell who serves \(path) (SO_PEERCRED: \(String(cString: strerror(errno)))): nothing sent", code: 1)
        }
        guard trustedUsers().contains(uid_t(uid)) else {
            let name = getpwuid(uid_t(uid)).map { String(cString: $0.pointee.pw_name) } ?? "uid \(uid)"
            throw ExitError("\(path) is served by \(name), not by root, tactus or you: nothing sent (another user's socket?)", code: 1)
        }
    }
}
