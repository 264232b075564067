// SPDX-License-Identifier: GPL-3.0-or-later
import TactusMusic
/// Turns the A/B edges of a rotary encoder into detents.
///
/// The two lines form a Gray code 00 -> 01 -> 11 -> 10 -> 00 (one direction). Only
/// single-bit changes are real movement; a change of both bits at once means an edge was
/// missed and its direction is unknowable, so it is ignored.
///
/// A detent is counted only when the encoder arrives at a rest state (where the detents
/// of the wheel sit) after moving exactly one detent's worth of quarter steps in one
/// direction since it last was at a rest state. Contact bounce moves the position back and
/// forth by single steps; it can make the position visit a rest state early, but the
/// count always equals (position at the last rest visit) / stepsPerDetent, so bounce never
/// adds or loses a detent, and because rest states come from the Gray state itself the
/// decoder can never drift out of phase with the physical detents.
public struct QuadratureDecoder: Sendable {
    public enum Line: Sendable { case a, b }

    /// 1, 2 or 4 quarter steps per mechanical detent (a property of the encoder part).
    public let stepsPerDetent: Int
    /// Gray index (0...3) of the state at power-up, which is a rest state: encoders rest
    /// in a detent when nobody touches them.
    private let restPhase: Int
    private var a: Bool
    private var b: Bool
    /// Net quarter steps since the last rest state, or nil after an invalid jump.
    private var progress: Int? = 0

    /// Detents counted so far (positive clockwise, the direction 00 -> 01 -> 11 -> 10).
    public private(set) var position = 0
    /// How far the knob is between detents: -1 < value < 1 of a detent, clockwise positive
    /// (0 at rest). Lets rings on the screen turn part-way with the hand.
    public var partialDetent: Double { Double(progress ?? 0) / Double(stepsPerDetent) }
    /// Two-bit jumps seen, for `tactus check` and diagnostics.
    public private(set) var invalidTransitions = 0

    public static let allowedStepsPerDetent = [1, 2, 4]

    public init(stepsPerDetent: Int, initialA: Bool = false, initialB: Bool = false) throws(SettingError) {
        guard QuadratureDecoder.allowedStepsPerDetent.contains(stepsPerDetent) else {
            throw SettingError(field: "encoder.steps-per-detent", value: "\(stepsPerDetent)", allowed: "allowed 1, 2 or 4")
        }
        self.stepsPerDetent = stepsPerDetent
        self.a = initialA
        self.b = initialB
        self.restPhase = QuadratureDecoder.grayIndex(initialA, initialB) % stepsPerDetent
    }

    static func grayIndex(_ a: Bool, _ b: Bool) -> Int {
        switch (a, b) {
        case (false, false): 0
        case (false, true): 1
        case (true, true): 2
        case (true, false): 3
        }
    }

    /// One line changed to `isHigh`. Returns +1 or -1 when a detent completes, else 0.
    /// An edge that repeats the known level (a lost opposite edge) changes nothing.
    public mutating func edge(_ line: Line, isHigh: Bool) -> Int {
        switch line {
        case .a: update(a: isHigh, b: b)
        case .b: update(a: a, b: isHigh)
        }
    }

    /// Edges were lost (the kernel's queue overflowed): the movement since the last rest
    /// state is unknowable, so, as after a two-bit jump, nothing is counted until the wheel
    /// next arrives at a rest state.
    public mutating func lostEdges() {
        progress = nil
    }

    /// Both lines sampled at once. Returns +1 or -1 when a detent completes, else 0.
    public mutating func update(a newA: Bool, b newB: Bool) -> Int {
        let old = QuadratureDecoder.grayIndex(a, b)
        let new = QuadratureDecoder.grayIndex(newA, newB)
        a = newA
        b = newB
        switch (new - old + 4) % 4 {
        case 0: return 0
        case 1: progress = progress.map { $0 + 1 }
        case 3: progress = progress.map { $0 - 1 }
        default:
            invalidTransitions += 1
            progress = nil
        }
        guard new % stepsPerDetent == restPhase else { return 0 }
        let arrived = progress
        progress = 0
        switch arrived {
        case stepsPerDetent?: position += 1; return 1
        case (-stepsPerDetent)?: position -= 1; return -1
        default: return 0
        }
    }
}
