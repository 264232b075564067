// SPDX-License-Identifier: GPL-3.0-or-later
/// Audio read from a WAV file.
public struct DecodedAudio: Sendable, Equatable {
    public var sampleRate: Int
    /// 1 (mono) or 2 (stereo).
    public var channels: Int
    /// Interleaved samples in -1...1 (left, right, left, right ... for stereo).
    public var frames: [Float]

    public init(sampleRate: Int, channels: Int, frames: [Float]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frames = frames
    }

    public var frameCount: Int { channels > 0 ? frames.count / channels : 0 }
}

/// Why a WAV file could not be read. `description` names the problem in words a user can
/// act on; the caller prefixes the file's path.
public enum WAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer bytes than the 12-byte RIFF header.
    case tooShort(byteCount: Int)
    /// The first four bytes are not "RIFF".
    case notRIFF(magic: String)
    /// A RIFF file whose form type is not "WAVE" (an AVI, say).
    case notWAVE(formType: String)
    case missingFormatChunk
    /// The "fmt " chunk is shorter than its format needs (16 bytes, 40 for extensible).
    case formatChunkTooShort(size: Int, needed: Int)
    /// The "fmt " chunk declares more bytes than the file holds.
    case truncatedFormatChunk(declared: Int, available: Int)
    case missingDataChunk
    /// A format tag other than PCM, IEEE float or extensible (ADPCM, mu-law, MP3 ...).
    case unsupportedEncoding(formatTag: Int)
    /// WAVE_FORMAT_EXTENSIBLE with a subformat GUID other than PCM or IEEE float.
    case unsupportedSubformat(guid: String)
    case unsupportedSampleFormat(bitsPerSample: Int, isFloat: Bool)
    case unsupportedChannelCount(Int)
    case unsupportedSampleRate(Int)
    case blockAlignMismatch(declared: Int, channels: Int, bitsPerSample: Int)
    /// The data chunk declares more bytes than the file holds.
    case truncatedData(declared: Int, available: Int)
    /// A data chunk without a single whole frame.
    case noFrames

    public static let supportedSampleRates = 1000...384_000

    public var description: String {
        switch self {
        case .tooShort(let count):
            return "too short to be a WAV file (\(count) bytes; the RIFF header alone needs 12)"
        case .notRIFF(let magic):
            switch magic {
            case "RIFX": return "big-endian RIFX files are not supported (only little-endian RIFF/WAVE)"
            default: return "not a WAV file: expected \"RIFF\" at the start, found \(quoted(magic))"
            }
        case .notWAVE(let form):
            return "not a WAV file: the RIFF form type is \(quoted(form)), expected \"WAVE\""
        case .missingFormatChunk:
            return "no \"fmt \" chunk: the file does not say how its samples are stored"
        case .formatChunkTooShort(let size, let needed):
            return "\"fmt \" chunk too short: \(size) bytes, this format needs \(needed)"
        case .truncatedFormatChunk(let declared, let available):
            return "\"fmt \" chunk truncated: it declares \(declared) bytes but only \(available) remain"
        case .missingDataChunk:
            return "no \"data\" chunk: the file holds no audio"
        case .unsupportedEncoding(let tag):
            return "unsupported encoding: format tag \(hex(tag))\(encodingName(tag)) "
                + "(supported: PCM integer, IEEE float, or WAVE_FORMAT_EXTENSIBLE holding either)"
        case .unsupportedSubformat(let guid):
            return "unsupported WAVE_FORMAT_EXTENSIBLE subformat \(guid) (supported: PCM integer, IEEE float)"
        case .unsupportedSampleFormat(let bits, let isFloat):
            return "unsupported sample format: \(bits)-bit \(isFloat ? "float" : "integer") "
                + "(supported: 8/16/24/32-bit integer, 32/64-bit float)"
        case .unsupportedChannelCount(let count):
            return "unsupported channel count: \(count) (supported: 1 mono or 2 stereo)"
        case .unsupportedSampleRate(let rate):
            return "unsupported sample rate: \(rate) Hz (supported: "
                + "\(WAVError.supportedSampleRates.lowerBound)...\(WAVError.supportedSampleRates.upperBound) Hz)"
        case .blockAlignMismatch(let declared, let channels, let bits):
            return "inconsistent header: block align is \(declared) bytes but \(channels) channel(s) "
                + "of \(bits)-bit samples need \(channels * (bits / 8))"
        case .truncatedData(let declared, let available):
            return "data chunk truncated: it declares \(declared) bytes but only \(available) are present"
        case .noFrames:
            return "no audio: the data chunk holds zero frames"
        }
    }

    private func quoted(_ text: String) -> String { "\"" + text + "\"" }

    private func hex(_ value: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private func encodingName(_ tag: Int) -> String {
        switch tag {
        case 0x0002: return " (Microsoft ADPCM)"
        case 0x0006: return " (A-law)"
        case 0x0007: return " (mu-law)"
        case 0x0011: return " (IMA ADPCM)"
        case 0x0050: return " (MPEG)"
        case 0x0055: return " (MP3)"
        default: return ""
        }
    }
}

