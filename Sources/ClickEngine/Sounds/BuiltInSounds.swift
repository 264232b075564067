import Foundation
// Temporary stand-in until the synthesized sound sets land.
public enum BuiltInSounds {
    public static let names = ["woodblock"]

    public static func make(_ name: String, sampleRate: Int) -> SoundSet? {
        guard name == "woodblock" else { return nil }
        func tone(_ hz: Double, _ amp: Double, _ ms: Int) -> Clip {
            let n = sampleRate * ms / 1000
            let samples = (0..<n).map { i -> Float in
                let t = Double(i) / Double(sampleRate)
                let env = sin(Double.pi * Double(i) / Double(n - 1))
                return Float(amp * env * sin(2 * Double.pi * hz * t))
            }
            return Clip(samples: samples, sampleRate: sampleRate)
        }
        return SoundSet(name: name, accent: tone(1600, 0.9, 40), beat: tone(1000, 0.7, 40), subdivision: tone(1300, 0.5, 25))
    }
}
