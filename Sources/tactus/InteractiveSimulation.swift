// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Glibc
import HAL
import LinuxHAL
import Logging
import ServiceLifecycle
import SimHAL
import Synchronization
import TactusApp
import TactusInstrument
import TactusBase

/// The box in a terminal: the 128x64 screen in Unicode half blocks, the LEDs as coloured
/// dots, keys for the wheel and the buttons, sound on the ALSA default device (or silent,
/// said so, when there is none). The same Box and control loop as `tactus run`.
enum InteractiveSimulation {
    static let help = "←/→ turn  ⇧←/⇧→ (H/L) fast turn  ⏎/w wheel  m menu (long)  b back (double)  space START  t TAP  f foot  q quit"
    /// The keys in an 80-column terminal.
    static let shortHelp = "←→ turn ⏎ wheel m menu b back ␣ START t TAP f foot q quit"

    /// The terminal's box: the same BoxService as `tactus run` (its start and stop order,
    /// its one control thread), the companion or the control socket beside it, and the
    /// terminal itself, which ends the run on q.
    static func run(_ start: SimulationStart) async throws {
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            throw ExitError("the interactive simulator needs a terminal; use --headless --script FILE --out DIR")
        }
        let board = start.board
        var device = ALSASink.Configuration(board.audio)
        device.realtimePriority = nil // a desktop session: no real-time scheduling needed
        device.lockMemory = false
        let format = AudioFormat(sampleRate: board.audio.sampleRate, channels: board.audio.channels,
                                 periodFrames: board.audio.periodFrames, bufferFrames: board.audio.periodFrames * board.audio.periodCount)
        let audio = try AudioOutput(device: ALSASink(device, log: HALLog { _, _ in }), silent: SilentClockSink(format: format))
        let screen = TerminalScreen(width: board.display?.width ?? 128, height: board.display?.height ?? 64)
        let indicators = SimulatedIndicators()
        var parts = BoxParts(board: board, configuration: start.configuration, audio: audio, input: ScriptedInput(), display: screen,
                             indicators: indicators, persistence: start.loaded.persistence, clock: SystemMonotonicClock(),
                             userSounds: start.userSounds, link: AbletonLink(tempo: 120))
        // "no sound: ..." is one line under the screen; the panel is not covered for it.
        parts.soundNoticeOnScreen = false
        let service = try BoxService(parts: parts, saved: start.loaded.saved, problem: start.loaded.problem,
                                     notice: start.loaded.notice, logger: start.logger)
        let note = audio.deviceProblem.map { "no sound: \($0.message) — running silent" } ?? "sound: \(board.audio.device), \(audio.format)"
        let companionLine = CompanionLine()
        var root = BoxRoot(logger: start.logger)
        root.add(service)
        if start.web != nil || start.control != nil {
            root.add(ControlService(start: start, service: service, companionLine: companionLine))
        }
        root.add(TerminalService(service: service, screen: screen, indicators: indicators, note: note,
                                 waitsForCompanion: start.web != nil, companionLine: companionLine), endsTheRun: true)
        // SIGTERM or SIGHUP (a closed terminal) end it as q does, so the companion, its
        // control socket and its temporary folder are cleaned up, never left behind.
        try await root.run(signals: [.sigterm, .sighup])
    }
}

extension BoxService {
    /// Waits until the box is running; false when its start failed (its error ends the run).
    func untilRunning() async throws -> Bool {
        while phase == .starting { try await Task.sleep(for: .milliseconds(5)) }
        return phase == .running
    }
}

/// The companion (`--web`) or the control socket alone (`--control`) of the terminal's box,
/// from when the box runs until the run ends.
private struct ControlService: Service {
    let start: SimulationStart
    let service: BoxService
    let companionLine: CompanionLine

    func run() async throws {
        guard try await service.untilRunning() else { return }
        let loop = service.loop
        let serving: ControlServing?
        do {
            serving = try await start.serveControl(post: { loop.post(work: $0) }, pump: nil) { code in
                await loop.perform { box in SimulatedCompanion.switchOn(box, code: code) }
            }
        } catch {
            companionLine.set(nil, failed: true)
            throw error
        }
        companionLine.set(serving?.companionLine, failed: false)
        try? await gracefulShutdown()
        serving?.stop()
    }
}

