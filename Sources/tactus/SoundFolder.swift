// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import LinuxHAL

/// A user sound set on disk: a folder holding accent.wav, beat.wav and sub.wav (and, if
/// wanted, poly.wav for the poly layers). Read by
/// `render --sound DIR` and by the box for each folder under its sounds folder.
enum SoundFolder {
    /// The most a clip file may make us read: 2 s at 384 kHz, stereo, 64-bit float,
    /// plus 1 MiB of other chunks (about 13 MB; a Pi has 512 MB).
    static let maximumReadBytes = Clip.maximumSeconds * 384_000 * 2 * 8 + (1 << 20)

    /// Every file a sound folder may be read from (poly.wav only when present): outputs
    /// are refused when they are one of these.
    static let fileNames = ["accent.wav", "beat.wav", "sub.wav", "poly.wav"]

    /// Loads and resamples the three clips; an error names the file and the problem.
    static func load(_ folder: String, name: String, sampleRate: Int) throws(ExitError) -> SoundSet {
        let (accent, beat, subdivision) = (try bytes(folder, "accent.wav", .accent, sampleRate),
                                           try bytes(folder, "beat.wav", .beat, sampleRate),
                                           try bytes(folder, "sub.wav", .subdivision, sampleRate))
        // poly.wav is optional: without it the poly layers play sub.wav.
        let polyPath = (folder.hasSuffix("/") ? folder : folder + "/") + "poly.wav"
        let poly = AtomicFile.exists(polyPath) ? try bytes(folder, "poly.wav", .poly, sampleRate) : nil
        do {
            return try UserSoundSet.make(name: name, accent: accent, beat: beat, subdivision: subdivision, poly: poly,
                                         sampleRate: sampleRate)
        } catch {
            throw ExitError(error.description)
        }
    }

    /// The header first: a clip longer than the limit is refused from its header, and
    /// never more than its header's chunks are read.
    static func bytes(_ folder: String, _ file: String, _ kind: SoundLoadError.File, _ sampleRate: Int) throws(ExitError) -> [UInt8] {
        let path = (folder.hasSuffix("/") ? folder : folder + "/") + file
        var refusal: SoundLoadError?
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, limit: maximumReadBytes, refuseLargerFiles: false) { prefix, fileSize in
                // A bad header: read no more; decoding the prefix gives the message.
                let layout: WAVDecoder.Layout
                do throws(WAVError) { layout = try WAVDecoder.layout(prefix, fileSize: fileSize) } catch {
                    // Chunks beyond the first 64 KiB (a long LIST chunk): read up to the limit.
                    if fileSize > prefix.count && (error == .missingDataChunk || error == .missingFormatChunk) { return fileSize }
                    return prefix.count
                }
                let frames = Resampler.outputCount(inputCount: layout.frameCount, from: layout.sampleRate, to: sampleRate)
                guard frames <= Clip.maximumSeconds * sampleRate else {
                    refusal = SoundLoadError(file: kind, problem: .tooLong(frames: frames, sampleRate: sampleRate))
                    return prefix.count
                }
                return layout.bytesNeeded
            }
        } catch {
            throw ExitError("\(file) cannot be read (\(error)); a sound folder holds accent.wav, beat.wav and sub.wav")
        }
        if let refusal { throw ExitError(refusal.description) }
        return bytes
    }
}
