// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// The small text font: 5x7 pixel glyphs written out as rows in the source, so there are no
/// binary assets and anyone can read or edit a glyph. Letters and punctuation are
/// proportional (empty side columns trimmed); digits keep their full 5 columns so numbers
/// do not shift sideways as they change.
public enum SmallFont {
    public static let height = 7
    public static let spacing = 1
    public static let spaceWidth = 3

    struct Glyph: Sendable {
        let width: Int
        /// Bit x of row y is column x (after trimming).
        let rows: [UInt8]
    }

    private static let sources: [Character: String] = [
        "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
        "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.",
        "2": ".###. #...# ....# ...#. ..#.. .#... #####",
        "3": "##### ...#. ..#.. ...#. ....# #...# .###.",
        "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
        "5": "##### #.... ####. ....# ....# #...# .###.",
        "6": "..##. .#... #.... ####. #...# #...# .###.",
        "7": "##### ....# ...#. ..#.. .#... .#... .#...",
        "8": ".###. #...# #...# .###. #...# #...# .###.",
        "9": ".###. #...# #...# .#### ....# ...#. .##..",
        "A": ".###. #...# #...# ##### #...# #...# #...#",
        "B": "####. #...# #...# ####. #...# #...# ####.",
        "C": ".###. #...# #.... #.... #.... #...# .###.",
        "D": "###.. #..#. #...# #...# #...# #..#. ###..",
        "E": "##### #.... #.... ####. #.... #.... #####",
        "F": "##### #.... #.... ####. #.... #.... #....",
        "G": ".###. #...# #.... #.### #...# #...# .####",
        "H": "#...# #...# #...# ##### #...# #...# #...#",
        "I": "###.. .#... .#... .#... .#... .#... ###..",
        "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
        "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
        "L": "#.... #.... #.... #.... #.... #.... #####",
        "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
        "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
        "O": ".###. #...# #...# #...# #...# #...# .###.",
        "P": "####. #...# #...# ####. #.... #.... #....",
        "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
        "R": "####. #...# #...# ####. #.#.. #..#. #...#",
        "S": ".#### #.... #.... .###. ....# ....# ####.",
        "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
        "U": "#...# #...# #...# #...# #...# #...# .###.",
        "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
        "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
        "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
        "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
        "Z": "##### ....# ...#. ..#.. .#... #.... #####",
        "a": "..... ..... .###. ....# .#### #...# .####",
        "b": "#.... #.... #.##. ##..# #...# #...# ####.",
        "c": "..... ..... .###. #.... #.... #...# .###.",
        "d": "....# ....# .##.# #..## #...# #...# .####",
        "e": "..... ..... .###. #...# ##### #.... .###.",
        "f": "..##. .#..# .#... ###.. .#... .#... .#...",
        "g": "..... .#### #...# #...# .#### ....# .###.",
        "h": "#.... #.... #.##. ##..# #...# #...# #...#",
        "i": ".#... ..... ##... .#... .#... .#... ###..",
        "j": "...#. ..... ..##. ...#. ...#. #..#. .##..",
        "k": "#.... #.... #..#. #.#.. ##... #.#.. #..#.",
        "l": "##... .#... .#... .#... .#... .#... ###..",
        "m": "..... ..... ##.#. #.#.# #.#.# #...# #...#",
        "n": "..... ..... #.##. ##..# #...# #...# #...#",
        "o": "..... ..... .###. #...# #...# #...# .###.",
        "p": "..... ..... ####. #...# ####. #.... #....",
        "q": "..... ..... .##.# #..## .#### ....# ....#",
        "r": "..... ..... #.##. ##..# #.... #.... #....",
        "s": "..... ..... .###. #.... .###. ....# ####.",
        "t": ".#... .#... ###.. .#... .#... .#..# ..##.",
        "u": "..... ..... #...# #...# #...# #..## .##.#",
        "v": "..... ..... #...# #...# #...# .#.#. ..#..",
        "w": "..... ..... #...# #...# #.#.# #.#.# .#.#.",
        "x": "..... ..... #...# .#.#. ..#.. .#.#. #...#",
        "y": "..... ..... #...# #...# .#### ....# .###.",
        "z": "..... ..... ##### ...#. ..#.. .#... #####",
        ".": "..... ..... ..... ..... ..... ..... ..#..",
        ",": "..... ..... ..... ..... ..... ..#.. .#...",
        ":": "..... ..#.. ..#.. ..... ..#.. ..#.. .....",
        ";": "..... ..#.. ..#.. ..... ..#.. ..#.. .#...",
        "/": "....# ...#. ...#. ..#.. .#... .#... #....",
        "-": "..... ..... ..... .###. ..... ..... .....",
        "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
        "%": "##..# ##..# ...#. ..#.. .#... #..## #..##",
        "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.",
        ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
        "'": "..#.. ..#.. ..... ..... ..... ..... .....",
        "\"": ".#.#. .#.#. ..... ..... ..... ..... .....",
        "[": ".###. .#... .#... .#... .#... .#... .###.",
        "]": ".###. ...#. ...#. ...#. ...#. ...#. .###.",
        "@": ".###. #...# #.### #.#.# #.### #.... .###.",
        "#": ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.",
        "!": "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..",
        "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
        "=": "..... ..... ##### ..... ##### ..... .....",
        "<": "...#. ..#.. .#... #.... .#... ..#.. ...#.",
        ">": ".#... ..#.. ...#. ....# ...#. ..#.. .#...",
        "*": "..... ..#.. #.#.# .###. #.#.# ..#.. .....",
        "_": "..... ..... ..... ..... ..... ..... #####",
    ]