/// The companion's line for the terminal, once the companion listens (printed before the
/// screen takes the terminal, so it stays in the scroll-back).
final class CompanionLine: Sendable {
    private let state = Mutex<(line: String?, settled: Bool)>((nil, false))

    func set(_ line: String?, failed: Bool) { state.withLock { $0 = (line, true) } }

    /// Waits until the companion listens (or failed to start).
    func settled() async throws -> String? {
        while true {
            let (line, settled) = state.withLock { $0 }
            if settled { return line }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// The terminal: keys to the box, the screen, LEDs and status drawn about 30 times a second.
/// q (or Ctrl-C, read as a key in raw mode) ends the run.
private struct TerminalService: Service, @unchecked Sendable {
    // Touched by the one task that runs it (the screen and indicators are thread-safe).
    let service: BoxService
    let screen: TerminalScreen
    let indicators: SimulatedIndicators
    let note: String
    let waitsForCompanion: Bool
    let companionLine: CompanionLine

    func run() async throws {
        guard try await service.untilRunning() else { return }
        // The companion's line is printed before the screen takes the terminal.
        let companion = waitsForCompanion ? try await companionLine.settled() : nil
        let terminal = RawTerminal()
        defer {
            terminal.restore()
            print("\u{1B}[?25h")
        }
        // Keys typed while the box was starting (or while `make run` was still building) are
        // not meant for it: drop them.
        terminal.discardPendingInput()
        // Written at once (print would hold them until a newline): hide the cursor, clear the
        // screen and the scroll-back of build output.
        FileSystem.writeStandardOutput("\u{1B}[?25l\u{1B}[H\u{1B}[2J\u{1B}[3J")
        var lastDraw: String?
        var lastLayout: TerminalPicture.Layout?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            for key in terminal.readKeys(timeoutMilliseconds: 30) {
                if key == "q" || key == "\u{3}" { return }
                if let action = Self.action(key, at: SystemMonotonicClock().now()) { service.loop.post(action) } else { flick(key) }
            }
            let status = await service.loop.perform { box in
                let s = box.state.settings
                return "\(s.tempo) BPM  \(s.meter)  \(box.state.isPlaying ? "playing" : "stopped")  mode: \(box.state.mode.rawValue)"
            }
            let size = RawTerminal.size()
            let layout = TerminalPicture.layout(columns: size.columns, rows: size.rows, width: screen.width, height: screen.height)
            let text = (layout == lastLayout ? "\u{1B}[H" : "\u{1B}[H\u{1B}[2J")
                + picture(layout, columns: size.columns, status: status, companion: companion)
            lastLayout = layout
            if text != lastDraw {
                FileSystem.writeStandardOutput(text)
                lastDraw = text
            }
        }
    }

    /// What a key does to the box (nil: a flick, or no key of the box).
    static func action(_ key: String, at now: MonotonicTime) -> Action? {
        switch key {
        case "right", "l": .detent(1, at: now)
        case "left", "h": .detent(-1, at: now)
        // The wheel held down and turned: the next or previous field of the mode.
        case "up", "k": .pushedDetent(1, at: now)
        case "down", "j": .pushedDetent(-1, at: now)
        case "enter", "w": .gesture(.wheel, .shortPress, at: now)
        case "m": .gesture(.wheel, .longPress, at: now)
        case "b": .gesture(.wheel, .doublePress, at: now)
        case " ": .gesture(.startStop, .press, at: now)
        case "t": .gesture(.tap, .press, at: now)
        case "f": .gesture(.footswitch, .press, at: now)
        default: nil
        }
    }

    /// A flick: eight detents 12 ms apart, ending now, so the wheel accelerates.
    private func flick(_ key: String) {
        guard ["shift-right", "L", "shift-left", "H"].contains(key) else { return }
        let direction = (key == "shift-right" || key == "L") ? 1 : -1
        let now = SystemMonotonicClock().now()
        for i in 0..<8 { service.loop.post(Action.detent(direction, at: now.advanced(byNanoseconds: Int64(i - 7) * 12_000_000))) }
    }

    /// The panel, the LEDs with their labels, the status, the companion, the sound and the keys.
    private func picture(_ layout: TerminalPicture.Layout, columns: Int, status: String, companion: String?) -> String {
        let now = SystemMonotonicClock().now()
        let leds = [(IndicatorChannel.accentLED, "31"), (.beatLED, "32"), (.subdivisionLED, "33"), (.buzzer, "36")].map { indicator, colour in
            indicators.isOn(indicator, at: now) ? "\u{1B}[\(colour)m●\u{1B}[0m" : "\u{1B}[2m○\u{1B}[0m"
        }
        // Dimmed, the panel lowers its contrast: faint here, and undithered so it reads.
        let dimmed = screen.contrast < 0x10
        let frame = dimmed ? TerminalPicture.undithered(screen.latest) : screen.latest
        let (on, off) = dimmed ? ("\u{1B}[2m", "\u{1B}[0m") : ("", "")
        if case .tooSmall(let message) = layout { return message + "\u{1B}[K\n" }
        let rows = layout == .halfBlocks ? TerminalPicture.render(frame) : TerminalPicture.braille(frame)
        let width = rows.first?.count ?? 0
        var text = "┌" + String(repeating: "─", count: width) + "┐\n"
        for row in rows { text += "│" + on + row + off + "│\n" }
        text += "└" + String(repeating: "─", count: width) + "┘\n"
        let compact = layout == .braille
        // Short labels in a small terminal (80x24): unlabelled dots said nothing.
        text += " \(compact ? "acc " : "accent ")\(leds[0]) \(compact ? "beat " : " beat ")\(leds[1]) \(compact ? "sub " : " sub ")\(leds[2]) "
            + "\(compact ? "bz " : " buzzer ")\(leds[3])  \(status)\u{1B}[K\n"
        if let companion { text += " \(companion) (a new code: Menu > Settings > Companion)\u{1B}[K\n" }
        let help = compact ? InteractiveSimulation.shortHelp : InteractiveSimulation.help
        return text + " \(String(note.prefix(compact ? columns - 2 : note.count)))\u{1B}[K\n \(help)\u{1B}[K\n"
    }
}

/// A display that keeps the latest frame for the terminal to draw.
final class TerminalScreen: MonochromeDisplay, @unchecked Sendable {
    let width: Int
    let height: Int
    private let frame: Mutex<Bitmap>

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        frame = Mutex(Bitmap(width: width, height: height))
    }

    private let level = Mutex<UInt8>(0xCF)

    var latest: Bitmap { frame.withLock { $0 } }
    /// The panel's contrast as the box set it (low when dimmed).
    var contrast: UInt8 { level.withLock { $0 } }
    func initialize() {}
    func show(_ new: Bitmap) { frame.withLock { $0 = new } }
    func setContrast(_ new: UInt8) { level.withLock { $0 = new } }
    func setSleeping(_ sleeping: Bool) {}
}

/// The terminal in raw mode (no echo, no line buffering) for single key presses.
final class RawTerminal {
    private var saved = termios()

