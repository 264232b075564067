/// A GPIO line as a board file names it: an offset on the chip or a line name, and
/// whether the signal is active-low (pressed = low, LED on = low).
public struct GPIOLineReference: Sendable, Hashable {
    public enum Selector: Sendable, Hashable {
        case offset(Int)
        case name(String)
    }

    public var selector: Selector
    public var activeLow: Bool

    public init(_ selector: Selector, activeLow: Bool) {
        self.selector = selector
        self.activeLow = activeLow
    }
}

public enum DisplayController: String, Sendable, Hashable, CaseIterable {
    case ssd1306, sh1106
}

public struct AudioOutputSettings: Sendable, Hashable {
    public static let rates = [8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000]
    public static let periodRange: ClosedRange<Int> = 16...8192
    public static let periodCountRange: ClosedRange<Int> = 2...16

    public var device = "default"
    public var rate = 48000
    public var periodFrames = 128
    public var periods = 3

    public init() {}
}

/// The wiring of one board (`boards/*.toml`), read-only.
///
/// ```toml
/// name = "Raspberry Pi 4B"
/// [gpio]
/// chip = "pinctrl-bcm2711"          # gpiochip label
/// [encoder]
/// a = 17                            # line offset, or a line name such as "GPIO17"
/// b = 27
/// switch = { line = 22, active-low = true }
/// steps-per-detent = 4              # 1, 2 or 4
/// reverse = false
/// [buttons]
/// active-low = true                 # default for the lines of this section
/// tap = 5
/// start = 6
/// footswitch = 13                   # optional
/// [leds]
/// accent = 16
/// beat = 20
/// subdivision = 21
/// [buzzer]
/// line = 12
/// [display]
/// bus = 1                           # /dev/i2c-1
/// address = 0x3C                    # 0x3C or 0x3D
/// controller = "sh1106"             # ssd1306 or sh1106
/// [audio]
/// device = "default"
/// rate = 48000
/// period = 128
/// periods = 3
/// ```
public struct BoardFile: Sendable, Hashable {
    public static let lineOffsetRange: ClosedRange<Int> = 0...1023

    public var name: String
    public var gpioChip: String
    public var encoderA: GPIOLineReference
    public var encoderB: GPIOLineReference
    public var encoderSwitch: GPIOLineReference
    public var stepsPerDetent: Int
    public var reverseEncoder: Bool
    public var tap: GPIOLineReference
    public var start: GPIOLineReference
    public var footswitch: GPIOLineReference?
    public var accentLED: GPIOLineReference?
    public var beatLED: GPIOLineReference?
    public var subdivisionLED: GPIOLineReference?
    public var buzzer: GPIOLineReference?
    public var i2cBus: Int
    public var displayAddress: Int
    public var displayController: DisplayController
    public var audio: AudioOutputSettings

