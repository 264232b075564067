// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import Testing

private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

private func lines(_ url: URL) throws -> [[String: Any]] {
    try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
}

/// `simulate --headless --realtime`: the script on the real clock, every line with `mono`.
@Suite(.serialized) struct RealtimeSimulationTests {
    @Test func runsAtRealSpeedAndDatesEveryLineOnTheMonotonicClock() throws {
        let dir = scratchFolder()
        let script = dir.appendingPathComponent("s.txt")
        try "0.2 press start\n1.2 end\n".write(to: script, atomically: true, encoding: .utf8)
        let before = monotonicSeconds()
        let run = try tactus(["simulate", "--headless", "--realtime", "--script", script.path, "--out", dir.path + "/o"])
        let after = monotonicSeconds()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(after - before >= 1.2, "1.2 s of script took \(after - before) s")
        let events = try lines(dir.appendingPathComponent("o/events.jsonl"))
        let origins = events.map { ($0["mono"] as! Double) - ($0["t"] as! Double) }
        // mono = t + the run's start on CLOCK_MONOTONIC, for every line (6 decimals each).
        #expect(origins.allSatisfy { abs($0 - origins[0]) < 2e-6 })
        #expect(origins[0] >= before && origins[0] + 1.2 <= after)
        // 120 BPM from 0.2 s (a period boundary at 48 kHz): 0.5 s apart; `t` and `mono` say
        // when each is heard.
        let onsets = events.filter { $0["type"] as? String == "onset" }
        #expect(onsets.map { $0["sample"] as! Int } == [9600, 33600])
        #expect(onsets.map { $0["t"] as! Double } == [0.2, 0.7])
    }

    @Test func sigtermEndsTheRunAsEndDoesWithEverythingWritten() throws {
        let dir = scratchFolder()
        let script = dir.appendingPathComponent("s.txt")
        try "0.1 press start\n600 end\n".write(to: script, atomically: true, encoding: .utf8)
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("tactus").path) { folder.deleteLastPathComponent() }
        let process = Process()
        process.executableURL = folder.appendingPathComponent("tactus")
        process.arguments = ["simulate", "--headless", "--realtime", "--script", script.path, "--out", dir.path + "/o"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // Until the first click is written: the run is under way.
        let events = dir.appendingPathComponent("o/events.jsonl")
        let deadline = monotonicSeconds() + 20
        while monotonicSeconds() < deadline, !((try? String(contentsOf: events, encoding: .utf8))?.contains("\"onset\"") ?? false) {
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.hasPrefix("Simulated ") && !said.hasPrefix("Simulated 600 "))
        #expect(try lines(events).contains { $0["type"] as? String == "onset" })
        // The WAV's header was rewritten with the length of what was rendered (more than 0.1 s).
        let wav = try Data(contentsOf: dir.appendingPathComponent("o/audio.wav"))
        let riffBytes = wav[4..<8].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        #expect(Int(riffBytes) == wav.count - 8 && wav.count > 48_000)
    }
}