    init() {
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }

    func restore() {
        var original = saved
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
    }

    /// Drops whatever was typed and not read yet.
    func discardPendingInput() {
        tcflush(STDIN_FILENO, TCIFLUSH)
    }

    /// The terminal's size in characters (80 x 24 when it cannot be asked).
    static func size() -> (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Keys typed within the timeout, arrows decoded ("left", "shift-right", ...).
    func readKeys(timeoutMilliseconds: Int32) -> [String] {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &bytes, bytes.count)
        guard count > 0 else { return [] }
        let input = String(decoding: bytes[0..<count], as: UTF8.self)
        var keys: [String] = []
        var rest = Substring(input)
        let sequences = ["\u{1B}[1;2C": "shift-right", "\u{1B}[1;2D": "shift-left", "\u{1B}[C": "right", "\u{1B}[D": "left",
                         "\u{1B}[A": "up", "\u{1B}[B": "down", "\u{1B}OA": "up", "\u{1B}OB": "down",
                         "\u{1B}OC": "right", "\u{1B}OD": "left", "\r": "enter", "\n": "enter"]
        while let first = rest.first {
            if let (sequence, key) = sequences.first(where: { rest.hasPrefix($0.key) }) {
                keys.append(key)
                rest = rest.dropFirst(sequence.count)
            } else {
                keys.append(String(first))
                rest = rest.dropFirst()
            }
        }
        return keys
    }
}
