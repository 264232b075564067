// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import Testing
@testable import LinuxHAL
import TactusBase

/// What both libgpiod backends share: kernel debounce per line, gaps in the kernel's per-line
/// sequence numbers, the order of edges read from several queues.
@Suite struct GPIOLinePolicyTests {
    @Test func kernelDebounceNeverOnTheEncoderLines() {
        #expect(GPIOInputPolicy.kernelDebounceMicroseconds(for: .encoderA) == 0)
        #expect(GPIOInputPolicy.kernelDebounceMicroseconds(for: .encoderB) == 0)
        // Timing buttons keep their leading-edge timestamps; the wheel push may be debounced.
        for role in [InputRole.tap, .startStop, .footswitch] {
            #expect(GPIOInputPolicy.kernelDebounceMicroseconds(for: role) == 0, "\(role)")
        }
        #expect(GPIOInputPolicy.kernelDebounceMicroseconds(for: .encoderPush) == 5_000)
        #expect(GPIOInputPolicy.eventQueueSize == 1024)
    }

    @Test func sequenceGapsAreCountedPerLine() {
        var tracker = LineSequenceTracker()
        #expect(tracker.missedBefore(offset: 17, sequence: 1) == 0)
        #expect(tracker.missedBefore(offset: 27, sequence: 1) == 0)
        #expect(tracker.missedBefore(offset: 17, sequence: 2) == 0)
        // Line 17 lost 3 and 4; line 27's numbering is its own.
        #expect(tracker.missedBefore(offset: 17, sequence: 5) == 2)
        #expect(tracker.missedBefore(offset: 27, sequence: 2) == 0)
        #expect(tracker.missedBefore(offset: 17, sequence: 6) == 0)
        // A line whose first event seen is not number 1 lost the ones before it.
        #expect(tracker.missedBefore(offset: 22, sequence: 4) == 3)
        // A kernel that leaves the numbers at 0 never reports a gap.
        var zeros = LineSequenceTracker()
        #expect(zeros.missedBefore(offset: 5, sequence: 0) == 0)
        #expect(zeros.missedBefore(offset: 5, sequence: 0) == 0)
    }

    @Test func lostEdgesMessageNamesTheLineAndCount() {
        let message = lostEdgesMessage(role: .encoderA, missed: 37)
        #expect(message.contains("37 edge(s) of encoder_a"))
        #expect(message.contains("decoder"))
    }

    @Test func edgesOfSeveralQueuesMergeInTimeOrder() {
        func edge(_ role: InputRole, _ ns: Int64) -> LineEdge {
            LineEdge(role: role, level: true, isActive: false, timestamp: MonotonicTime(nanoseconds: ns))
        }
        var batch = EdgeBatch()
        for edge in [edge(.encoderA, 30), edge(.encoderB, 50), edge(.tap, 10), edge(.startStop, 30), edge(.footswitch, 40)] {
            batch.append(edge)
        }
        var merged: [InputRole] = []
        batch.deliver { merged.append($0.role) }
        #expect(merged == [.tap, .encoderA, .startStop, .footswitch, .encoderB])
    }

    @Test func lineEdgesReportNoMissedEdgesByDefault() {
        #expect(LineEdge(role: .tap, level: false, isActive: true, timestamp: .zero).missedBefore == 0)
    }
}
