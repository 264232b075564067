// SPDX-License-Identifier: GPL-3.0-or-later
import HAL
import TactusBase

/// Keeps the box running when the screen is missing or drops off the bus: failures are
/// reported once (through `report`), frames are dropped meanwhile, and the panel is
/// re-initialised at most every `retryNanoseconds` until it answers again.
public final class ResilientDisplay {
    public enum Status: Equatable, Sendable {
        case working
        case unavailable(HALError)
    }

    public let display: any MonochromeDisplay
    public let retryNanoseconds: Int64
    private let clock: any MonotonicClock
    private let report: (Status) -> Void
    public private(set) var status: Status = .unavailable(HALError(.deviceMissing, "display not initialised yet"))
    private var nextAttempt: MonotonicTime?
    /// The latest frame asked for, shown as soon as the panel is back.
    private var pendingFrame: Bitmap?
    private var contrast: UInt8?
    private var sleeping = false

    /// `report` is called on every change of status (working → unavailable and back).
    public init(_ display: any MonochromeDisplay, clock: any MonotonicClock, retryNanoseconds: Int64 = 5_000_000_000,
                report: @escaping (Status) -> Void) {
        self.display = display
        self.clock = clock
        self.retryNanoseconds = retryNanoseconds
        self.report = report
    }

    public var isWorking: Bool { status == .working }

    /// Shows `frame` if the panel works, else remembers it and retries when due.
    public func show(_ frame: Bitmap) {
        pendingFrame = frame
        attempt { (display) throws(HALError) in try display.show(frame) }
    }

    public func setContrast(_ level: UInt8) {
        contrast = level
        attempt { (display) throws(HALError) in try display.setContrast(level) }
    }

    public func setSleeping(_ sleeping: Bool) {
        self.sleeping = sleeping
        attempt { (display) throws(HALError) in try display.setSleeping(sleeping) }
    }

    /// Retries now if the panel is unavailable and the retry interval has passed.
    public func poll() {
        attempt { _ in }
    }

    private func attempt(_ operation: (any MonochromeDisplay) throws(HALError) -> Void) {
        let now = clock.now()
        do {
            if status != .working {
                if let nextAttempt, now < nextAttempt { return }
                // Back (or first time): the panel lost its state, so rebuild all of it.
                try display.initialize()
                if let contrast { try display.setContrast(contrast) }
                if let pendingFrame { try display.show(pendingFrame) }
                if sleeping { try display.setSleeping(true) }
                setStatus(.working)
            }
            try operation(display)
        } catch {
            nextAttempt = now.advanced(byNanoseconds: retryNanoseconds)
            setStatus(.unavailable(error))
        }
    }

    /// Reports the first outcome and then only changes between working and unavailable:
    /// a panel that stays missing is not news every retry.
    private func setStatus(_ new: Status) {
        let changed = (new == .working) != (status == .working)
        status = new
        if changed || !reportedOnce {
            reportedOnce = true
            report(new)
        }
    }

    private var reportedOnce = false
}

/// The box takes any display; a resilient one never throws, it reports and retries.
extension ResilientDisplay: MonochromeDisplay {
    public var width: Int { display.width }
    public var height: Int { display.height }

    /// First attempt (or a retry when due); a missing panel is reported, not thrown.
    public func initialize() { poll() }
}
