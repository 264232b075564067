// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import HAL
import TactusBase
import LinuxHAL
import RealtimeAudit
import Synchronization

/// Counts, on the render thread itself, every allocation, lock and write(2) made by one full
/// turn of the sink's loop (render, convert, snd_pcm_writei, snd_pcm_delay, publish) over
/// many periods, using the interposers of the RealtimeAudit target.
final class AuditingRenderer: AudioRenderer {
    let channels: Int
    let calls = Atomic<Int>(0)
    let allocations = Atomic<Int>(-1)
    let frees = Atomic<Int>(-1)
    let locks = Atomic<Int>(-1)
    let writes = Atomic<Int>(-1)
    static let firstAuditedCall = 50
    static let auditedCalls = 2000

    init(channels: Int) { self.channels = channels }

    func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) {
        let call = calls.add(1, ordering: .relaxed).newValue
        if call == Self.firstAuditedCall { realtime_audit_begin() }
        if call == Self.firstAuditedCall + Self.auditedCalls {
            let counts = realtime_audit_end()
            allocations.store(counts.allocations, ordering: .relaxed)
            frees.store(counts.frees, ordering: .relaxed)
            locks.store(counts.locks, ordering: .relaxed)
            writes.store(counts.writes, ordering: .relaxed)
        }
        for i in 0..<(frameCount * channels) { buffer[i] = Float(i % 64) / 64 }
    }
}

@Suite struct ALSARealtimeAuditTests {
    @Test(arguments: [ALSASampleFormat.float32, .int16])
    func renderLoopNeitherAllocatesNorWrites(format: ALSASampleFormat) throws {
        var configuration = ALSASink.Configuration(device: "null")
        configuration.sampleFormats = [format]
        configuration.realtimePriority = nil  // 'null' is not paced: keep the loop from starving other tests
        configuration.lockMemory = false
        let sink = ALSASink(configuration, log: LogRecorder().log)
        let negotiated = try sink.negotiate()
        let renderer = AuditingRenderer(channels: negotiated.channels)
        try sink.start(renderer)
        #expect(waitUntil(timeoutSeconds: 20) { renderer.writes.load(ordering: .relaxed) >= 0 })
        sink.stop()
        let locks = renderer.locks.load(ordering: .relaxed)
        print("render loop over \(AuditingRenderer.auditedCalls) periods (\(format.rawValue)): allocations \(renderer.allocations.load(ordering: .relaxed)), frees \(renderer.frees.load(ordering: .relaxed)), locks \(locks), writes \(renderer.writes.load(ordering: .relaxed))")
        #expect(renderer.allocations.load(ordering: .relaxed) == 0)
        #expect(renderer.frees.load(ordering: .relaxed) == 0)
        #expect(renderer.writes.load(ordering: .relaxed) == 0)
        // libasound takes its own uncontended per-PCM mutex inside snd_pcm_writei and
        // snd_pcm_delay (3 per period here; 0 when run with LIBASOUND_THREAD_SAFE=0): that is
        // "handing buffers to ALSA". More than that would be ours.
        #expect(locks <= 3 * AuditingRenderer.auditedCalls)
    }
}