    public static func parse(_ text: String, file: String) throws(TOMLError) -> BoardFile {
        let root = TOMLSection(try TOML.parse(text, file: file), file: file)
        try root.rejectUnknownKeys(allowed: ["name", "gpio", "encoder", "buttons", "leds", "buzzer", "display", "audio"])
        func section(_ key: String) throws(TOMLError) -> TOMLSection {
            try root.section(key) ?? TOMLSection(TOMLTable(), file: file, path: [key])
        }

        let gpio = try section("gpio")
        try gpio.rejectUnknownKeys(allowed: ["chip"])
        let chip = try gpio.required(try gpio.string("chip"), "chip",
                                     allowed: "the gpiochip label, e.g. \"pinctrl-bcm2711\" (see gpiodetect)")

        let encoder = try section("encoder")
        try encoder.rejectUnknownKeys(allowed: ["a", "b", "switch", "steps-per-detent", "reverse", "active-low"])
        let encoderLow = try encoder.bool("active-low") ?? false
        let steps = try encoder.integer("steps-per-detent", in: 1...4) ?? 4
        guard QuadratureDecoder.allowedStepsPerDetent.contains(steps) else {
            throw encoder.invalid("steps-per-detent", allowed: "allowed 1, 2 or 4")
        }

        let buttons = try section("buttons")
        try buttons.rejectUnknownKeys(allowed: ["tap", "start", "footswitch", "active-low"])
        let buttonsLow = try buttons.bool("active-low") ?? true

        let leds = try section("leds")
        try leds.rejectUnknownKeys(allowed: ["accent", "beat", "subdivision", "active-low"])
        let ledsLow = try leds.bool("active-low") ?? false

        let buzzerSection = try section("buzzer")
        try buzzerSection.rejectUnknownKeys(allowed: ["line", "active-low"])
        let buzzerLow = try buzzerSection.bool("active-low") ?? false

        let display = try section("display")
        try display.rejectUnknownKeys(allowed: ["bus", "address", "controller"])
        let controller = try display.string("controller", oneOf: DisplayController.allCases.map(\.rawValue)) ?? "ssd1306"
        let address = try display.integer("address", in: 0...0x7F) ?? 0x3C
        guard address == 0x3C || address == 0x3D else {
            throw display.invalid("address", allowed: "allowed 0x3C or 0x3D (60 or 61)")
        }

        return BoardFile(
            name: try root.string("name") ?? file,
            gpioChip: chip,
            encoderA: try encoder.required(try line(encoder, "a", defaultActiveLow: encoderLow), "a", allowed: lineHelp),
            encoderB: try encoder.required(try line(encoder, "b", defaultActiveLow: encoderLow), "b", allowed: lineHelp),
            encoderSwitch: try encoder.required(try line(encoder, "switch", defaultActiveLow: true), "switch", allowed: lineHelp),
            stepsPerDetent: steps,
            reverseEncoder: try encoder.bool("reverse") ?? false,
            tap: try buttons.required(try line(buttons, "tap", defaultActiveLow: buttonsLow), "tap", allowed: lineHelp),
            start: try buttons.required(try line(buttons, "start", defaultActiveLow: buttonsLow), "start", allowed: lineHelp),
            footswitch: try line(buttons, "footswitch", defaultActiveLow: buttonsLow),
            accentLED: try line(leds, "accent", defaultActiveLow: ledsLow),
            beatLED: try line(leds, "beat", defaultActiveLow: ledsLow),
            subdivisionLED: try line(leds, "subdivision", defaultActiveLow: ledsLow),
            buzzer: try line(buzzerSection, "line", defaultActiveLow: buzzerLow),
            i2cBus: try display.integer("bus", in: 0...255) ?? 1,
            displayAddress: address,
            displayController: DisplayController(rawValue: controller)!,
            audio: try audioSettings(try root.section("audio"), base: AudioOutputSettings()))
    }

    static let lineHelp = "a line offset 0 to 1023, a line name in quotes such as \"GPIO17\", or { line = 17, active-low = true }"

    /// `17`, `"GPIO17"` or `{ line = 17, active-low = true }`.
    static func line(_ section: TOMLSection, _ key: String, defaultActiveLow: Bool) throws(TOMLError) -> GPIOLineReference? {
        guard let value = section.table[key] else { return nil }
        var activeLow = defaultActiveLow
        var selectorValue = value
        if let table = value.table {
            let inner = TOMLSection(table, file: section.file, path: section.path + [key])
            try inner.rejectUnknownKeys(allowed: ["line", "active-low"])
            activeLow = try inner.bool("active-low") ?? defaultActiveLow
            guard let line = table["line"] else { throw section.invalid(key, allowed: "missing line; " + lineHelp) }
            selectorValue = line
        }
        switch selectorValue.content {
        case .integer(let i) where BoardFile.lineOffsetRange.contains(Int(clamping: i)):
            return GPIOLineReference(.offset(Int(i)), activeLow: activeLow)
        case .string(let name) where !name.isEmpty:
            return GPIOLineReference(.name(name), activeLow: activeLow)
        default:
            throw section.invalid(key, allowed: lineHelp)
        }
    }

