// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// The coach on takes from sampled drum kits: scripts/make-drum-kits.py renders each
/// instrument's note from Debian's soundfonts with fluidsynth and places copies at exact
/// samples (the "unit" set, 34 takes, made once into .build/drum-takes/unit), and
/// scripts/score-coach.py scores `tactus coach` on them. `make test` installs the kits;
/// without them these tests are skipped, saying so.
@Suite(.serialized, .enabled(if: DrumKit.missing == nil, "SKIPPED: \(DrumKit.missing ?? "")"))
struct CoachDrumKitTests {
    /// Counted over every take of the unit set.
    @Test func theSampledKitsAsAWhole() throws {
        let total = try DrumKit.scores.get().total
        let strokes = Double(total.strokes)
        #expect(total.strokes > 900)
        // What the detector does today (docs/manual/coach.md: 95.8 %, 0.3 %, 0.6 %), so it
        // cannot get worse unseen ...
        #expect(Double(total.within1ms) >= 0.95 * strokes, "\(total)")
        #expect(Double(total.missed) <= 0.01 * strokes, "\(total)")
        #expect(Double(total.extra) <= 0.01 * strokes, "\(total)")
        #expect(total.flamsMarked * 100 >= total.flams * 89, "\(total)")
        // ... and the issue's figures, not met yet.
        withKnownIssue("99 % within 1 ms, 90 % of ghost notes: not met yet (issue 31)") {
            #expect(Double(total.within1ms) >= 0.99 * strokes && Double(total.ghostsFound) >= 0.9 * Double(total.ghosts), "\(total)")
        }
    }

    /// Eight kicks, their low ring over a second long, are eight hits.
    @Test func eightKicksAreEightHits() throws {
        let take = try DrumKit.take("unit-000")
        #expect(take.groove == "solo:kick" && take.strokes.count == 8)
        let (run, hits) = try DrumKit.coach(take)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(take.errorsMs(hits.map(\.sample)).allSatisfy { $0 != nil && abs($0!) <= 1 }, "\(hits.map(\.sample))")
        // It was `hits 40` (the ring swelling back); a swell has nothing in the high band.
        #expect(hits.count == 8, "\(hits.map(\.sample))")
        #expect(run.stdout.contains("hits 8,"), "\(run.stdout)")
    }

