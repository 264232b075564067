// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import Glibc
import HAL
import Synchronization
import TactusBase
import MIDIWire

/// The box on the ALSA sequencer: client "Tactus" with one port "clock" that anyone may
/// subscribe to in either direction (`aconnect Tactus:clock 'USB MIDI Interface'`, or the
/// other way to send it clock and notes). The ports named in `[midi] out` are connected at
/// start and again whenever such a port appears (the client listens to System:Announce), so
/// a device unplugged and plugged back is connected again by itself; a missing one is a
/// notice in the log. Output is direct (`MIDIPort`, from the MIDI clock thread); input is
/// read on its own thread, stamped by the kernel on arrival with a real-time queue's clock
/// and mapped to CLOCK_MONOTONIC.
public final class ALSASequencerMIDI: MIDIPort, @unchecked Sendable {
    public static let clientName = "Tactus"
    public static let portName = "clock"

    private let seq: OpaquePointer
    public let client: Int32
    public let port: Int32
    private let queue: Int32
    private let wanted: [String]
    private let log: HALLog
    private let sendFailures = Atomic<Int>(0)
    /// The input thread while started (start and stop come from one thread).
    private var reader: ReaderThread?
    /// Ports connected because `[midi] out` names them (input thread only after start).
    private var connected: [Int64: String] = [:]

    /// Opens the sequencer. Throws `.deviceMissing` when there is none (no /dev/snd/seq: the
    /// snd-seq module not loaded, or no sound support), which the service takes as a notice.
    public init(out: [String], log: HALLog) throws(HALError) {
        _ = tactus_alsa_silence_errors()
        var handle: OpaquePointer?
        let opened = snd_seq_open(&handle, "default", SND_SEQ_OPEN_DUPLEX, SND_SEQ_NONBLOCK)
        guard opened >= 0, let handle else {
            let code = -opened
            let kind: HALError.Kind = code == ENOENT || code == ENODEV ? .deviceMissing : code == EACCES || code == EPERM ? .permissionDenied : .io
            throw HALError(kind, errno: code, "no ALSA sequencer (/dev/snd/seq: \(String(cString: snd_strerror(opened)))); load snd-seq for MIDI")
        }
        seq = handle
        wanted = out
        self.log = log
        _ = snd_seq_set_client_name(seq, ALSASequencerMIDI.clientName)
        client = snd_seq_client_id(seq)
        // The queue only stamps input: it runs on the system timer and is never used to send.
        let q = snd_seq_alloc_named_queue(seq, "Tactus input stamps")
        queue = q >= 0 ? q : -1
        if queue >= 0 {
            _ = tactus_seq_start_queue(seq, queue)
        }
        let created = tactus_seq_create_port(seq, ALSASequencerMIDI.portName, queue)
        guard created >= 0 else {
            snd_seq_close(seq)
            throw HALError(.io, errno: -created, "cannot create the MIDI port Tactus:clock: \(String(cString: snd_strerror(created)))")
        }
        port = created
        // Port starts and exits (devices plugged and unplugged) come to the same port.
        _ = snd_seq_connect_from(seq, port, Int32(SND_SEQ_CLIENT_SYSTEM), Int32(SND_SEQ_PORT_SYSTEM_ANNOUNCE))
    }

    deinit {
        stop()
        snd_seq_close(seq)
    }

    /// Direct to every subscriber of Tactus:clock (MIDI clock thread only: one write(2),
    /// no allocation, no lock).
    public func sendNow(_ message: MIDIMessage) {
        let b = message.bytes
        if tactus_seq_send(seq, port, b.0, b.1, b.2) < 0 { sendFailures.add(1, ordering: .relaxed) }
    }

    /// Sends that failed (no subscriber is not a failure).
    public var failedSends: Int { sendFailures.load(ordering: .relaxed) }

