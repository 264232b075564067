// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import HAL
import ClickEngine
@testable import TactusApp
import TactusMusic
import LinuxHAL
import RealtimeAudit
import Synchronization
import TactusBase
import TactusTimeline
import Testing
import MIDIWire

/// Records what the clock thread sent and when (on the thread itself).
final class RecordingWire: MIDIPort, @unchecked Sendable {
    let sent = Mutex<[(MIDIMessage, Int64)]>([])
    func sendNow(_ message: MIDIMessage) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let t = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        sent.withLock { $0.append((message, t)) }
    }
}

/// Forwards to a real wire (the UART on a pty: one write(2) a message) and audits, on the
/// MIDI thread, everything between its `first`th and `first + count`th message.
final class AuditingWire: MIDIPort, @unchecked Sendable {
    let inner: any MIDIPort
    let first: Int
    let count: Int
    let calls = Atomic<Int>(0)
    let allocations = Atomic<Int>(-1)
    let frees = Atomic<Int>(-1)
    let locks = Atomic<Int>(-1)
    let writes = Atomic<Int>(-1)
    init(_ inner: any MIDIPort, first: Int, count: Int) {
        self.inner = inner
        self.first = first
        self.count = count
    }
    func sendNow(_ message: MIDIMessage) {
        let call = calls.add(1, ordering: .relaxed).oldValue
        if call == first { realtime_audit_begin() }
        if call == first + count {
            let counts = realtime_audit_end()
            allocations.store(counts.allocations, ordering: .relaxed)
            frees.store(counts.frees, ordering: .relaxed)
            locks.store(counts.locks, ordering: .relaxed)
            writes.store(counts.writes, ordering: .relaxed)
        }
        inner.sendNow(message)
    }
}

/// A pseudo-terminal standing in for the UART: the box opens the slave, the test the master.
struct PseudoTerminal {
    let master: Int32
    let slavePath: String
    init() throws {
        // /dev/ptmx by hand: posix_openpt and friends need _XOPEN_SOURCE, which Glibc's
        // module map does not define.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, UInt(0x4004_5431) /* TIOCSPTLCK */, &unlock) == 0, ioctl(master, UInt(0x8004_5430) /* TIOCGPTN */, &number) == 0 else {
            throw HALError(.io, "no pty")
        }
        slavePath = "/dev/pts/\(number)"
    }
    /// Bytes waiting on the master within `milliseconds`.
    func read(waiting milliseconds: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Glibc.poll(&descriptor, 1, milliseconds) > 0 {
            let n = Glibc.read(master, &buffer, buffer.count)
            if n <= 0 { break }
            out += buffer.prefix(n)
        }
        return out
    }
}

func monotonicNow() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