    /// A cowbell 8-15 ms late on the beats under a woodblock click bleeding in at -12 dB:
    /// every stroke at its own time (taking the click out neither removes nor moves it).
    @Test func aLateCowbellUnderTheClickIsLate() throws {
        let take = try DrumKit.take("unit-001")
        #expect(take.groove == "solo:cowbell" && take.click)
        let (run, hits) = try DrumKit.coach(take)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("click bleed: round trip"), "\(run.stdout)")
        #expect(hits.count == take.strokes.count)
        let errors = take.errorsMs(hits.map(\.sample))
        #expect(errors.allSatisfy { $0 != nil } && errors.filter { abs($0 ?? 99) <= 1 }.count >= 39, "\(errors)")
        // On the beats, under the click: 8-15 ms late, as played (it said +0.0 ms).
        let onBeat = hits.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.errorMs).sorted()
        #expect(onBeat[onBeat.count / 2] >= 8 && onBeat[onBeat.count / 2] <= 15 && onBeat.filter { $0 >= 7 }.count >= 19, "\(onBeat)")
        #expect(errors.allSatisfy { $0 != nil && abs($0!) <= 1 }, "\(errors)")
    }

    /// The click alone, in s16, s24, s32 and f32: no hits, and the coach says so.
    @Test(arguments: ["unit-002", "unit-007", "unit-008", "unit-009"])
    func aClickOnlyTakeHasNoHits(name: String) throws {
        let take = try DrumKit.take(name)
        #expect(take.groove == "clickonly")
        let (run, hits) = try DrumKit.coach(take)
        #expect(run.status != 0 && hits.isEmpty)
        #expect(run.stderr.contains("has no hits: only the click is in it"), "\(take.format): \(run.stderr)")
    }

    /// A DC offset of +0.1 is removed, with a warning: every stroke found.
    @Test func aDCOffsetIsRemoved() throws {
        let take = try DrumKit.take("unit-003")
        #expect(take.dc == 0.1)
        let (run, hits) = try DrumKit.coach(take)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("DC offset of +0.1"), "\(run.stderr)")
        let errors = take.errorsMs(hits.map(\.sample))
        #expect(errors.allSatisfy { $0 != nil } && hits.count == take.strokes.count, "\(errors)")
    }

    /// Flams (a grace stroke 15-25 ms before, 12 dB down): one hit each, at the main stroke, marked.
    @Test func aFlamIsOneHitAtItsMainStroke() throws {
        let take = try DrumKit.take("unit-004")
        let flams = take.strokes.filter(\.flam)
        #expect(flams.count >= 10)
        let (run, hits) = try DrumKit.coach(take)
        #expect(run.status == 0, "\(run.stderr)")
        let ms = Int64(take.sampleRate / 1000)
        var wrong: [String] = []
        for stroke in flams {
            let near = hits.filter { abs($0.sample - stroke.sample) <= 30 * ms }
            if !(near.count == 1 && near[0].flam && abs(near[0].sample - stroke.sample) <= 2 * ms) {
                wrong.append("flam at \(stroke.sample): \(near.map { ($0.sample, $0.flam) })")
            }
        }
        // 15 of 18 today; every one is the issue's figure.
        #expect(wrong.count <= 3, "\(wrong)")
        withKnownIssue("3 of 18 flams are one unmarked hit (one at the grace stroke)") {
            #expect(wrong.isEmpty, "\(wrong)")
        }
    }

    /// A side stick's soft pre-attack: found on its first sample, not 1.33 ms late.
    @Test(arguments: ["unit-006", "unit-013"])
    func aSideStickIsOnItsFirstSample(name: String) throws {
        let take = try DrumKit.take(name)
        #expect(take.groove == "solo:stick")
        let (_, hits) = try DrumKit.coach(take)
        let errors = take.errorsMs(hits.map(\.sample)).compactMap { $0 }
        #expect(errors.count == take.strokes.count && hits.count == take.strokes.count)
        let sorted = errors.map(abs).sorted()
        #expect(sorted[sorted.count / 2] <= 0.25, "median |error| \(sorted[sorted.count / 2]) ms")
    }

    /// A clipped take is judged, with a warning naming how many samples clipped.
    @Test func aClippedTakeIsJudgedWithAWarning() throws {
        let take = try DrumKit.take("unit-010")
        #expect(take.clippedSamples > 0)
        let (run, hits) = try DrumKit.coach(take)
        #expect(run.status == 0, "\(run.stderr)")
        // Every sample at full scale: those the take's peaks clipped, and any at full scale already.
        let said = run.stderr.split(separator: "is clipped: ").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
        #expect(said.map { $0 >= take.clippedSamples && $0 <= take.clippedSamples + take.clippedSamples / 100 } == true,
                "truth \(take.clippedSamples): \(run.stderr)")
        #expect(take.errorsMs(hits.map(\.sample)).allSatisfy { $0 != nil })
    }
}

/// The unit set of sampled-kit takes, made and scored by the repository's scripts.
enum DrumKit {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let folder = root.appendingPathComponent(".build/drum-takes/unit")

    /// Why the takes cannot be made here, or nil.
    static let missing: String? = {
        let needed = ["/usr/bin/fluidsynth", "/usr/bin/sox", "/usr/share/sounds/sf2/FluidR3_GM.sf2",
                      "/usr/share/sounds/sf2/TimGM6mb.sf2", "/usr/lib/python3/dist-packages/numpy"]
        let absent = needed.filter { !FileManager.default.fileExists(atPath: $0) }
        return absent.isEmpty ? nil
            : "the sampled drum kits cannot be made: missing \(absent.joined(separator: ", ")) (scripts/install-deps.sh test)"
    }()

    struct Stroke {
        var sample: Int64
        var flam: Bool
        var ghost: Bool
    }

    struct Take {
        var name: String
        var path: String
        var groove: String
        var format: String
        var sampleRate: Int
        var dc: Double
        var click: Bool
        var clippedSamples: Int
        var strokes: [Stroke]
        var coachArguments: [String]

