// SPDX-License-Identifier: GPL-3.0-or-later
import TactusCore

/// The box's state as JSON: the simulator's `state` events, the control socket's `state`
/// answers and the companion's `GET /api/state` are this one object.
public enum StateJSON {
    /// The members of the state object (without braces, without `t` and `type`).
    public static func fields(_ state: BoxState) -> String {
        let s = state.settings
        let v = s.volumes
        let view = state.screen
        let selected = view.menu.map { JSON.string($0.items[min($0.selected, $0.items.count - 1)]) } ?? "null"
        let layers = s.subdivisions.layers.map { #","sub\#($0)":\#(v.layer($0))"# }.joined()
        return #""bpm":\#(s.tempo.description),"meter":"\#(s.meter)","beat_unit":"\#(s.beatUnit)","accents":"\#(s.accents)","subdivisions":"\#(s.subdivisions)","swing":\#(JSON.optional(s.swing)),"groove":\#(JSON.optional(s.groove)),"poly":"\#(s.poly)","sound":\#(JSON.string(s.sound)),"volume":{"master":\#(v.master),"accent":\#(v.accent),"soft":\#(v.soft),"beat":\#(v.beat)\#(layers),"poly":[\#(v.poly.map(String.init).joined(separator: ","))]},"playing":\#(state.isPlaying),"mode":"\#(state.mode.rawValue)","field":"\#(state.field.name)","menu":\#(selected),"editing":\#(view.menu?.editing ?? false),"dimmed":\#(view.dimmed),"notice":\#(view.notice.map { JSON.string($0.text) } ?? "null"),"song":\#(view.song.map(JSON.song) ?? "null"),"tone":\#(state.soundingTone.map(JSON.tone) ?? "null")\#(seed(state))"#
    }

    /// The whole object, `{...}`.
    public static func object(_ state: BoxState) -> String { "{" + fields(state) + "}" }

    /// `,"seed":N` while a song with a random mute is loaded (a new seed at each START).
    static func seed(_ state: BoxState) -> String {
        state.practice.isLoaded && state.practice.usesRandomMute(state.saved) ? ",\"seed\":\(state.practice.seed)" : ""
    }
}
