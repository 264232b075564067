// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusScreen
import TactusBase

@Suite struct BitmapTests {
    @Test func pixelsUseTheControllersPageLayout() {
        var bitmap = Bitmap()
        bitmap[0, 0] = true
        bitmap[5, 9] = true   // page 1, bit 1
        bitmap[127, 63] = true  // last page, bit 7
        #expect(bitmap.pageBytes[0] == 0x01)
        #expect(bitmap.pageBytes[128 + 5] == 0x02)
        #expect(bitmap.pageBytes[7 * 128 + 127] == 0x80)
        #expect(bitmap.litPixelCount == 3)
        bitmap[5, 9] = false
        #expect(bitmap.pageBytes[128 + 5] == 0)
        // Outside reads as off and writes are ignored.
        bitmap[-1, 0] = true
        bitmap[128, 0] = true
        bitmap[0, 64] = true
        #expect(!bitmap[-1, 0] && !bitmap[128, 0])
        #expect(bitmap.litPixelCount == 2)
    }

    @Test func linesIncludeBothEndsAndFollowBresenham() {
        var bitmap = Bitmap(width: 8, height: 4)
        bitmap.line(Point(0, 0), Point(7, 3))
        #expect(bitmap.rowStrings == [
            "##......",
            "..##....",
            "....##..",
            "......##",
        ])
        var reverse = Bitmap(width: 8, height: 4)
        reverse.line(Point(7, 3), Point(0, 0))
        #expect(reverse.litPixelCount == 8)
        var steep = Bitmap(width: 3, height: 5)
        steep.line(Point(0, 0), Point(2, 4))
        #expect(steep.rowStrings == ["#..", ".#.", ".#.", "..#", "..#"])
    }

    @Test func circlesAndDiscsAreSymmetric() {
        var ring = Bitmap(width: 7, height: 7)
        ring.circle(center: Point(3, 3), radius: 3)
        #expect(ring.rowStrings == [
            "..###..",
            ".#...#.",
            "#.....#",
            "#.....#",
            "#.....#",
            ".#...#.",
            "..###..",
        ])
        var disc = Bitmap(width: 5, height: 5)
        disc.disc(center: Point(2, 2), radius: 2)
        #expect(disc.rowStrings == [".###.", "#####", "#####", "#####", ".###."])
        var thick = Bitmap(width: 9, height: 9)
        thick.annulus(center: Point(4, 4), outer: 4, inner: 2)
        #expect(thick.rowStrings == [
            "..#####..",
            ".#######.",
            "###...###",
            "##.....##",
            "##.....##",
            "##.....##",
            "###...###",
            ".#######.",
            "..#####..",
        ])
    }

    @Test func fillsStrokesAndClip() {
        var bitmap = Bitmap(width: 6, height: 5)
        bitmap.strokeRect(Rect(x: 0, y: 0, width: 6, height: 5))
        #expect(bitmap.rowStrings == ["######", "#....#", "#....#", "#....#", "######"])
        bitmap.clip = Rect(x: 2, y: 1, width: 2, height: 2)
        bitmap.fill(Rect(x: 0, y: 0, width: 6, height: 5))
        #expect(bitmap.rowStrings == ["######", "#.##.#", "#.##.#", "#....#", "######"])
        bitmap.clip = bitmap.bounds
        bitmap.fill(Rect(x: 0, y: 0, width: 6, height: 1), .invert)
        #expect(bitmap.rowStrings[0] == "......")
    }

    @Test func blitOverlaysLitPixelsOnly() {
        var bitmap = Bitmap(rows: ["####", "####"])
        let sprite = Bitmap(rows: ["#.", ".#"])
        bitmap.blit(sprite, at: Point(1, 0), .clear)
        #expect(bitmap.rowStrings == ["#.##", "##.#"])
        bitmap.blit(sprite, at: Point(2, 1))  // partly outside: clipped
        #expect(bitmap.rowStrings == ["#.##", "####"])
        #expect(Bitmap(rows: ["#."]).scaled(by: 2).rowStrings == ["##..", "##.."])
    }

    @Test func pbmRoundTripsAndRejectsBadInput() {
        var bitmap = Bitmap(width: 3, height: 2)
        bitmap[0, 0] = true
        bitmap[2, 1] = true
        let text = PBM.encode(bitmap)
        #expect(text == "P1\n3 2\n100\n001\n")
        #expect(PBM.decode(text) == bitmap)
        #expect(PBM.decode("P1 # comment\n3 2\n1 0 0\n0 0 1\n") == bitmap)
        #expect(PBM.decode("P1\n3 2\n100\n00\n") == nil)
        #expect(PBM.decode("P4\n3 2\n100\n001\n") == nil)
    }

    @Test func pngHasValidChecksumsAndLayout() {
        // Reference values: CRC-32 of "IEND" and Adler-32 of "Wikipedia".
        #expect(PNG.crc32(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(PNG.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        var bitmap = Bitmap(width: 2, height: 1)
        bitmap[1, 0] = true
        let png = PNG.encode(bitmap, scale: 1, compressed: false)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // IHDR: 2 x 1, 8-bit greyscale.
        #expect(Array(png[8..<33]) == [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 2, 0, 0, 0, 1, 8, 0, 0, 0, 0]
            + bigEndian(PNG.crc32([0x49, 0x48, 0x44, 0x52, 0, 0, 0, 2, 0, 0, 0, 1, 8, 0, 0, 0, 0])))
        // IDAT holds zlib(header, one final stored block of the row "filter 0, off, on").
        let idat = Array(png[33...])
        #expect(Array(idat[4..<8]) == Array("IDAT".utf8))
        #expect(Array(idat[8..<13]) == [0x78, 0x01, 0x01, 3, 0])
        #expect(Array(idat[15..<18]) == [0, 0x00, 0xFF])
        #expect(Array(idat[18..<22]) == bigEndian(PNG.adler32([0, 0x00, 0xFF])))
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
    }

    private func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
}

