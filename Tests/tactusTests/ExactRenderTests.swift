// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// Issue 12's reproducers as a user types them: `tactus render --changes`, onsets read back
/// from the events file.
@Suite struct ExactRenderTests {
    struct Onset: Equatable, CustomStringConvertible {
        let sample: Int64
        let bar: Int
        let beat: Int
        let kind: String
        var description: String { "\(sample) \(bar):\(beat) \(kind)" }
    }

    func render(_ arguments: [String], changes: String) throws -> [Onset] {
        let dir = scratchFolder()
        let events = dir.appendingPathComponent("e.jsonl")
        let file = dir.appendingPathComponent("c")
        try changes.write(to: file, atomically: true, encoding: .utf8)
        let run = try tactus(["render"] + arguments + ["--changes", file.path, "--events", events.path, "-o", dir.appendingPathComponent("x.wav").path])
        #expect(run.status == 0, "\(run.stderr)")
        return try String(contentsOf: events, encoding: .utf8).split(separator: "\n").filter { !$0.contains("\"type\":\"midi\"") }.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            return Onset(sample: (object["sample"] as! NSNumber).int64Value, bar: (object["bar"] as! NSNumber).intValue,
                         beat: (object["beat"] as! NSNumber).intValue, kind: object["kind"] as! String)
        }
    }

    /// Beats of one bar after another, each once, in order.
    func expectInOrder(_ onsets: [Onset], bars: [Int]) {
        let beats = onsets.filter { $0.kind != "sub" }
        let expected = bars.enumerated().flatMap { bar, count in (0..<count).map { [bar, $0] } }
        #expect(beats.map { [$0.bar, $0.beat] } == expected)
        #expect(zip(onsets, onsets.dropFirst()).allSatisfy { $0.sample < $1.sample })
    }

    @Test func meterShrinkingToFourFifthsPlaysBeatThreeOnce() throws {
        // `1.65 set meter=4/5` at 120 BPM: bar 0 beat 3 at 72000 once (it played again at 91200
        // before). The beat unit becomes 1/5: the rest of the beat (0.7 quarter = 0.875 fifth)
        // lasts 21000 samples, so bar 1 starts at 100200, then a fifth-note beat every 24000.
        let onsets = try render(["--bpm", "120", "--meter", "4/4", "--bars", "3"], changes: "1.65 set meter=4/5\n")
        expectInOrder(onsets, bars: [4, 4, 4])
        #expect(onsets.map(\.sample) == [0, 24000, 48000, 72000, 100_200, 124_200, 148_200, 172_200,
                                         196_200, 220_200, 244_200, 268_200])
    }

    @Test func meterShrinkingToNineSixteenthsKeepsBeatsInOrder() throws {
        // 9/16 counts sixteenths: the rest of beat 3 (2.8 sixteenths) ends at 146400.
        let onsets = try render(["--bpm", "120", "--meter", "4/4", "--bars", "3"], changes: "1.65 set meter=9/16\n")
        expectInOrder(onsets, bars: [4, 9, 9])
        #expect(onsets.prefix(6).map(\.sample) == [0, 24000, 48000, 72000, 146_400, 170_400])
        #expect(onsets.last.map(\.sample) == Int64(146_400 + 17 * 24000))
    }

    @Test func shrinkingWithSubdivisionsFinishesTheBeatWithThem() throws {
        let onsets = try render(["--bpm", "120", "--meter", "4/4", "--subdivisions", "2", "--bars", "2"], changes: "1.65 set meter=3/4\n")
        expectInOrder(onsets, bars: [4, 3])
        #expect(onsets.map(\.description).prefix(10).suffix(4) == ["72000 0:3 beat", "84000 0:3 sub", "96000 1:0 accent", "108000 1:0 sub"])
    }
}
