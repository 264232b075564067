// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import HAL
import Synchronization
import TactusBase

/// The box's input lines: both-edge events with kernel timestamps (CLOCK_MONOTONIC, the clock
/// the rest of Tactus uses), read by one thread that polls every chip's queues at once. The
/// same code on both libgpiod APIs; only the requests and reads go through `Libgpiod`.
public final class LinuxGPIOInputs: InputEventSource, @unchecked Sendable {
    private let requests: [Libgpiod.Inputs]
    private let log: HALLog
    /// The reader thread (made at `start`, until `stop`).
    private var reader: ReaderThread?

    /// SCHED_FIFO when allowed (below the kernel's irq threads at 50, the indicators at 60 and
    /// audio): libgpiod 1's kernel keeps only 16 events per line, and a reader starved by other
    /// work let contact bounce overflow it (the newest, settled edge dropped). libgpiod 2's
    /// queue is deeper, but a starved reader still delays every edge it hands on.
    static let fifoPriority: Int32 = 45
    /// Look-again rounds per wakeup: a line chattering without end cannot hold delivery.
    static let drainRounds = 64

    /// Opens the chips and requests every line now, so wiring errors show at start-up.
    public init(_ definitions: [InputLineDefinition], log: HALLog = .standardError) throws(HALError) {
        self.log = log
        var requests: [Libgpiod.Inputs] = []
        for label in chipLabels(definitions.map(\.chipLabel)) {
            let chip = try GPIOChip.open(label: label)
            // A failure here releases the chips requested before it (their requests go with `requests`).
            requests.append(try Libgpiod.requestInputs(definitions.filter { $0.chipLabel == label }, on: chip))
        }
        self.requests = requests
    }

    deinit { stop() }

    public func currentStates() throws(HALError) -> [InputRole: Bool] {
        var states: [InputRole: Bool] = [:]
        for request in requests {
            for definition in request.definitions {
                guard let level = request.level(of: definition) else {
                    throw HALError(.io, errno: errno, "cannot read GPIO \(definition.line) (\(definition.role.rawValue)): \(errnoDescription(errno))")
                }
                states[definition.role] = level != definition.activeLow
            }
        }
        return states
    }

    /// Delivery runs (and keeps this object alive) until `stop()`.
    public func start(_ handler: @escaping @Sendable (LineEdge) -> Void) throws(HALError) {
        guard reader == nil else { return }
        let reader: ReaderThread
        do {
            reader = try ReaderThread(name: "tactus-gpio-in")
        } catch {
            throw HALError(.io, error, "cannot create the GPIO wake-up pipe: \(errnoDescription(error.errno))")
        }
        let result = reader.start(fifoPriority: Self.fifoPriority) { [self] in read(reader, handler: handler) }
        if case .failure(let error) = result {
            throw HALError(.io, errno: error.code, "cannot start the GPIO input thread: \(error)")
        }
        self.reader = reader
    }

    /// The stop rule (both APIs): edges the kernel queued before `stop()` are still read and
    /// delivered, then the thread ends. Dropping them would make a press made just before
    /// stop (the last tap, a release) come or not by a race with the wake-up; draining makes
    /// stop deterministic: every edge stamped before it is delivered, in time order.
    public func stop() {
        reader?.stop()
        reader = nil
    }

    /// The reader thread. A wakeup can find edges behind several descriptors (libgpiod 1 has
    /// one per line; several chips each have their own), and a queue read first may hold edges
    /// newer than another's not yet read (an encoder's A and B under a stalled reader): each
    /// wakeup drains every queue until none has more, then delivers the batch in kernel
    /// timestamp order (`EdgeBatch`).
    private func read(_ reader: ReaderThread, handler: @Sendable (LineEdge) -> Void) {
        var owners: [(request: Libgpiod.Inputs, index: Int)] = []
        var descriptors: [pollfd] = []
        for request in requests {
            for (index, fd) in request.descriptors.enumerated() {
                owners.append((request, index))
                descriptors.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
            }
        }
        descriptors.append(reader.wakeEntry)
        var batch = EdgeBatch()
        var mayHaveLost = Set<InputRole>()
        var reportedFailure = false
        var stopping = false
        while !stopping {
            do {
                _ = try Syscalls.poll(&descriptors, timeoutMilliseconds: -1)
            } catch {
                log.error("GPIO input poll failed: \(errnoDescription(error.errno)); inputs stop")
                return
            }
            for _ in 0..<Self.drainRounds {
                if reader.consumeWake(descriptors[descriptors.count - 1]) && reader.isStopping { stopping = true }
                var readAny = false
                for (index, owner) in owners.enumerated() where descriptors[index].revents & Int16(POLLIN) != 0 {
                    guard let count = owner.request.readEdges(from: owner.index, into: &batch, mayHaveLost: &mayHaveLost) else {
                        if !reportedFailure {
                            log.error("reading GPIO events failed: \(errnoDescription(errno))")
                            reportedFailure = true
                        }
                        continue
                    }
                    readAny = readAny || count > 0
                }
                guard readAny, (try? Syscalls.poll(&descriptors, timeoutMilliseconds: 0)) ?? 0 > 0 else { break }
            }
            if !mayHaveLost.isEmpty { appendLevelsAfterOverflow(&mayHaveLost, to: &batch) }
            batch.deliver { edge in
                if edge.missedBefore > 0 { log.warning(lostEdgesMessage(role: edge.role, missed: edge.missedBefore)) }
                handler(edge)
            }
        }
    }

    /// A full kernel queue drops the newest edges, so the last edge delivered may not be the
    /// line's level now: when it differs, an edge to the level read now follows.
    private func appendLevelsAfterOverflow(_ roles: inout Set<InputRole>, to batch: inout EdgeBatch) {
        for request in requests {
            for definition in request.definitions where roles.contains(definition.role) {
                guard let level = request.level(of: definition),
                      let last = batch.lastLevel(of: definition.role), last != level else { continue }
                batch.append(LineEdge(role: definition.role, level: level, isActive: level != definition.activeLow,
                                      timestamp: MonotonicTime(nanoseconds: Syscalls.monotonicNanoseconds())))
            }
        }
        roles.removeAll(keepingCapacity: true)
    }
}

func timespecNanoseconds(_ time: timespec) -> Int64 {
    Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}
