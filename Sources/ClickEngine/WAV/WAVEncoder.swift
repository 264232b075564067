// SPDX-License-Identifier: GPL-3.0-or-later
/// Sample formats `WAVEncoder` writes; the raw values are the `--format` spellings.
public enum WAVSampleFormat: String, Sendable, CaseIterable {
    case s16, s24, f32

    public var bytesPerSample: Int {
        switch self {
        case .s16: return 2
        case .s24: return 3
        case .f32: return 4
        }
    }
}

/// A streaming RIFF/WAVE writer: the caller writes `header(dataByteCount: 0)` as a
/// placeholder, appends `encode` output as it renders, then appends `padding` and
/// overwrites the first `headerByteCount` bytes with `header(dataByteCount:)` of the real
/// size. The header's length never depends on the size, so patching in place is safe.
///
/// Every header reserves room for RF64 (EBU Tech 3306) with a 36-byte JUNK chunk right
/// after "WAVE", the size of a ds64 chunk. A file whose RIFF size would not fit 32 bits
/// (more than 4 GiB: a 24 h stereo render) becomes RF64 in place: "RF64", the JUNK chunk
/// turned into ds64 with the 64-bit RIFF size, data size and frame count, and 0xFFFFFFFF
/// in the 32-bit RIFF, data (and fact) sizes, as sox and libsndfile read it. Smaller files
/// stay plain RIFF/WAVE, which every reader skips the JUNK chunk of.
///
/// s16/s24: WAVE_FORMAT_PCM with the classic 16-byte fmt chunk. f32: WAVE_FORMAT_IEEE_FLOAT
/// with an 18-byte fmt chunk and the fact chunk that format requires (read by sox, soxi and
/// libsndfile, and by `WAVDecoder`).
///
/// Integer conversion: clamp to -1...1, multiply by 2^(bits-1) - 1 (32767 / 8388607), round
/// to nearest (ties away from zero), no dither: the same input always gives the same bytes.
/// Floats are written as they are; NaN is written as 0 in every format.
public struct WAVEncoder: Sendable {
    public let sampleRate: Int
    public let channels: Int
    public let format: WAVSampleFormat

    public init(sampleRate: Int, channels: Int, format: WAVSampleFormat) {
        precondition(sampleRate > 0 && sampleRate <= Int(UInt32.max), "WAVEncoder: sample rate \(sampleRate) out of range")
        // Up to 8: a board may have that many outputs (the simulator writes what it plays).
        precondition((1...8).contains(channels), "WAVEncoder: \(channels) channels (1 to 8 supported)")
        self.sampleRate = sampleRate
        self.channels = channels
        self.format = format
    }

    public var bytesPerFrame: Int { channels * format.bytesPerSample }

    /// Bytes of the JUNK (later ds64) chunk: 8 of chunk header and 28 of body (RIFF size,
    /// data size and sample count, 64 bits each, and an empty table of other chunk sizes).
    public static let ds64ByteCount = 36

    /// 80 bytes for integer formats, 94 for float (longer fmt chunk plus the fact chunk).
    public var headerByteCount: Int { (format == .f32 ? 58 : 44) + WAVEncoder.ds64ByteCount }

    /// Whether a file with this much data must be RF64: its RIFF size does not fit 32 bits.
    public func needsRF64(dataByteCount: Int) -> Bool {
        headerByteCount - 8 + dataByteCount + (dataByteCount & 1) > Int(UInt32.max)
    }

    public func header(dataByteCount: Int) -> [UInt8] {
        let dataSize = max(0, dataByteCount)
        let pad = dataSize & 1
        let riffSize = headerByteCount - 8 + dataSize + pad
        let rf64 = needsRF64(dataByteCount: dataSize)
        let frames = dataSize / bytesPerFrame
        var h: [UInt8] = []
        h.reserveCapacity(headerByteCount)
        h += Array((rf64 ? "RF64" : "RIFF").utf8)
        append32(rf64 ? .max : UInt32(riffSize), to: &h)
        h += Array("WAVE".utf8)
        h += Array((rf64 ? "ds64" : "JUNK").utf8)
        append32(UInt32(WAVEncoder.ds64ByteCount - 8), to: &h)
        if rf64 {
            append64(UInt64(riffSize), to: &h)
            append64(UInt64(dataSize), to: &h)
            append64(UInt64(frames), to: &h)                      // sample count (frames, as fact)
            append32(0, to: &h)                                   // table length: no other chunk needs 64 bits
        } else {
            h += [UInt8](repeating: 0, count: WAVEncoder.ds64ByteCount - 8)
        }
        h += Array("fmt ".utf8)
        append32(format == .f32 ? 18 : 16, to: &h)
        append16(format == .f32 ? 3 : 1, to: &h)                 // IEEE float : PCM
        append16(UInt16(channels), to: &h)
        append32(UInt32(sampleRate), to: &h)
        append32(UInt32(truncatingIfNeeded: sampleRate * bytesPerFrame), to: &h)   // byte rate
        append16(UInt16(bytesPerFrame), to: &h)                   // block align
        append16(UInt16(format.bytesPerSample * 8), to: &h)
        if format == .f32 {
            append16(0, to: &h)                                   // cbSize: no extension
            h += Array("fact".utf8)
            append32(4, to: &h)
            append32(rf64 || frames > Int(UInt32.max) ? .max : UInt32(frames), to: &h)    // frames per channel
        }
        h += Array("data".utf8)
        append32(rf64 ? .max : UInt32(dataSize), to: &h)
        return h
    }

