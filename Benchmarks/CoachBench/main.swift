// SPDX-License-Identifier: GPL-3.0-or-later
// The coach on the issue's synthetic takes: Tactus's detector against aubio's onset detector
// (`aubioonset`, when installed) on the same takes, and the live path (the capture thread's
// listener, the click subtracted from the renderer's output): accuracy, cost, needle delay.
//   tactus-coach-bench                 the comparison and the cost (make bench)
//   tactus-coach-bench --verbose       also each take's line (--debug: each live extra hit)
//   tactus-coach-bench --write DIR     writes the takes (take-NNN.wav) and their truths
//                                      (take-NNN.truth: one first sample per line)
import ClickEngine
import Coach
import Foundation
import TactusApp
import TactusMusic
import TactusTimeline
import TestSupport

/// The unit test's takes (seed 0) and two more seeds of each.
func cases() -> [CoachTakeCase] {
    var list: [CoachTakeCase] = []
    for round in 0..<3 {
        let salt = UInt64(round) * 100_000
        for bpm in stride(from: 40, through: 240, by: 20) {
            list.append(CoachTakeCase(bpm: bpm, perBeat: 2, bars: max(2, bpm / 20), seed: UInt64(bpm) + salt))
        }
        for bpm in stride(from: 40, through: 160, by: 20) {
            list.append(CoachTakeCase(bpm: bpm, perBeat: 4, bars: max(1, bpm / 40), seed: UInt64(1000 + bpm) + salt))
        }
    }
    return list
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[rank]
}

func writeWAV(_ samples: [Float], rate: Int, to path: String) throws {
    var data = Data()
    func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    data.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(36 + samples.count * 2))
    data.append(contentsOf: Array("WAVEfmt ".utf8)); u32(16); u16(1); u16(1); u32(UInt32(rate)); u32(UInt32(rate * 2)); u16(2); u16(16)
    data.append(contentsOf: Array("data".utf8)); u32(UInt32(samples.count * 2))
    for x in samples {
        let v = Int16(max(-32767, min(32767, (Double(x) * 32767).rounded())))
        u16(UInt16(bitPattern: v))
    }
    try data.write(to: URL(fileURLWithPath: path))
}

func aubioOnsets(_ path: String, rate: Int) -> [Int64]? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["aubioonset", "-i", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap {
        Double($0.trimmingCharacters(in: .whitespaces)).map { Int64(($0 * Double(rate)).rounded()) }
    }
}

func line(_ name: String, _ s: TakeScore) -> String {
    let errors = s.errorsMs.map(abs)
    let padded = name.padding(toLength: 22, withPad: " ", startingAt: 0)
    return padded + String(format: " %6d %8.3f %8.3f %8.3f %7d %7d %9.2f", s.hits, percentile(errors, 50),
                  percentile(errors, 99), errors.max() ?? .nan, s.missed, s.extra,
                  100 * Double(s.within1ms) / Double(max(1, s.hits)))
}

let arguments = CommandLine.arguments
if arguments.count == 3 && arguments[1] == "--write" {
    for (i, c) in cases().enumerated() {
        let made = try c.make()
        let name = String(format: "%@/take-%03d", arguments[2], i)
        try writeWAV(made.take.samples, rate: c.sampleRate, to: name + ".wav")
        try made.take.hits.map { "\($0.sample)\n" }.joined().write(toFile: name + ".truth", atomically: true, encoding: .utf8)
    }
    exit(0)
}

let temporary = NSTemporaryDirectory() + "tactus-coach-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: temporary) }

var tactus = TakeScore(truth: [], found: [], sampleRate: 48000)
var aubio = TakeScore(truth: [], found: [], sampleRate: 48000)
var aubioMissing = false
var detectorSeconds = 0.0
var audioSeconds = 0.0
for c in cases() {
    let made = try c.make()
    let fit = BleedFit.estimate(input: made.take.samples, output: made.output, clickStarts: made.clickStarts,
                                sampleRate: c.sampleRate, lags: c.origin...(c.origin + c.sampleRate / 4))
    let clock = ContinuousClock()
    var found: [Int64] = []
    let spent = clock.measure {
        found = TakeAnalysis.onsets(input: made.take.samples, sampleRate: c.sampleRate, output: made.output, clickStarts: made.clickStarts, bleed: fit)
    }
    detectorSeconds += Double(spent.components.seconds) + Double(spent.components.attoseconds) * 1e-18
    audioSeconds += Double(made.take.samples.count) / Double(c.sampleRate)
    let score = TakeScore(truth: made.take.hits, found: found, sampleRate: c.sampleRate)
    if arguments.contains("--verbose") {
        print("  \(c.bpm) x\(c.perBeat): \(line("tactus", score))")
    }
    tactus.add(score)
    if !aubioMissing {
        let path = temporary + "/take.wav"
        try writeWAV(made.take.samples, rate: c.sampleRate, to: path)
        if let onsets = aubioOnsets(path, rate: c.sampleRate) {
            aubio.add(TakeScore(truth: made.take.hits, found: onsets, sampleRate: c.sampleRate))
        } else {
            aubioMissing = true
        }
    }
}

