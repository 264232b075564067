// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
@testable import ClickEngine
import TactusBase

/// Hand-built WAV bytes, so fixtures say exactly what is in the file.
enum WAVFixture {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

    /// A chunk with its id, declared size (defaults to the body's) and pad byte when odd.
    static func chunk(_ id: String, _ body: [UInt8], declaredSize: Int? = nil, pad: Bool = true) -> [UInt8] {
        Array(id.utf8) + le32(declaredSize ?? body.count) + body + (pad && body.count % 2 == 1 ? [0] : [])
    }

    static func fmt(tag: Int = 1, channels: Int, rate: Int, bits: Int, blockAlign: Int? = nil) -> [UInt8] {
        let align = blockAlign ?? channels * bits / 8
        return le16(tag) + le16(channels) + le32(rate) + le32(rate * align) + le16(align) + le16(bits)
    }

    static func extensibleFmt(subformat: Int, channels: Int, rate: Int, bits: Int, validBits: Int,
                              guidTail: [UInt8] = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]) -> [UInt8] {
        fmt(tag: 0xFFFE, channels: channels, rate: rate, bits: bits) + le16(22) + le16(validBits)
            + le32(channels == 2 ? 3 : 4) + le16(subformat) + guidTail
    }

    static func riff(_ chunks: [UInt8], form: String = "WAVE", magic: String = "RIFF") -> [UInt8] {
        Array(magic.utf8) + le32(4 + chunks.count) + Array(form.utf8) + chunks
    }

    static func wav(fmt: [UInt8], data: [UInt8]) -> [UInt8] {
        riff(chunk("fmt ", fmt) + chunk("data", data))
    }
}

@Suite("WAV")
struct WAVTests {
    /// A signal touching both full-scale ends, zero, tiny values, values that need clamping
    /// and values halfway between integer codes.
    static func testSignal(frames: Int, channels: Int) -> [Float] {
        var random = SystemRandomNumberGenerator()
        var signal: [Float] = [0, 1, -1, 0.5, -0.5, 1e-6, -1e-6, 1.5, -2, 0.25 / 32767, 0.5 / 32767, -0.5 / 32767]
        while signal.count < frames * channels { signal.append(Float.random(in: -1...1, using: &random)) }
        return Array(signal.prefix(frames * channels))
    }

    @Test("round trip: encode then decode", arguments: WAVSampleFormat.allCases, [1, 2])
    func roundTrip(format: WAVSampleFormat, channels: Int) throws {
        let signal = Self.testSignal(frames: 1001, channels: channels)   // odd: exercises s24 mono padding
        let encoder = WAVEncoder(sampleRate: 44100, channels: channels, format: format)
        let bytes = encoder.encodeFile(signal)
        #expect(bytes.count % 2 == 0, "RIFF files have an even length")
        let dataSize = signal.count * format.bytesPerSample
        #expect(bytes.count == encoder.headerByteCount + dataSize + dataSize % 2)
        let decoded = try WAVDecoder.decode(bytes)
        #expect(decoded.sampleRate == 44100)
        #expect(decoded.channels == channels)
        #expect(decoded.frameCount == 1001)
        let clamped = signal.map { min(1, max(-1, $0)) }
        switch format {
        case .f32:
            // Exact, except that the decoder clamps floats to -1...1.
            #expect(decoded.frames == clamped)
        case .s16, .s24:
            let lsb: Float = format == .s16 ? 1 / 32767 : 1 / 8_388_607
            let worst = zip(decoded.frames, clamped).map { abs($0 - $1) }.max()!
            // Same scale both ways: within half an LSB (plus float rounding).
            #expect(worst <= lsb * 0.5001, "worst error \(worst / lsb) LSB")
        }
    }

