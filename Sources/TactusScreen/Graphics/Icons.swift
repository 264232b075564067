// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusMusic
/// Small pictures drawn in code: note values, a speaker, the wheel modes' symbols.
public enum Icons {
    /// A 7x7 symbol from rows of text.
    static func sprite(_ rows: String) -> Bitmap { Bitmap(rows: rows.split(separator: " ").map(String.init)) }

    public static let speaker = sprite("...#... ..##... ####.#. ####..# ####.#. ..##... ...#...")
    public static let tempo = sprite("...#... ...#... ..#.#.. ..##... .#.#... .#..#.. #######")
    public static let accent = sprite("##..... ..##... ....##. ......# ....##. ..##... ##.....")
    public static let meter = sprite("#####.. ...#... .###... ....... #.#.... #####.. ..#....")
    public static let note = sprite("...##.. ...#.#. ...#... ...#... .###... ####... .##....")
    public static let layers = sprite("#..#..# #..#..# #..#..# #..#..# #..#..# #..#..# #######")
    /// Song mode: a list of sections.
    public static let song = sprite("####... ....... ######. ....... #####.. ....... ###....")
    /// The Coach page: a needle over its scale.
    public static let coach = sprite("....... ...#... ...#... ..#.#.. ..#.#.. ....... #######")
    public static let volume = sprite("......# .....## ....### ...#### ..##### .###### #######")

    /// The largest power of two <= n (1...64): the written note value of 1/n.
    public static func baseNoteValue(division: Int) -> Int {
        var value = 1
        while value * 2 <= min(division, 64) { value *= 2 }
        return value
    }

    /// The tuplet number written over 1/n: its odd part (1/6 is a triplet quarter, 1/5 a
    /// quintuplet quarter), or nil for plain power-of-two values.
    public static func tupletNumber(division: Int) -> Int? {
        guard division > 0 else { return nil }
        var odd = division
        while odd % 2 == 0 { odd /= 2 }
        return odd == 1 ? nil : odd
    }

    private static let filledHead = ["..###", ".####", "#####", "####.", "###.."]
    private static let openHead = ["..###", ".#..#", "#...#", "#..#.", "###.."]

    /// Draws the note for a beat unit with its head's top-left corner at `head`; the stem
    /// rises `stem` pixels from the head's right side. Returns the rectangle it covers.
    @discardableResult
    /// `compact` keeps the stem as given and packs the flags closer (for a line of text).
    public static func drawNote(_ unit: BeatUnit, head: Point, stem: Int, compact: Bool = false, into bitmap: inout Bitmap) -> Rect {
        let value = baseNoteValue(division: unit.division)
        bitmap.blit(Bitmap(rows: value <= 2 ? openHead : filledHead), at: head)
        var top = head.y
        let stemX = head.x + 4
        var flags = 0
        var v = value
        while v > 4 { flags += 1; v /= 2 }
        if value >= 2 {
            // Room for every flag above the head.
            top = head.y + 2 - (compact ? stem : max(stem, 4 * flags + 4))
            bitmap.vline(stemX, top, head.y + 1)
        }
        // Flags: one for an eighth, two for a sixteenth ..., each a short stroke down-right.
        for flag in 0..<flags {
            let y = top + flag * (compact ? 2 : 4)
            bitmap.line(Point(stemX + 1, y), Point(stemX + 3, y + 2))
            bitmap.line(Point(stemX + 1, y + 1), Point(stemX + 3, y + 3))
        }
        if unit.dotted { bitmap.disc(center: Point(head.x + 8, head.y + 3), radius: 1) }
        return Rect(x: head.x, y: top, width: (unit.dotted ? 10 : 9), height: head.y + 5 - top)
    }
}
