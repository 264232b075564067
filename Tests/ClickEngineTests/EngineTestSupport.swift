// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import TactusArithmetic
import TactusMusic
import TactusBase

/// Renders a live engine in blocks and keeps everything it produced.
struct Recording {
    var samples: [Float] = []
    var events: [OnsetEvent] = []
}

extension ClickEngine {
    /// A test engine with recognisable clips: constant levels, so a cut clip shows.
    static func testEngine(
        sampleRate: Int = 48000, settings: MetronomeSettings = MetronomeSettings(sound: "test"),
        clipFrames: Int = 100, level: Float = 0.001, voiceCount: Int = ClickEngine.defaultVoiceCount
    ) -> ClickEngine {
        let engine = try! ClickEngine(sampleRate: sampleRate, channels: 1, maxFrameCount: 4096,
                                      voiceCount: voiceCount, settings: MetronomeSettings())
        engine.register(SoundSet.constant(frames: clipFrames, level: level, sampleRate: sampleRate))
        try! engine.apply(settings)
        return engine
    }

    /// Renders `frames` frames in blocks of `block` and appends to the recording.
    func record(_ frames: Int, block: Int = 128, into recording: inout Recording) {
        var remaining = frames
        var buffer = [Float](repeating: 0, count: block * renderer.channels)
        while remaining > 0 {
            let n = min(block, remaining)
            buffer.withUnsafeMutableBufferPointer { renderer.render(into: $0.baseAddress!, frameCount: n) }
            recording.samples += buffer[0..<(n * renderer.channels)]
            while let event = nextEvent() { recording.events.append(event) }
            remaining -= n
        }
    }
}

extension SoundSet {
    /// Accent, beat and subdivision clips of constant level 3x, 2x and 1x `level`.
    static func constant(frames: Int, level: Float, sampleRate: Int, name: String = "test") -> SoundSet {
        SoundSet(name: name,
                 accent: Clip(samples: Array(repeating: 3 * level, count: frames), sampleRate: sampleRate),
                 beat: Clip(samples: Array(repeating: 2 * level, count: frames), sampleRate: sampleRate),
                 subdivision: Clip(samples: Array(repeating: level, count: frames), sampleRate: sampleRate))
    }
}

func settings(
    bpm: String = "120", meter: String = "4/4", beatUnit: String = "1/4", accents: String = "X",
    subdivisions: String = "none", sound: String = "test"
) -> MetronomeSettings {
    var volumes = Volumes()
    try! volumes.apply(parsing: "master=100,accent=100,beat=100,sub2=100,sub3=100,sub4=100,sub5=100,sub6=100,sub7=100,sub8=100,sub9=100,soft=100,poly1=100,poly2=100,poly3=100,poly4=100")
    return MetronomeSettings(
        tempo: try! Tempo(parsing: bpm), meter: try! Meter(parsing: meter), beatUnit: try! BeatUnit(parsing: beatUnit),
        accents: try! AccentPattern(parsing: accents), subdivisions: try! Subdivisions(parsing: subdivisions),
        volumes: volumes, sound: sound)
}

/// Exact ideal sample of a position given in beats from the start: round half up.
func idealSample(beats: Rational, bpm: Rational, sampleRate: Int) -> Int64 {
    (beats * Rational(Int64(sampleRate) * 60) / bpm).rounded
}