    static let glyphs: [Character: Glyph] = {
        var table: [Character: Glyph] = [:]
        for (character, source) in sources {
            let rowTexts = source.split(separator: " ").map { Array($0) }
            precondition(rowTexts.count == height && rowTexts.allSatisfy { $0.count == 5 }, "glyph \(character) is not 5x7")
            var first = 0, last = 4
            if !character.isNumber {
                let lit = (0..<5).filter { x in rowTexts.contains { $0[x] == "#" } }
                first = lit.first ?? 0
                last = lit.last ?? 0
            }
            let rows = rowTexts.map { row in
                (first...last).reduce(UInt8(0)) { bits, x in row[x] == "#" ? bits | (1 << UInt8(x - first)) : bits }
            }
            table[character] = Glyph(width: last - first + 1, rows: rows)
        }
        return table
    }()

    static func glyph(_ character: Character) -> Glyph? { glyphs[character] ?? glyphs["?"] }

    /// Width in pixels of `text` drawn with `draw`.
    public static func width(of text: String) -> Int {
        var total = 0
        for character in text {
            total += character == " " ? spaceWidth : (glyph(character)?.width ?? 0)
            total += spacing
        }
        return max(0, total - spacing)
    }

    /// Draws `text` with its top-left corner at `origin`; returns the x just after it.
    @discardableResult
    public static func draw(_ text: String, at origin: Point, into bitmap: inout Bitmap, _ mode: DrawMode = .set) -> Int {
        var x = origin.x
        for character in text {
            if character == " " { x += spaceWidth + spacing; continue }
            guard let glyph = glyph(character) else { continue }
            for (y, row) in glyph.rows.enumerated() {
                for column in 0..<glyph.width where row & (1 << UInt8(column)) != 0 {
                    bitmap.plot(x + column, origin.y + y, mode)
                }
            }
            x += glyph.width + spacing
        }
        return x - spacing
    }

    /// Draws `text` centred horizontally on `centerX`.
    public static func draw(_ text: String, centeredAt centerX: Int, y: Int, into bitmap: inout Bitmap, _ mode: DrawMode = .set) {
        draw(text, at: Point(centerX - width(of: text) / 2, y), into: &bitmap, mode)
    }

    /// Cuts `text` so it fits in `maxWidth` pixels, marking the cut with a trailing '.'.
    public static func fitting(_ text: String, maxWidth: Int) -> String {
        guard width(of: text) > maxWidth else { return text }
        var cut = text
        while !cut.isEmpty && width(of: cut + ".") > maxWidth { cut.removeLast() }
        return cut + "."
    }
}

