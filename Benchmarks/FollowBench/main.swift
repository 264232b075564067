// SPDX-License-Identifier: GPL-3.0-or-later
// Following an incoming MIDI clock (MIDIClockFollower) against a plain second-order DLL on
// the same seeded clock streams (Tests/TestSupport/ClockStreams.swift): per tempo and jitter,
// the beat from which every beat stays within 1 ms of the sender's jitter-free beats (lock),
// then the beats' error p99 and max, slips (a beat skipped or doubled) and the tempo error.
// Beats are taken as predicted 60 ms before they are due, as the box places them.
// Run with `make bench`.
import Foundation
import TactusTimeline
import TestSupport

func row(_ name: String, _ specs: [ClockStream.Spec], scoreFrom: Int = 4, skipping: Range<Int> = 0..<0) -> String {
    // FOLLOW_ONLY=WORD: only the rows whose name holds it.
    if let only = ProcessInfo.processInfo.environment["FOLLOW_ONLY"], !name.contains(only) { return "" }
    var results: [String] = []
    for reference in [false, true] {
        var errors: [Double] = []
        var locks: [Int] = []
        var slips = 0
        var tempo = 0.0
        for spec in specs {
            let stream = ClockStream(spec)
            let score: ClockScore
            if reference {
                var dll = PlainDLL()
                score = ClockScore(&dll, stream)
            } else {
                var follower = MIDIClockFollower()
                score = ClockScore(&follower, stream)
            }
            let all = score.absoluteErrors(from: 0)
            let lock = (0..<all.count).first { n in all[n...].allSatisfy { $0 <= 1 } } ?? all.count
            locks.append(lock)
            errors += score.absoluteErrors(from: scoreFrom, excluding: { skipping.contains($0) })
            slips += score.slips(from: scoreFrom, beatNanoseconds: 60e9 / spec.segments[0].bpm, excluding: { skipping.contains($0) })
            tempo = max(tempo, (scoreFrom..<score.tempoErrors.count).filter { !skipping.contains($0) }.map { score.tempoErrors[$0] }.max() ?? 0)
        }
        let within: Double = Double(errors.filter { $0 <= 1 }.count) / Double(errors.count) * 100
        let meanLock: Double = Double(locks.reduce(0, +)) / Double(locks.count)
        let worstLock: Int = locks.max() ?? 0
        let p99: Double = ClockScore.percentile(errors, 0.99)
        let worst: Double = errors.max() ?? 0
        let text = String(format: "lock %4.1f (worst %3d) beats, p99 %7.3f, max %8.3f ms, %5.1f %% <= 1 ms, slips %3d, tempo %6.3f",
                          meanLock, worstLock, p99, worst, within, slips, tempo)
        results.append(text)
    }
    return "\(name)\n    follower: \(results[0])\n    DLL:      \(results[1])"
}

let seeds: [UInt64] = Array(1...8)
func say(_ text: String) { if !text.isEmpty { print(text) } }
// FOLLOW_DEBUG="BPM JITTER SEED [LOSS]": per-beat errors of one stream.
if let debug = ProcessInfo.processInfo.environment["FOLLOW_DEBUG"] {
    let f = debug.split(separator: " ").map { Double($0)! }
    let stream = ClockStream(ClockStream.Spec(segments: [(f[0], 64)], jitter: f[1], loss: f.count > 3 ? f[3] : 0, seed: UInt64(f[2])))
    var follower = MIDIClockFollower()
    let score = ClockScore(&follower, stream)
    for (n, e) in score.errors.enumerated() { print(n, e.map { String(format: "%.3f", $0 / 1e6) } ?? "-", score.locked[n], String(format: "%.3f", score.tempoErrors[n])) }
    exit(0)
}
print("MIDI clock following, 64 beats, 8 seeds each; scored from beat 4 (errors against the sender's jitter-free beats)")
for bpm in [30.0, 60, 120, 250, 300] {
    for jitter in [0.0, 0.1, 0.25] {
        say(row(String(format: "%5.0f BPM, jitter +-%2.0f %% of a period (+-%.2f ms)", bpm, jitter * 100, jitter * 2.5e3 / bpm),
                  seeds.map { ClockStream.Spec(segments: [(bpm, 64)], jitter: jitter, seed: $0) }))
    }
}
for bpm in [60.0, 120, 250] {
    say(row(String(format: "%5.0f BPM, 25 %% jitter, 1 %% of clocks lost", bpm),
              seeds.map { ClockStream.Spec(segments: [(bpm, 64)], jitter: 0.25, loss: 0.01, seed: $0) }))
    say(row(String(format: "%5.0f BPM, 25 %% jitter, merged (every clock twice at once)", bpm),
              seeds.map { ClockStream.Spec(segments: [(bpm, 64)], jitter: 0.25, merged: true, seed: $0) }))
    say(row(String(format: "%5.0f BPM, merged (every clock twice, each +-5 %% of its own)", bpm),
              seeds.map { ClockStream.Spec(segments: [(bpm, 64)], jitter: 0.05, merged: true, sameInstant: false, seed: $0) }))
    for drift in [-500.0, 500] {
        say(row(String(format: "%5.0f BPM, 25 %% jitter, drift %+.0f ppm", bpm, drift),
                  seeds.map { ClockStream.Spec(segments: [(bpm, 64)], jitter: 0.25, drift: drift, seed: $0) }))
    }
    say(row(String(format: "%5.0f BPM, 25 %% jitter, 8-beat dropout at beat 24 (not scored: the dropout and 2 beats after)", bpm),
              seeds.map { ClockStream.Spec(segments: [(bpm, 64)], jitter: 0.25, dropouts: [(24, 8)], seed: $0) }, skipping: 24..<34))
    say(row(String(format: "%5.0f BPM, 10 %% jitter, step to %.0f BPM at beat 32 (not scored: 4 beats after)", bpm, bpm * 1.2),
              seeds.map { ClockStream.Spec(segments: [(bpm, 32), (bpm * 1.2, 32)], jitter: 0.1, seed: $0) }, skipping: 32..<36))
}