@Suite struct MIDIClockThreadTests {
    @Test func sendsEachMessageInOrderAtItsDeadline() throws {
        let wire = RecordingWire()
        let thread = try MIDIClockThread(wires: [wire], realtimePriority: nil, recordLateness: 100)
        let start = monotonicNow() + 20_000_000
        // Start, then 24 clocks 2 ms apart, then Stop; handed over in two batches, the
        // second while the thread is already sending the first.
        thread.schedule(.start, atNanoseconds: start - 100_000)
        for k in 0..<12 { thread.schedule(.clock, atNanoseconds: start + Int64(k) * 2_000_000) }
        usleep(25_000)
        for k in 12..<24 { thread.schedule(.clock, atNanoseconds: start + Int64(k) * 2_000_000) }
        thread.schedule(.stop, atNanoseconds: start + 48_000_000)
        #expect(waitUntil(timeoutSeconds: 5) { thread.sent == 26 })
        thread.stop()
        let sent = wire.sent.withLock { $0 }
        #expect(sent.map(\.0) == [.start] + Array(repeating: .clock, count: 24) + [.stop])
        let deadlines = [start - 100_000] + (0..<24).map { start + Int64($0) * 2_000_000 } + [start + 48_000_000]
        for (i, (_, time)) in sent.enumerated() { #expect(time >= deadlines[i], "message \(i) sent before its deadline") }
        #expect(thread.recordedLateness().count == 26)
        #expect(thread.recordedLateness().allSatisfy { $0 >= 0 })
    }

    /// The thread wakes `earlyWakeNanoseconds` before a deadline and waits the rest on the
    /// clock: the wakeups come before the deadlines, the sends never do.
    @Test func wakesEarlyAndSendsAtTheDeadline() throws {
        let wire = RecordingWire()
        let early: Int64 = 3_000_000
        let thread = try MIDIClockThread(wires: [wire], realtimePriority: nil, recordLateness: 100, earlyWakeNanoseconds: early)
        let start = monotonicNow() + 20_000_000
        let deadlines = (0..<40).map { start + Int64($0) * 5_000_000 }
        for deadline in deadlines { thread.schedule(.clock, atNanoseconds: deadline) }
        #expect(waitUntil(timeoutSeconds: 5) { thread.sent == 40 })
        thread.stop()
        let sent = wire.sent.withLock { $0 }
        for (i, (_, time)) in sent.enumerated() { #expect(time >= deadlines[i], "clock \(i) sent before its deadline") }
        let woke = thread.recordedWakeLateness()
        #expect(woke.count == 40)
        // A sleep to the deadline itself never wakes before it; a busy host may wake a
        // normal-priority thread late many times, so one early wakeup of 40 is the proof.
        #expect(woke.contains { $0 < 0 }, "never woke before the deadline: \(woke)")
        #expect(woke.allSatisfy { $0 >= -early - 1_000_000 }, "woke far earlier than asked")
    }

    @Test func aFullRingRefusesAndCounts() throws {
        let thread = try MIDIClockThread(wires: [RecordingWire()], realtimePriority: nil, capacity: 4)
        let far = monotonicNow() + 10_000_000_000
        // The thread holds one (waiting for its deadline); four fit in the ring.
        var accepted = 0
        for _ in 0..<10 where thread.schedule(.clock, atNanoseconds: far) { accepted += 1 }
        #expect(accepted <= 5 && accepted >= 4)
        #expect(thread.dropped == 10 - accepted)
        thread.stop()
    }

    /// The MIDI thread's loop (pop, sleep to the deadline, send, account) over 2000
    /// messages, sending to a UART (a pty): no allocation, no lock, exactly one write(2)
    /// per message, nothing else written (no log).
    @Test func theClockThreadNeitherAllocatesNorLocksNorLogs() throws {
        let pty = try PseudoTerminal()
        defer { close(pty.master) }
        let log = LogRecorder()
        let uart = try UARTMIDI(path: pty.slavePath, log: log.log)
        let audited = 2000
        let wire = AuditingWire(uart, first: 50, count: audited)
        let thread = try MIDIClockThread(wires: [wire], realtimePriority: nil)
        let drained = Atomic<Int>(0)
        let reader = Thread { while drained.load(ordering: .relaxed) < 2100 { drained.add(pty.read(waiting: 50).count, ordering: .relaxed) } }
        reader.start()
        let start = monotonicNow() + 5_000_000
        // Fed in batches as the control thread would: the ring holds 1024.
        var k = 0
        while k < 2100 {
            while k < 2100 && thread.schedule(.clock, atNanoseconds: start + Int64(k) * 200_000) { k += 1 }
            usleep(20_000)
        }
        #expect(waitUntil(timeoutSeconds: 20) { wire.writes.load(ordering: .relaxed) >= 0 })
        #expect(waitUntil(timeoutSeconds: 10) { drained.load(ordering: .relaxed) >= 2100 })
        thread.stop()
        print("MIDI clock thread over \(audited) messages: allocations \(wire.allocations.load(ordering: .relaxed)), frees \(wire.frees.load(ordering: .relaxed)), locks \(wire.locks.load(ordering: .relaxed)), writes \(wire.writes.load(ordering: .relaxed))")
        #expect(wire.allocations.load(ordering: .relaxed) == 0)
        #expect(wire.frees.load(ordering: .relaxed) == 0)
        #expect(wire.locks.load(ordering: .relaxed) == 0)
        #expect(wire.writes.load(ordering: .relaxed) == audited)
        #expect(uart.failedWrites == 0)
        #expect(drained.load(ordering: .relaxed) == 2100)
    }
}

@Suite struct UARTMIDITests {
    @Test func bytesOutAndParsedMessagesIn() throws {
        let pty = try PseudoTerminal()
        defer { close(pty.master) }
        let log = LogRecorder()
        let uart = try UARTMIDI(path: pty.slavePath, log: log.log)
        let received = Mutex<[MIDIMessage]>([])
        try uart.start { message, time in
            #expect(time > 0)
            received.withLock { $0.append(message) }
        }
        uart.sendNow(.start)
        uart.sendNow(.clock)
        uart.sendNow(.songPosition(300))
        #expect(pty.read(waiting: 200) == [0xFA, 0xF8, 0xF2, 0x2C, 0x02])
        // Running status, a clock inside a note, velocity 0 as note-off, a SysEx, a CC.
        let bytes: [UInt8] = [0x99, 0x24, 0xF8, 0x64, 0x24, 0x00, 0xF0, 1, 2, 3, 0xF7, 0xB0, 0x40, 0x7F]
        _ = bytes.withUnsafeBytes { write(pty.master, $0.baseAddress, $0.count) }
        #expect(waitUntil(timeoutSeconds: 5) { received.withLock { $0.count } >= 5 })
        uart.stop()
        #expect(received.withLock { $0 } == [
            .clock, .noteOn(channel: 9, note: 0x24, velocity: 0x64), .noteOff(channel: 9, note: 0x24, velocity: 0),
            .systemExclusive(length: 5), .controlChange(channel: 0, controller: 0x40, value: 0x7F),
        ])
        #expect(log.contains("DIN on \(pty.slavePath)"))
    }

    @Test func aMissingDeviceNamesItself() {
        #expect {
            _ = try UARTMIDI(path: "/dev/ttyNOPE9", log: LogRecorder().log)
        } throws: { error in
            guard let error = error as? HALError else { return false }
            return error.kind == .deviceMissing && error.message.contains("/dev/ttyNOPE9") && error.message.contains("midi-uart0")
        }
    }
}

