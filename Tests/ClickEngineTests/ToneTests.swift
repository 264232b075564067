// SPDX-License-Identifier: GPL-3.0-or-later
@testable import ClickEngine
import Testing
import TactusMusic

/// Frequency from rising zero crossings (linearly interpolated) over the whole signal.
func zeroCrossingFrequency(_ x: [Float], sampleRate: Int) -> Double {
    var crossings: [Double] = []
    for k in 1..<x.count where x[k - 1] < 0 && x[k] >= 0 {
        crossings.append(Double(k - 1) + Double(-x[k - 1]) / Double(x[k] - x[k - 1]))
    }
    return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(sampleRate))
}

@Suite struct ToneTests {
    @Test func equalTemperedFromA4() {
        #expect(ReferenceTone.frequency(note: 69, reference: 440) == 440)
        #expect(abs(ReferenceTone.frequency(note: 72, reference: 440) - 523.2511) < 0.00005)
        #expect(abs(ReferenceTone.frequency(note: 60, reference: 440) - 261.6256) < 0.00005)
        #expect(abs(ReferenceTone.frequency(note: 83, reference: 440) - 987.7666) < 0.00005)
        #expect(ReferenceTone.frequency(note: 81, reference: 442) == 884)
        #expect(ReferenceTone.frequency(note: 57, reference: 415) == 207.5)
        #expect(ReferenceTone.name(of: 60) == "C4" && ReferenceTone.name(of: 70) == "A#4" && ReferenceTone.name(of: 83) == "B5")
    }

    @Test func parsesNotesAndReferences() {
        #expect(ReferenceTone.parse("A4@442")! == (69, 442))
        #expect(ReferenceTone.parse("A4")! == (69, 440))
        #expect(ReferenceTone.parse("C#5")! == (73, 440))
        #expect(ReferenceTone.parse("Bb4@415")! == (70, 415))
        #expect(ReferenceTone.parse("c4")! == (60, 440))
        #expect(ReferenceTone.parse("B5@466")! == (83, 466))
        for bad in ["C6", "B3", "A4@414", "A4@467", "H4", "A", "A4@", "A4@44x", "Cb4", "A 4"] {
            #expect(ReferenceTone.parse(bad) == nil, "\(bad)")
        }
    }

    static func render(_ tones: [(at: Int, tone: ReferenceTone?)], frames: Int, block: Int = 128) -> [Float] {
        let engine = try! ClickEngine(sampleRate: 48000, channels: 1, maxFrameCount: 4096)
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: block)
        var next = 0
        while out.count < frames {
            while next < tones.count && tones[next].at <= out.count { engine.setTone(tones[next].tone); next += 1 }
            var n = min(block, frames - out.count)
            if next < tones.count { n = min(n, tones[next].at - out.count) }
            buffer.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: n) }
            out += buffer[0..<n]
        }
        return out
    }

    @Test(arguments: [(69, 442, ReferenceTone.Timbre.sine), (72, 440, .organ), (60, 415, .sine), (83, 466, .organ)])
    func aRenderedToneHasItsFrequencyWithinAHundredthOfAHertz(note: Int, reference: Int, timbre: ReferenceTone.Timbre) {
        let tone = ReferenceTone(note: note, reference: reference, timbre: timbre, volume: 80)
        let x = Self.render([(0, tone)], frames: 10 * 48000)
        let measured = zeroCrossingFrequency(x, sampleRate: 48000)
        #expect(abs(measured - tone.frequency) < 0.01, "measured \(measured) Hz for \(tone.frequency) Hz")
        // Under the limiter's ceiling (-0.5 dBFS): the tone alone is never limited.
        #expect(x.map { abs($0) }.max()! <= Float(0.8 * ToneSource.fullScale) + 1e-6)
    }

    @Test func startStopAndNoteChangesRampWithoutAClick() {
        let a4 = ReferenceTone(note: 69, reference: 440, volume: 100)
        var b5 = a4
        b5.note = 83
        var quiet = b5
        quiet.volume = 20
        let x = Self.render([(1000, a4), (20_000, b5), (30_000, quiet), (40_000, nil)], frames: 50_000, block: 77)
        #expect(x[0..<1000].allSatisfy { $0 == 0 })
        #expect(x[41_000...].allSatisfy { $0 == 0 })
        // No step: from one frame to the next the signal moves no more than the sine itself
        // (2 pi f / rate of its amplitude) plus the ramp's slope (full scale over 5 ms).
        let amplitude = ToneSource.fullScale
        let bound = amplitude * (2 * Double.pi * b5.frequency / 48000) + amplitude / 240 + 1e-6
        var worst = 0.0
        for k in 1..<x.count { worst = max(worst, Double(abs(x[k] - x[k - 1]))) }
        #expect(worst <= bound)
        // The ramps last 5 ms (240 frames): full level 240 frames after the start, silence
        // within 240 frames of the stop, a dip to 0 around the note change.
        #expect(x[1000..<1240].map { abs($0) }.max()! < Float(amplitude))
        #expect(abs(x[1240..<1400].map { abs($0) }.max()! - Float(amplitude)) < 0.01)
        #expect(x[40_241...].allSatisfy { $0 == 0 })
        #expect(x[20_230..<20_250].map { abs($0) }.max()! < 0.02)
    }

    @Test func theToneRendersTheSameForAnyBlockSizeUnderTheClicks() {
        func run(block: Int) -> [Float] {
            let engine = ClickEngine.testEngine(settings: settings(bpm: "200", subdivisions: "2,3"), clipFrames: 2000, level: 0.2)
            engine.setTone(ReferenceTone(note: 64, reference: 441, timbre: .organ, volume: 100))
            engine.start()
            var recording = Recording()
            engine.record(48000, block: block, into: &recording)
            return recording.samples
        }
        let a = run(block: 128)
        #expect(a == run(block: 1))
        #expect(a == run(block: 1000))
        #expect(a.map { abs($0) }.max()! < 0.99)
    }
}
