// SPDX-License-Identifier: GPL-3.0-or-later

/// A WAV file written while it is rendered, for `tactus render` and `tactus simulate` alike:
/// the header first (sizes not known yet), the samples in writes of 64 KiB or more (one write
/// per render block would be a system call every 128 frames), then the pad byte and the
/// header again with the real sizes (RF64 past 4 GiB). The file itself stays the caller's
/// (render's atomic replacement, simulate's new file), reached through `write` and `rewrite`.
public struct WAVStreamWriter<Failure: Error> {
    public let encoder: WAVEncoder
    private let write: ([UInt8]) throws(Failure) -> Void
    private let rewrite: (_ offset: Int64, [UInt8]) throws(Failure) -> Void
    private var pending: [UInt8] = []
    public private(set) var dataByteCount = 0
    public private(set) var frameCount: Int64 = 0

    public static var chunkBytes: Int { 1 << 16 }

    /// Writes the provisional header at once.
    public init(_ encoder: WAVEncoder,
                write: @escaping ([UInt8]) throws(Failure) -> Void,
                rewrite: @escaping (_ offset: Int64, [UInt8]) throws(Failure) -> Void) throws(Failure) {
        self.encoder = encoder
        self.write = write
        self.rewrite = rewrite
        pending.reserveCapacity(Self.chunkBytes + 8192)
        try write(encoder.header(dataByteCount: 0))
    }

    /// Encodes interleaved samples (whole frames) and writes when 64 KiB have gathered.
    public mutating func append(_ interleaved: UnsafeBufferPointer<Float>) throws(Failure) {
        let before = pending.count
        encoder.encode(interleaved, into: &pending)
        dataByteCount += pending.count - before
        frameCount += Int64(interleaved.count / encoder.channels)
        if pending.count >= Self.chunkBytes {
            try write(pending)
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Writes what is left, the pad byte and the final header. The caller then closes or
    /// commits the file.
    public mutating func finish() throws(Failure) {
        try write(pending + encoder.padding(dataByteCount: dataByteCount))
        pending.removeAll()
        try rewrite(0, encoder.header(dataByteCount: dataByteCount))
    }
}