        /// Each stroke's error in ms against the nearest hit within 25 ms, nil when none is.
        func errorsMs(_ hits: [Int64]) -> [Double?] {
            strokes.filter { !$0.ghost }.map { stroke in
                hits.map { Double($0 - stroke.sample) * 1000 / Double(sampleRate) }.filter { abs($0) <= 25 }
                    .min { abs($0) < abs($1) }
            }
        }
    }

    struct Figures: CustomStringConvertible {
        var strokes, within1ms, missed, extra, ghosts, ghostsFound, flams, flamsMarked: Int
        var description: String {
            "\(within1ms) of \(strokes) strokes within 1 ms, \(missed) missed, \(extra) extra, ghosts \(ghostsFound) of \(ghosts), flams marked \(flamsMarked) of \(flams)"
        }
    }

    struct Hit {
        var sample: Int64
        var errorMs: Double
        var flam: Bool
    }

    static func python(_ script: String, _ arguments: [String]) throws -> Run {
        try runProcess(URL(fileURLWithPath: "/usr/bin/python3"), [script] + arguments, in: root)
    }

    /// The takes, made once (the script keeps what it made before for the same version and seed).
    static let takes: Result<[Take], Error> = Result {
        let made = try python("scripts/make-drum-kits.py", ["--out", folder.path, "--set", "unit", "--seed", "1",
                                                            "--tactus", tactusExecutable().path])
        guard made.status == 0 else { throw Failure("make-drum-kits.py: \(made.stderr)") }
        let names = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("index.json"))) as! [String]
        return try names.map(read)
    }

    static func read(_ name: String) throws -> Take {
        let o = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(name + ".json"))) as! [String: Any]
        let strokes = (o["strokes"] as! [[String: Any]]).map {
            Stroke(sample: ($0["sample"] as! NSNumber).int64Value, flam: $0["flam"] as! Bool, ghost: $0["ghost"] as! Bool)
        }
        return Take(name: name, path: folder.appendingPathComponent(name + ".wav").path, groove: o["groove"] as! String,
                    format: o["format"] as! String, sampleRate: (o["rate"] as! NSNumber).intValue,
                    dc: (o["dc"] as! NSNumber).doubleValue, click: !(o["click"] is NSNull),
                    clippedSamples: (o["clipped_samples"] as! NSNumber).intValue, strokes: strokes,
                    coachArguments: o["coach_args"] as! [String])
    }

    static func take(_ name: String) throws -> Take {
        try #require(try takes.get().first { $0.name == name }, "take \(name)")
    }

    /// scripts/score-coach.py's figures for `tactus coach` over the whole set, scored once.
    static let scores: Result<(total: Figures, takes: [String: Figures]), Error> = Result {
        _ = try takes.get()
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-drum-scores-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let scored = try python("scripts/score-coach.py", [folder.path, "--tactus", tactusExecutable().path, "--json", json.path])
        guard scored.status == 0 else { throw Failure("score-coach.py: \(scored.stderr)") }
        let o = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as! [String: Any]
        func figures(_ f: Any?) -> Figures {
            let d = (f as! [String: Any]).mapValues { ($0 as! NSNumber).intValue }
            return Figures(strokes: d["strokes"]!, within1ms: d["within_1ms"]!, missed: d["missed"]!, extra: d["extra"]!,
                           ghosts: d["ghosts"]!, ghostsFound: d["ghosts_found"]!, flams: d["flams"]!, flamsMarked: d["flams_marked"]!)
        }
        return (figures(o["total"]), (o["takes"] as! [String: Any]).mapValues(figures))
    }

    /// `tactus coach` on a take with the take's own flags: the run and its hit lines.
    static func coach(_ take: Take) throws -> (run: Run, hits: [Hit]) {
        let out = scratchFolder().appendingPathComponent("hits.jsonl")
        let run = try tactus(["coach", "--input", take.path, "--hits", out.path] + take.coachArguments)
        guard run.status == 0 else { return (run, []) }
        let hits = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map { line in
            let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            return Hit(sample: (o["sample"] as! NSNumber).int64Value, errorMs: (o["error_ms"] as! NSNumber).doubleValue,
                       flam: o["flam"] as? Bool ?? false)
        }
        return (run, hits)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
