// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import Synchronization
import TactusBase

/// Input lines driven by a test or by the keyboard in `tactus simulate`: edges are injected
/// and delivered to the handler on the caller's thread, in order.
public final class ScriptedInput: InputEventSource {
    private struct State {
        var handler: (@Sendable (LineEdge) -> Void)?
        var states: [InputRole: Bool]
    }

    private let state: Mutex<State>

    public init(initialStates: [InputRole: Bool] = [:]) {
        var states: [InputRole: Bool] = [:]
        for role in InputRole.allCases { states[role] = initialStates[role] ?? false }
        state = Mutex(State(handler: nil, states: states))
    }

    public func currentStates() throws(HALError) -> [InputRole: Bool] { state.withLock { $0.states } }

    public func start(_ handler: @escaping @Sendable (LineEdge) -> Void) throws(HALError) {
        state.withLock { $0.handler = handler }
    }

    public func stop() { state.withLock { $0.handler = nil } }

    /// Delivers an edge (the handler runs outside the lock so it may inject again).
    public func inject(_ edge: LineEdge) {
        let handler = state.withLock { state -> (@Sendable (LineEdge) -> Void)? in
            state.states[edge.role] = edge.isActive
            return state.handler
        }
        handler?(edge)
    }

    /// An active-low switch changing to `active` at `time`.
    public func inject(_ role: InputRole, active: Bool, at time: MonotonicTime) {
        inject(LineEdge(role: role, level: !active, isActive: active, timestamp: time))
    }
}
