// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Glibc
import LinuxHAL
import TactusMusic

/// A user sound set on disk: a folder holding accent.wav, beat.wav and sub.wav (and, if
/// wanted, poly.wav for the poly layers; a voice set adds voice.toml and its words). Read by
/// `render --sound DIR` and by the box for each folder under its sounds folder.
enum SoundFolder {
    /// Where `make voices` output is looked up by name (`--sound voice-en`), first match
    /// wins: beside the binary wherever it is installed (PREFIX/bin/tactus ->
    /// PREFIX/share/tactus/voices; a build inside the repository -> the repository's
    /// `voices/`), `make install`, the Debian package, then `voices/` in the current folder.
    static let voiceFolders = besideExecutable(executablePath()) + ["/usr/local/share/tactus/voices", "/usr/share/tactus/voices", "voices"]

    /// The voice folders that belong to the binary at `exe`: its prefix's share/tactus/voices,
    /// and `voices/` of the nearest folder above it that holds Package.swift (the repository
    /// a `swift build` binary lives in, however deep in .build).
    static func besideExecutable(_ exe: String?, exists: (String) -> Bool = { AtomicFile.exists($0) }) -> [String] {
        guard let exe, exe.hasPrefix("/") else { return [] }
        var parts = exe.split(separator: "/").map(String.init)
        parts.removeLast()
        var folders: [String] = []
        if parts.last == "bin" { folders.append("/" + (parts.dropLast() + ["share", "tactus", "voices"]).joined(separator: "/")) }
        while !parts.isEmpty {
            let folder = "/" + parts.joined(separator: "/")
            if exists("\(folder)/Package.swift") {
                folders.append("\(folder)/voices")
                break
            }
            parts.removeLast()
        }
        return folders
    }

    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The folder of the voice set `name` (voice-LANG), if one is installed.
    static func voiceFolder(named name: String) -> String? {
        guard name.hasPrefix("voice-"), !name.contains("/") else { return nil }
        return voiceFolders.map { "\($0)/\(name)" }.first { AtomicFile.exists("\($0)/\(VoiceDescription.fileName)") }
    }

    /// Every voice set found in `voiceFolders` (the first of each name), sorted by name.
    static func installedVoices() -> [(name: String, folder: String)] {
        var found: [String: String] = [:]
        for base in voiceFolders.reversed() {
            for name in FileSystem.entries(of: base) ?? [] where name.hasPrefix("voice-") {
                let folder = "\(base)/\(name)"
                if AtomicFile.exists("\(folder)/\(VoiceDescription.fileName)") { found[name] = folder }
            }
        }
        return found.keys.sorted().map { ($0, found[$0]!) }
    }

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
        let base: SoundSet
        do {
            base = try UserSoundSet.make(name: name, accent: accent, beat: beat, subdivision: subdivision, poly: poly,
                                         sampleRate: sampleRate)
        } catch {
            throw ExitError(error.description)
        }
        let voicePath = (folder.hasSuffix("/") ? folder : folder + "/") + VoiceDescription.fileName
        guard AtomicFile.exists(voicePath) else { return base }
        let description: VoiceDescription
        do {
            description = try VoiceDescription.parse(try BoundedFile.text(voicePath), file: voicePath)
        } catch {
            throw ExitError("\(error)")
        }
        do {
            return try VoiceSet.make(base: base, description: description, sampleRate: sampleRate) { word throws(VoiceLoadError) in
                do throws(ExitError) {
                    return try bytes(folder, word + ".wav", .subdivision, sampleRate)
                } catch {
                    throw VoiceLoadError(file: word + ".wav", problem: error.message)
                }
            }
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
