// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

// What both libgpiod backends decide alike, in plain Swift so it is tested on any machine
// (the backends themselves: GPIOBackend.swift).

/// The consumer name `gpioinfo` shows next to lines Tactus holds.
let gpioConsumerName = "tactus"

/// Kernel debounce per input role (libgpiod 2 sets it on the line request; libgpiod 1
/// cannot). The kernel reports a debounced edge only once the line has been stable for the
/// period, stamped when its timer runs: late by the period plus workqueue latency.
public enum GPIOInputPolicy {
    /// Wheel push only. Never on the encoder's A/B lines: at 83 detents/s a line toggles every
    /// few ms, so a debounce would swallow real edges, and the quadrature decoder already
    /// rejects bounce. Not on TAP, START/STOP or the footswitch either: their timestamps are
    /// the musician's timing (tap tempo, start), and ButtonGestures debounces on the leading
    /// edge with no added latency.
    public static func kernelDebounceMicroseconds(for role: InputRole) -> UInt32 {
        switch role {
        case .encoderPush: 5_000
        case .encoderA, .encoderB, .tap, .startStop, .footswitch: 0
        }
    }

    /// Events one line request may queue in the kernel (GPIO uAPI v2 clamps it to 1024):
    /// about 12 s of the fastest encoder flick on both lines, so only a stalled reader loses
    /// edges, and then the sequence numbers show it.
    public static let eventQueueSize: UInt32 = 1024
    /// Events taken from the kernel per read.
    public static let readBatch = 64
}

/// Follows the kernel's per-line event sequence numbers (`line_seqno`: 1 for a line's first
/// edge after the request, then +1 per edge) and says how many edges of a line the kernel
/// dropped before each one, which happens when its queue overflowed.
public struct LineSequenceTracker: Sendable {
    private var last: [UInt32: UInt64] = [:]

    public init() {}

    /// Edges of line `offset` missing just before the one numbered `sequence` (0 normally).
    public mutating func missedBefore(offset: UInt32, sequence: UInt64) -> Int {
        let previous = last[offset] ?? 0
        last[offset] = sequence
        // A number that does not move forward (a kernel that leaves it 0) proves nothing.
        guard sequence > previous + 1 else { return 0 }
        return Int(clamping: sequence - previous - 1)
    }
}

/// The message logged when the kernel dropped edges of a line.
func lostEdgesMessage(role: InputRole, missed: Int) -> String {
    let consequence = switch role {
    case .encoderA, .encoderB: "the tempo wheel's decoder starts counting again at the next detent"
    default: "the button's next edge is taken as its state"
    }
    return "the kernel dropped \(missed) edge(s) of \(role.rawValue) (its GPIO event queue overflowed while the reader was stalled); \(consequence)"
}