/// Reads RIFF/WAVE and RF64 (EBU Tech 3306: a ds64 chunk holds the 64-bit sizes) files: PCM 8-bit unsigned and 16/24/32-bit signed integer, IEEE float
/// 32/64-bit, and WAVE_FORMAT_EXTENSIBLE with a PCM or float subformat; mono or stereo.
///
/// Integers are scaled by 1 / (2^(bits-1) - 1), the same scale `WAVEncoder` uses, so an
/// encode/decode round trip is within half an LSB; the one code below negative full scale
/// (-32768 for 16 bits) is clamped to -1. Floats outside -1...1 are clamped and non-finite
/// floats become 0, so every decoded sample is a valid clip sample.
public enum WAVDecoder {
    /// Where a WAV's audio is, read from the start of the file only: a caller can check
    /// the length and read just the bytes it needs (a 1 GB file costs a header read).
    public struct Layout: Sendable, Equatable {
        public var sampleRate: Int
        public var channels: Int
        /// Bytes per frame.
        public var blockAlign: Int
        /// Offset of the audio and its declared size in bytes.
        public var dataStart: Int
        public var dataBytes: Int
        /// Bytes of the file `decode` needs: up to the end of the later of "fmt " and "data".
        public var bytesNeeded: Int
        public var frameCount: Int { dataBytes / blockAlign }
    }

    /// The layout from the first bytes of a file (`fileSize` is the whole file's size), or
    /// the error `decode` would give. `prefix` must hold both chunk headers; 64 KiB does
    /// for every ordinary file.
    public static func layout(_ prefix: [UInt8], fileSize: Int) throws(WAVError) -> Layout {
        let (format, data, formatEnd) = try walk(prefix, fileSize: fileSize)
        return Layout(sampleRate: format.sampleRate, channels: format.channels, blockAlign: format.blockAlign,
                      dataStart: data.start, dataBytes: data.declared,
                      bytesNeeded: max(formatEnd, min(fileSize, data.start + data.declared)))
    }