@Suite struct SequencerPortMatchTests {
    @Test func namesMatchClientOrPortFromTheStart() {
        let usb = ALSASequencerMIDI.PortName(client: 24, port: 0, clientName: "USB MIDI Interface", portName: "USB MIDI Interface MIDI 1")
        let virmidi = ALSASequencerMIDI.PortName(client: 20, port: 0, clientName: "Virtual Raw MIDI 1-0", portName: "VirMIDI 1-0")
        #expect(ALSASequencerMIDI.matches("USB MIDI Interface", usb))
        #expect(ALSASequencerMIDI.matches("usb midi interface midi 1", usb))
        #expect(!ALSASequencerMIDI.matches("MIDI Interface", usb))
        #expect(ALSASequencerMIDI.matches("VirMIDI", virmidi))
        #expect(ALSASequencerMIDI.matches("Virtual Raw MIDI 1-0", virmidi))
        #expect(!ALSASequencerMIDI.matches("VirMIDI 2", virmidi))
    }

    /// This host may have no sequencer (no /dev/snd/seq): then opening says so, as the
    /// service's notice does; with one, the client and its port are there.
    @Test func opensTheSequencerOrSaysWhyNot() {
        do {
            let client = try ALSASequencerMIDI(out: ["nothing by this name"], log: LogRecorder().log)
            #expect(client.port >= 0)
        } catch {
            print("SKIPPED the sequencer half: \(error)")
            #expect(error.kind == .deviceMissing || error.kind == .permissionDenied)
            #expect(error.message.contains("/dev/snd/seq"))
        }
    }
}

/// The clock thread taking the engine's clocks itself (`tactus run`): a real engine renders
/// just ahead of the clock on this thread, and the thread pops its MIDI ring through the box's
/// feed, each clock timed when its sample is heard. Every clock goes out in order at its
/// deadline, and the thread's loop, feed included, never allocates, locks or logs.
@Suite struct MIDIClockFeedTests {
    final class FixedOutput: AudioClockSource, @unchecked Sendable {
        let start: Int64
        init(start: Int64) { self.start = start }
        var outputPosition: AudioOutputPosition? {
            AudioOutputPosition(framesRendered: 0, delayFrames: 0, timestamp: MonotonicTime(nanoseconds: start))
        }
    }

    @Test func theThreadTakesTheEnginesClocksItself() throws {
        let pty = try PseudoTerminal()
        defer { close(pty.master) }
        let log = LogRecorder()
        let uart = try UARTMIDI(path: pty.slavePath, log: log.log)
        let wire = AuditingWire(uart, first: 50, count: 1000)
        let thread = try MIDIClockThread(wires: [wire], realtimePriority: nil, recordLateness: 1200)
        var settings = MetronomeSettings()
        settings.tempo = try Tempo(parsing: "999")
        let engine = try ClickEngine(sampleRate: 48_000, channels: 1, maxFrameCount: 256, settings: settings)
        let start = monotonicNow() + 20_000_000
        let feed = MIDIOutFeed(engine: engine, audio: FixedOutput(start: start))
        thread.take(from: MIDIClockFeed {
            guard let message = feed.next() else { return nil }
            return TimedMIDIMessage(deadline: message.deadline, message: message.message)
        })
        engine.start()
        // 999 BPM: a clock every 120.12 samples (2.5 ms), 1200 in 3 s; rendered 10 ms ahead.
        var buffer = [Float](repeating: 0, count: 256)
        var rendered: Int64 = 0
        while rendered < 3 * 48_000 + 4_800 {
            let heard = (monotonicNow() - start) * 48_000 / 1_000_000_000
            while rendered < heard + 480 {
                buffer.withUnsafeMutableBufferPointer { engine.renderer.render(into: $0.baseAddress!, frameCount: 256) }
                rendered += 256
            }
            usleep(2_000)
        }
        #expect(waitUntil(timeoutSeconds: 5) { thread.sent >= 1200 })
        thread.stop()
        let lateness = thread.recordedLateness()
        #expect(lateness.count == 1200)
        // Every clock out at or after its deadline, and soon after it on this shared host.
        #expect(lateness.allSatisfy { $0 >= 0 })
        let summary = thread.latenessSummary()
        print("MIDI clock thread fed by the engine: \(summary.count) messages, lateness p50 \(summary.p50) us, p99 \(summary.p99) us, p99.9 \(summary.p999) us, worst \(summary.worst) us; audit: allocations \(wire.allocations.load(ordering: .relaxed)), locks \(wire.locks.load(ordering: .relaxed)), writes \(wire.writes.load(ordering: .relaxed))")
        #expect(wire.allocations.load(ordering: .relaxed) == 0)
        #expect(wire.frees.load(ordering: .relaxed) == 0)
        #expect(wire.locks.load(ordering: .relaxed) == 0)
        // One write(2) a message: Start's and each clock's, nothing else (no log).
        #expect(wire.writes.load(ordering: .relaxed) == 1000)
        #expect(uart.failedWrites == 0)
    }
}
