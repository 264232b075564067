// SPDX-License-Identifier: GPL-3.0-or-later
import TactusWire
import TactusMusic
import TactusInstrument
import TOMLReader
import TactusArithmetic

/// The box's state as JSON: the simulator's `state` events, the control socket's `state`
/// answers and the companion's `GET /api/state` are this one object.
public enum StateJSON {
    /// An earned trainer's step (the simulator's `trainer` events), without braces.
    public static func trainerStep(_ s: TrainerStep) -> String {
        #""direction":"\#(s.direction.rawValue)","bar":\#(s.bar),"from_bar":\#(s.fromBar),"from_bpm":\#(fixedDecimal(s.fromBPM, decimals: 3)),"to_bpm":\#(fixedDecimal(s.toBPM, decimals: 3)),"#
            + #""bars":\#(s.bars),"hits":\#(s.hits),"mean_ms":\#(fixedDecimal(s.meanMs, decimals: 3)),"sd_ms":\#(fixedDecimal(s.sdMs, decimals: 3))"#
    }

    /// The members of the state object (without braces, without `t` and `type`).
    public static func fields(_ state: BoxState) -> String {
        let s = state.settings
        let v = s.volumes
        let view = state.screen
        let selected = view.menu.map { JSON.string($0.items[min($0.selected, $0.items.count - 1)]) } ?? "null"
        let layers = s.subdivisions.layers.map { #","sub\#($0)":\#(v.layer($0))"# }.joined()
        // Following a MIDI clock: its tempo (one decimal, averaged over 96 clocks) and lock.
        let sync = view.midiSync.map { #","sync":"midi","lock":"\#($0.lock.rawValue)""# } ?? ""
        return #""bpm":\#(view.midiSync?.bpm ?? s.tempo.description)\#(sync),"meter":"\#(s.meter)","beat_unit":"\#(s.beatUnit)","accents":"\#(s.accents)","subdivisions":"\#(s.subdivisions)","swing":\#(JSON.optional(s.swing)),"groove":\#(JSON.optional(s.groove)),"poly":"\#(s.poly)","sound":\#(JSON.string(s.sound)),"volume":{"master":\#(v.master),"accent":\#(v.accent),"soft":\#(v.soft),"beat":\#(v.beat)\#(layers),"poly":[\#(v.poly.map(String.init).joined(separator: ","))]},"playing":\#(state.isPlaying),"mode":"\#(state.mode.rawValue)","field":"\#(state.field.name)","menu":\#(selected),"editing":\#(view.menu?.editing ?? false),"dimmed":\#(view.dimmed),"notice":\#(view.notice.map { JSON.string($0.text) } ?? "null"),"song":\#(view.song.map { JSON.song($0, earned: state.practice.earned) } ?? "null"),"tone":\#(state.soundingTone.map(JSON.tone) ?? "null")\#(seed(state))"#
    }

    /// The whole object, `{...}`.
    public static func object(_ state: BoxState) -> String { "{" + fields(state) + "}" }

    /// `,"seed":N` while a song with a random mute is loaded (a new seed at each START).
    static func seed(_ state: BoxState) -> String {
        state.practice.isLoaded && state.practice.usesRandomMute(state.saved) ? ",\"seed\":\(state.practice.seed)" : ""
    }
}

/// JSON text for the state object and the simulator's events (one spelling of each value).
public enum JSON {
    /// A JSON string literal (TOML's basic strings escape the same way).
    public static func string(_ text: String) -> String { TOMLWriter.quoted(text) }
    /// The value's text as a JSON string, or null.
    public static func optional(_ value: (some CustomStringConvertible)?) -> String { value.map { string($0.description) } ?? "null" }
    /// The sounding reference tone: note, A4, frequency (Hz, 4 decimals), timbre, volume.
    public static func tone(_ t: ReferenceTone) -> String {
        let tenThousandths = Int((t.frequency * 10_000).rounded())
        let fraction = String(tenThousandths % 10_000)
        let hz = "\(tenThousandths / 10_000).\(String(repeating: "0", count: 4 - fraction.count))\(fraction)"
        return #"{"note":"\#(t.noteName)","a4":\#(t.reference),"hz":\#(hz),"timbre":"\#(t.timbre.rawValue)","volume":\#(t.volume)}"#
    }
    /// The song page: name, section, bar of section ("3/8"), tempo, practice program, playing.
    /// With an earned trainer playing, its `trainer`: window, runs of bars in and out, steps made.
    public static func song(_ v: SongView, earned: EarnedTempo? = nil) -> String {
        let trainer = earned.map { e in
            #","trainer":{"window_ms":\#(e.trainer.windowMilliseconds),"in_bars":\#(e.inBars),"out_bars":\#(e.outBars),"steps":\#(e.steps.count)}"#
        } ?? ""
        return #"{"name":\#(string(v.name)),"section":\#(string(v.section)),"bar":\#(string(v.bar)),"bpm":\#(string(v.bpm)),"program":\#(string(v.program)),"playing":\#(v.playing)\#(trainer)}"#
    }
}