    static func audioSettings(_ section: TOMLSection?, base: AudioOutputSettings) throws(TOMLError) -> AudioOutputSettings {
        guard let section else { return base }
        try section.rejectUnknownKeys(allowed: ["device", "rate", "period", "periods"])
        var audio = base
        if let device = try section.string("device") {
            guard !device.isEmpty else { throw section.invalid("device", allowed: "an ALSA device name such as \"default\" or \"hw:1,0\"") }
            audio.device = device
        }
        if let rate = try section.integer("rate", in: 1...1_000_000) {
            guard AudioOutputSettings.rates.contains(rate) else {
                throw section.invalid("rate", allowed: "allowed " + AudioOutputSettings.rates.map(String.init).joined(separator: ", "))
            }
            audio.rate = rate
        }
        if let period = try section.integer("period", in: AudioOutputSettings.periodRange) { audio.periodFrames = period }
        if let periods = try section.integer("periods", in: AudioOutputSettings.periodCountRange) { audio.periods = periods }
        return audio
    }
}

/// The service's configuration (`/etc/tactus/config.toml`), read-only. Everything is
/// optional; the board's audio settings can be overridden here.
///
/// ```toml
/// board = "/etc/tactus/boards/rpi4.toml"
/// settings-file = "/var/lib/tactus/settings.toml"
/// sounds-folder = "/var/lib/tactus/sounds"
/// [audio]                 # same keys as in the board file
/// device = "hw:1,0"
/// [controls]
/// debounce-ms = 8
/// long-press-ms = 600
/// double-press-ms = 300
/// ```
public struct ConfigurationFile: Sendable, Hashable {
    public var boardFile: String?
    public var settingsFile = "/var/lib/tactus/settings.toml"
    public var soundsFolder: String?
    /// Overrides applied on top of the board's audio settings.
    public var audioDevice: String?
    public var audioRate: Int?
    public var audioPeriodFrames: Int?
    public var audioPeriods: Int?
    public var buttonTiming = ButtonTiming()

    public init() {}

    public func audio(for board: BoardFile) -> AudioOutputSettings {
        var audio = board.audio
        if let audioDevice { audio.device = audioDevice }
        if let audioRate { audio.rate = audioRate }
        if let audioPeriodFrames { audio.periodFrames = audioPeriodFrames }
        if let audioPeriods { audio.periods = audioPeriods }
        return audio
    }

    public static func parse(_ text: String, file: String) throws(TOMLError) -> ConfigurationFile {
        let root = TOMLSection(try TOML.parse(text, file: file), file: file)
        try root.rejectUnknownKeys(allowed: ["board", "settings-file", "sounds-folder", "audio", "controls"])
        var config = ConfigurationFile()
        config.boardFile = try root.string("board")
        if let path = try root.string("settings-file") {
            guard path.hasPrefix("/"), !path.hasSuffix("/") else {
                throw root.invalid("settings-file", allowed: "an absolute path to a file, e.g. \"/var/lib/tactus/settings.toml\"")
            }
            config.settingsFile = path
        }
        config.soundsFolder = try root.string("sounds-folder")
        if let audioSection = try root.section("audio") {
            let sentinel = AudioOutputSettings()
            let audio = try BoardFile.audioSettings(audioSection, base: sentinel)
            if audioSection.has("device") { config.audioDevice = audio.device }
            if audioSection.has("rate") { config.audioRate = audio.rate }
            if audioSection.has("period") { config.audioPeriodFrames = audio.periodFrames }
            if audioSection.has("periods") { config.audioPeriods = audio.periods }
        }
        if let controls = try root.section("controls") {
            try controls.rejectUnknownKeys(allowed: ["debounce-ms", "long-press-ms", "double-press-ms"])
            if let v = try controls.integer("debounce-ms", in: 0...100) { config.buttonTiming.debounce = .milliseconds(v) }
            if let v = try controls.integer("long-press-ms", in: 200...5000) { config.buttonTiming.longPress = .milliseconds(v) }
            if let v = try controls.integer("double-press-ms", in: 100...1000) { config.buttonTiming.doublePressWindow = .milliseconds(v) }
        }
        return config
    }
}
