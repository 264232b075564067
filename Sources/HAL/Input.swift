// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// What an input line is for. The raw values are the keys used in board files.
public enum InputRole: String, CaseIterable, Hashable, Sendable {
    case encoderA = "encoder_a"
    case encoderB = "encoder_b"
    case encoderPush = "encoder_push"
    case tap
    case startStop = "start_stop"
    case footswitch
}

/// One change of an input line, stamped by the kernel when the edge happened (not when it was read).
public struct LineEdge: Equatable, Sendable {
    public var role: InputRole
    /// The electrical level after the edge (true = high).
    public var level: Bool
    /// The logical state after the edge: pressed for a button, contact closed for the encoder.
    /// Switches to ground with pull-ups are active-low, so pressed is `level == false`.
    public var isActive: Bool
    public var timestamp: MonotonicTime
    /// Edges of this line the kernel dropped just before this one (its event queue overflowed
    /// while the reader was stalled; libgpiod 2 counts them). Nonzero means the line's history
    /// has a hole: a decoder must not count across it.
    public var missedBefore: Int

    public init(role: InputRole, level: Bool, isActive: Bool, timestamp: MonotonicTime, missedBefore: Int = 0) {
        self.role = role
        self.level = level
        self.isActive = isActive
        self.timestamp = timestamp
        self.missedBefore = missedBefore
    }
}

/// A source of timestamped edges on the box's input lines (GPIO on the box, a script in tests).
public protocol InputEventSource: AnyObject, Sendable {
    /// The logical state of every line now, to seed the decoders before the first edge.
    func currentStates() throws(HALError) -> [InputRole: Bool]
    /// Starts delivering edges, in order, on the source's own thread.
    func start(_ handler: @escaping @Sendable (LineEdge) -> Void) throws(HALError)
    /// Stops delivery; no handler call starts after it returns.
    func stop()
}

extension InputEventSource {
    /// The edges as an async sequence; stopping the source finishes it.
    public func edges() throws(HALError) -> AsyncStream<LineEdge> {
        let (stream, continuation) = AsyncStream.makeStream(of: LineEdge.self, bufferingPolicy: .bufferingNewest(1024))
        try start { edge in continuation.yield(edge) }
        continuation.onTermination = { [weak self] _ in self?.stop() }
        return stream
    }
}
