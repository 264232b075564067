// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import HAL
import TactusBase
import LinuxHAL

/// The real libasound path, into ALSA's `file` plugin (over a `null` slave): the captured
/// bytes must be exactly the samples the renderer produced, in the negotiated format.
@Suite struct ALSAFileCaptureTests {
    func captureConfiguration(_ path: String) -> String {
        "pcm.capture { type file slave { pcm { type null } } file \"\(path)\" format \"raw\" truncate true }"
    }

    func play(format sampleFormat: ALSASampleFormat, channels: Int, periodFrames: Int, minimumFrames: Int)
        throws -> (captured: Data, rendered: Int, format: AudioFormat, sink: ALSASink) {
        let directory = try temporaryDirectory("capture")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("out.raw").path
        var configuration = ALSASink.Configuration(device: "capture")
        configuration.inlineConfiguration = captureConfiguration(path)
        configuration.sampleFormats = [sampleFormat]
        configuration.channels = channels
        configuration.periodFrames = periodFrames
        configuration.lockMemory = false
        // The file/null device is not paced: a SCHED_FIFO thread would spin and starve the
        // other tests on a 2-core machine.
        configuration.realtimePriority = nil
        let recorder = LogRecorder()
        let sink = ALSASink(configuration, log: recorder.log)
        let format = try sink.negotiate()
        let renderer = RampRenderer(channels: format.channels)
        try sink.start(renderer)
        #expect(waitUntil(timeoutSeconds: 10) { renderer.framesRendered.load(ordering: .relaxed) >= minimumFrames })
        sink.stop()
        let captured = try Data(contentsOf: URL(fileURLWithPath: path))
        return (captured, renderer.framesRendered.load(ordering: .relaxed), format, sink)
    }

    @Test func floatStereoCaptureIsExact() throws {
        let (captured, rendered, format, sink) = try play(format: .float32, channels: 2, periodFrames: 128, minimumFrames: 96_000)
        #expect(format == AudioFormat(sampleRate: 48000, channels: 2, periodFrames: 128, bufferFrames: 384))
        #expect(rendered >= 96_000)
        #expect(captured.count == rendered * 2 * 4, "every rendered frame reached the file, and nothing else")
        let expected = (0..<rendered).flatMap { f in (0..<2).map { c in RampRenderer.rampValue(frame: f, channel: c).bitPattern } }
        let actual = captured.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
        #expect(actual == expected)
        #expect(sink.outputPosition.framesRendered == Int64(rendered))
        #expect(sink.xrunCount == 0)
    }

    @Test func int16MonoOddPeriodCaptureIsExact() throws {
        let (captured, rendered, format, _) = try play(format: .int16, channels: 1, periodFrames: 100, minimumFrames: 48_000)
        #expect(format.channels == 1)
        #expect(format.periodFrames == 100)
        #expect(captured.count == rendered * 2)
        let expected = (0..<rendered).map { f in Int16((RampRenderer.rampValue(frame: f, channel: 0) * 32767).rounded()) }
        let actual = captured.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(actual == expected)
    }

    @Test func int32CaptureIsExact() throws {
        let (captured, rendered, _, _) = try play(format: .int32, channels: 2, periodFrames: 128, minimumFrames: 20_000)
        #expect(captured.count == rendered * 2 * 4)
        let expected = (0..<rendered).flatMap { f in
            (0..<2).map { c in Int32((Double(RampRenderer.rampValue(frame: f, channel: c)) * 2_147_483_647).rounded()) }
        }
        let actual = captured.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        #expect(actual == expected)
    }
}

@Suite struct ALSAErrorTests {
    @Test func absentCardSaysWhatToDo() {
        var configuration = ALSASink.Configuration(device: "hw:7,0")
        configuration.lockMemory = false
        let sink = ALSASink(configuration, log: LogRecorder().log)
        #expect {
            _ = try sink.negotiate()
        } throws: { error in
            guard let error = error as? HALError else { return false }
            return error.kind == .deviceMissing && error.message.contains("hw:7,0") && error.message.contains("aplay -L") && error.errno != nil
        }
    }

    @Test func unknownDeviceNameIsAClearError() {
        let sink = ALSASink(ALSASink.Configuration(device: "no_such_pcm_name"), log: LogRecorder().log)
        #expect(throws: HALError.self) { _ = try sink.negotiate() }
    }

    @Test func startBeforeNegotiateIsRefused() {
        let sink = ALSASink(ALSASink.Configuration(device: "null"), log: LogRecorder().log)
        #expect {
            try sink.start(RampRenderer(channels: 2))
        } throws: { error in
            (error as? HALError)?.message.contains("negotiate") == true
        }
    }

    @Test func brokenInlineConfigurationIsReported() {
        var configuration = ALSASink.Configuration(device: "x")
        configuration.inlineConfiguration = "pcm.x { type "
        let sink = ALSASink(configuration, log: LogRecorder().log)
        #expect(throws: HALError.self) { _ = try sink.negotiate() }
    }
}

@Suite struct ALSAThreadPriorityTests {
    /// A refused SCHED_FIFO request (here an out-of-range priority, as EPERM would be without
    /// CAP_SYS_NICE) falls back to a normal thread with exactly one warning, and still plays.
    @Test func refusedRealtimePriorityWarnsOnceAndPlays() throws {
        var configuration = ALSASink.Configuration(device: "null")
        configuration.realtimePriority = 500
        configuration.lockMemory = false
        let recorder = LogRecorder()
        let sink = ALSASink(configuration, log: recorder.log)
        let format = try sink.negotiate()
        let renderer = RampRenderer(channels: format.channels)
        try sink.start(renderer)
        #expect(waitUntil(timeoutSeconds: 5) { renderer.framesRendered.load(ordering: .relaxed) > 10_000 })
        sink.stop()
        guard case .normal(let reason) = sink.threadPriority else {
            Issue.record("expected normal priority, got \(sink.threadPriority)")
            return
        }
        #expect(reason.contains("SCHED_FIFO refused"))
        #expect(recorder.all.filter { $0.contains("normal priority") }.count == 1, "\(recorder.all)")
    }
}
