import ClickEngine
import Foundation
import HAL
import Logging
import ServiceLifecycle
import Synchronization

/// Runs the box in real time on its own thread: edges from the input thread are queued and
/// handled in order, and between them the loop sleeps until the box's next wakeup.
/// The control thread is the only one that touches the `Box`.
public final class ControlLoop: @unchecked Sendable {
    private let box: Box
    private let clock: any MonotonicClock
    private enum Input {
        case edge(LineEdge)
        case action(Action)
        case inspect(@Sendable (Box) -> Void)
    }

    private let pending = Mutex<[Input]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    public init(box: Box, clock: any MonotonicClock) {
        self.box = box
        self.clock = clock
    }

    /// From any thread (the GPIO poll thread).
    public func post(_ edge: LineEdge) {
        pending.withLock { $0.append(.edge(edge)) }
        wake.signal()
    }

    /// From any thread (the interactive simulator's keys).
    public func post(_ action: Action) {
        pending.withLock { $0.append(.action(action)) }
        wake.signal()
    }

    /// Runs `body` on the control thread between two steps of the box and waits for it.
    public func inspect<T: Sendable>(_ body: @escaping @Sendable (Box) -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<T?>(nil)
        pending.withLock { $0.append(.inspect({ box in result.withLock { $0 = body(box) }; done.signal() })) }
        wake.signal()
        done.wait()
        return result.withLock { $0! }
    }

    public func start() {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .acquiring) {
                for input in pending.withLock({ queue -> [Input] in defer { queue.removeAll() }; return queue }) {
                    switch input {
                    case .edge(let edge): box.handle(edge)
                    case .action(let action): box.handle(action)
                    case .inspect(let body): body(box)
                    }
                }
                box.advance(to: clock.now())
                let now = clock.now()
                // Sleep until the next wakeup; an edge or a stop wakes us earlier. At most 100 ms,
                // so time-based work (screen dimming, saves) never waits on a missed wakeup.
                let wait = min(max((box.nextWakeup?.nanoseconds ?? Int64.max) - now.nanoseconds, 0), 100_000_000)
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(wait)))
            }
            finished.signal()
        }
        thread.name = "tactus-control"
        thread.start()
    }

    /// Stops the loop and waits for it; afterwards the caller may use the box directly.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        finished.wait()
    }
}

/// A service made of a start and a stop: runs until graceful shutdown, then tears down.
/// ServiceGroup starts services in order and stops them in reverse order.
public struct LifecycleStep: Service {
    public let name: String
    private let startUp: @Sendable () async throws -> Void
    private let whileRunning: (@Sendable () async -> Void)?
    private let tearDown: @Sendable () async -> Void

    public init(_ name: String, start: @escaping @Sendable () async throws -> Void,
                whileRunning: (@Sendable () async -> Void)? = nil,
                stop: @escaping @Sendable () async -> Void) {
        self.name = name
        self.startUp = start
        self.whileRunning = whileRunning
        self.tearDown = stop
    }

    public func run() async throws {
        try await startUp()
        if let whileRunning {
            await cancelWhenGracefulShutdown { await whileRunning() }
        }
        try? await gracefulShutdown()
        await tearDown()
    }
}