    /// Walks the chunks of `bytes` (the first bytes of a file of `fileSize` bytes).
    private static func walk(_ bytes: [UInt8], fileSize: Int) throws(WAVError)
        -> (Format, (start: Int, declared: Int), formatEnd: Int)
    {
        guard bytes.count >= 12 else { throw .tooShort(byteCount: bytes.count) }
        let magic = fourCC(bytes, at: 0)
        guard magic == "RIFF" || magic == "RF64" else { throw .notRIFF(magic: magic) }
        let form = fourCC(bytes, at: 8)
        guard form == "WAVE" else { throw .notWAVE(formType: form) }

        // Walk the chunks. The RIFF size field is ignored: writers often leave it wrong
        // (unpatched streams), and the chunk sizes are what actually locates the audio.
        var format: Format?
        var formatEnd = 0
        var data: (start: Int, declared: Int)?
        var offset = 12
        // RF64: the data size is in the ds64 chunk when the data chunk says 0xFFFFFFFF.
        var dataSize64: Int?
        while offset + 8 <= bytes.count {
            let id = fourCC(bytes, at: offset)
            var size = Int(le32(bytes, at: offset + 4))
            let body = offset + 8
            let available = fileSize - body
            if magic == "RF64" && id == "ds64" && size >= 24 && body + 16 <= bytes.count {
                dataSize64 = Int(truncatingIfNeeded: UInt64(le32(bytes, at: body + 8)) | UInt64(le32(bytes, at: body + 12)) << 32)
            }
            if id == "data" && size == 0xFFFF_FFFF, let dataSize64, dataSize64 >= 0 { size = dataSize64 }
            if id == "fmt " {
                guard size <= available else { throw .truncatedFormatChunk(declared: size, available: available) }
                guard body + size <= bytes.count else { break }  // beyond what was read
                if format == nil {
                    format = try parseFormat(bytes, at: body, size: size)
                    formatEnd = body + size
                }
            } else if id == "data" {
                if data == nil { data = (body, size) }
                if size > available { break }   // nothing can follow a truncated data chunk
            } else if size > available {
                break                           // a cut-off trailing chunk we would skip anyway
            }
            // Reading a prefix: stop once both are known (the rest was not read).
            if format != nil && data != nil && bytes.count < fileSize { break }
            // Chunks are word-aligned: an odd-sized chunk is followed by one pad byte.
            offset = body + size + (size & 1)
        }

        guard let format else { throw .missingFormatChunk }
        guard let data else { throw .missingDataChunk }
        return (format, data, formatEnd)
    }

    public static func decode(_ bytes: [UInt8]) throws(WAVError) -> DecodedAudio {
        let (format, data, _) = try walk(bytes, fileSize: bytes.count)
        let available = bytes.count - data.start
        guard data.declared <= available else {
            throw .truncatedData(declared: data.declared, available: available)
        }
        // A trailing partial frame (a few stray bytes) is ignored rather than rejected.
        let frameCount = data.declared / format.blockAlign
        guard frameCount > 0 else { throw .noFrames }
        let samples = convert(bytes, start: data.start, count: frameCount * format.channels, format: format)
        return DecodedAudio(sampleRate: format.sampleRate, channels: format.channels, frames: samples)
    }

    // MARK: - fmt chunk

    private enum Encoding { case integer, float }

    private struct Format {
        var encoding: Encoding
        var channels: Int
        var sampleRate: Int
        var bitsPerSample: Int
        var blockAlign: Int
    }

