// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusInstrument
extension ScreenRenderer {
    /// The song page: the song's name, its section and bar, the tempo as it ramps (large),
    /// and the field the wheel sets (trainer, gap, timer) with its value.
    static func drawSongPage(_ song: SongView?, field: Field, into bitmap: inout Bitmap) {
        guard let song else { return }
        let left = 26, width = 128 - 26
        _ = SmallFont.draw(SmallFont.fitting(song.name, maxWidth: width), at: Point(left, 10), into: &bitmap)
        let place = song.playing ? "\(song.section)  bar \(song.bar)" : "from \(song.section)"
        _ = SmallFont.draw(SmallFont.fitting(place, maxWidth: width), at: Point(left, 20), into: &bitmap)
        // The tempo as it ramps: whole BPM in segment digits, tenths small beside them.
        let parts = song.bpm.split(separator: ".", maxSplits: 1).map(String.init)
        let whole = Int(parts[0]) ?? 0
        let font = SegmentFont.medium
        let right = left + font.width(digits: parts[0].count)
        font.drawNumber(whole, rightEdge: right, y: 31, into: &bitmap)
        var x = right + 2
        if parts.count > 1 { x = SmallFont.draw(".\(parts[1])", at: Point(x, 45), into: &bitmap) + 2 }
        _ = SmallFont.draw("BPM", at: Point(x + 1, 45), into: &bitmap)
        let line: String = switch field {
        case .song, .songSection: song.program.isEmpty ? (song.playing ? "playing" : "START plays") : song.program
        case .trainerStep: "trainer \(song.fieldValue)"
        case .trainerBars: "every \(song.fieldValue)"
        case .trainerWindow: "earn \(song.fieldValue)"
        case .trainerDown: "down \(song.fieldValue)"
        case .gap: "gap \(song.fieldValue)"
        case .practiceTimer: "stop after \(song.fieldValue)"
        default: song.fieldValue
        }
        _ = SmallFont.draw(SmallFont.fitting(line, maxWidth: width), at: Point(left, 56), into: &bitmap)
        // The focused field is marked by a bar at the left of its line.
        let y = switch field {
        case .song: 10
        case .songSection: 20
        default: 56
        }
        bitmap.fill(Rect(x: left - 4, y: y, width: 2, height: SmallFont.height))
    }
}
