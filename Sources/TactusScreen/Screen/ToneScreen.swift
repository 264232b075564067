// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusInstrument
extension ScreenRenderer {
    /// Menu > Tone: the title band, the note in large letters, its frequency, then A4, the
    /// timbre and volume on the bottom line; the note is boxed (inverted) while it sounds.
    static func drawTone(_ view: ToneView, into bitmap: inout Bitmap) {
        let title = "Tone"
        SmallFont.draw(title, at: Point(123 - SmallFont.width(of: title), 1), into: &bitmap)
        bitmap.dottedHLine(127 - SmallFont.width(of: title) - 4, 127, 9)
        SmallFont.draw(view.on ? "ON" : "OFF", at: Point(2, 1), into: &bitmap)
        // The note, three times the small font.
        var note = Bitmap(width: 40, height: SmallFont.height)
        _ = SmallFont.draw(view.tone.noteName, at: Point(0, 0), into: &note)
        let width = SmallFont.width(of: view.tone.noteName)
        let big = note.scaled(by: 3)
        let left = 64 - 3 * width / 2
        let box = Rect(x: left - 4, y: 13, width: 3 * width + 7, height: 3 * SmallFont.height + 6)
        if view.on { bitmap.fill(box) }
        for y in 0..<(3 * SmallFont.height) {
            for x in 0..<(3 * width) where big[x, y] {
                bitmap[left + x, 16 + y] = !view.on
            }
        }
        SmallFont.draw(view.hertz, centeredAt: 64, y: 43, into: &bitmap)
        let bottom = "A4=\(view.tone.reference)  \(view.tone.timbre.rawValue)  \(view.tone.volume)%"
        SmallFont.draw(bottom, centeredAt: 64, y: 55, into: &bitmap)
    }
}
