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
/// stream uses stored (uncompressed) deflate blocks, which every decoder accepts; the
/// files are small enough that compressing is not worth the code.
public enum PNG {
    public static func encode(_ bitmap: Bitmap, scale: Int = 4, on: UInt8 = 0xFF, off: UInt8 = 0x00, gap: UInt8 = 0x18) -> [UInt8] {
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
        file += chunk("IDAT", zlibStored(raw))
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
