// SPDX-License-Identifier: GPL-3.0-or-later
// Render benchmarks in process: realtime factor of offline renders (against klick -W when installed),
// worst-case time of one 128-frame render call, and allocations/locks on the render path.
// Run with `make bench` (release build). Figures go to stdout; nothing here is a test.
import ClickEngine
import Foundation
import RealtimeAudit
import TactusMusic
import TactusBase

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func makeSettings(bpm: Int, meter: String, subdivisions: String) -> MetronomeSettings {
    var s = MetronomeSettings()
    try! s.assign("bpm", "\(bpm)")
    try! s.assign("meter", meter)
    try! s.assign("beat-unit", "1/\(s.meter.denominator)")
    try! s.assign("subdivisions", subdivisions)
    return s
}

/// CPU time of this thread: excludes time the VM or scheduler took the core away.
func threadCPUNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

struct Scenario {
    let name: String
    let bpm: Int
    let meter: String
    let subdivisions: String
    let bars: Int
}

let rate = 48000
let scenarios = [
    Scenario(name: "120 BPM 4/4, 10 min", bpm: 120, meter: "4/4", subdivisions: "none", bars: 300),
    Scenario(name: "137 BPM 7/8, layers 2,3, 10 min", bpm: 137, meter: "7/8", subdivisions: "2,3", bars: 196),
    Scenario(name: "999 BPM 4/4, 10 min", bpm: 999, meter: "4/4", subdivisions: "none", bars: 2498),
    Scenario(name: "999 BPM 4/4, layers 2,3,4,5, 10 min", bpm: 999, meter: "4/4", subdivisions: "2,3,4,5", bars: 2498),
]

if CommandLine.arguments.contains("--songs") {
    runSongBench()
    exit(0)
}

print("# Offline render to a WAV file (48 kHz, mono, s16, as klick -W writes), best of 3")
let klick = ["/usr/bin/klick", "/usr/local/bin/klick"].first { FileManager.default.isExecutableFile(atPath: $0) }
for scenario in scenarios {
    var best = Double.infinity
    var frames: Int64 = 0
    var onsets = 0
    for _ in 0..<3 {
        let engine = try! ClickEngine(sampleRate: rate, channels: 1, maxFrameCount: 128,
                                      settings: makeSettings(bpm: scenario.bpm, meter: scenario.meter, subdivisions: scenario.subdivisions))
        let encoder = WAVEncoder(sampleRate: rate, channels: 1, format: .s16)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-bench.wav").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let file = FileHandle(forWritingAtPath: path)!
        var bytes = encoder.header(dataByteCount: 0)
        bytes.reserveCapacity(1 << 17)
        frames = 0
        onsets = 0
        let start = now()
        try! OfflineRender.run(engine: engine, changes: [], end: .bars(Int64(scenario.bars))) { block in
            encoder.encode(block, into: &bytes)
            frames += Int64(block.count)
            if bytes.count >= 1 << 16 { // write in 64 KiB chunks, as a buffered file writer would
                file.write(Data(bytes))
                bytes.removeAll(keepingCapacity: true)
            }
        } onEvent: { _ in onsets += 1 }
        file.write(Data(bytes))
        try! file.close()
        best = min(best, now() - start)
    }
    let seconds = Double(frames) / Double(rate)
    var line = "\(scenario.name): \(String(format: "%.1f", seconds)) s audio, \(onsets) onsets in \(String(format: "%.3f", best)) s = \(String(format: "%.0f", seconds / best))x realtime"
    if let klick {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("klick-bench.wav").path
        var bestKlick = Double.infinity
        var klickSeconds = 0.0
        for _ in 0..<3 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: klick)
            process.arguments = ["-W", out, "-r", "\(rate)", "\(scenario.bars)", scenario.meter, "\(scenario.bpm)"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let start = now()
            try! process.run()
            process.waitUntilExit()
            bestKlick = min(bestKlick, now() - start)
            let size = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
            klickSeconds = Double(max(size - 44, 0)) / 2 / Double(rate) // mono s16
        }
        line += "; klick -W (no subdivisions; its BPM counts quarters): \(String(format: "%.1f", klickSeconds)) s audio in \(String(format: "%.3f", bestKlick)) s = \(String(format: "%.0f", klickSeconds / bestKlick))x realtime"
        try? FileManager.default.removeItem(atPath: out)
    } else {
        line += "; klick not installed (scripts/install-deps.sh bench)"
    }
    print(line)
}

