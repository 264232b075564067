// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import ClickEngine

@Suite struct WAVStreamWriterTests {
    /// Written in blocks (with odd sizes, crossing the 64 KiB chunk), the file is byte for byte
    /// the one-shot encoding, for every sample format.
    @Test(arguments: WAVSampleFormat.allCases)
    func streamedFileEqualsTheOneShotFile(format: WAVSampleFormat) throws {
        let samples: [Float] = (0..<(2 * 50_001)).map { (index: Int) -> Float in
            let step: Int = (index * 7919) % 2001 - 1000
            return Float(step) / 1000
        }
        let encoder = WAVEncoder(sampleRate: 48_000, channels: 2, format: format)
        final class File { var bytes: [UInt8] = []; var writes = 0 }
        let file = File()
        var writer = WAVStreamWriter<Never>(encoder, write: { file.bytes += $0; file.writes += 1 }, rewrite: { offset, header in
            file.bytes.replaceSubrange(Int(offset)..<Int(offset) + header.count, with: header)
        })
        var start = 0
        for size in [2, 254, 8_190, 40_000, 100_002].cycled(until: samples.count) where start < samples.count {
            let end = min(samples.count, start + size)
            samples[start..<end].withUnsafeBufferPointer { writer.append($0) }
            start = end
        }
        writer.finish()
        #expect(writer.frameCount == 50_001)
        #expect(file.bytes == encoder.encodeFile(samples))
        // Header, at least one 64 KiB chunk, the rest: never a write per block.
        #expect(file.writes < 2 + file.bytes.count / WAVStreamWriter<Never>.chunkBytes + 1)
    }
}

private extension Array where Element == Int {
    /// The sizes repeated until they cover `total`.
    func cycled(until total: Int) -> [Int] {
        var out: [Int] = []
        var sum = 0
        while sum < total { for size in self { out.append(size); sum += size } }
        return out
    }
}
