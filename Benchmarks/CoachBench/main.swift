// SPDX-License-Identifier: GPL-3.0-or-later
// The coach on the issue's synthetic takes: Tactus's detector against aubio's onset detector
// (`aubioonset`, when installed) on the same takes, and the live cost of the detector.
//   tactus-coach-bench                 the comparison and the cost (make bench)
//   tactus-coach-bench --write DIR     writes the takes (take-NNN.wav) and their truths
//                                      (take-NNN.truth: one first sample per line)
import Coach
import Foundation
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
// The live path as the capture thread runs it: 256-frame periods into the ClickCanceller
// (the box's click, bleeding in at -12 dB, taken out) and its OnsetDetector. Its cost, and the
// needle's delay: from a hit's first sample to the end of the period in which the detector
// decides (the capture thread hands it on then), plus the 5 ms drain.
let period = 256
var liveSeconds = 0.0
var liveAudio = 0.0
var worstDelay = 0.0
var delays: [Double] = []
for c in cases().prefix(8) {
    let made = try c.make()
    let canceller = ClickCanceller(sampleRate: c.sampleRate, reference: ArrayOutput(made.output))
    var decided: [(Int64, Int64)] = []
    let clock = ContinuousClock()
    let spent = clock.measure {
        made.take.samples.withUnsafeBufferPointer { all in
            var start = 0
            while start + period <= all.count {
                let end = Int64(start + period)
                canceller.process(UnsafeBufferPointer(rebasing: all[start..<(start + period)]),
                                  predictedLag: Int64(c.origin + c.latency)) { sample, _ in decided.append((sample, end)) }
                start += period
            }
        }
    }
    liveSeconds += Double(spent.components.seconds) + Double(spent.components.attoseconds) * 1e-18
    liveAudio += Double(made.take.samples.count) / Double(c.sampleRate)
    for (sample, end) in decided {
        let ms = Double(end - sample) * 1000 / Double(c.sampleRate) + 5
        delays.append(ms)
        worstDelay = max(worstDelay, ms)
    }
}
// The needle's delay: the detector holds a hit for 30 ms (a louder main stroke of a flam may
// follow), the canceller runs 14 ms behind the input, a period, the drain.
print(String(format: "live capture (256-frame periods, the click taken out): cost %.3f %% of one core at 48 kHz; needle delay (hit to the control loop) median %.1f ms, worst %.1f ms (limit 75 ms)",
             100 * liveSeconds / liveAudio, percentile(delays, 50), worstDelay))
if liveSeconds / liveAudio >= 0.05 || worstDelay >= 75 {
    print("FAIL: the live coach must cost under 5 % of one core and move the needle within 75 ms")
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