// Whole processes side by side with klick (what a user measures): Benchmarks/compare-klick.sh,
// run by `make bench` on the release binary.

print("\n# One 128-frame render call at 999 BPM, layers 2-9 (budget 2667 us at 48 kHz)")
func renderCallTimes(clipSeconds: Double?) -> (p50: Double, p99: Double, max: Double, cpuMax: Double, voices: Int, counts: realtime_audit_counts) {
    let settings = makeSettings(bpm: 999, meter: "4/4", subdivisions: "2,3,4,5,6,7,8,9")
    let engine = try! ClickEngine(sampleRate: rate, channels: 2, maxFrameCount: 128, settings: settings)
    if let clipSeconds {
        let frames = Int(clipSeconds * Double(rate))
        let clip = (0..<frames).map { Float(sin(Double($0) * 0.05)) * 0.001 }
        engine.register(SoundSet(name: "long", accent: Clip(samples: clip, sampleRate: rate),
                                 beat: Clip(samples: clip, sampleRate: rate), subdivision: Clip(samples: clip, sampleRate: rate)))
        var long = settings
        long.sound = "long"
        try! engine.apply(long)
    }
    engine.start()
    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
    for _ in 0..<2000 { engine.renderer.render(into: buffer, frameCount: 128); while engine.nextEvent() != nil {} }
    var times: [Double] = []
    times.reserveCapacity(40000)
    var voices = 0
    var cpuMax = 0.0
    var worstCall = 0
    var total = realtime_audit_counts()
    for call in 0..<40000 {
        if call % 500 == 0 { // a change now and then, as a musician turning the wheel would
            var next = engine.settings
            next.tempo = Tempo(clampingWholeBPM: 990 + call % 10)
            try! engine.apply(next)
        }
        realtime_audit_begin()
        let start = now()
        let cpuStart = threadCPUNow()
        engine.renderer.render(into: buffer, frameCount: 128)
        let cpu = threadCPUNow() - cpuStart
        if cpu > cpuMax { cpuMax = cpu; worstCall = call }
        let elapsed = now() - start
        let counts = realtime_audit_end()
        total.allocations += counts.allocations
        total.frees += counts.frees
        total.locks += counts.locks
        total.writes += counts.writes
        times.append(elapsed)
        voices = max(voices, engine.renderer.activeVoiceCount)
        while engine.nextEvent() != nil {}
    }
    buffer.deallocate()
    times.sort()
    print("  (worst CPU time at call \(worstCall)\(worstCall % 500 == 0 ? ", right after a change" : ""))")
    return (times[times.count / 2], times[times.count * 99 / 100], times.last!, cpuMax, voices, total)
}
for (label, clip) in [("built-in woodblock clips", nil), ("2 s clips (longest allowed)", 2.0)] as [(String, Double?)] {
    let r = renderCallTimes(clipSeconds: clip)
    let budget = 128.0 / Double(rate)
    print("\(label): up to \(r.voices) voices; p50 \(String(format: "%.1f", r.p50 * 1e6)) us, p99 \(String(format: "%.1f", r.p99 * 1e6)) us, max \(String(format: "%.1f", r.max * 1e6)) us = \(String(format: "%.2f", r.max / budget * 100)) % of budget (p99 \(String(format: "%.2f", r.p99 / budget * 100)) %); max thread CPU time \(String(format: "%.1f", r.cpuMax * 1e6)) us = \(String(format: "%.2f", r.cpuMax / budget * 100)) %")
    print("  render thread during 40000 calls with changes: \(r.counts.allocations) allocations, \(r.counts.frees) frees, \(r.counts.locks) locks, \(r.counts.writes) writes")
}

runSongBench()
