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

    /// 44 bytes for integer formats, 58 for float (longer fmt chunk plus the fact chunk).
    public var headerByteCount: Int { format == .f32 ? 58 : 44 }

    /// The largest data size a RIFF file can describe (its sizes are 32-bit), in whole
    /// frames. `header` clamps larger counts to this; a caller that wants a correct file
    /// stops writing here.
    public var maximumDataByteCount: Int {
        let limit = Int(UInt32.max) - (headerByteCount - 8) - 1   // minus the other chunks and a pad byte
        return limit - limit % bytesPerFrame
    }

    public func header(dataByteCount: Int) -> [UInt8] {
        let dataSize = min(max(0, dataByteCount), maximumDataByteCount)
        let pad = dataSize & 1
        var h: [UInt8] = []
        h.reserveCapacity(headerByteCount)
        h += Array("RIFF".utf8)
        append32(UInt32(headerByteCount - 8 + dataSize + pad), to: &h)
        h += Array("WAVE".utf8)
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
            append32(UInt32(dataSize / bytesPerFrame), to: &h)    // frames per channel
        }
        h += Array("data".utf8)
        append32(UInt32(dataSize), to: &h)
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
        bytes.append(contentsOf: repeatElement(0, count: samples.count * width))
        bytes.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress! + first
            switch format {
            case .s16:
                for (i, x) in samples.enumerated() {
                    out.storeBytes(of: Int16(quantize(x, fullScale: 32767)).littleEndian, toByteOffset: 2 * i, as: Int16.self)
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

    private func append32(_ v: UInt32, to b: inout [UInt8]) {
        b.append(UInt8(truncatingIfNeeded: v))
        b.append(UInt8(truncatingIfNeeded: v >> 8))
        b.append(UInt8(truncatingIfNeeded: v >> 16))
        b.append(UInt8(truncatingIfNeeded: v >> 24))
    }
}
