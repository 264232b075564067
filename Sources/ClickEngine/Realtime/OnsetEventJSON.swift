// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusBase

/// The one writer of onset events: `tactus render --events` and `tactus simulate`'s
/// events.jsonl both write an onset's fields with this, so they cannot drift apart. Each
/// adds only its own time (`t`: the sample's time in render, when it is heard in simulate)
/// and simulate its `"type":"onset"`.
public enum OnsetEventJSON {
    /// `"sample":S,"kind":K,"layer":L,"bar":B,"beat":b`, then a poly onset's `n`, `span`,
    /// `index`; while a song plays (`schedule`) `section`, `label`, `song` and `song_name`
    /// (setlist playing on), `bpm` (3 decimals), `muted`, `seed` (with a random mute). A
    /// count-in click's kind is `count`.
    public static func fields(_ event: OnsetEvent, schedule: SongSchedule?) -> String {
        let kind = event.isCount ? "count" : event.kind.name
        var line = "\"sample\":\(event.sample),\"kind\":\"\(kind)\",\"layer\":\(event.layer),\"bar\":\(event.bar),\"beat\":\(event.beat)"
        if event.kind == .poly { line += event.polyJSONFields }
        guard let schedule else { return line + (event.muted ? ",\"muted\":true" : "") }
        let label = schedule.label(song: Int(event.song), section: Int(event.section))
        line += ",\"section\":\(event.section),\"label\":\(JSONString.quoted(label))"
        if schedule.songs.count > 1, schedule.songs.indices.contains(Int(event.song)) {
            line += ",\"song\":\(event.song),\"song_name\":\(JSONString.quoted(schedule.songs[Int(event.song)].name))"
        }
        line += ",\"bpm\":\(fixedDecimal(event.bpm, decimals: 3)),\"muted\":\(event.muted)"
        if schedule.songs.contains(where: \.usesRandomMute) { line += ",\"seed\":\(schedule.seed)" }
        return line
    }
}
