// SPDX-License-Identifier: GPL-3.0-or-later
// Render benchmarks: realtime factor of offline renders (against klick -W when installed),
// worst-case time of one 128-frame render call, and allocations/locks on the render path.
// Run with `make bench` (release build). Figures go to stdout; nothing here is a test.
import ClickEngine
import Foundation
import RealtimeAudit
import TactusCore

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

// MARK: whole processes, as a user measures them

/// Runs a program to its end; wall time and the child's CPU time (user + system) and peak RSS.
func runProcess(_ path: String, _ arguments: [String]) -> (wall: Double, cpu: Double, maxRSSKB: Int)? {
    var pid: pid_t = 0
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let start = now()
    guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else { return nil }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid else { return nil }
    let wall = now() - start
    let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return (wall, cpu, Int(usage.ru_maxrss))
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let tactus = binaries.appendingPathComponent("tactus").path
print("\n# Whole processes side by side, median of 5 (run alternately): 10 min at 120 BPM 4/4, 48 kHz mono s16")
if FileManager.default.isExecutableFile(atPath: tactus) {
    let temporary = FileManager.default.temporaryDirectory.path
    let tactusArguments = ["render", "--bpm", "120", "--meter", "4/4", "--bars", "300", "--rate", "48000",
                           "--channels", "1", "--format", "s16", "-o", temporary + "/tactus-bench-process.wav"]
    var tactusRuns: [(wall: Double, cpu: Double, maxRSSKB: Int)] = []
    var klickRuns: [(wall: Double, cpu: Double, maxRSSKB: Int)] = []
    for _ in 0..<5 {
        if let run = runProcess(tactus, tactusArguments) { tactusRuns.append(run) }
        if let klick, let run = runProcess(klick, ["-W", temporary + "/klick-bench-process.wav", "-r", "48000", "300", "4/4", "120"]) {
            klickRuns.append(run)
        }
    }
    func describe(_ runs: [(wall: Double, cpu: Double, maxRSSKB: Int)]) -> String {
        "CPU \(String(format: "%.3f", median(runs.map(\.cpu)))) s, wall \(String(format: "%.3f", median(runs.map(\.wall)))) s, peak RSS \(runs.map(\.maxRSSKB).max()! / 1024) MB"
    }
    if !tactusRuns.isEmpty { print("tactus render: " + describe(tactusRuns)) }
    if !klickRuns.isEmpty {
        print("klick -W:      " + describe(klickRuns))
        print("tactus / klick CPU time: \(String(format: "%.2f", median(tactusRuns.map(\.cpu)) / median(klickRuns.map(\.cpu))))")
    } else {
        print("klick not installed (scripts/install-deps.sh bench)")
    }
    var short: [(wall: Double, cpu: Double, maxRSSKB: Int)] = []
    for _ in 0..<5 {
        if let run = runProcess(tactus, ["render", "--seconds", "0.01", "-o", temporary + "/tactus-bench-short.wav"]) { short.append(run) }
    }
    if !short.isEmpty { print("tactus render --seconds 0.01 (the start-up a user waits for): " + describe(short) + " (target: under 30 ms wall)") }
    for file in ["tactus-bench-process.wav", "klick-bench-process.wav", "tactus-bench-short.wav"] {
        try? FileManager.default.removeItem(atPath: temporary + "/" + file)
    }
} else {
    print("\(tactus) not built: `make bench` builds it (swift build -c release --product tactus)")
}

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
