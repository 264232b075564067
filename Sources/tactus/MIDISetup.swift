// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import HAL
import LinuxHAL
import Logging
import TactusApp
import TactusBase
import TactusTimeline
import TactusInstrument
import MIDIWire

/// Lets the MIDI clock thread take the engine's messages itself.
final class MIDIClockSender: MIDISender {
    let thread: MIDIClockThread
    init(_ thread: MIDIClockThread) { self.thread = thread }
    func takeMessages(_ next: @escaping @Sendable () -> (message: MIDIMessage, deadline: Int64)?) {
        thread.take(from: MIDIClockFeed {
            // No Optional.map here: its closure's generic metadata is made at the first call (a lock).
            guard let message = next() else { return nil }
            return TimedMIDIMessage(deadline: message.deadline, message: message.message)
        })
    }
}

/// `tactus run`'s MIDI: the sequencer client "Tactus" whenever the system has a sequencer
/// (so it can be `aconnect`ed without any configuration, like any other MIDI program), the
/// UART when `[midi] uart` names one, and the clock thread sending to both. What is missing
/// is a notice in the log and the metronome goes on without it.
struct MIDISetup {
    let sequencer: ALSASequencerMIDI?
    let uart: UARTMIDI?
    let thread: MIDIClockThread?

    var sender: (any MIDISender)? { thread.map { MIDIClockSender($0) } }

    init(_ configuration: MIDIConfiguration, log: HALLog) {
        var wires: [any MIDIPort] = []
        do {
            let client = try ALSASequencerMIDI(out: configuration.out, log: log)
            wires.append(client)
            sequencer = client
        } catch {
            sequencer = nil
            log.info("MIDI: \(error.message); playing without the sequencer")
        }
        if let path = configuration.uart {
            do {
                let port = try UARTMIDI(path: path, log: log)
                wires.append(port)
                uart = port
            } catch {
                uart = nil
                log.error("MIDI: \(error); playing without DIN MIDI")
            }
        } else {
            uart = nil
        }
        guard !wires.isEmpty else {
            thread = nil
            return
        }
        do {
            let clock = try MIDIClockThread(wires: wires)
            switch clock.priority {
            case .realtime(let priority): log.info("MIDI: clock thread at SCHED_FIFO \(priority)")
            case .normal(let reason):
                log.warning("MIDI: the clock thread runs at normal priority (\(reason)): give the service CAP_SYS_NICE or LimitRTPRIO=\(MIDIClockThread.defaultPriority)")
            }
            thread = clock
        } catch {
            thread = nil
            log.error("MIDI: \(error); no MIDI out")
        }
    }

    /// Input from the sequencer and the UART goes to the box's control thread.
    func startInput(_ post: @escaping @Sendable (MIDIMessage, Int64) -> Void, log: HALLog) {
        do { try sequencer?.start(post) } catch { log.error("MIDI: \(error); no MIDI input from the sequencer") }
        do { try uart?.start(post) } catch { log.error("MIDI: \(error); no DIN MIDI input") }
    }

    /// Stops input and the clock thread; with `log`, says how late the clock thread's
    /// messages left (the figure `make bench` asks of it: p99 < 0.2 ms, p99.9 < 1 ms).
    func stop(log: HALLog? = nil) {
        sequencer?.stop()
        uart?.stop()
        thread?.stop()
        if let log, let thread, thread.sent > 0 {
            let s = thread.latenessSummary()
            func ms(_ us: Int) -> String { "\(us / 1000).\(String(us % 1000 / 10 + 100).dropFirst()) ms" }
            log.info("MIDI: \(s.count) messages sent, lateness p50 \(ms(s.p50)), p99 \(ms(s.p99)), p99.9 \(ms(s.p999)), worst \(ms(s.worst))")
        }
    }
}