/// The large digit font: seven-segment digits of any size, computed pixel by pixel. Each
/// segment is a hexagon (bevelled ends), so neighbouring segments meet along a one-pixel
/// diagonal gap: the look of a real display, crisp at every size, no glyph data at all.
public struct SegmentFont: Sendable, Hashable {
    public let digitWidth: Int
    public let digitHeight: Int
    /// Segment thickness; odd values centre best.
    public let thickness: Int
    public let spacing: Int

    public init(digitWidth: Int, digitHeight: Int, thickness: Int, spacing: Int) {
        self.digitWidth = digitWidth
        self.digitHeight = digitHeight
        self.thickness = thickness
        self.spacing = spacing
    }

    /// The BPM on the main screen.
    public static let large = SegmentFont(digitWidth: 17, digitHeight: 31, thickness: 5, spacing: 3)
    /// Meter and values on the mode screens.
    public static let medium = SegmentFont(digitWidth: 11, digitHeight: 21, thickness: 3, spacing: 3)
    /// Numbers beside icons.
    public static let small = SegmentFont(digitWidth: 7, digitHeight: 13, thickness: 3, spacing: 2)

    /// Segments a...g (top, top right, bottom right, bottom, bottom left, top left, middle).
    static let segmentsOfDigit: [UInt8] = [
        0b011_1111, 0b000_0110, 0b101_1011, 0b100_1111, 0b110_0110,
        0b110_1101, 0b111_1101, 0b000_0111, 0b111_1111, 0b110_1111,
    ]

    public func width(digits count: Int) -> Int { count <= 0 ? 0 : count * digitWidth + (count - 1) * spacing }

    /// Draws one digit 0...9 with its top-left corner at `origin`.
    public func drawDigit(_ digit: Int, at origin: Point, into bitmap: inout Bitmap) {
        guard (0...9).contains(digit) else { return }
        let segments = Self.segmentsOfDigit[digit]
        let half = thickness / 2
        let left = half, right = digitWidth - 1 - half
        let top = half, middle = digitHeight / 2, bottom = digitHeight - 1 - half
        for y in 0..<digitHeight {
            for x in 0..<digitWidth {
                if isLit(x, y, segments, half, left, right, top, middle, bottom) {
                    bitmap.plot(origin.x + x, origin.y + y)
                }
            }
        }
    }

    private func isLit(_ x: Int, _ y: Int, _ segments: UInt8, _ half: Int,
                       _ left: Int, _ right: Int, _ top: Int, _ middle: Int, _ bottom: Int) -> Bool {
        func horizontal(_ centerY: Int) -> Bool {
            let d = abs(y - centerY)
            return d <= half && x >= left + 1 + d && x <= right - 1 - d
        }
        func vertical(_ centerX: Int, _ from: Int, _ to: Int) -> Bool {
            let d = abs(x - centerX)
            return d <= half && y >= from + 1 + d && y <= to - 1 - d
        }
        func on(_ bit: Int) -> Bool { segments & (1 << UInt8(bit)) != 0 }
        return (on(0) && horizontal(top))
            || (on(1) && vertical(right, top, middle))
            || (on(2) && vertical(right, middle, bottom))
            || (on(3) && horizontal(bottom))
            || (on(4) && vertical(left, middle, bottom))
            || (on(5) && vertical(left, top, middle))
            || (on(6) && horizontal(middle))
    }

    /// Draws a non-negative number right-aligned so its last digit ends at `rightEdge`
    /// (exclusive); returns the x where it starts.
    @discardableResult
    public func drawNumber(_ value: Int, rightEdge: Int, y: Int, into bitmap: inout Bitmap) -> Int {
        let text = String(max(0, value))
        var x = rightEdge - width(digits: text.count)
        let start = x
        for character in text {
            drawDigit(character.wholeNumberValue ?? 0, at: Point(x, y), into: &bitmap)
            x += digitWidth + spacing
        }
        return start
    }

    /// Draws a number centred on `centerX`.
    public func drawNumber(_ value: Int, centeredAt centerX: Int, y: Int, into bitmap: inout Bitmap) {
        let count = String(max(0, value)).count
        drawNumber(value, rightEdge: centerX - width(digits: count) / 2 + width(digits: count), y: y, into: &bitmap)
    }
}
