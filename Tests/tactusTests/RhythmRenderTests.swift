// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// `tactus render` with swing, grooves, Euclidean and grouped accents and poly layers:
/// the notes' vectors end to end, in the events file, and one-line errors.
@Suite struct RhythmRenderTests {
    struct Onset {
        let sample: Int64
        let kind: String
        let layer: Int
        let index: Int?
    }

    func render(_ arguments: [String], changes: String? = nil) throws -> (Run, [Onset]) {
        let dir = scratchFolder()
        let events = dir.appendingPathComponent("e.jsonl")
        var extra: [String] = []
        if let changes {
            let file = dir.appendingPathComponent("changes.txt")
            try changes.write(to: file, atomically: true, encoding: .utf8)
            extra = ["--changes", file.path]
        }
        let run = try tactus(["render"] + arguments + extra + ["--events", events.path, "-o", dir.appendingPathComponent("x.wav").path])
        guard run.status == 0 else { return (run, []) }
        let text = try String(contentsOf: events, encoding: .utf8)
        let found = try text.split(separator: "\n").filter { !$0.contains("\"type\":\"midi\"") }.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            return Onset(sample: (object["sample"] as! NSNumber).int64Value, kind: object["kind"] as! String,
                         layer: (object["layer"] as! NSNumber).intValue, index: (object["index"] as? NSNumber)?.intValue)
        }
        return (run, found)
    }

    @Test func swingVectors() throws {
        let (run, found) = try render(["--bpm", "120", "--swing", "2:1", "--bars", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        let subs = found.filter { $0.kind == "sub" }
        #expect(subs.map(\.sample) == (0..<8).map { (k: Int64) -> Int64 in 16000 + 24000 * k })
        #expect(subs.allSatisfy { $0.layer == 2 })
        let (_, mpc) = try render(["--bpm", "120", "--swing", "66%", "--subdivisions", "2", "--bars", "2"])
        #expect(mpc.filter { $0.kind == "sub" }.map(\.sample) == (0..<8).map { (k: Int64) -> Int64 in 15840 + 24000 * k })
        // Triplet swing with layer 3: the swung 8th is layer 3's second triplet, played once by layer 2.
        let (_, both) = try render(["--bpm", "120", "--swing", "triplet", "--subdivisions", "3", "--bars", "1"])
        #expect(both.prefix(3).map(\.sample) == [0, 8000, 16000])
        #expect(both.prefix(3).map(\.layer) == [0, 3, 2])
    }

    @Test func polyAndEuclideanVectors() throws {
        let (run, found) = try render(["--bpm", "137", "--poly", "3", "--accents", ".xxx", "--bars", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let poly = found.filter { $0.kind == "poly" }
        #expect(poly.map(\.sample) == [0, 28029, 56058])
        #expect(poly.map(\.layer) == [1, 1, 1])
        #expect(poly.map(\.index) == [0, 1, 2])
        let (_, two) = try render(["--bpm", "120", "--poly", "3", "--poly", "E(3,8)", "--bars", "1"])
        #expect(two.filter { $0.kind == "poly" }.map { [$0.layer, Int($0.sample)] } == [[1, 32000], [2, 36000], [1, 64000]]) // E(3,8)'s third onset is beat 3
        // Each poly event names its layer's n and span, as the notes write it, also in a song.
        for bpm in ["120", "120-120"] {
            let dir = scratchFolder()
            let events = dir.appendingPathComponent("e.jsonl")
            let shaped = try tactus(["render", "--bpm", bpm, "--poly", "3", "--poly", "5/2b", "--bars", "1", "--events", events.path,
                                     "-o", dir.appendingPathComponent("x.wav").path])
            #expect(shaped.status == 0, "\(shaped.stderr)")
            let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").filter { $0.contains("\"poly\"") }
            #expect(lines.filter { $0.contains("\"layer\":1,") }.allSatisfy { $0.contains("\"n\":3,\"span\":\"bar\"") }, "\(lines)")
            #expect(lines.filter { $0.contains("\"layer\":2,") }.allSatisfy { $0.contains("\"n\":5,\"span\":\"2b\"") }, "\(lines)")
            #expect(lines.contains { $0.contains("\"layer\":1,") && $0.contains("\"index\":2") }, "\(lines)")
        }
        let (_, euclid) = try render(["--accents", "E(3,8)", "--meter", "8/8", "--bpm", "120", "--bars", "1"])
        #expect(euclid.filter { $0.kind == "accent" }.map(\.sample) == [0, 72000, 144000])
        #expect(euclid.filter { $0.kind == "beat" }.count == 5)
        let (_, grouped) = try render(["--accents", "3+2+2", "--meter", "7/8", "--bpm", "120", "--bars", "1", "--volume", "soft=50,poly1=40"])
        #expect(grouped.map(\.kind) == ["accent", "beat", "beat", "soft", "beat", "soft", "beat"])
    }

    @Test func grooveAndChanges() throws {
        let (run, found) = try render(["--bpm", "120", "--groove", "3,2,2,3", "--bars", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(found.prefix(4).map(\.sample) == [0, 7200, 12000, 16800])
        // Live: swing and poly switched on at 2 s (bar 1), off again at 4 s.
        let (changed, events) = try render(["--bpm", "120", "--bars", "3"],
                                           changes: "2 set swing=triplet poly=3\n4 set swing=none poly=none\n")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(events.filter { $0.kind == "sub" }.map(\.sample) == (4..<8).map { (k: Int64) -> Int64 in 16000 + 24000 * k })
        let poly: [Int64] = events.filter { $0.kind == "poly" }.map(\.sample)
        // 160000 (2/3 of bar 1) is also beat 2's swung 8th: played once, as the subdivision.
        #expect(poly == [128_000])
        #expect(events.contains { $0.sample == 160_000 && $0.kind == "sub" })
        #expect(events.filter { $0.kind != "sub" && $0.kind != "poly" }.count == 12)
    }

    @Test(arguments: [
        (["--swing", "2:1@3"], "--swing '2:1@3' is invalid: the layer after @ must be 2, 4, 6 or 8"),
        (["--swing", "66"], "--swing '66' is invalid: expected N% (MPC"),
        (["--groove", "3,2,2,3@6"], "--groove '3,2,2,3@6' is invalid: the layer after @ must be 2 to 9 and a multiple of the 4 weights"),
        (["--groove", "9,1*130%"], "--groove '9,1*130%' is invalid: an amount of 130 % reorders the notes; this groove allows less than 125 %"),
        (["--poly", "0"], "--poly '0' is invalid: expected N (N onsets over the bar)"),
        (["--poly", "3", "--poly", "E(9,8)"], "--poly 'E(9,8)' is invalid"),
        (["--poly", "2", "--poly", "3", "--poly", "4", "--poly", "5", "--poly", "6"], "at most 4 poly layers"),
        (["--accents", "3+2+2"], "--accents '3+2+2' is invalid: the groups add up to 7 but the bar has 4 beats; they must be equal"),
        (["--accents", "E(3,8,8)"], "--accents 'E(3,8,8)' is invalid"),
        (["--volume", "poly5=10"], "--volume 'poly5' is invalid: names are master, accent, soft, beat, sub2 ... sub9, poly1 ... poly4"),
    ])
    func badValuesGetOneLine(arguments: [String], message: String) throws {
        let (run, _) = try render(arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func badChangeLinesNameTheLine() throws {
        let (run, _) = try render(["--bars", "2"], changes: "1 set swing=triplet\n2 set accents=3+2\n")
        #expect(run.status == 2)
        #expect(run.stderr.contains("changes.txt:2: accents '3+2' is invalid: the groups add up to 5 but the bar has 4 beats"), "\(run.stderr)")
    }
}

/// `tactus simulate --headless` with a scripted slow turn on the swing field.
@Suite struct RhythmSimulateTests {
    @Test func aScriptedSlowTurnStepsStraightToDotted() throws {
        let dir = scratchFolder()
        let script = dir.appendingPathComponent("swing.txt")
        try """
            0 press wheel short
            1 press wheel short
            2 press wheel short
            3 turn +9 over 0.9 pushed   # to the swing field
            5 turn +5 over 5            # slow: one tempered step per detent, the fifth a bump
            11 end
            """.write(to: script, atomically: true, encoding: .utf8)
        let run = try tactus(["simulate", "--headless", "--script", script.path, "--out", dir.appendingPathComponent("o").path])
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOf: dir.appendingPathComponent("o/events.jsonl"), encoding: .utf8)
        var swings: [String] = []
        var buzzes: [String] = []
        for line in text.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            if object["type"] as? String == "state" {
                let swing = object["swing"] as? String ?? "straight"
                if swings.last != swing { swings.append(swing) }
            }
            if object["type"] as? String == "buzzer", let t = object["t"] as? Double, t >= 5 { buzzes.append(object["kind"] as! String) }
        }
        #expect(swings == ["straight", "septuplet", "quintuplet", "triplet", "dotted"])
        #expect(buzzes == ["tick", "tick", "tick", "tick", "bump"])
    }
}
