// SPDX-License-Identifier: GPL-3.0-or-later

/// Every member name of the control socket's requests, answers and live lines, and of the
/// companion's API bodies: one spelling each, with `_` (the files' TOML keys use `-`).
/// The pages get this list as share/web/protocol.js (generated; a test compares it).
public enum WireField: String, CaseIterable, Sendable, Hashable {
    // Requests and answers.
    case cmd, id, ok, status, error, field, line, etag, ifMatch = "if_match", retryAfter = "retry_after"
    case state, fields, playing, song, toml, map, name, set, file, path, bytes, complete
    case token, code, client, browser, browsers, on, listen
    case sounds, builtIn = "built_in", current, preferences, source, message, control
    case coach, input, calibrating, roundTripMs = "round_trip_ms", clickGainDb = "click_gain_db", last
    case minutes, sessions, kept, day, hits, meanMs = "mean_ms", sdMs = "sd_ms", within10ms = "within_10ms", within25ms = "within_25ms"
    // Live lines (`type` is a `WireEvent`).
    case type, ns, mono, from, beats, bar, beat, kind, muted
    // The state object.
    case bpm, sync, lock, meter, beatUnit = "beat_unit", beatCount = "beat_count", accents, subdivisions, swing, groove, poly, sound
    case volume, master, accent, soft
    case mode, menu, editing, dimmed, notice, tone, seed, companion
    case section, program, trainer, windowMs = "window_ms", inBars = "in_bars", outBars = "out_bars", steps
    case note, a4, hz, timbre
    // Trainer steps (the practice log, the simulator's events).
    case direction, fromBar = "from_bar", fromBPM = "from_bpm", toBPM = "to_bpm", bars
    // Preferences (Menu > Settings).
    case momentum, tapTolerance = "tap_tolerance", screenDimSeconds = "screen_dim_seconds", footswitch
    case silentPractice = "silent_practice", darkGap = "dark_gap", linkStartStopSync = "link_start_stop_sync"
    case toneNote = "tone_note", toneA4 = "tone_a4", toneTimbre = "tone_timbre", toneVolume = "tone_volume"
    case trainerStep = "trainer_step", trainerBars = "trainer_bars", trainerWindowMs = "trainer_window_ms", trainerDownBars = "trainer_down_bars"

    /// The name on the wire.
    public var name: String { rawValue }

    /// Older spellings clients still send (the settings file's `-`, as `tactus ctl set
    /// beat-unit=...` and scripts wrote them): read as the field, never written.
    public static let aliases: [String: WireField] = ["beat-unit": .beatUnit, "tap-tolerance": .tapTolerance]

    /// The field a client named, by its spelling or an older one.
    public init?(accepting name: String) {
        if let field = WireField(rawValue: name) { self = field } else if let field = WireField.aliases[name] { self = field } else { return nil }
    }

    /// `name` with an older spelling replaced by the field's own (other names as they are).
    public static func canonical(_ name: String) -> String { aliases[name]?.name ?? name }
}
