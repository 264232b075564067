// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
/// What a button did, recognised from its debounced edges.
public enum ButtonGesture: Sendable, Hashable {
    /// Contact closed (debounced). TAP, START and the footswitch act here: no added latency.
    case press
    case release
    /// Released before the long-press time, and (when double presses are recognised) no
    /// second press followed within the double-press window.
    case shortPress
    /// Held for the long-press time; fires while still held, and its release is silent.
    case longPress
    /// A second press within the double-press window after a short press.
    case doublePress
}

public struct ButtonTiming: Sendable, Hashable {
    /// Edges closer than this to the last accepted edge are contact bounce.
    public var debounce: Duration
    public var longPress: Duration
    /// Time from a short press's release within which a second press makes a double press.
    public var doublePressWindow: Duration

    public init(debounce: Duration = .milliseconds(8), longPress: Duration = .milliseconds(600),
                doublePressWindow: Duration = .milliseconds(300)) {
        self.debounce = debounce
        self.longPress = longPress
        self.doublePressWindow = doublePressWindow
    }
}

/// Recognises press, release, short, long and double presses from timestamped edges.
///
/// Debounce is by timestamps only: the first edge of a burst is taken at once (its kernel
/// timestamp is the exact moment of the press, which tap tempo needs), and edges within
/// `debounce` of it are bounce. If the line ends the lockout in a different level than the
/// one accepted, `advance(to:)` accepts that level at the time it last changed.
public struct ButtonGestures: Sendable {
    public struct Event: Sendable, Hashable {
        public var gesture: ButtonGesture
        public var at: MonotonicTime
    }

    public let timing: ButtonTiming
    /// Off for buttons whose short press must not wait for a possible second press.
    public let recognisesDoublePress: Bool

    public private(set) var isPressed = false
    private var lastAcceptedAt: MonotonicTime?
    private var rawPressed = false
    private var rawChangedAt = MonotonicTime.zero
    private var pressedAt: MonotonicTime?
    private var longPressFired = false
    /// Release time of a short press that may still become a double press.
    private var pendingShortReleaseAt: MonotonicTime?
    /// The current press is the second of a double press.
    private var inDoublePress = false
    /// The current press did something else (the wheel was turned while held): it makes no
    /// short, long or double press.
    private var pressUsed = false

    public init(timing: ButtonTiming = ButtonTiming(), recognisesDoublePress: Bool) {
        self.timing = timing
        self.recognisesDoublePress = recognisesDoublePress
    }

    /// The current press was used for something else (the knob turned while held down):
    /// its release is silent and it never becomes a long press.
    public mutating func usePress() {
        guard isPressed else { return }
        pressUsed = true
    }

    /// The contact changed to `pressed` at `time` (after active-low mapping).
    public mutating func edge(pressed: Bool, at time: MonotonicTime) -> [Event] {
        var events = advance(to: time)
        rawPressed = pressed
        rawChangedAt = time
        if pressed != isPressed, lastAcceptedAt.map({ time - $0 >= timing.debounce }) ?? true {
            events += accept(pressed: pressed, at: time)
        }
        return events
    }

    /// Lets time pass: settles a level left over from bounce, fires long presses and turns
    /// an expired double-press window into a short press.
    public mutating func advance(to time: MonotonicTime) -> [Event] {
        var events: [Event] = []
        if rawPressed != isPressed, let accepted = lastAcceptedAt, time - accepted >= timing.debounce {
            let settledAt = max(rawChangedAt, accepted + timing.debounce)
            events += timers(upTo: settledAt)
            events += accept(pressed: rawPressed, at: settledAt)
        }
        events += timers(upTo: time)
        return events
    }

    /// When `advance(to:)` next has something to do, if anything.
    public var nextDeadline: MonotonicTime? {
        var deadlines: [MonotonicTime] = []
        if rawPressed != isPressed, let accepted = lastAcceptedAt { deadlines.append(accepted + timing.debounce) }
        if isPressed, !longPressFired, !inDoublePress, !pressUsed, let pressedAt { deadlines.append(pressedAt + timing.longPress) }
        // A press exactly at the window's end still makes a double press: the short press is
        // due one nanosecond later.
        if let released = pendingShortReleaseAt { deadlines.append(released + timing.doublePressWindow + .nanoseconds(1)) }
        return deadlines.min()
    }

    private mutating func timers(upTo time: MonotonicTime) -> [Event] {
        var events: [Event] = []
        if isPressed, !longPressFired, !inDoublePress, !pressUsed, let pressedAt, time - pressedAt >= timing.longPress {
            longPressFired = true
            events.append(Event(gesture: .longPress, at: pressedAt + timing.longPress))
        }
        if let released = pendingShortReleaseAt, time - released > timing.doublePressWindow {
            pendingShortReleaseAt = nil
            events.append(Event(gesture: .shortPress, at: released + timing.doublePressWindow))
        }
        return events
    }

    private mutating func accept(pressed: Bool, at time: MonotonicTime) -> [Event] {
        isPressed = pressed
        lastAcceptedAt = time
        if pressed {
            pressedAt = time
            longPressFired = false
            pressUsed = false
            if let released = pendingShortReleaseAt, time - released <= timing.doublePressWindow {
                pendingShortReleaseAt = nil
                inDoublePress = true
                return [Event(gesture: .press, at: time), Event(gesture: .doublePress, at: time)]
            }
            inDoublePress = false
            return [Event(gesture: .press, at: time)]
        }
        var events = [Event(gesture: .release, at: time)]
        if !longPressFired && !inDoublePress && !pressUsed {
            if recognisesDoublePress {
                pendingShortReleaseAt = time
            } else {
                events.append(Event(gesture: .shortPress, at: time))
            }
        }
        inDoublePress = false
        return events
    }
}

/// The gesture recognisers of the four controls, one each: indexed by the button, never
/// missing (a dictionary would make every lookup optional).
public struct ControlButtons: Sendable {
    private var wheel: ButtonGestures
    private var tap: ButtonGestures
    private var startStop: ButtonGestures
    private var footswitch: ButtonGestures

    public init(timing: ButtonTiming) {
        wheel = ButtonGestures(timing: timing, recognisesDoublePress: true)
        tap = ButtonGestures(timing: timing, recognisesDoublePress: false)
        startStop = ButtonGestures(timing: timing, recognisesDoublePress: false)
        footswitch = ButtonGestures(timing: timing, recognisesDoublePress: false)
    }

    public subscript(button: ControlButton) -> ButtonGestures {
        get {
            switch button {
            case .wheel: wheel
            case .tap: tap
            case .startStop: startStop
            case .footswitch: footswitch
            }
        }
        set {
            switch button {
            case .wheel: wheel = newValue
            case .tap: tap = newValue
            case .startStop: startStop = newValue
            case .footswitch: footswitch = newValue
            }
        }
    }

    /// The soonest time a recogniser must look again (a long press, a double press window).
    public var nextDeadline: MonotonicTime? {
        ControlButton.allCases.compactMap { self[$0].nextDeadline }.min()
    }
}
