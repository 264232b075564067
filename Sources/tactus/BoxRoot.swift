// SPDX-License-Identifier: GPL-3.0-or-later
import Logging
import ServiceLifecycle
import UnixSignals
import UnixSignals

/// The one composition root of `tactus run`, the terminal simulator and the headless
/// simulation: the box's service and the services around it (MIDI ports, the control
/// socket, the companion, the terminal, a script), run by one ServiceGroup.
///
/// Order matters: the group shuts services down in reverse order of adding, each after the
/// one added later has ended. So MIDI is added before the box (its clock thread sends the
/// box's last Stop), and the control socket, the companion and the terminal after it (no
/// request reaches a box that is shutting down).
struct BoxRoot {
    private var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// A service of the run. `endsTheRun`: when it returns (the terminal's q, a script's
    /// end), every other service is shut down gracefully. A service that throws ends the
    /// run with its error.
    mutating func add(_ service: any Service, endsTheRun: Bool = false) {
        services.append(.init(service: service, successTerminationBehavior: endsTheRun ? .gracefullyShutdownGroup : .ignore))
    }

    /// A part that started when it was made (a socket, a MIDI port): stopped when the run
    /// ends, in its place in the order.
    mutating func stopAtTheEnd(_ stop: @escaping @Sendable () -> Void) {
        add(StoppedAtTheEnd(stop: stop))
    }

    /// Runs every service until one ends the run or a signal in `signals` asks for a
    /// graceful stop.
    func run(signals: [UnixSignal]) async throws {
        var configuration = ServiceGroupConfiguration(services: services, logger: logger)
        configuration.gracefulShutdownSignals = signals
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// Waits for the run's graceful shutdown, then stops its part.
private struct StoppedAtTheEnd: Service {
    let stop: @Sendable () -> Void

    func run() async throws {
        try? await gracefulShutdown()
        stop()
    }
}
