// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import HAL
import TactusBase
import LinuxHAL
import Synchronization

/// A deterministic renderer: sample (frame f, channel c) is `rampValue(f, c)`. Values are
/// multiples of 1/32768, so Float and 16-bit captures can both be compared exactly.
final class RampRenderer: AudioRenderer {
    let channels: Int
    let framesRendered = Atomic<Int>(0)
    /// Nanoseconds to sleep inside the next render call: an injected stall.
    let pendingStall = Atomic<Int>(0)
    let calls = Atomic<Int>(0)

    init(channels: Int) { self.channels = channels }

    static func rampValue(frame: Int, channel: Int) -> Float {
        Float((frame * 7 + channel * 12345) % 65536 - 32768) / 32768
    }

    func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) {
        let stall = pendingStall.exchange(0, ordering: .relaxed)
        if stall > 0 { usleep(UInt32(stall / 1000)) }
        let start = framesRendered.load(ordering: .relaxed)
        for i in 0..<frameCount {
            for c in 0..<channels { buffer[i * channels + c] = Self.rampValue(frame: start + i, channel: c) }
        }
        framesRendered.store(start + frameCount, ordering: .relaxed)
        calls.add(1, ordering: .relaxed)
    }
}

/// Collects log lines so tests can assert on what the operator would read.
final class LogRecorder: Sendable {
    let lines = Mutex<[String]>([])
    var log: HALLog {
        HALLog { level, message in self.lines.withLock { $0.append("\(level.rawValue): \(message)") } }
    }
    func contains(_ text: String) -> Bool { lines.withLock { $0.contains { $0.contains(text) } } }
    var all: [String] { lines.withLock { $0 } }
}

func waitUntil(timeoutSeconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

func temporaryDirectory(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A JACK server with the dummy backend: a sound card paced by the system clock, without
/// hardware or kernel modules. Each test gets its own server name so parallel runs do not meet.
final class DummyJackServer {
    let name: String
    let rate: Int
    let period: Int
    private var process: Process?

    init(name: String, rate: Int = 48000, period: Int = 256) {
        self.name = name
        self.rate = rate
        self.period = period
    }

    static var jackdPath: String? {
        ["/usr/bin/jackd", "/usr/local/bin/jackd"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func start() throws {
        // Real-time when permitted, so a loaded machine disturbs the device's pace less;
        // if jackd refuses to run that way (no CAP_SYS_NICE), start it without.
        if try launch(realtime: true) { return }
        _ = try launch(realtime: false)
    }

    /// Returns false when jackd did not come up. On a busy host a server can take seconds to
    /// accept clients, so this waits for it (`jack_wait`) instead of guessing a delay.
    private func launch(realtime: Bool) throws -> Bool {
        guard let path = Self.jackdPath else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-n", name] + (realtime ? ["-R", "-P", "60"] : ["--no-realtime"])
            + ["-d", "dummy", "-r", "\(rate)", "-p", "\(period)", "-P", "2", "-C", "0"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let waiter = Process()
        waiter.executableURL = URL(fileURLWithPath: "/usr/bin/jack_wait")
        waiter.arguments = ["-s", name, "-w", "-t", "30"]
        waiter.standardOutput = FileHandle.nullDevice
        waiter.standardError = FileHandle.nullDevice
        waiter.environment = ["JACK_NO_START_SERVER": "1"]
        if (try? waiter.run()) != nil {
            waiter.waitUntilExit()
        } else {
            usleep(200_000)
        }
        if process.isRunning { return true }
        self.process = nil
        return false
    }

    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
        self.process = nil
    }

    deinit { stop() }

    /// The ALSA configuration of a stereo PCM "paced" playing into this server.
    var alsaConfiguration: String {
        """
        pcm.paced {
            type plug
            slave.pcm { type jack playback_ports { 0 system:playback_1 1 system:playback_2 } }
        }
        """
    }
}