print("coach: first sample of each hit on \(cases().count) synthetic takes (40-240 BPM eighths, 40-160 sixteenths; errors in ms)")
print("detector               hits   median      p99    worst  missed  extras  <=1 ms %")
print(line("tactus", tactus))
if aubioMissing {
    print("aubio                  not installed (scripts/install-deps.sh bench installs aubio-tools)")
} else {
    print(line("aubioonset (hfc)", aubio))
}
// The live cost: the detector's CPU time per second of input at 48 kHz, as a share of one core.
print(String(format: "live cost: %.3f %% of one core at 48 kHz (%.2f s of audio in %.3f s)",
             100 * detectorSeconds / audioSeconds, audioSeconds, detectorSeconds))
// The live path as the capture thread runs it: 256-frame periods into a `CoachListener` that
// takes the click out with the renderer's own output history (the engine renders alongside;
// the output clock says engine sample 0 is heard when input sample `origin` arrives, the
// round trip is the take's `latency`). Its accuracy on every take, its cost, and the
// needle's delay: from a hit's first sample to the end of the period in which the listener
// reports it (the capture thread hands it on then), plus the 5 ms drain.
let period = 256
var live = TakeScore(truth: [], found: [], sampleRate: 48000)
var liveSeconds = 0.0
var liveAudio = 0.0
var worstDelay = 0.0
var delays: [Double] = []
for c in cases() {
    let made = try c.make()
    var settings = MetronomeSettings()
    try settings.assign("bpm", "\(c.bpm)")
    try settings.assign("subdivisions", "\(c.perBeat)")
    let engine = try ClickEngine(sampleRate: c.sampleRate, channels: 1, maxFrameCount: 128, settings: settings)
    let listener = CoachListener(sampleRate: c.sampleRate, output: engine.renderer.history)
    let rate = Int64(c.sampleRate)
    listener.setOutputClock(AudioOutputClock(sampleRate: c.sampleRate, engineSample: 0, outputDelayFrames: 0,
                                             nanoseconds: Int64(c.origin) * 1_000_000_000 / rate))
    listener.setRoundTrip(nanoseconds: Int64(c.latency) * 1_000_000_000 / rate)
    var found: [Int64] = []
    var start = 0
    var rendered = 0
    let samples = made.take.samples
    let clock = ContinuousClock()
    var spent = Duration.zero
    func capture(upTo limit: Int) {
        samples.withUnsafeBufferPointer { all in
            while start + period <= min(limit, all.count) {
                let began = clock.now
                listener.capture(UnsafeBufferPointer(rebasing: all[start..<(start + period)]),
                                 firstSampleAt: Int64(start) * 1_000_000_000 / rate)
                spent += clock.now - began
                let end = Int64(start + period)
                for time in listener.drain() {
                    // The stamp back to the input sample (rounded down to the nanosecond on the way).
                    let sample = (time.nanoseconds * rate + 999_999_999) / 1_000_000_000
                    found.append(sample)
                    let ms = Double(end - sample) * 1000 / Double(c.sampleRate) + 5
                    delays.append(ms)
                    worstDelay = max(worstDelay, ms)
                }
                start += period
            }
        }
    }
    // The take's click ends with the bars; the engine is stopped there (what still rings
    // rings on in the output, as it would from the speaker).
    try OfflineRender.run(engine: engine, changes: [TimedChange(sample: Int64(made.output.count), action: .stop)],
                          end: .sample(Int64(samples.count))) { block in
        rendered += block.count
        // Input sample k hears engine sample k - origin - latency: capture what is rendered.
        capture(upTo: rendered + c.origin - 4096)
    } onEvent: { _ in }
    capture(upTo: samples.count)
    liveSeconds += Double(spent.components.seconds) + Double(spent.components.attoseconds) * 1e-18
    liveAudio += Double(start) / Double(c.sampleRate)
    let score = TakeScore(truth: made.take.hits, found: found, sampleRate: c.sampleRate)
    if arguments.contains("--verbose") {
        print("  live \(c.bpm) x\(c.perBeat): \(line("tactus live", score)) gain \(listener.bleedGain) lag \(listener.lagCorrectionSamples)")
    }
    live.add(score)
    if arguments.contains("--debug") {
        for f in found {
            let near = made.take.hits.map { abs($0.sample - f) }.min() ?? 0
            if near > 960 {
                let click = made.clickStarts.map { abs(Int64($0 + c.origin + c.latency) - f) }.min() ?? 0
                print("    extra at \(Double(f) / 48000) s, nearest hit \(near), nearest click \(click), first click at \(Double(made.clickStarts[0] + c.origin + c.latency) / 48000)")
            }
        }
    }
}
print(line("tactus live", live))
print(String(format: "live capture (256-frame periods): cost %.3f %% of one core at 48 kHz; needle delay (hit to the control loop) median %.1f ms, worst %.1f ms (limit 50 ms)",
             100 * liveSeconds / liveAudio, percentile(delays, 50), worstDelay))
if liveSeconds / liveAudio >= 0.05 || worstDelay >= 50 || live.missed > 0 || live.extra > 0 {
    print("FAIL: the live coach must cost under 5 % of one core, move the needle within 50 ms, and miss no hit nor take a click for one")
    exit(1)
}
if !aubioMissing {
    let ours = percentile(tactus.errorsMs.map(abs), 50)
    let theirs = percentile(aubio.errorsMs.map(abs), 50)
    let better = ours < theirs && percentile(tactus.errorsMs.map(abs), 99) < percentile(aubio.errorsMs.map(abs), 99)
        && tactus.missed + tactus.extra <= aubio.missed + aubio.extra
    print(better ? "tactus is the more accurate" : "FAIL: aubio is as accurate or more")
    if !better { exit(1) }
}
