// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusInstrument
@testable import LinuxHAL
import Testing
import TactusBase

/// libgpiod v1 gives one event queue per line; the poll thread reads them one after another.
/// The batch must reach the decoder in kernel-timestamp order, whatever order it was read in.
@Suite struct EdgeBatchTests {
    static func edge(_ role: InputRole, _ active: Bool, ms: Int64) -> LineEdge {
        LineEdge(role: role, level: !active, isActive: active, timestamp: MonotonicTime(nanoseconds: ms * 1_000_000))
    }

    /// One clockwise detent (B, A, B, A as QuadratureDecoder counts it) whose edges were
    /// queued while the reader stalled, read as the poll loop reads them: A's queue first.
    static let stalledDetentReadAFirst: [LineEdge] = [
        edge(.encoderA, true, ms: 200), edge(.encoderA, false, ms: 400),   // A's queue
        edge(.encoderB, true, ms: 100), edge(.encoderB, false, ms: 300),   // then B's
    ]

    static func decode(_ edges: [LineEdge]) throws -> Int {
        var decoder = try QuadratureDecoder(stepsPerDetent: 4)
        var detents = 0
        for edge in edges {
            detents += decoder.edge(edge.role == .encoderA ? .a : .b, isHigh: edge.isActive)
        }
        return detents
    }

    @Test func deliversInKernelTimestampOrderAcrossLines() throws {
        var batch = EdgeBatch()
        for edge in Self.stalledDetentReadAFirst { batch.append(edge) }
        var delivered: [LineEdge] = []
        batch.deliver(to: { delivered.append($0) })
        #expect(delivered.map(\.timestamp.nanoseconds) == [100, 200, 300, 400].map { $0 * 1_000_000 })
        #expect(delivered.map(\.role) == [.encoderB, .encoderA, .encoderB, .encoderA])
        #expect(try Self.decode(delivered) == 1)
        #expect(batch.isEmpty)
    }

    /// Why it matters: in reading order the same edges lose the detent.
    @Test func readingOrderWouldLoseTheDetent() throws {
        #expect(try Self.decode(Self.stalledDetentReadAFirst) == 0)
    }

    /// Equal timestamps keep the order they were read in (each queue is already in order).
    @Test func tiesKeepTheReadingOrder() {
        var batch = EdgeBatch()
        batch.append(Self.edge(.tap, true, ms: 5))
        batch.append(Self.edge(.tap, false, ms: 5))
        batch.append(Self.edge(.startStop, true, ms: 5))
        batch.append(Self.edge(.encoderA, true, ms: 1))
        var delivered: [LineEdge] = []
        batch.deliver(to: { delivered.append($0) })
        #expect(delivered.map(\.role) == [.encoderA, .tap, .tap, .startStop])
        #expect(delivered.map(\.isActive) == [true, true, false, true])
    }

    /// After a possibly overflowed queue the poll loop compares a line's newest edge in the
    /// batch with its level now.
    @Test func lastLevelIsTheNewestEdgeOfThatLine() {
        var batch = EdgeBatch()
        batch.append(Self.edge(.encoderA, true, ms: 3))   // level false (active low)
        batch.append(Self.edge(.encoderA, false, ms: 4))  // level true
        batch.append(Self.edge(.encoderB, true, ms: 9))
        #expect(batch.lastLevel(of: .encoderA) == true)
        #expect(batch.lastLevel(of: .encoderB) == false)
        #expect(batch.lastLevel(of: .tap) == nil)
    }
}
