// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Coach
import Foundation
import Testing
import TestSupport

@Suite struct CoachCommandTests {
    struct HitLine {
        var sample: Int64
        var t: Double
        var bar: Int
        var beat: Int
        var grid: String?
        var index: Int
        var errorMs: Double
    }

    func hits(_ url: URL) throws -> [HitLine] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { line in
            let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            #expect(Set(o.keys) == ["sample", "t", "bar", "beat", "grid", "index", "error_ms"])
            return HitLine(sample: (o["sample"] as! NSNumber).int64Value, t: (o["t"] as! NSNumber).doubleValue,
                           bar: (o["bar"] as! NSNumber).intValue, beat: (o["beat"] as! NSNumber).intValue,
                           grid: o["grid"] as? String, index: (o["index"] as! NSNumber).intValue,
                           errorMs: (o["error_ms"] as! NSNumber).doubleValue)
        }
    }

    func write(_ samples: [Float], to url: URL, format: WAVSampleFormat = .s16) throws {
        try Data(WAVEncoder(sampleRate: 48000, channels: 1, format: format).encodeFile(samples)).write(to: url)
    }

    /// A take of sixteenths at 100 BPM with the click bleeding in: every hit, its bar, beat,
    /// index in the bar and error as the take's truth says, and the summary as the last line.
    @Test func measuresEveryHitOfATake() throws {
        let dir = scratchFolder()
        let c = CoachTakeCase(bpm: 100, perBeat: 4, bars: 2, seed: 42)
        let made = try c.make()
        let take = dir.appendingPathComponent("take.wav")
        try write(made.take.samples, to: take, format: .f32)
        let out = dir.appendingPathComponent("hits.jsonl")
        let plot = dir.appendingPathComponent("plot.svg")
        let run = try tactus(["coach", "--input", take.path, "--bpm", "100", "--subdivisions", "4", "--offset", "0.3",
                              "--grid", "1/16", "--hits", out.path, "--plot", plot.path])
        #expect(run.status == 0, "\(run.stderr)")
        let found = try hits(out)
        #expect(found.count == made.take.hits.count)
        var within = 0
        for (hit, truth) in zip(found, made.take.hits) {
            let grid = truth.grid
            #expect(hit.bar == grid / 16 && hit.beat == (grid % 16) / 4 && hit.index == grid % 16)
            #expect(hit.grid == "1/16")
            #expect(abs(hit.t - Double(hit.sample) / 48000) < 1e-6)
            if abs(hit.errorMs - truth.offsetMilliseconds) <= 1 { within += 1 }
        }
        #expect(Double(within) >= 0.99 * Double(found.count))
        let errors = found.map(\.errorMs)
        let mean = errors.reduce(0, +) / Double(errors.count)
        let sd = (errors.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(errors.count)).squareRoot()
        let in10 = Double(errors.filter { abs($0) <= 10 }.count) / Double(errors.count) * 100
        let in25 = Double(errors.filter { abs($0) <= 25 }.count) / Double(errors.count) * 100
        let expected = String(format: "hits %d, mean %@%.1f ms, SD %.1f ms, within 10 ms %.1f %%, within 25 ms %.1f %%",
                              errors.count, mean >= 0 ? "+" : "", mean, sd, in10, in25)
        #expect(run.stdout.split(separator: "\n").last.map(String.init) == expected)
        let svg = try String(contentsOf: plot, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("running mean") && svg.contains("By place in the bar"))
        // One dot per hit over time and one by its place in the bar; 2 ms bins.
        func dots(_ group: String) -> Int {
            guard let start = svg.range(of: "<g id=\"\(group)\">"), let end = svg.range(of: "</g>", range: start.upperBound..<svg.endIndex) else { return -1 }
            return svg[start.upperBound..<end.lowerBound].components(separatedBy: "<circle").count - 1
        }
        #expect(dots("over-time") == found.count)
        #expect(dots("by-place") == found.count)
        #expect(svg.contains("hits per 2 ms"))
        // 16 columns at 1/16: beats 1-4 over their first sixteenth, a dot over the others.
        #expect(svg.components(separatedBy: "font-weight=\"bold\">").count - 1 >= 4)
    }

    /// Without --grid the beats and the sounding layer are the grid; `grid` is null.
    @Test func theDefaultGridIsTheBeatAndTheSoundingLayers() throws {
        let dir = scratchFolder()
        let made = try CoachTakeCase(bpm: 90, perBeat: 2, bars: 2, seed: 5, click: false).make()
        let take = dir.appendingPathComponent("take.wav")
        try write(made.take.samples, to: take)
        let out = dir.appendingPathComponent("hits.jsonl")
        let run = try tactus(["coach", "--input", take.path, "--bpm", "90", "--subdivisions", "2", "--offset", "0.3", "--hits", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let found = try hits(out)
        #expect(found.count == made.take.hits.count)
        for (hit, truth) in zip(found, made.take.hits) {
            #expect(hit.grid == nil && hit.index == truth.grid % 8 && hit.beat == (truth.grid % 8) / 2)
        }
    }

    @Test func badTakesGetOneLineAndStatus2() throws {
        let dir = scratchFolder()
        let out = dir.appendingPathComponent("hits.jsonl")
        func coach(_ file: URL, _ extra: [String] = []) throws -> Run {
            try tactus(["coach", "--input", file.path, "--hits", out.path] + extra)
        }
        func expectError(_ run: Run, _ text: String) {
            #expect(run.status == 2)
            #expect(run.stderr.hasPrefix("tactus: error: ") && run.stderr.contains(text), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        let text = dir.appendingPathComponent("notes.wav")
        try "not audio at all".write(to: text, atomically: true, encoding: .utf8)
        expectError(try coach(text), "is not a WAV file")
        let empty = dir.appendingPathComponent("empty.wav")
        try Data().write(to: empty)
        expectError(try coach(empty), "is empty")
        let noFrames = dir.appendingPathComponent("noframes.wav")
        try write([], to: noFrames)
        expectError(try coach(noFrames), "is empty")
        let silent = dir.appendingPathComponent("silent.wav")
        try write([Float](repeating: 0, count: 96000), to: silent)
        expectError(try coach(silent), "has no hits")
        let made = try CoachTakeCase(bpm: 120, perBeat: 2, bars: 2, seed: 8, click: false).make()
        let take = dir.appendingPathComponent("take.wav")
        try write(made.take.samples, to: take)
        expectError(try coach(take, ["--offset", "60"]), "the tempo or --offset is probably wrong")
        expectError(try coach(take, ["--grid", "1/5"]), "--grid '1/5' is invalid")
        expectError(try coach(take, ["--offset", "soon"]), "--offset 'soon' is invalid")
        expectError(try tactus(["coach", "--input", take.path]), "--hits is required")
        expectError(try tactus(["coach", "--input", take.path, "--hits", take.path]), "it is the take given as --input")
        #expect(FileManager.default.fileExists(atPath: take.path))
    }

    /// What a real recording brings: a clipped take is judged with a warning saying how much
    /// clipped; a DC offset (up to 0.1) is removed, with a warning, and every stroke is still
    /// found; a take of the click alone has no hits in any sample format, and says so.
    @Test func clippedDCAndClickOnlyTakes() throws {
        let dir = scratchFolder()
        let made = try CoachTakeCase(bpm: 120, perBeat: 2, bars: 2, seed: 8, click: false).make()
        func judge(_ samples: [Float], _ name: String, format: WAVSampleFormat = .s16) throws -> (Run, [HitLine]) {
            let take = dir.appendingPathComponent(name + ".wav")
            try write(samples, to: take, format: format)
            let out = dir.appendingPathComponent(name + ".jsonl")
            let run = try tactus(["coach", "--input", take.path, "--bpm", "120", "--subdivisions", "2", "--hits", out.path])
            return (run, run.status == 0 ? try hits(out) : [])
        }
        let (plain, plainHits) = try judge(made.take.samples, "plain")
        #expect(plain.status == 0, "\(plain.stderr)")
        let (clipped, clippedHits) = try judge(made.take.samples.map { min(1, max(-1, $0 * 8)) }, "clipped")
        #expect(clipped.status == 0, "\(clipped.stderr)")
        #expect(clipped.stderr.hasPrefix("tactus: warning: --input "), "\(clipped.stderr)")
        #expect(clipped.stderr.contains("is clipped: ") && clipped.stderr.contains("%) at full scale, the first at "), "\(clipped.stderr)")
        #expect(clippedHits.count == plainHits.count)
        for offset in [0.02, 0.1] as [Float] {
            let (shifted, shiftedHits) = try judge(made.take.samples.map { $0 * 0.8 + offset }, "dc\(offset)", format: .f32)
            #expect(shifted.status == 0, "\(shifted.stderr)")
            #expect(shifted.stderr.contains("has a DC offset of +\(offset == 0.1 ? "0.1000" : "0.0200")"), "\(shifted.stderr)")
            #expect(shiftedHits.map(\.sample) == plainHits.map(\.sample))
        }
        for format in WAVSampleFormat.allCases {
            let click = dir.appendingPathComponent("click-\(format).wav")
            let render = try tactus(["render", "--bpm", "120", "--seconds", "4", "--format", "\(format)", "-o", click.path])
            #expect(render.status == 0, "\(render.stderr)")
            let run = try tactus(["coach", "--input", click.path, "--bpm", "120", "--hits", dir.appendingPathComponent("c.jsonl").path])
            #expect(run.status == 2)
            #expect(run.stderr.contains("has no hits: only the click is in it"), "\(format): \(run.stderr)")
        }
    }

    /// `simulate --headless --input`: the take is what the input hears from time 0, and the
    /// box started at 0 plays beat k at k x 0.5 s: one hit line per hit, judged as the truth says.
    @Test func theSimulatorHearsATake() throws {
        let dir = scratchFolder()
        let grid = (1...16).map { Double($0 * 24000) }
        let made = SyntheticTake(grid: grid, sampleRate: 48000, seed: 21, length: 9 * 48000)
        let take = dir.appendingPathComponent("take.wav")
        try write(made.samples, to: take)
        let script = dir.appendingPathComponent("script.txt")
        try "0.000 press start\n9.000 end\n".write(to: script, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out")
        let run = try tactus(["simulate", "--headless", "--script", script.path, "--out", out.path, "--input", take.path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOf: out.appendingPathComponent("events.jsonl"), encoding: .utf8)
            .split(separator: "\n").filter { $0.contains("\"type\":\"hit\"") }
        #expect(lines.count == made.hits.count)
        var times: [Double] = []
        for (line, truth) in zip(lines, made.hits) {
            let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            #expect(Set(o.keys) == ["t", "type", "sample", "bar", "beat", "grid", "index", "error_ms"])
            let beat = truth.grid + 1
            #expect((o["bar"] as! NSNumber).intValue == beat / 4 && (o["beat"] as! NSNumber).intValue == beat % 4)
            #expect((o["index"] as! NSNumber).intValue == beat % 4)
            #expect(abs((o["error_ms"] as! NSNumber).doubleValue - truth.offsetMilliseconds) <= 1)
            times.append((o["t"] as! NSNumber).doubleValue)
        }
        #expect(times == times.sorted())
        let bad = try tactus(["simulate", "--headless", "--script", script.path, "--out", out.path, "--input", script.path])
        #expect(bad.status == 2 && bad.stderr.contains("--input") && bad.stderr.contains("is not a WAV file"))
    }
}
