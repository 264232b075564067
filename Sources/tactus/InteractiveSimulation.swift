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

    static func run(board: BoardDefinition, configuration: ConfigurationFile, saved: SavedState, problem: String?,
                    notice: String?, persistence: any SettingsPersistence, userSounds: [SoundSet], logger: Logger,
                    web: (listen: ListenAddress, practicePath: String?, soundsFolder: String?)? = nil,
                    control: String? = nil) async throws {
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            throw ExitError("the interactive simulator needs a terminal; use --headless --script FILE --out DIR")
        }
        let clock = SystemMonotonicClock()
        var device = ALSASink.Configuration(board.audio)
        device.realtimePriority = nil // a desktop session: no real-time scheduling needed
        device.lockMemory = false
        let format = AudioFormat(sampleRate: board.audio.sampleRate, channels: board.audio.channels,
                                 periodFrames: board.audio.periodFrames, bufferFrames: board.audio.periodFrames * board.audio.periodCount)
        let quietLog = HALLog { _, _ in }
        let audio = try AudioOutput(device: ALSASink(device, log: quietLog), silent: SilentClockSink(format: format))
        let screen = TerminalScreen(width: board.display?.width ?? 128, height: board.display?.height ?? 64)
        let indicators = SimulatedIndicators()
        var parts = BoxParts(board: board, configuration: configuration, audio: audio, input: ScriptedInput(), display: screen,
                             indicators: indicators, persistence: persistence, clock: clock, userSounds: userSounds,
                             link: AbletonLink(tempo: 120))
        // "no sound: ..." is one line under the screen; the panel is not covered for it.
        parts.soundNoticeOnScreen = false
        // The same service as `tactus run`: its start and stop order, its one control thread.
        let service = try BoxService(parts: parts, saved: saved, problem: problem, notice: notice, logger: logger)
        let loop = service.loop
        let group = ServiceGroup(services: [service], logger: logger)
        let serviceRun = Task { try await group.run() }
        while service.phase == .starting { try await Task.sleep(for: .milliseconds(5)) }
        if service.phase == .stopped { try await serviceRun.value } // a failed start throws here
        // The companion's line is printed before the screen takes the terminal (it stays in the scrollback).
        var companion: SimulatedCompanion?
        if let web {
            do {
                companion = try await SimulatedCompanion.start(post: { loop.post(work: $0) }, listen: web.listen,
                                                               practicePath: web.practicePath, soundsFolder: web.soundsFolder,
                                                               sampleRate: audio.format.sampleRate, control: control) { code in
                    await loop.perform { box in SimulatedCompanion.switchOn(box, code: code) }
                }
            } catch {
                await group.triggerGracefulShutdown()
                try? await serviceRun.value
                throw error
            }
        }
        defer { companion?.stop() }
        // Only the socket (for `tactus ctl`), without the companion.
        var link: ControlSocketLink?
        if web == nil, let control {
            do {
                link = try ControlSocketLink(path: control, loop: loop, files: LinuxControlFiles(practicePath: nil, soundsFolder: nil,
                                                                                                  sampleRate: audio.format.sampleRate),
                                             configuration: CompanionConfiguration(listen: configuration.webListen))
            } catch { throw ExitError("--control '\(control)': \(error)", code: 1) }
        }
        defer { link?.stop() }
        let note = audio.deviceProblem.map { "no sound: \($0.message) — running silent" } ?? "sound: \(board.audio.device), \(audio.format)"

        let terminal = RawTerminal()
        defer { terminal.restore() }
        // Keys typed while the box was starting (or while `make run` was still building) are
        // not meant for it: drop them.
        terminal.discardPendingInput()
        // Written at once (print would hold them until a newline): hide the cursor, clear the
        // screen and the scroll-back of build output.
        FileSystem.writeStandardOutput("\u{1B}[?25l\u{1B}[H\u{1B}[2J\u{1B}[3J")
        var running = true
        // SIGTERM or SIGHUP (a closed terminal) end it as q does, so the companion, its
        // control socket and its temporary folder are cleaned up, never left behind.
        interactiveStop.store(false, ordering: .relaxed)
        let stop: @convention(c) (Int32) -> Void = { _ in interactiveStop.store(true, ordering: .relaxed) }
        signal(SIGTERM, stop)
        signal(SIGHUP, stop)
        var lastDraw: String?
        var lastLayout: TerminalPicture.Layout?
        while running {
            if interactiveStop.load(ordering: .relaxed) { break }
            for key in terminal.readKeys(timeoutMilliseconds: 30) {
                let now = clock.now()
                switch key {
                case "q", "\u{3}": running = false
                case "right", "l": loop.post(Action.detent(1, at: now))
                case "left", "h": loop.post(Action.detent(-1, at: now))
                // The wheel held down and turned: the next or previous field of the mode.
                case "up", "k": loop.post(Action.pushedDetent(1, at: now))
                case "down", "j": loop.post(Action.pushedDetent(-1, at: now))
                case "shift-right", "L", "shift-left", "H":
                    // A flick: eight detents 12 ms apart, ending now, so the wheel accelerates.
                    let direction = (key == "shift-right" || key == "L") ? 1 : -1
                    for i in 0..<8 { loop.post(Action.detent(direction, at: now.advanced(byNanoseconds: Int64(i - 7) * 12_000_000))) }
                case "enter", "w": loop.post(Action.gesture(.wheel, .shortPress, at: now))
                case "m": loop.post(Action.gesture(.wheel, .longPress, at: now))
                case "b": loop.post(Action.gesture(.wheel, .doublePress, at: now))
                case " ": loop.post(Action.gesture(.startStop, .press, at: now))
                case "t": loop.post(Action.gesture(.tap, .press, at: now))
                case "f": loop.post(Action.gesture(.footswitch, .press, at: now))
                default: break
                }
            }
            let now = clock.now()
            let status = await loop.perform { box in
                let s = box.state.settings
                return "\(s.tempo) BPM  \(s.meter)  \(box.state.isPlaying ? "playing" : "stopped")  mode: \(box.state.mode.rawValue)"
            }
            let leds = [(IndicatorChannel.accentLED, "31"), (.beatLED, "32"), (.subdivisionLED, "33"), (.buzzer, "36")].map { indicator, colour in
                indicators.isOn(indicator, at: now) ? "\u{1B}[\(colour)m●\u{1B}[0m" : "\u{1B}[2m○\u{1B}[0m"
            }
            let size = RawTerminal.size()
            let layout = TerminalPicture.layout(columns: size.columns, rows: size.rows, width: screen.width, height: screen.height)
            var text = layout == lastLayout ? "\u{1B}[H" : "\u{1B}[H\u{1B}[2J"
            lastLayout = layout
            // Dimmed, the panel lowers its contrast: faint here, and undithered so it reads.
            let dimmed = screen.contrast < 0x10
            let frame = dimmed ? TerminalPicture.undithered(screen.latest) : screen.latest
            let (on, off) = dimmed ? ("\u{1B}[2m", "\u{1B}[0m") : ("", "")
            switch layout {
            case .tooSmall(let message):
                text += message + "\u{1B}[K\n"
            case .halfBlocks, .braille:
                let rows = layout == .halfBlocks ? TerminalPicture.render(frame) : TerminalPicture.braille(frame)
                let width = rows.first?.count ?? 0
                text += "┌" + String(repeating: "─", count: width) + "┐\n"
                for row in rows { text += "│" + on + row + off + "│\n" }
                text += "└" + String(repeating: "─", count: width) + "┘\n"
                let compact = layout == .braille
                // Short labels in a small terminal (80x24): unlabelled dots said nothing.
                text += " \(compact ? "acc " : "accent ")\(leds[0]) \(compact ? "beat " : " beat ")\(leds[1]) \(compact ? "sub " : " sub ")\(leds[2]) "
                    + "\(compact ? "bz " : " buzzer ")\(leds[3])  \(status)\u{1B}[K\n"
                if let companion { text += " \(companion.line) (a new code: Menu > Settings > Companion)\u{1B}[K\n" }
                text += " \(String(note.prefix(compact ? size.columns - 2 : note.count)))\u{1B}[K\n \(compact ? shortHelp : help)\u{1B}[K\n"
            }
            if text != lastDraw {
                FileSystem.writeStandardOutput(text)
                lastDraw = text
            }
        }
        await group.triggerGracefulShutdown()
        try await serviceRun.value
        print("\u{1B}[?25h")
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

/// Set by SIGTERM or SIGHUP during the interactive simulation (a signal handler may only store).
private let interactiveStop = Atomic<Bool>(false)