@Suite struct FontTests {
    @Test func smallFontGlyphsAreTheWrittenRows() {
        var bitmap = Bitmap(width: 12, height: 7)
        let end = SmallFont.draw("A1", at: Point(0, 0), into: &bitmap)
        #expect(end == 11)
        #expect(bitmap.rowStrings == [
            ".###....#...",
            "#...#..##...",
            "#...#...#...",
            "#####...#...",
            "#...#...#...",
            "#...#...#...",
            "#...#..###..",
        ])
    }

    @Test func lettersAreProportionalAndDigitsFixed() {
        #expect(SmallFont.width(of: "1") == 5)
        #expect(SmallFont.width(of: "i") == 3)
        #expect(SmallFont.width(of: ".") == 1)
        #expect(SmallFont.width(of: "Allegro") == 5 + 1 + 3 + 1 + 3 + 1 + 5 + 1 + 5 + 1 + 5 + 1 + 5)
        #expect(SmallFont.width(of: "a b") == 5 + 1 + 3 + 1 + 5)
        #expect(SmallFont.fitting("Prestissimo", maxWidth: 30) == "Pres.")
        #expect(SmallFont.width(of: SmallFont.fitting("Prestissimo", maxWidth: 30)) <= 30)
    }

    @Test func segmentDigitsMeetAlongDiagonalGaps() {
        var bitmap = Bitmap(width: 7, height: 13)
        SegmentFont.small.drawDigit(8, at: Point(0, 0), into: &bitmap)
        #expect(bitmap.rowStrings == [
            "...#...",
            "..###..",
            ".#.#.#.",
            "###.###",
            "###.###",
            ".#.#.#.",
            "..###..",
            ".#.#.#.",
            "###.###",
            "###.###",
            ".#.#.#.",
            "..###..",
            "...#...",
        ])
        var one = Bitmap(width: 7, height: 13)
        SegmentFont.small.drawDigit(1, at: Point(0, 0), into: &one)
        #expect(one.rowStrings.allSatisfy { $0.prefix(4) == "...." })
    }

    @Test func numbersAlignRight() {
        var bitmap = Bitmap(width: 40, height: 13)
        let start = SegmentFont.small.drawNumber(42, rightEdge: 40, y: 0, into: &bitmap)
        #expect(start == 40 - (7 + 2 + 7))
        #expect(SegmentFont.large.width(digits: 3) == 57)
    }

    @Test func noteValuesAndTuplets() {
        #expect(Icons.baseNoteValue(division: 4) == 4)
        #expect(Icons.baseNoteValue(division: 6) == 4)
        #expect(Icons.baseNoteValue(division: 12) == 8)
        #expect(Icons.baseNoteValue(division: 99) == 64)
        #expect(Icons.tupletNumber(division: 8) == nil)
        #expect(Icons.tupletNumber(division: 6) == 3)
        #expect(Icons.tupletNumber(division: 5) == 5)
        #expect(Icons.tupletNumber(division: 96) == 3)
        #expect(Icons.tupletNumber(division: 99) == 99)
    }
}

@Suite struct PNGCompressionTests {
    @Test func fixedHuffmanStreamIsTheHandCheckedOne() {
        // "0 0 0 0 0 7": literal 0, a match of 4 at distance 1, literal 7, end of block
        // (checked with Python's zlib.decompress); first byte: BFINAL 1, BTYPE 01, then the
        // literal 0's code 00110000 sent most significant bit first.
        let stream = PNG.zlibFixedHuffman([0, 0, 0, 0, 0, 7], rowLength: 100)
        #expect(stream == [0x78, 0x01, 0x63, 0x00, 0x01, 0x76, 0x00] + [0x00, 0x0D, 0x00, 0x08])
    }

    @Test func compressedAndStoredPNGsCarryTheSamePixels() {
        var bitmap = Bitmap()
        bitmap.disc(center: Point(64, 32), radius: 20)
        let stored = PNG.encode(bitmap, compressed: false)
        let compressed = PNG.encode(bitmap)
        #expect(compressed.count * 15 < stored.count)
        // Same header chunk, and both zlib streams end with the Adler-32 of the same raw rows.
        #expect(Array(compressed.prefix(33)) == Array(stored.prefix(33)))
        let trailer = { (png: [UInt8]) in Array(png[(png.count - 12 - 8)..<(png.count - 12 - 4)]) }
        #expect(trailer(compressed) == trailer(stored))
    }
}
