// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import HAL
import TactusBase
import LinuxHAL

/// A device that plays in real time: JACK's dummy backend behind ALSA's jack and plug
/// plugins. Shows the sink keeping pace, recovering an injected stall (an xrun), and coming
/// back after the device disappears. Needs jackd (scripts/install-deps.sh test installs jackd2).
@Suite(.serialized) struct ALSAPacedDeviceTests {
    /// libjack reads the server name from the environment; the jack ALSA plugin has no option for it.
    func useServer(_ server: DummyJackServer) {
        setenv("JACK_DEFAULT_SERVER", server.name, 1)
        setenv("JACK_NO_START_SERVER", "1", 1)
    }

    func pacedConfiguration(_ server: DummyJackServer) -> ALSASink.Configuration {
        var configuration = ALSASink.Configuration(device: "paced")
        configuration.inlineConfiguration = server.alsaConfiguration
        configuration.retryIntervalNanoseconds = 300_000_000
        configuration.stallTimeoutNanoseconds = 700_000_000
        return configuration
    }

    /// Frames per second that count as paced by the device: well under the millions an unpaced
    /// device runs at, and not stalled.
    func pacedRange(_ format: AudioFormat) -> ClosedRange<Double> {
        Double(format.sampleRate) * 0.5...Double(format.sampleRate) * 1.1
    }

    @Test func playsInRealTimeAndRecoversAnInjectedStall() throws {
        let server = DummyJackServer(name: "tactus-paced-\(getpid())")
        guard DummyJackServer.jackdPath != nil else {
            Issue.record("jackd is not installed: run scripts/install-deps.sh test (package jackd2); the paced-device test cannot run")
            return
        }
        try server.start()
        defer { server.stop() }
        useServer(server)
        let recorder = LogRecorder()
        let sink = ALSASink(pacedConfiguration(server), log: recorder.log)
        var attempts = 0
        guard let format = sink.negotiateWhenAvailable(shouldContinue: { attempts += 1; return attempts < 100 }) else {
            Issue.record("the JACK dummy device did not come up: \(recorder.all)")
            return
        }
        print("paced device format: \(format)")
        let renderer = RampRenderer(channels: format.channels)
        try sink.start(renderer)
        defer { sink.stop() }

        // Pacing: after a warm-up, frames go out at the sample rate (not as fast as the CPU can).
        usleep(300_000)
        let first = sink.outputPosition
        usleep(2_000_000)
        let second = sink.outputPosition
        let seconds = Double(second.timestamp.nanoseconds(since: first.timestamp)) / 1e9
        let rate = Double(second.framesRendered - first.framesRendered) / seconds
        print("paced device: \(rate) frames/s over \(seconds) s, delay \(second.delayFrames) frames, xruns \(sink.xrunCount), priority \(sink.threadPriority), memory locked \(sink.memoryLocked)")
        // Paced, not CPU-bound (the unpaced file device runs at millions of frames/s). The pace
        // is jackd's dummy timer: on a shared CI machine with both cores busy it was measured at
        // 0.73x the nominal rate (35,222 frames/s), so the bound is about pacing, not jackd's clock.
        #expect(pacedRange(format).contains(rate), "\(rate) frames/s is not paced near \(format.sampleRate)")
        #expect(second.delayFrames > 0 && second.delayFrames <= format.bufferFrames + 4096)
        let xrunsBeforeStall = sink.xrunCount

        // Injected stall: the renderer sleeps 150 ms, longer than the whole buffer.
        renderer.pendingStall.store(150_000_000, ordering: .relaxed)
        #expect(waitUntil(timeoutSeconds: 3) { sink.xrunCount > xrunsBeforeStall })
        #expect(waitUntil(timeoutSeconds: 2) { recorder.contains("recovered") }, "the xrun is logged (by the supervisor thread)")

        // And playback continues at pace.
        usleep(200_000)
        let third = sink.outputPosition
        usleep(1_000_000)
        let fourth = sink.outputPosition
        let rateAfter = Double(fourth.framesRendered - third.framesRendered) / (Double(fourth.timestamp.nanoseconds(since: third.timestamp)) / 1e9)
        print("after the stall: \(rateAfter) frames/s, xruns \(sink.xrunCount); log: \(recorder.all)")
        #expect(pacedRange(format).contains(rateAfter), "after the stall \(rateAfter) frames/s is not paced near \(format.sampleRate)")
    }

    @Test func comesBackAfterTheDeviceDisappears() throws {
        guard DummyJackServer.jackdPath != nil else {
            Issue.record("jackd is not installed: run scripts/install-deps.sh test (package jackd2)")
            return
        }
        let server = DummyJackServer(name: "tactus-replug-\(getpid())")
        useServer(server)
        let recorder = LogRecorder()
        let sink = ALSASink(pacedConfiguration(server), log: recorder.log)
        // Absent at first: a clear error, then it is found once the server starts.
        #expect(throws: HALError.self) { _ = try sink.negotiate() }
        try server.start()
        var attempts = 0
        guard let format = sink.negotiateWhenAvailable(shouldContinue: { attempts += 1; return attempts < 100 }) else {
            Issue.record("the JACK dummy device did not come up: \(recorder.all)")
            return
        }
        let renderer = RampRenderer(channels: format.channels)
        try sink.start(renderer)
        defer { sink.stop() }
        #expect(waitUntil(timeoutSeconds: 3) { renderer.framesRendered.load(ordering: .relaxed) > 48000 })

        // Unplugged: the server goes away.
        server.stop()
        #expect(waitUntil(timeoutSeconds: 5) { recorder.contains("stopped working") }, "log: \(recorder.all)")
        let framesWhileAway = renderer.framesRendered.load(ordering: .relaxed)
        usleep(500_000)
        #expect(renderer.framesRendered.load(ordering: .relaxed) == framesWhileAway, "nothing renders while the device is gone")

        // Plugged back in: playback resumes by itself.
        try server.start()
        #expect(waitUntil(timeoutSeconds: 10) { recorder.contains("is back") }, "log: \(recorder.all)")
        #expect(waitUntil(timeoutSeconds: 3) { renderer.framesRendered.load(ordering: .relaxed) > framesWhileAway + 24000 })
        print("replug log: \(recorder.all)")
    }
}