    private static let pcmTag = 0x0001
    private static let floatTag = 0x0003
    private static let extensibleTag = 0xFFFE
    /// KSDATAFORMAT_SUBTYPE_* GUIDs: the format tag in the first two bytes, then this tail.
    private static let subformatTail: [UInt8] =
        [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    private static func parseFormat(_ bytes: [UInt8], at start: Int, size: Int) throws(WAVError) -> Format {
        guard size >= 16 else { throw .formatChunkTooShort(size: size, needed: 16) }
        var tag = Int(le16(bytes, at: start))
        let channels = Int(le16(bytes, at: start + 2))
        let sampleRate = Int(le32(bytes, at: start + 4))
        let blockAlign = Int(le16(bytes, at: start + 12))
        let bits = Int(le16(bytes, at: start + 14))

        if tag == extensibleTag {
            guard size >= 40 else { throw .formatChunkTooShort(size: size, needed: 40) }
            // Valid bits (offset 18) may be fewer than the container's: such samples are
            // left-justified, so reading the whole container is still correct.
            let guid = Array(bytes[(start + 24)..<(start + 40)])
            guard Array(guid[2...]) == subformatTail else { throw .unsupportedSubformat(guid: guidString(guid)) }
            tag = Int(le16(guid, at: 0))
            guard tag == pcmTag || tag == floatTag else { throw .unsupportedSubformat(guid: guidString(guid)) }
        }
        guard tag == pcmTag || tag == floatTag else { throw .unsupportedEncoding(formatTag: tag) }
        guard channels == 1 || channels == 2 else { throw .unsupportedChannelCount(channels) }
        guard WAVError.supportedSampleRates.contains(sampleRate) else { throw .unsupportedSampleRate(sampleRate) }
        let encoding: Encoding = tag == floatTag ? .float : .integer
        let supportedBits = encoding == .float ? [32, 64] : [8, 16, 24, 32]
        guard supportedBits.contains(bits) else {
            throw .unsupportedSampleFormat(bitsPerSample: bits, isFloat: encoding == .float)
        }
        guard blockAlign == channels * bits / 8 else {
            throw .blockAlignMismatch(declared: blockAlign, channels: channels, bitsPerSample: bits)
        }
        return Format(encoding: encoding, channels: channels, sampleRate: sampleRate,
                      bitsPerSample: bits, blockAlign: blockAlign)
    }

    // MARK: - samples

    private static func convert(_ bytes: [UInt8], start: Int, count: Int, format: Format) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        bytes.withUnsafeBufferPointer { raw in
            out.withUnsafeMutableBufferPointer { dst in
                let src = raw.baseAddress! + start
                switch (format.encoding, format.bitsPerSample) {
                case (.integer, 8):
                    for i in 0..<count { dst[i] = scaled(Int32(src[i]) - 128, fullScale: 127) }
                case (.integer, 16):
                    for i in 0..<count {
                        let p = src + 2 * i
                        dst[i] = scaled(Int32(Int16(bitPattern: UInt16(p[0]) | UInt16(p[1]) << 8)), fullScale: 32767)
                    }
                case (.integer, 24):
                    for i in 0..<count {
                        let p = src + 3 * i
                        // Assemble in the top three bytes, then shift down to sign-extend.
                        let word = UInt32(p[0]) << 8 | UInt32(p[1]) << 16 | UInt32(p[2]) << 24
                        dst[i] = scaled(Int32(bitPattern: word) >> 8, fullScale: 8_388_607)
                    }
                case (.integer, _):   // 32
                    for i in 0..<count {
                        let value = Int32(bitPattern: le32(src + 4 * i))
                        dst[i] = Float(max(-1.0, Double(value) / 2_147_483_647.0))
                    }
                case (.float, 32):
                    for i in 0..<count { dst[i] = clean(Double(Float(bitPattern: le32(src + 4 * i)))) }
                case (.float, _):     // 64
                    for i in 0..<count {
                        let p = src + 8 * i
                        let bits = UInt64(le32(p)) | UInt64(le32(p + 4)) << 32
                        dst[i] = clean(Double(bitPattern: bits))
                    }
                }
            }
        }
        return out
    }

    @inline(__always)
    private static func scaled(_ value: Int32, fullScale: Float) -> Float {
        max(-1, Float(value) / fullScale)
    }

    @inline(__always)
    private static func clean(_ value: Double) -> Float {
        value.isFinite ? Float(min(1, max(-1, value))) : 0
    }

    // MARK: - little-endian helpers

    private static func le16(_ b: [UInt8], at i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }

    private static func le32(_ b: [UInt8], at i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    @inline(__always)
    private static func le32(_ p: UnsafePointer<UInt8>) -> UInt32 {
        UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
    }

    /// Four bytes as text for messages; bytes outside printable ASCII are shown as "?".
    private static func fourCC(_ b: [UInt8], at i: Int) -> String {
        String(decoding: b[i..<(i + 4)].map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    private static func guidString(_ g: [UInt8]) -> String {
        func hex(_ bytes: [UInt8]) -> String {
            bytes.map { let s = String($0, radix: 16, uppercase: true); return $0 < 16 ? "0" + s : s }.joined()
        }
        // GUID text form: the first three fields are little-endian.
        return hex([g[3], g[2], g[1], g[0]]) + "-" + hex([g[5], g[4]]) + "-" + hex([g[7], g[6]]) + "-"
            + hex(Array(g[8..<10])) + "-" + hex(Array(g[10..<16]))
    }
}
