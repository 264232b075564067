// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// Edges read in one wakeup from several per-line event queues, handed on in the order they
/// happened. Each queue is in time order, but the queues are read one after another, so the
/// reading order is not the time order: an encoder's B edge stamped before an A edge must
/// reach the decoder first, or a detent is lost or reversed. Sorting by the kernel's
/// timestamp (stable: the reading order breaks ties) restores it. Not libgpiod-specific.
struct EdgeBatch {
    private var edges: [(edge: LineEdge, order: Int)] = []

    init() { edges.reserveCapacity(64) }

    var isEmpty: Bool { edges.isEmpty }

    mutating func append(_ edge: LineEdge) {
        edges.append((edge, edges.count))
    }

    /// The level of the newest edge of `role` in the batch, if it has one.
    func lastLevel(of role: InputRole) -> Bool? {
        edges.filter { $0.edge.role == role }.max { ($0.edge.timestamp.nanoseconds, $0.order) < ($1.edge.timestamp.nanoseconds, $1.order) }?.edge.level
    }

    /// Hands every edge to `handler`, oldest first, and empties the batch.
    mutating func deliver(to handler: (LineEdge) -> Void) {
        edges.sort { ($0.edge.timestamp.nanoseconds, $0.order) < ($1.edge.timestamp.nanoseconds, $1.order) }
        for entry in edges { handler(entry.edge) }
        edges.removeAll(keepingCapacity: true)
    }
}
