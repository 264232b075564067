import ClickEngine
import Foundation

/// A user sound set on disk: a folder holding accent.wav, beat.wav and sub.wav (and, if
/// wanted, poly.wav for the poly layers). Read by
/// `render --sound DIR` and by the box for each folder under its sounds folder.
enum SoundFolder {
    /// Loads and resamples the three clips; an error names the file and the problem.
    static func load(_ folder: String, name: String, sampleRate: Int) throws(ExitError) -> SoundSet {
        func bytes(_ file: String) throws(ExitError) -> [UInt8] {
            let path = (folder as NSString).appendingPathComponent(file)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ExitError("\(file) cannot be read (\(RenderJob.readProblem(path))); a sound folder holds accent.wav, beat.wav and sub.wav")
            }
            return [UInt8](data)
        }
        let (accent, beat, subdivision) = (try bytes("accent.wav"), try bytes("beat.wav"), try bytes("sub.wav"))
        // poly.wav is optional: without it the poly layers play sub.wav.
        let polyPath = (folder as NSString).appendingPathComponent("poly.wav")
        let poly = FileManager.default.fileExists(atPath: polyPath) ? try bytes("poly.wav") : nil
        do {
            return try UserSoundSet.make(name: name, accent: accent, beat: beat, subdivision: subdivision, poly: poly,
                                         sampleRate: sampleRate)
        } catch {
            throw ExitError(error.description)
        }
    }
}