    @Test("integer encoding: clamp, scale by 2^(n-1)-1, round half away from zero")
    func integerEncodingRule() throws {
        let s16 = WAVEncoder(sampleRate: 8000, channels: 1, format: .s16)
        var bytes: [UInt8] = []
        // 0.5 * 32767 = 16383.5 is the only kind of exact tie a Float can produce here.
        let input: [Float] = [1, -1, 2, -3, 0.5, -0.5, 0.25, -0.25, 1e-5, .nan]
        input.withUnsafeBufferPointer { s16.encode($0, into: &bytes) }
        let values = stride(from: 0, to: bytes.count, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        #expect(values == [32767, -32767, 32767, -32767, 16384, -16384, 8192, -8192, 0, 0])

        let s24 = WAVEncoder(sampleRate: 8000, channels: 1, format: .s24)
        bytes = []
        [Float(1), -1, 0.5].withUnsafeBufferPointer { s24.encode($0, into: &bytes) }
        #expect(bytes == [0xFF, 0xFF, 0x7F, 0x01, 0x00, 0x80, 0x00, 0x00, 0x40])
    }

    @Test("s16: the vectorized loop gives the rule's bytes (clamp, x 32767 in Double, round half away from zero)")
    func s16VectorPathMatchesTheScalarRule() {
        let encoder = WAVEncoder(sampleRate: 48000, channels: 1, format: .s16)
        var random = SystemRandomNumberGenerator()
        var signal: [Float] = [0.5, -0.5, 1.5 / 32767, -1.5 / 32767, 2, -2, .nan, 1, -1, 0, -0.0, 0.25 / 32767]
        while signal.count < 4096 { signal.append(Float.random(in: -1.1...1.1, using: &random)) }
        for k in 0..<200 { signal[Int.random(in: 0..<4096, using: &random)] = Float(Int.random(in: -32767...32767, using: &random)) / 32767 + (k % 2 == 0 ? 0.5 : -0.5) / 32767 }
        var whole: [UInt8] = []
        signal.withUnsafeBufferPointer { encoder.encode($0, into: &whole) }
        // Every Float next to each half-LSB boundary of a stretch of codes, too.
        for code in -300...300 {
            let boundary = Float((Double(code) + 0.5) / 32767)
            signal += [boundary.nextDown, boundary, boundary.nextUp]
        }
        whole = []
        signal.withUnsafeBufferPointer { encoder.encode($0, into: &whole) }
        let reference = signal.map { x -> Int16 in
            x.isNaN ? 0 : Int16((min(1, max(-1, Double(x))) * 32767).rounded(.toNearestOrAwayFromZero))
        }
        let values = stride(from: 0, to: whole.count, by: 2).map { Int16(bitPattern: UInt16(whole[$0]) | UInt16(whole[$0 + 1]) << 8) }
        #expect(values == reference)
        var single: [UInt8] = []
        for x in signal { [x].withUnsafeBufferPointer { encoder.encode($0, into: &single) } }
        #expect(whole == single)
    }

    @Test("streaming: placeholder header patched at the end equals the one-shot file", arguments: WAVSampleFormat.allCases)
    func streamingPatch(format: WAVSampleFormat) throws {
        let encoder = WAVEncoder(sampleRate: 48000, channels: 1, format: format)
        let signal = Self.testSignal(frames: 777, channels: 1)
        var bytes = encoder.header(dataByteCount: 0)
        #expect(bytes.count == encoder.headerByteCount)
        var written = 0
        for start in stride(from: 0, to: signal.count, by: 128) {
            let block = Array(signal[start..<min(signal.count, start + 128)])
            block.withUnsafeBufferPointer { encoder.encode($0, into: &bytes) }
            written += block.count * format.bytesPerSample
        }
        bytes += encoder.padding(dataByteCount: written)
        bytes.replaceSubrange(0..<encoder.headerByteCount, with: encoder.header(dataByteCount: written))
        #expect(bytes == encoder.encodeFile(signal))
    }

    @Test("f32 header: JUNK placeholder, IEEE float tag, 18-byte fmt, fact chunk with the frame count")
    func floatHeaderLayout() {
        let h = WAVEncoder(sampleRate: 48000, channels: 2, format: .f32).header(dataByteCount: 800)
        #expect(h.count == 94)
        #expect(Array(h[0..<4]) == Array("RIFF".utf8))
        #expect(Array(h[12..<16]) == Array("JUNK".utf8))
        #expect(Array(h[16..<20]) == WAVFixture.le32(28))
        #expect(h[20..<48].allSatisfy { $0 == 0 })
        #expect(Array(h[48..<52]) == Array("fmt ".utf8))
        #expect(Array(h[52..<56]) == WAVFixture.le32(18))
        #expect(Array(h[56..<58]) == WAVFixture.le16(3))
        #expect(Array(h[74..<78]) == Array("fact".utf8))
        #expect(Array(h[82..<86]) == WAVFixture.le32(100))      // 800 bytes / 8 bytes per frame
        #expect(Array(h[86..<90]) == Array("data".utf8))
        #expect(Array(h[90..<94]) == WAVFixture.le32(800))
        #expect(Array(h[4..<8]) == WAVFixture.le32(94 - 8 + 800))
    }

    private static func le64(_ b: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * $1) }
    }

    @Test("past 4 GiB the header becomes RF64 in place: ds64 with 64-bit sizes, 0xFFFFFFFF in the 32-bit ones",
          arguments: WAVSampleFormat.allCases)
    func rf64Header(format: WAVSampleFormat) {
        // 24 h of stereo 48 kHz: 16.6 GB of s16.
        let encoder = WAVEncoder(sampleRate: 48000, channels: 2, format: format)
        let frames = 48000 * 86_400
        let data = frames * encoder.bytesPerFrame
        #expect(encoder.needsRF64(dataByteCount: data))
        let h = encoder.header(dataByteCount: data)
        #expect(h.count == encoder.headerByteCount)
        #expect(Array(h[0..<4]) == Array("RF64".utf8))
        #expect(Array(h[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Array(h[8..<12]) == Array("WAVE".utf8))
        #expect(Array(h[12..<16]) == Array("ds64".utf8))
        #expect(Array(h[16..<20]) == WAVFixture.le32(28))
        #expect(Self.le64(h, 20) == UInt64(encoder.headerByteCount - 8 + data))   // RIFF size
        #expect(Self.le64(h, 28) == UInt64(data))                                   // data size
        #expect(Self.le64(h, 36) == UInt64(frames))                                 // sample count
        #expect(Array(h[44..<48]) == [0, 0, 0, 0])                                  // table length
        #expect(Array(h[48..<52]) == Array("fmt ".utf8))
        #expect(Array(h[(h.count - 8)..<(h.count - 4)]) == Array("data".utf8))
        #expect(Array(h[(h.count - 4)...]) == [0xFF, 0xFF, 0xFF, 0xFF])
        // The largest plain RIFF and the smallest RF64.
        let limit = Int(UInt32.max) - (encoder.headerByteCount - 8)
        #expect(!encoder.needsRF64(dataByteCount: limit - limit % 2))
        #expect(encoder.needsRF64(dataByteCount: limit - limit % 2 + 2))
        #expect(Array(encoder.header(dataByteCount: limit - limit % 2)[0..<4]) == Array("RIFF".utf8))
    }

    @Test("RF64 files are read: the data size comes from ds64")
    func rf64Reads() throws {
        let encoder = WAVEncoder(sampleRate: 48000, channels: 1, format: .s16)
        let signal: [Float] = [0, 0.5, -0.5, 1]
        var bytes = encoder.encodeFile(signal)
        // The same file as RF64 (as sox writes it past 4 GiB): magic, ds64 and the 32-bit sizes.
        bytes.replaceSubrange(0..<4, with: Array("RF64".utf8))
        bytes.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0xFF])
        bytes.replaceSubrange(12..<16, with: Array("ds64".utf8))
        bytes.replaceSubrange(20..<28, with: WAVFixture.le32(bytes.count - 8) + [0, 0, 0, 0])
        bytes.replaceSubrange(28..<36, with: WAVFixture.le32(8) + [0, 0, 0, 0])
        bytes.replaceSubrange(76..<80, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let decoded = try WAVDecoder.decode(bytes)
        #expect(decoded.frameCount == 4)
        #expect(decoded.frames[1] == Float(16384) / 32767)
    }

    // MARK: - hand-built fixtures

    @Test("8-bit unsigned PCM")
    func eightBit() throws {
        let bytes = WAVFixture.wav(fmt: WAVFixture.fmt(channels: 1, rate: 8000, bits: 8), data: [0x80, 0xFF, 0x00, 0x01, 0xC0])
        let audio = try WAVDecoder.decode(bytes)
        #expect(audio.frames == [0, 1, -1, -1, Float(64) / 127])
        #expect(audio.sampleRate == 8000)
    }

    @Test("24-bit signed PCM, stereo")
    func twentyFourBit() throws {
        let data: [UInt8] = [0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x80,    // +full, -full-1
                             0x01, 0x00, 0x00, 0xFF, 0xFF, 0xFF]    // +1, -1
        let audio = try WAVDecoder.decode(WAVFixture.wav(fmt: WAVFixture.fmt(channels: 2, rate: 96000, bits: 24), data: data))
        #expect(audio.channels == 2)
        #expect(audio.frameCount == 2)
        #expect(audio.frames == [1, -1, 1 / Float(8_388_607), -1 / Float(8_388_607)])
    }

    @Test("32-bit signed PCM and 64-bit float")
    func thirtyTwoAndSixtyFour() throws {
        let ints = WAVFixture.le32(Int(Int32.max)) + WAVFixture.le32(Int(UInt32(bitPattern: Int32.min)))
            + WAVFixture.le32(1 << 30)
        let a = try WAVDecoder.decode(WAVFixture.wav(fmt: WAVFixture.fmt(channels: 1, rate: 44100, bits: 32), data: ints))
        #expect(a.frames == [1, -1, Float(Double(1 << 30) / 2_147_483_647)])

        let doubles = [0.25, -1.0, 3.0, .nan].flatMap { d in (0..<8).map { UInt8((d.bitPattern >> (8 * UInt64($0))) & 0xFF) } }
        let b = try WAVDecoder.decode(WAVFixture.wav(fmt: WAVFixture.fmt(tag: 3, channels: 2, rate: 44100, bits: 64), data: doubles))
        #expect(b.frames == [0.25, -1, 1, 0])   // out-of-range clamped, NaN -> 0
    }

    @Test("WAVE_FORMAT_EXTENSIBLE with PCM and float subformats")
    func extensible() throws {
        // 24-bit container holding 20 valid bits: samples are left-justified, read as 24-bit.
        let pcm = WAVFixture.extensibleFmt(subformat: 1, channels: 2, rate: 48000, bits: 24, validBits: 20)
        let a = try WAVDecoder.decode(WAVFixture.wav(fmt: pcm, data: [0x00, 0x00, 0x40, 0x00, 0x00, 0xC0]))
        #expect(a.frames == [Float(0x400000) / 8_388_607, -Float(0x400000) / 8_388_607])

        let float = WAVFixture.extensibleFmt(subformat: 3, channels: 1, rate: 48000, bits: 32, validBits: 32)
        let data = [Float(0.75), -0.125].flatMap { WAVFixture.le32(Int($0.bitPattern)) }
        let b = try WAVDecoder.decode(WAVFixture.wav(fmt: float, data: data))
        #expect(b.frames == [0.75, -0.125])
    }

    @Test("odd-sized unknown chunks are skipped with their pad byte, in any position")
    func oddChunkPadding() throws {
        // LIST with 3 bytes + pad before fmt, a 1-byte junk chunk + pad between fmt and data,
        // and a trailing odd chunk after the data.
        let bytes = WAVFixture.riff(
            WAVFixture.chunk("LIST", [0x49, 0x4E, 0x46])
                + WAVFixture.chunk("fmt ", WAVFixture.fmt(channels: 1, rate: 22050, bits: 16))
                + WAVFixture.chunk("junk", [0x64])
                + WAVFixture.chunk("data", WAVFixture.le16(16384) + WAVFixture.le16(0xC000))
                + WAVFixture.chunk("id3 ", [1, 2, 3, 4, 5]))
        let audio = try WAVDecoder.decode(bytes)
        #expect(audio.frames == [16384 / Float(32767), -16384 / Float(32767)])
        #expect(audio.sampleRate == 22050)

        // Without the pad byte the chunk walk lands one byte off and never finds "data":
        // proof that the pad is what the decoder honours.
        let unpadded = WAVFixture.riff(
            WAVFixture.chunk("fmt ", WAVFixture.fmt(channels: 1, rate: 22050, bits: 16))
                + WAVFixture.chunk("junk", [0x64], pad: false)
                + WAVFixture.chunk("data", WAVFixture.le16(1)))
        #expect(throws: WAVError.missingDataChunk) { try WAVDecoder.decode(unpadded) }
    }

    @Test("a trailing partial frame is ignored")
    func trailingPartialFrame() throws {
        let audio = try WAVDecoder.decode(WAVFixture.wav(fmt: WAVFixture.fmt(channels: 2, rate: 8000, bits: 16),
                                                         data: [0, 0x40, 0, 0xC0, 0xFF]))
        #expect(audio.frameCount == 1)
    }

    // MARK: - malformed input

    struct Malformed: CustomStringConvertible, Sendable {
        let description: String
        let bytes: [UInt8]
        let error: WAVError
        let message: String
    }

    static let malformed: [Malformed] = {
        let fmt16 = WAVFixture.fmt(channels: 1, rate: 44100, bits: 16)
        let good = WAVFixture.chunk("fmt ", fmt16)
        return [
            Malformed(description: "truncated header", bytes: Array("RIFF\u{24}\0\0\0".utf8),
                      error: .tooShort(byteCount: 8),
                      message: "too short to be a WAV file (8 bytes; the RIFF header alone needs 12)"),
            Malformed(description: "wrong magic", bytes: Array("OggS\0\0\0\0WAVEfmt ".utf8),
                      error: .notRIFF(magic: "OggS"),
                      message: "not a WAV file: expected \"RIFF\" at the start, found \"OggS\""),
            Malformed(description: "big-endian RIFX", bytes: WAVFixture.riff(good, magic: "RIFX"),
                      error: .notRIFF(magic: "RIFX"),
                      message: "big-endian RIFX files are not supported (only little-endian RIFF/WAVE)"),
            Malformed(description: "RIFF but AVI", bytes: WAVFixture.riff(good, form: "AVI "),
                      error: .notWAVE(formType: "AVI "),
                      message: "not a WAV file: the RIFF form type is \"AVI \", expected \"WAVE\""),
            Malformed(description: "missing data chunk", bytes: WAVFixture.riff(good + WAVFixture.chunk("LIST", [1, 2])),
                      error: .missingDataChunk, message: "no \"data\" chunk: the file holds no audio"),
            Malformed(description: "missing fmt chunk", bytes: WAVFixture.riff(WAVFixture.chunk("data", [0, 0])),
                      error: .missingFormatChunk,
                      message: "no \"fmt \" chunk: the file does not say how its samples are stored"),
            Malformed(description: "12-bit",
                      bytes: WAVFixture.wav(fmt: WAVFixture.fmt(channels: 1, rate: 44100, bits: 12, blockAlign: 2), data: [0, 0]),
                      error: .unsupportedSampleFormat(bitsPerSample: 12, isFloat: false),
                      message: "unsupported sample format: 12-bit integer (supported: 8/16/24/32-bit integer, 32/64-bit float)"),
            Malformed(description: "16-bit float",
                      bytes: WAVFixture.wav(fmt: WAVFixture.fmt(tag: 3, channels: 1, rate: 44100, bits: 16), data: [0, 0]),
                      error: .unsupportedSampleFormat(bitsPerSample: 16, isFloat: true),
                      message: "unsupported sample format: 16-bit float (supported: 8/16/24/32-bit integer, 32/64-bit float)"),
            Malformed(description: "3 channels",
                      bytes: WAVFixture.wav(fmt: WAVFixture.fmt(channels: 3, rate: 44100, bits: 16), data: [0, 0, 0, 0, 0, 0]),
                      error: .unsupportedChannelCount(3),
                      message: "unsupported channel count: 3 (supported: 1 mono or 2 stereo)"),
            Malformed(description: "data shorter than declared",
                      bytes: WAVFixture.riff(good + WAVFixture.chunk("data", [0, 0, 0, 0], declaredSize: 100)),
                      error: .truncatedData(declared: 100, available: 4),
                      message: "data chunk truncated: it declares 100 bytes but only 4 are present"),
            Malformed(description: "block align mismatch",
                      bytes: WAVFixture.wav(fmt: WAVFixture.fmt(channels: 2, rate: 44100, bits: 16, blockAlign: 2), data: [0, 0]),
                      error: .blockAlignMismatch(declared: 2, channels: 2, bitsPerSample: 16),
                      message: "inconsistent header: block align is 2 bytes but 2 channel(s) of 16-bit samples need 4"),
            Malformed(description: "zero frames", bytes: WAVFixture.wav(fmt: fmt16, data: [7]),
                      error: .noFrames, message: "no audio: the data chunk holds zero frames"),
            Malformed(description: "ADPCM",
                      bytes: WAVFixture.wav(fmt: WAVFixture.fmt(tag: 2, channels: 1, rate: 44100, bits: 4, blockAlign: 256), data: [0]),
                      error: .unsupportedEncoding(formatTag: 2),
                      message: "unsupported encoding: format tag 0x0002 (Microsoft ADPCM) "
                          + "(supported: PCM integer, IEEE float, or WAVE_FORMAT_EXTENSIBLE holding either)"),
            Malformed(description: "sample rate too low",
                      bytes: WAVFixture.wav(fmt: WAVFixture.fmt(channels: 1, rate: 500, bits: 16), data: [0, 0]),
                      error: .unsupportedSampleRate(500),
                      message: "unsupported sample rate: 500 Hz (supported: 1000...384000 Hz)"),
            Malformed(description: "fmt chunk too short", bytes: WAVFixture.riff(WAVFixture.chunk("fmt ", Array(fmt16.prefix(14)))),
                      error: .formatChunkTooShort(size: 14, needed: 16),
                      message: "\"fmt \" chunk too short: 14 bytes, this format needs 16"),
            Malformed(description: "fmt chunk cut off by the end of the file",
                      bytes: WAVFixture.riff(Array("fmt ".utf8) + WAVFixture.le32(16) + Array(fmt16.prefix(10))),
                      error: .truncatedFormatChunk(declared: 16, available: 10),
                      message: "\"fmt \" chunk truncated: it declares 16 bytes but only 10 remain"),
            Malformed(description: "extensible with an unknown subformat",
                      bytes: WAVFixture.wav(fmt: WAVFixture.extensibleFmt(subformat: 1, channels: 1, rate: 44100, bits: 16,
                                                                           validBits: 16, guidTail: Array(repeating: 0xAB, count: 14)),
                                            data: [0, 0]),
                      error: .unsupportedSubformat(guid: "ABAB0001-ABAB-ABAB-ABAB-ABABABABABAB"),
                      message: "unsupported WAVE_FORMAT_EXTENSIBLE subformat ABAB0001-ABAB-ABAB-ABAB-ABABABABABAB "
                          + "(supported: PCM integer, IEEE float)"),
        ]
    }()

    @Test("malformed files are rejected with the right message", arguments: malformed)
    func rejects(_ fixture: Malformed) {
        do {
            let audio = try WAVDecoder.decode(fixture.bytes)
            Issue.record("decoded \(audio.frameCount) frames from a bad file")
        } catch {
            #expect(error == fixture.error)
            #expect(error.description == fixture.message)
        }
    }

    @Test("every truncation of a valid file is rejected, none crashes")
    func everyTruncation() throws {
        let full = WAVEncoder(sampleRate: 44100, channels: 2, format: .s24).encodeFile(Self.testSignal(frames: 5, channels: 2))
        for length in 0..<full.count {
            #expect(throws: WAVError.self) { try WAVDecoder.decode(Array(full.prefix(length))) }
        }
    }

    // MARK: - interoperability with sox (skipped where sox is not installed)

    static let soxPath = ["/usr/bin/sox", "/usr/local/bin/sox", "/opt/homebrew/bin/sox"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments): \(text)"])
        }
        return text
    }

    @Test("sox reads our files and we read sox's (u8, s16, s24 extensible, s32, f32, f64)",
          .enabled(if: soxPath != nil, "sox is not installed"), arguments: WAVSampleFormat.allCases)
    func soxInterop(format: WAVSampleFormat) throws {
        let sox = Self.soxPath!
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-wav-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let signal = (0..<2000).map { Float(0.9 * sin(Double($0) * 0.05 + ($0 % 2 == 0 ? 0 : 1))) }
        let ours = directory.appendingPathComponent("ours.wav")
        try Data(WAVEncoder(sampleRate: 44100, channels: 2, format: format).encodeFile(signal)).write(to: ours)

        // sox understands our header: rate, channels, length, encoding.
        let info = try Self.run(sox, ["--info", ours.path])
        #expect(info.contains("Channels       : 2"))
        #expect(info.contains("Sample Rate    : 44100"))
        #expect(info.contains("1000 samples"))
        #expect(info.contains(format == .f32 ? "32-bit Floating Point PCM" : "\(format.bytesPerSample * 8)-bit Signed Integer PCM"))

        // And we understand sox's own writing in every format we support (-D: no dither).
        let variants: [(String, [String], Float)] = [
            ("u8", ["-e", "unsigned-integer", "-b", "8"], 1 / 127),
            ("s16", ["-e", "signed-integer", "-b", "16"], 1 / 32767),
            ("s24", ["-e", "signed-integer", "-b", "24"], 1 / 8_388_607),  // sox writes this as extensible
            ("s32", ["-e", "signed-integer", "-b", "32"], 1e-6),
            ("f32", ["-e", "floating-point", "-b", "32"], 1e-7),
            ("f64", ["-e", "floating-point", "-b", "64"], 1e-7),
        ]
        let reference = try WAVDecoder.decode(Array(Data(contentsOf: ours))).frames
        for (name, options, lsb) in variants {
            let theirs = directory.appendingPathComponent("\(name).wav")
            _ = try Self.run(sox, ["-D", ours.path] + options + [theirs.path])
            let decoded = try WAVDecoder.decode(Array(Data(contentsOf: theirs)))
            #expect(decoded.channels == 2 && decoded.sampleRate == 44100 && decoded.frameCount == 1000, "\(name)")
            let worst = zip(decoded.frames, reference).map { abs($0 - $1) }.max() ?? 1
            // sox scales by 2^(n-1) where we use 2^(n-1)-1: the scales differ by up to one
            // LSB at full scale, of the file's format and of ours, plus rounding.
            let ourLSB: Float = format == .s16 ? 1 / 32767 : format == .s24 ? 1 / 8_388_607 : 0
            #expect(worst <= 1.6 * lsb + 1.6 * ourLSB, "\(name): worst error \(worst)")
        }
    }

    // MARK: - RF64 past 4 GiB, on a real (sparse) file

    static let sndfileInfoPath = ["/usr/bin/sndfile-info", "/usr/local/bin/sndfile-info"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// A file as `tactus render` leaves it after 24 h: the header patched with the real data
    /// size, then the data, here a hole (sparse: no disk space) of exactly that many bytes.
    static func sparseFile(_ encoder: WAVEncoder, frames: Int) throws -> (path: String, dataBytes: Int) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-rf64-\(UUID().uuidString).wav").path
        let dataBytes = frames * encoder.bytesPerFrame
        let bytes = encoder.header(dataByteCount: dataBytes) + encoder.padding(dataByteCount: dataBytes)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)), truncate(path, off_t(encoder.headerByteCount + dataBytes + (dataBytes & 1))) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
        return (path, dataBytes)
    }

    /// The issue's case: a 24 h mono s16 render at 48 kHz (8.3 GB) read as 12 h 25 min in sox
    /// and libsndfile when its sizes were cut to 32 bits.
    @Test("a 24 h render (sparse file past 4 GiB) has the EBU Tech 3306 RF64 header and reads as 24 h",
          arguments: [(WAVSampleFormat.s16, 1), (.s24, 2), (.f32, 1)])
    func rf64SparseFile(format: WAVSampleFormat, channels: Int) throws {
        let encoder = WAVEncoder(sampleRate: 48000, channels: channels, format: format)
        let frames = 48000 * 86_400
        let (path, dataBytes) = try Self.sparseFile(encoder, frames: frames)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fileSize = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(fileSize == encoder.headerByteCount + dataBytes)
        #expect(fileSize > Int(UInt32.max))

        let handle = try #require(FileHandle(forReadingAtPath: path))
        let h = Array(try #require(try handle.read(upToCount: 4096)))
        try handle.close()
        // EBU Tech 3306, 3: "RF64", -1 as the RIFF size, "WAVE", then ds64 first.
        #expect(Array(h[0..<4]) == Array("RF64".utf8))
        #expect(Array(h[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Array(h[8..<12]) == Array("WAVE".utf8))
        #expect(Array(h[12..<16]) == Array("ds64".utf8))
        #expect(Array(h[16..<20]) == WAVFixture.le32(28))                        // ds64 size, no table
        #expect(Self.le64(h, 20) == UInt64(fileSize - 8))                         // riffSize (64-bit)
        #expect(Self.le64(h, 28) == UInt64(dataBytes))                            // dataSize (64-bit)
        #expect(Self.le64(h, 36) == UInt64(frames))                               // sampleCount
        #expect(Array(h[44..<48]) == [0, 0, 0, 0])                                // tableLength
        let dataAt = encoder.headerByteCount - 8
        #expect(Array(h[dataAt..<dataAt + 4]) == Array("data".utf8))
        #expect(Array(h[dataAt + 4..<dataAt + 8]) == [0xFF, 0xFF, 0xFF, 0xFF])    // data size in ds64
        if format == .f32 {
            #expect(Array(h[74..<78]) == Array("fact".utf8))
            #expect(Array(h[82..<86]) == [0xFF, 0xFF, 0xFF, 0xFF])                // frames in ds64
        }
        // Our own reader finds the whole 24 h from the header alone.
        let layout = try WAVDecoder.layout(h, fileSize: fileSize)
        #expect(layout.dataStart == encoder.headerByteCount)
        #expect(layout.dataBytes == dataBytes)
        #expect(layout.frameCount == frames)
        #expect(layout.channels == channels && layout.sampleRate == 48000)
    }

    // sox 14.4.2 reads the same header right (soxi: 24:00:00.00 = 4147200000 samples), but
    // then looks for chunks after the data at the data size cut to 32 bits and reads the rest
    // (over 4 GiB of silence here) 8 bytes at a time: 56 s for this file, so no test runs it.

    @Test("libsndfile reads the 24 h RF64 file as 24 h", .enabled(if: sndfileInfoPath != nil, "sndfile-programs is not installed"),
          arguments: [(WAVSampleFormat.s16, 1), (.f32, 2)])
    func rf64Libsndfile(format: WAVSampleFormat, channels: Int) throws {
        let (path, _) = try Self.sparseFile(WAVEncoder(sampleRate: 48000, channels: channels, format: format), frames: 48000 * 86_400)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let info = try Self.run(Self.sndfileInfoPath!, [path])
        #expect(info.contains("Frames      : 4147200000"))
        #expect(info.contains("Duration    : 24:00:00.000"))
        #expect(info.contains("Channels    : \(channels)"))
    }
}