    /// Connects the `[midi] out` ports present now (each missing one is a notice), then
    /// reads input on its own thread until `stop()`: each MIDI message with its arrival time
    /// on CLOCK_MONOTONIC (nanoseconds).
    public func start(_ handler: @escaping @Sendable (MIDIMessage, Int64) -> Void) throws(HALError) {
        guard reader == nil else { return }
        let reader: ReaderThread
        do {
            reader = try ReaderThread(name: "tactus-midi-in")
        } catch {
            throw HALError(.io, error, "cannot create the MIDI input wake-up pipe: \(errnoDescription(error.errno))")
        }
        log.info("MIDI: sequencer client \(client) \"\(ALSASequencerMIDI.clientName)\", port \(client):\(port) \"\(ALSASequencerMIDI.portName)\"")
        let ports = listPorts()
        for name in wanted where !ports.contains(where: { ALSASequencerMIDI.matches(name, $0) }) {
            log.info("MIDI: no port named '\(name)' yet; it is connected when it appears")
        }
        for candidate in ports { connectIfWanted(candidate) }
        self.reader = reader
        let result = reader.start { [self] in readInput(reader, handler) }
        if case .failure(let error) = result {
            self.reader = nil
            throw HALError(.io, errno: error.code, "cannot start the MIDI input thread: \(error)")
        }
    }

    public func stop() {
        reader?.stop()
        reader = nil
    }

    /// A port of another client as `[midi] out` sees it.
    public struct PortName: Sendable, Equatable {
        public var client: Int32
        public var port: Int32
        public var clientName: String
        public var portName: String
        public var readable: Bool
        public var writable: Bool
        public var kernelClient: Bool

        public init(client: Int32, port: Int32, clientName: String, portName: String,
                    readable: Bool = true, writable: Bool = true, kernelClient: Bool = false) {
            self.client = client
            self.port = port
            self.clientName = clientName
            self.portName = portName
            self.readable = readable
            self.writable = writable
            self.kernelClient = kernelClient
        }
    }

    /// `[midi] out` matching: a name is the client's name or the port's (as `aconnect -l`
    /// lists them), or the beginning of either, ignoring case ("USB MIDI Interface"
    /// matches client "USB MIDI Interface" and its port "USB MIDI Interface MIDI 1").
    public static func matches(_ wanted: String, _ candidate: PortName) -> Bool {
        let w = wanted.lowercased()
        return candidate.clientName.lowercased().hasPrefix(w) || candidate.portName.lowercased().hasPrefix(w)
    }

