// SPDX-License-Identifier: GPL-3.0-or-later
import Coach
import Foundation
import HAL
import LinuxHAL
import RealtimeAudit
import Synchronization
import TactusApp
import TactusBase
import Testing

/// Counts, on the capture thread itself, every allocation, lock and write(2) of one full turn
/// of the capture loop (snd_pcm_readi, snd_pcm_delay, conversion, the coach's detector and
/// its ring) over many periods; the audio is the synthetic take, so the detector finds hits.
final class AuditingCapture: CaptureConsumer, @unchecked Sendable {
    let listener: CoachListener
    let take: [Float]
    var offset = 0
    let calls = Atomic<Int>(0)
    let counts = Mutex<realtime_audit_counts?>(nil)
    static let firstAuditedCall = 20
    static let auditedCalls = 2000
    let scratch: UnsafeMutablePointer<Float>

    init(take: [Float], sampleRate: Int) {
        self.take = take
        listener = CoachListener(sampleRate: sampleRate)
        scratch = .allocate(capacity: 8192)
    }

    func capture(_ samples: UnsafeBufferPointer<Float>, firstSampleAt nanoseconds: Int64) {
        let call = calls.add(1, ordering: .relaxed).newValue
        if call == Self.firstAuditedCall { realtime_audit_begin() }
        // The null device hears silence: give the detector the take instead (same length).
        take.withUnsafeBufferPointer { all in
            for i in 0..<samples.count { scratch[i] = all[(offset + i) % all.count] }
        }
        offset = (offset + samples.count) % take.count
        listener.capture(UnsafeBufferPointer(start: scratch, count: samples.count), firstSampleAt: nanoseconds)
        if call == Self.firstAuditedCall + Self.auditedCalls {
            let c = realtime_audit_end()
            counts.withLock { $0 = c }
        }
    }
}

@Suite struct ALSACaptureTests {
    @Test func theCaptureLoopNeitherAllocatesNorLocksNorWrites() throws {
        let made = SyntheticTake(grid: (1...16).map { Double($0 * 12000) }, sampleRate: 48000, seed: 4, length: 4 * 48000)
        let consumer = AuditingCapture(take: made.samples, sampleRate: 48000)
        var configuration = ALSACapture.Configuration(device: "null")
        configuration.sampleFormats = [.int16]
        let capture = ALSACapture(configuration, log: LogRecorder().log)
        let statuses = Mutex<[CaptureStatus]>([])
        let found = Mutex<Int>(0)
        capture.start(consumer, status: { s in statuses.withLock { $0.append(s) } },
                      poll: { let n = consumer.listener.drain().count; found.withLock { $0 += n } })
        #expect(waitUntil(timeoutSeconds: 30) { consumer.counts.withLock { $0 != nil } })
        capture.stop()
        let counts = try #require(consumer.counts.withLock { $0 })
        print("capture loop over \(AuditingCapture.auditedCalls) periods: allocations \(counts.allocations), frees \(counts.frees), locks \(counts.locks), writes \(counts.writes); hits found \(found.withLock { $0 })")
        #expect(statuses.withLock { $0.first } == .working(sampleRate: 48000))
        #expect(counts.allocations == 0 && counts.frees == 0 && counts.writes == 0)
        // libasound's own per-PCM mutex in snd_pcm_readi and snd_pcm_delay, as for playback.
        #expect(counts.locks <= 3 * AuditingCapture.auditedCalls)
        #expect(found.withLock { $0 } > 0)
    }

    @Test func aMissingDeviceIsReportedAndRetried() {
        var configuration = ALSACapture.Configuration(device: "hw:CARD=NoSuchCoachMic,0")
        configuration.retryIntervalNanoseconds = 50_000_000
        let log = LogRecorder()
        let capture = ALSACapture(configuration, log: log.log)
        let statuses = Mutex<[CaptureStatus]>([])
        final class Nothing: CaptureConsumer { func capture(_ samples: UnsafeBufferPointer<Float>, firstSampleAt nanoseconds: Int64) {} }
        capture.start(Nothing(), status: { s in statuses.withLock { $0.append(s) } }, poll: {})
        Thread.sleep(forTimeInterval: 0.4)
        capture.stop()
        let seen = statuses.withLock { $0 }
        // Reported once although retried every 50 ms.
        #expect(seen.count == 1)
        guard case .missing(let message) = seen.first else { Issue.record("\(seen)"); return }
        #expect(message.contains("capture device 'hw:CARD=NoSuchCoachMic,0' is not there") && message.contains("[coach] input"))
        #expect(log.all.filter { $0.contains("NoSuchCoachMic") }.count == 1)
    }

    @Test func aBusyDeviceSaysWhoToStop() {
        let error = ALSACapture.openError("hw:1,0", -EBUSY)
        #expect(error.kind == .busy)
        #expect(error.message == "capture device 'hw:1,0' is in use by another program (Device or resource busy): stop it (`fuser -v /dev/snd/*` shows which)")
    }
}
