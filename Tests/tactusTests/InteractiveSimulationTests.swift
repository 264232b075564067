// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import Testing

/// The terminal simulator in a real pseudo-terminal: keys reach the box, q and the signals a
/// closed terminal or systemd send end the run through the one ServiceGroup (BoxRoot), and
/// the box saves on the way out as `tactus run` does.
@Suite(.serialized) struct InteractiveSimulationTests {
    /// A `tactus simulate` on the child side of a pty; the parent reads what it draws.
    final class Terminal {
        let pid: pid_t
        let fd: Int32
        private(set) var screen = ""

        init(_ arguments: [String]) throws {
            var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("tactus").path) { folder.deleteLastPathComponent() }
            let path = folder.appendingPathComponent("tactus").path
            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            var size = winsize(ws_row: 40, ws_col: 140, ws_xpixel: 0, ws_ypixel: 0)
            var master: Int32 = -1
            let child = forkpty(&master, nil, nil, &size)
            if child == 0 {
                execv(path, argv)
                _exit(127)
            }
            for pointer in argv { free(pointer) }
            pid = child
            fd = master
        }

        /// Reads what the program drew until `text` shows (true) or `seconds` pass.
        func wait(for text: String, seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while Date() < deadline {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 50) >= 0 else { return false }
                if descriptor.revents != 0 {
                    let count = read(fd, &buffer, buffer.count)
                    if count <= 0 { return screen.contains(text) }
                    screen += String(decoding: buffer[0..<count], as: UTF8.self)
                    if screen.suffix(20_000).contains(text) { return true }
                }
            }
            return false
        }

        func type(_ keys: String) { _ = keys.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) } }

        /// The exit status once it ended within `seconds` (nil: still running, then killed).
        func exitStatus(within seconds: Double) -> Int32? {
            let deadline = Date().addingTimeInterval(seconds)
            var status: Int32 = 0
            while Date() < deadline {
                _ = wait(for: "\u{0}never", seconds: 0.05)
                if waitpid(pid, &status, WNOHANG) == pid {
                    close(fd)
                    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                }
            }
            kill(pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
            close(fd)
            return nil
        }
    }

    @Test func keysPlayAndTurnTheWheelAndQSavesAndQuits() throws {
        let state = scratchFolder()
        let terminal = try Terminal(["simulate", "--state", state.path])
        #expect(terminal.wait(for: "120 BPM", seconds: 60), "the screen never showed 120 BPM: \(terminal.screen.suffix(500))")
        terminal.type(" ")
        #expect(terminal.wait(for: "playing", seconds: 10))
        terminal.type("\u{1B}[C")
        #expect(terminal.wait(for: "121 BPM", seconds: 10))
        terminal.type("q")
        #expect(terminal.exitStatus(within: 20) == 0)
        let settings = try String(contentsOf: state.appendingPathComponent("settings.toml"), encoding: .utf8)
        #expect(settings.contains("bpm = 121"), "\(settings)")
        #expect(terminal.screen.hasSuffix("\u{1B}[?25h\r\n"), "the cursor is shown again at the end")
    }

    @Test(arguments: [SIGTERM, SIGHUP]) func aSignalEndsItAsQDoes(signal: Int32) throws {
        let state = scratchFolder()
        let terminal = try Terminal(["simulate", "--state", state.path])
        #expect(terminal.wait(for: "120 BPM", seconds: 60))
        terminal.type("\u{1B}[D")
        #expect(terminal.wait(for: "119 BPM", seconds: 10))
        kill(terminal.pid, signal)
        #expect(terminal.exitStatus(within: 20) == 0)
        let settings = try String(contentsOf: state.appendingPathComponent("settings.toml"), encoding: .utf8)
        #expect(settings.contains("bpm = 119"), "\(settings)")
    }
}
