// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import TactusWire

/// The box's configuration (`/etc/tactus/config.toml`), read-only. Every key is optional:
///
/// ```toml
/// board = "/usr/local/share/tactus/boards/pi4b.toml"   # or a board name such as "pi4b"
/// settings_file = "/var/lib/tactus/settings.toml"
/// sounds_folder = "/var/lib/tactus/sounds"             # folders of accent/beat/sub.wav
/// [audio]                 # overrides of the board file's [audio], same keys
/// device = "hw:1,0"
/// sample_rate = 48000
/// period_frames = 128
/// periods = 3
/// [controls]
/// debounce_ms = 8
/// long_press_ms = 600
/// double_press_ms = 300
/// [web]                   # the browser companion, when switched on at the box
/// listen = "0.0.0.0:8080" # or one interface's address
/// [coach]                 # listening to the player (README "Coach")
/// input = "hw:CARD=Device,0"   # an ALSA capture device (mono or its first channel)
/// grid = "1/16"           # default: the beat and the sounding subdivision layers
/// midi = true             # hits from MIDI note-ons (e-drums)
/// midi_offset_ms = 4      # how late note-ons arrive after the stroke
/// ```
/// Keys use the board files' spelling (underscores), so a value can move between them.
public struct ConfigurationFile: Sendable, Hashable {
    public var board: String?
    /// Where `board` was written (`config.toml:3`), for messages about it; not part of
    /// the configuration's value (two files with the same keys are the same configuration).
    public var boardSource: String? {
        get { source.board }
        set { source.board = newValue }
    }
    private var source = Source()
    public var settingsFile = "/var/lib/tactus/settings.toml"
    public var soundsFolder: String?
    /// Overrides applied on top of the board's audio settings.
    public var audioDevice: String?
    public var audioSampleRate: Int?
    public var audioPeriodFrames: Int?
    public var audioPeriods: Int?
    public var buttonTiming = ButtonTiming()
    /// `[midi]`: clock out ports, DIN, offset, clock while stopped, the control map.
    public var midi = MIDIConfiguration()
    /// Where the companion listens while it is switched on at the box (`[web] listen`).
    public var webListen = "0.0.0.0:8080"
    /// `[coach] input`: the ALSA capture device the coach listens on (nil: none).
    public var coachInput: String?
    /// `[coach] grid = "1/N"`: N (nil: the beat and the sounding subdivision layers).
    public var coachGrid: Int?
    /// `[coach] midi`: hits from MIDI note-ons.
    public var coachMIDI = false
    /// `[coach] midi_offset_ms`: taken off each note-on's arrival time.
    public var coachMIDIOffsetMilliseconds = 0

    public init() {}

    public static func parse(_ text: String, file: String) throws(TOMLError) -> ConfigurationFile {
        let root = TOMLSection(try TOML.parse(text, file: file), file: file)
        try root.rejectUnknownKeys(allowed: ["board", "settings_file", "sounds_folder", "audio", "controls", "midi", "web", "coach"])
        var config = ConfigurationFile()
        config.board = try root.string("board")
        if config.board != nil { config.boardSource = "\(file):\(root.table["board"]?.line ?? 0)" }
        if let path = try root.string("settings_file") {
            guard path.hasPrefix("/"), !path.hasSuffix("/") else {
                throw root.invalid("settings_file", allowed: "an absolute path to a file, e.g. \"/var/lib/tactus/settings.toml\"")
            }
            config.settingsFile = path
        }
        config.soundsFolder = try root.string("sounds_folder")
        if let audio = try root.section("audio") {
            try audio.rejectUnknownKeys(allowed: ["device", "sample_rate", "period_frames", "periods"])
            config.audioDevice = try audio.string("device")
            config.audioSampleRate = try audio.integer("sample_rate", in: 8000...192_000)
            config.audioPeriodFrames = try audio.integer("period_frames", in: 16...8192)
            config.audioPeriods = try audio.integer("periods", in: 2...16)
        }
        if let controls = try root.section("controls") {
            try controls.rejectUnknownKeys(allowed: ["debounce_ms", "long_press_ms", "double_press_ms"])
            if let v = try controls.integer("debounce_ms", in: 0...100) { config.buttonTiming.debounce = .milliseconds(v) }
            if let v = try controls.integer("long_press_ms", in: 200...5000) { config.buttonTiming.longPress = .milliseconds(v) }
            if let v = try controls.integer("double_press_ms", in: 100...1000) { config.buttonTiming.doublePressWindow = .milliseconds(v) }
        }
        if let section = try root.section("midi") { config.midi = try MIDIConfiguration.parse(section) }
        if let web = try root.section("web") {
            try web.rejectUnknownKeys(allowed: ["listen"])
            if let listen = try web.string("listen") {
                guard ListenAddress(listen) != nil else {
                    throw web.invalid("listen", allowed: "an IPv4 address and port such as \"0.0.0.0:8080\" or \"192.168.1.20:8080\" (port 1 to 65535)")
                }
                config.webListen = listen
            }
        }
        if let coach = try root.section("coach") {
            try coach.rejectUnknownKeys(allowed: ["input", "grid", "midi", "midi_offset_ms"])
            if let input = try coach.string("input") {
                guard !input.isEmpty else { throw coach.invalid("input", allowed: "an ALSA capture device such as \"hw:CARD=Device,0\"") }
                config.coachInput = input
            }
            if let grid = try coach.string("grid") {
                let parts = grid.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0] == "1", let n = Int(parts[1]), (1...99).contains(n) else {
                    throw coach.invalid("grid", allowed: "a note value 1/N, N 1 to 99 (e.g. \"1/8\", \"1/16\", \"1/12\")")
                }
                config.coachGrid = n
            }
            config.coachMIDI = try coach.bool("midi") ?? false
            config.coachMIDIOffsetMilliseconds = try coach.integer("midi_offset_ms", in: -100...500) ?? 0
        }
        return config
    }
}

/// Where values were written: carried along for messages, equal whatever it holds.
private struct Source: Sendable, Hashable {
    var board: String?
    static func == (a: Source, b: Source) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