    /// What follows the data: one zero pad byte when its size is odd (RIFF chunks are
    /// word-aligned; s24 mono with an odd frame count is the only way to get there).
    public func padding(dataByteCount: Int) -> [UInt8] {
        dataByteCount & 1 == 1 ? [0] : []
    }

    /// Appends interleaved samples (`channels` per frame) in this encoder's format.
    public func encode(_ samples: UnsafeBufferPointer<Float>, into bytes: inout [UInt8]) {
        // Grow once per call (the array's own geometric growth keeps streaming linear),
        // then store through a raw pointer: this is the hot loop of `tactus render`.
        let first = bytes.count
        let width = format.bytesPerSample
        var growth = samples.count * width
        while growth > 0 { // memcpy from zeros: appending a repeated element goes byte by byte
            let chunk = min(growth, WAVEncoder.zeros.count)
            bytes.append(contentsOf: WAVEncoder.zeros[..<chunk])
            growth -= chunk
        }
        guard !samples.isEmpty else { return }
        bytes.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress! + first
            switch format {
            case .s16:
                // The same bytes as `quantize` (clamp, scale in Double, round half away from
                // zero, NaN to 0), in a form the compiler vectorizes: this loop is most of
                // `tactus render`'s CPU time. Adding 1.5 x 2^52 rounds to the nearest integer
                // (ties to even) into the low bits; ties to even and away from zero differ
                // only on a tie k + 0.5 with k even, and the only Float x in -1...1 whose
                // x * 32767 is a tie is +-0.5 (16383.5 -> 16384 both ways).
                // A click track is mostly silence: a run of zeros (either sign) is already
                // encoded, as the zero bytes the output grew by, so only the runs with sound
                // are converted (the same bytes, less than half the CPU of a render).
                let source = samples.baseAddress!
                let run = 64
                var start = 0
                while start < samples.count {
                    let end = Swift.min(start + run, samples.count)
                    var bits: UInt32 = 0
                    for i in start..<end { bits |= source[i].bitPattern & 0x7FFF_FFFF }
                    if bits != 0 {
                        for i in start..<end {
                            let x = source[i]
                            let scaled = Swift.min(Swift.max(x.isNaN ? 0 : Double(x), -1), 1) * 32767
                            let rounded = (scaled + 0x1.8p52).bitPattern
                            out.storeBytes(of: UInt16(truncatingIfNeeded: rounded).littleEndian, toByteOffset: 2 * i, as: UInt16.self)
                        }
                    }
                    start = end
                }
            case .s24:
                for (i, x) in samples.enumerated() {
                    let v = UInt32(bitPattern: quantize(x, fullScale: 8_388_607))
                    out.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: 3 * i, as: UInt8.self)
                    out.storeBytes(of: UInt8(truncatingIfNeeded: v >> 8), toByteOffset: 3 * i + 1, as: UInt8.self)
                    out.storeBytes(of: UInt8(truncatingIfNeeded: v >> 16), toByteOffset: 3 * i + 2, as: UInt8.self)
                }
            case .f32:
                for (i, x) in samples.enumerated() {
                    out.storeBytes(of: (x.isNaN ? 0 : x).bitPattern.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
                }
            }
        }
    }

    private static let zeros = [UInt8](repeating: 0, count: 4096)

    /// A whole file in one go (tests, short clips).
    public func encodeFile(_ samples: [Float]) -> [UInt8] {
        precondition(samples.count % channels == 0, "WAVEncoder: \(samples.count) samples is not whole frames")
        let dataSize = samples.count * format.bytesPerSample
        var bytes = header(dataByteCount: dataSize)
        samples.withUnsafeBufferPointer { encode($0, into: &bytes) }
        bytes += padding(dataByteCount: dataSize)
        return bytes
    }

    /// Clamp, scale, round half away from zero; computed in Double so 24-bit scaling is exact.
    @inline(__always)
    private func quantize(_ x: Float, fullScale: Double) -> Int32 {
        guard !x.isNaN else { return 0 }
        let scaled = min(1, max(-1, Double(x))) * fullScale
        // Round half away from zero by truncation: exact here, because a Float times a
        // 24-bit scale has far fewer than 53 significant bits (and much faster than round()).
        return Int32(scaled + (scaled < 0 ? -0.5 : 0.5))
    }

    private func append16(_ v: UInt16, to b: inout [UInt8]) {
        b.append(UInt8(truncatingIfNeeded: v))
        b.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    private func append64(_ v: UInt64, to b: inout [UInt8]) {
        append32(UInt32(truncatingIfNeeded: v), to: &b)
        append32(UInt32(truncatingIfNeeded: v >> 32), to: &b)
    }

    private func append32(_ v: UInt32, to b: inout [UInt8]) {
        b.append(UInt8(truncatingIfNeeded: v))
        b.append(UInt8(truncatingIfNeeded: v >> 8))
        b.append(UInt8(truncatingIfNeeded: v >> 16))
        b.append(UInt8(truncatingIfNeeded: v >> 24))
    }
}
