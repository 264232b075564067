// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// Plain-text PBM (P1): one character per pixel, so golden images diff line by line in git.
public enum PBM {
    /// "P1", the size, then one row per line with `1` for a lit pixel (PBM's "black").
    public static func encode(_ bitmap: Bitmap) -> String {
        var text = "P1\n\(bitmap.width) \(bitmap.height)\n"
        text.reserveCapacity(text.utf8.count + bitmap.height * (bitmap.width + 1))
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width { text.append(bitmap[x, y] ? "1" : "0") }
            text.append("\n")
        }
        return text
    }

    /// Reads P1 with any whitespace and `#` comments; nil when it is not a valid P1 image.
    public static func decode(_ text: String) -> Bitmap? {
        var tokens: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            tokens += content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        }
        guard tokens.count >= 3, tokens[0] == "P1", let width = Int(tokens[1]), let height = Int(tokens[2]),
              width > 0, height > 0 else { return nil }
        // P1 allows pixels with or without separating whitespace.
        let pixels = tokens.dropFirst(3).joined()
        guard pixels.count == width * height, pixels.allSatisfy({ $0 == "0" || $0 == "1" }) else { return nil }
        var bitmap = Bitmap(width: width, height: height)
        for (index, character) in pixels.enumerated() where character == "1" {
            bitmap[index % width, index / width] = true
        }
        return bitmap
    }
}

/// A minimal PNG writer for looking at frames: 8-bit greyscale, each pixel scaled to a
/// `scale` x `scale` block with a dark gap so it looks like the OLED's dot grid. The zlib
/// stream is either stored blocks (trivially checkable) or one fixed-Huffman block whose
/// matches only look one pixel left and one row up: scaled 1-bit art is almost all such
/// repeats, so that small encoder gets files about 50 times smaller.
public enum PNG {
    public static func encode(_ bitmap: Bitmap, scale: Int = 4, on: UInt8 = 0xFF, off: UInt8 = 0x00, gap: UInt8 = 0x18,
                              compressed: Bool = true) -> [UInt8] {
        let width = bitmap.width * scale, height = bitmap.height * scale
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (width + 1))
        for y in 0..<height {
            raw.append(0)  // filter type: none
            for x in 0..<width {
                let lit = bitmap[x / scale, y / scale]
                let edge = scale > 2 && (x % scale == scale - 1 || y % scale == scale - 1)
                raw.append(lit ? (edge ? gap : on) : off)
            }
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        header += [8, 0, 0, 0, 0]  // bit depth 8, greyscale, deflate, adaptive filter, no interlace
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += chunk("IHDR", header)
        file += chunk("IDAT", compressed ? zlibFixedHuffman(raw, rowLength: width + 1) : zlibStored(raw))
        file += chunk("IEND", [])
        return file
    }

    /// zlib header, stored deflate blocks of at most 65535 bytes, Adler-32 trailer (RFC 1950/1951).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(start + 65_535, data.count)
            let length = UInt16(end - start)
            out.append(end == data.count ? 1 : 0)  // BFINAL, BTYPE 00
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += data[start..<end]
            start = end
        } while start < data.count
        out += bigEndian(adler32(data))
        return out
    }

    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                      1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// Deflate bits go out least significant first; Huffman codes most significant first.
    struct BitWriter {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var count = 0
        mutating func bits(_ value: Int, _ n: Int) {
            for i in 0..<n {
                buffer |= UInt32((value >> i) & 1) << UInt32(count)
                count += 1
                if count == 8 { bytes.append(UInt8(buffer)); buffer = 0; count = 0 }
            }
        }
        mutating func code(_ value: Int, _ n: Int) {
            for i in stride(from: n - 1, through: 0, by: -1) { bits((value >> i) & 1, 1) }
        }
        mutating func flush() { if count > 0 { bytes.append(UInt8(buffer)); buffer = 0; count = 0 } }
    }

    /// RFC 1951 section 3.2.6 fixed codes.
    static func literal(_ symbol: Int, _ out: inout BitWriter) {
        switch symbol {
        case 0...143: out.code(0x30 + symbol, 8)
        case 144...255: out.code(0x190 + symbol - 144, 9)
        case 256...279: out.code(symbol - 256, 7)
        default: out.code(0xC0 + symbol - 280, 8)
        }
    }

    public static func zlibFixedHuffman(_ data: [UInt8], rowLength: Int) -> [UInt8] {
        var out = BitWriter()
        out.bits(1, 1)  // BFINAL
        out.bits(1, 2)  // BTYPE 01: fixed Huffman
        var i = 0
        while i < data.count {
            var bestLength = 0, bestDistance = 0
            for distance in [rowLength, 1] where distance <= i && distance <= 32_768 {
                var length = 0
                while length < 258 && i + length < data.count && data[i + length] == data[i + length - distance] { length += 1 }
                if length > bestLength { bestLength = length; bestDistance = distance }
            }
            if bestLength >= 3 {
                let l = lengthBase.lastIndex { $0 <= bestLength }!
                literal(257 + l, &out)
                out.bits(bestLength - lengthBase[l], lengthExtra[l])
                let d = distanceBase.lastIndex { $0 <= bestDistance }!
                out.code(d, 5)
                out.bits(bestDistance - distanceBase[d], distanceExtra[d])
                i += bestLength
            } else {
                literal(Int(data[i]), &out)
                i += 1
            }
        }
        literal(256, &out)
        out.flush()
        return [0x78, 0x01] + out.bytes + bigEndian(adler32(data))
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    public static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return (b << 16) | a
    }
}