    private func listPorts() -> [PortName] {
        var buffer = [tactus_seq_port](repeating: tactus_seq_port(), count: 256)
        let count = Int(tactus_seq_list_ports(seq, &buffer, Int32(buffer.count)))
        guard count > 0 else { return [] }
        return buffer.prefix(min(count, buffer.count)).compactMap { p -> PortName? in
            guard p.client != client, p.client != Int32(SND_SEQ_CLIENT_SYSTEM) else { return nil }
            var p = p
            let clientName = withUnsafeBytes(of: &p.client_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            let portName = withUnsafeBytes(of: &p.port_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            let caps = p.capability
            let read = UInt32(SND_SEQ_PORT_CAP_READ | SND_SEQ_PORT_CAP_SUBS_READ)
            let write = UInt32(SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE)
            return PortName(client: p.client, port: p.port, clientName: clientName, portName: portName,
                            readable: caps & read == read, writable: caps & write == write,
                            kernelClient: p.client_type == Int32(SND_SEQ_KERNEL_CLIENT.rawValue))
        }
    }

    /// The clock goes to a wanted port; what the port plays comes in, except from the
    /// kernel's "Midi Through", which would hand the box its own clock back.
    private func connectIfWanted(_ candidate: PortName) {
        guard wanted.contains(where: { ALSASequencerMIDI.matches($0, candidate) }) else { return }
        let key = Int64(candidate.client) << 16 | Int64(candidate.port)
        guard connected[key] == nil else { return }
        var parts: [String] = []
        if candidate.writable {
            let result = snd_seq_connect_to(seq, port, candidate.client, candidate.port)
            if result >= 0 || result == -EBUSY { parts.append("clock out") } else {
                log.warning("MIDI: cannot connect to '\(candidate.portName)': \(String(cString: snd_strerror(result)))")
            }
        }
        if candidate.readable && !candidate.clientName.hasPrefix("Midi Through") {
            if subscribeFrom(candidate.client, candidate.port) { parts.append("input") }
        }
        guard !parts.isEmpty else { return }
        connected[key] = candidate.portName
        log.info("MIDI: connected \(candidate.client):\(candidate.port) '\(candidate.portName)' (\(parts.joined(separator: ", ")))")
    }

    /// Input from `sourceClient:sourcePort`, stamped with the queue's real time.
    private func subscribeFrom(_ sourceClient: Int32, _ sourcePort: Int32) -> Bool {
        var subscription: OpaquePointer?
        guard snd_seq_port_subscribe_malloc(&subscription) >= 0, let subscription else { return false }
        defer { snd_seq_port_subscribe_free(subscription) }
        var sender = snd_seq_addr_t(client: UInt8(truncatingIfNeeded: sourceClient), port: UInt8(truncatingIfNeeded: sourcePort))
        var destination = snd_seq_addr_t(client: UInt8(truncatingIfNeeded: client), port: UInt8(truncatingIfNeeded: port))
        snd_seq_port_subscribe_set_sender(subscription, &sender)
        snd_seq_port_subscribe_set_dest(subscription, &destination)
        if queue >= 0 {
            snd_seq_port_subscribe_set_queue(subscription, queue)
            snd_seq_port_subscribe_set_time_update(subscription, 1)
            snd_seq_port_subscribe_set_time_real(subscription, 1)
        }
        let result = snd_seq_subscribe_port(seq, subscription)
        return result >= 0 || result == -EBUSY
    }

    /// The offset from the queue's real time to CLOCK_MONOTONIC: the tightest of a few
    /// bracketed readings (the queue runs on a kernel timer started with the queue).
    private func measureOffset() -> Int64? {
        guard queue >= 0 else { return nil }
        var best: (spread: Int64, offset: Int64)?
        for _ in 0..<3 {
            let before = Syscalls.monotonicNanoseconds()
            let q = tactus_seq_queue_nanoseconds(seq, queue)
            let after = Syscalls.monotonicNanoseconds()
            guard q >= 0 else { return nil }
            let spread = after - before
            if best == nil || spread < best!.spread { best = (spread, before + spread / 2 - Int64(q)) }
        }
        return best?.offset
    }

    private func readInput(_ reader: ReaderThread, _ handler: @Sendable (MIDIMessage, Int64) -> Void) {
        let count = Int(snd_seq_poll_descriptors_count(seq, Int16(POLLIN)))
        var descriptors = [pollfd](repeating: pollfd(), count: count + 1)
        _ = descriptors.withUnsafeMutableBufferPointer { snd_seq_poll_descriptors(seq, $0.baseAddress, UInt32(count), Int16(POLLIN)) }
        descriptors[count] = reader.wakeEntry
        var offset = measureOffset()
        var measuredAt = Syscalls.monotonicNanoseconds()
        var event = tactus_seq_input()
        var overflowReported = false
        while !reader.isStopping {
            guard (try? Syscalls.poll(&descriptors, timeoutMilliseconds: 1000)) != nil else { break }
            _ = reader.consumeWake(descriptors[count])
            // Re-measured every second: the queue's timer and CLOCK_MONOTONIC may drift apart.
            if Syscalls.monotonicNanoseconds() - measuredAt > 1_000_000_000 {
                offset = measureOffset() ?? offset
                measuredAt = Syscalls.monotonicNanoseconds()
            }
            while true {
                let result = tactus_seq_read(seq, &event)
                if result == 0 { break }
                if result < 0 {
                    if result == -ENOSPC {
                        if !overflowReported { log.warning("MIDI: input came faster than the box read it; some was lost") }
                        overflowReported = true
                        continue
                    }
                    break
                }
                let time: Int64 = if event.stamp_nanoseconds >= 0, let offset { event.stamp_nanoseconds + offset } else { Syscalls.monotonicNanoseconds() }
                switch event.kind {
                case 1:
                    guard event.source_client != client else { continue }
                    // Read in place: no array per event, so a flood costs no allocations here.
                    var parser = MIDIParser()
                    withUnsafeBytes(of: event.bytes) { bytes in
                        for byte in bytes.prefix(min(Int(event.count), 3)) {
                            if let message = parser.feed(byte) { handler(message, time) }
                        }
                    }
                case 2:
                    if let appeared = listPorts().first(where: { $0.client == event.addr_client && $0.port == event.addr_port }) {
                        connectIfWanted(appeared)
                    }
                case 3:
                    let key = Int64(event.addr_client) << 16 | Int64(event.addr_port)
                    if let name = connected.removeValue(forKey: key) {
                        log.info("MIDI: '\(name)' went away; it is connected again when it is back")
                    }
                case 4:
                    handler(.systemExclusive(length: Int(event.sysex_length)), time)
                default: break
                }
            }
        }
    }
}
