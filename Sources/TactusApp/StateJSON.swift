// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
import TactusInstrument
import TactusArithmetic
import TactusWire

/// The box's state as JSON: the simulator's `state` events, the control socket's `state`
/// answers and the companion's `GET /api/state` are this one object, written by the one
/// writer (`JSONObject`) with the protocol's field names (`WireField`).
public enum StateJSON {
    /// An earned trainer's step (the simulator's `trainer` events, the practice log's sessions).
    public static func trainerStep(_ s: TrainerStep) -> JSONObject {
        JSONObject {
            $0.add(.direction, s.direction.rawValue)
            $0.add(.bar, s.bar)
            $0.add(.fromBar, s.fromBar)
            $0.add(.fromBPM, JSON.decimal(s.fromBPM, 3))
            $0.add(.toBPM, JSON.decimal(s.toBPM, 3))
            $0.add(.bars, s.bars)
            $0.add(.hits, s.hits)
            $0.add(.meanMs, JSON.decimal(s.meanMs, 3))
            $0.add(.sdMs, JSON.decimal(s.sdMs, 3))
        }
    }

    /// The members of the state object (without `t` and `type`).
    public static func fields(_ state: BoxState) -> JSONObject {
        let s = state.settings
        let view = state.screen
        var o = JSONObject()
        o.add(.bpm, JSONNumber(view.midiSync?.bpm ?? s.tempo.description))
        // Following a MIDI clock: its tempo (one decimal, averaged over 96 clocks) and lock.
        if let sync = view.midiSync {
            o.add(.sync, "midi")
            o.add(.lock, sync.lock.rawValue)
        }
        o.add(.meter, s.meter.description)
        o.add(.beatUnit, s.beatUnit.description)
        // The beats of a bar as the box counts them (6/8 in dotted quarters: 2): the pages
        // draw these, never the meter's numerator.
        o.add(.beatCount, s.beatCount)
        o.add(.accents, s.accents.description)
        o.add(.subdivisions, s.subdivisions.description)
        o.add(.swing, s.swing?.description)
        o.add(.groove, s.groove?.description)
        o.add(.poly, s.poly.description)
        o.add(.sound, s.sound)
        o.add(.volume, volumes(s))
        o.add(.playing, state.isPlaying)
        o.add(.mode, state.mode.rawValue)
        o.add(.field, state.field.name)
        o.add(.menu, view.menu.map { $0.items[min($0.selected, $0.items.count - 1)] })
        o.add(.editing, view.menu?.editing ?? false)
        o.add(.dimmed, view.dimmed)
        o.add(.notice, view.notice?.text)
        o.add(.song, view.song.map { JSON.song($0, earned: state.practice.earned) })
        o.add(.tone, state.soundingTone.map(JSON.tone))
        // Only while a song with a random mute is loaded (a new seed at each START).
        if state.practice.isLoaded && state.practice.usesRandomMute(state.saved) { o.add(.seed, state.practice.seed) }
        return o
    }

    static func volumes(_ s: MetronomeSettings) -> JSONObject {
        let v = s.volumes
        var o = JSONObject()
        o.add(.master, v.master)
        o.add(.accent, v.accent)
        o.add(.soft, v.soft)
        o.add(.beat, v.beat)
        for layer in s.subdivisions.layers { o.add("sub\(layer)", v.layer(layer)) }
        o.add(.poly, v.poly.map { Int($0) })
        return o
    }

    /// The whole object, `{...}`.
    public static func object(_ state: BoxState) -> JSONObject { fields(state) }
}

/// The values of the state object and the simulator's events (one spelling of each).
public enum JSON {
    /// A JSON string literal.
    public static func string(_ text: String) -> String { JSONValue.quoted(text) }
    /// `value` with `decimals` decimals, exactly as the fixed-decimal text gives it.
    public static func decimal(_ value: Double, _ decimals: Int) -> JSONNumber { JSONNumber(fixedDecimal(value, decimals: decimals)) }
    /// The sounding reference tone: note, A4, frequency (Hz, 4 decimals), timbre, volume.
    public static func tone(_ t: ReferenceTone) -> JSONObject {
        let tenThousandths = Int((t.frequency * 10_000).rounded())
        let fraction = String(tenThousandths % 10_000)
        let hz = "\(tenThousandths / 10_000).\(String(repeating: "0", count: 4 - fraction.count))\(fraction)"
        return JSONObject {
            $0.add(.note, t.noteName)
            $0.add(.a4, t.reference)
            $0.add(.hz, JSONNumber(hz))
            $0.add(.timbre, t.timbre.rawValue)
            $0.add(.volume, t.volume)
        }
    }
    /// The song page: name, section, bar of section ("3/8"), tempo, practice program, playing.
    /// With an earned trainer playing, its `trainer`: window, runs of bars in and out, steps made.
    public static func song(_ v: SongView, earned: EarnedTempo? = nil) -> JSONObject {
        var o = JSONObject()
        o.add(.name, v.name)
        o.add(.section, v.section)
        o.add(.bar, v.bar)
        o.add(.bpm, v.bpm)
        o.add(.program, v.program)
        o.add(.playing, v.playing)
        if let e = earned {
            o.add(.trainer, JSONObject {
                $0.add(.windowMs, e.trainer.windowMilliseconds)
                $0.add(.inBars, e.inBars)
                $0.add(.outBars, e.outBars)
                $0.add(.steps, e.steps.count)
            })
        }
        return o
    }
}
