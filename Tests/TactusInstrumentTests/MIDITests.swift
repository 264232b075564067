// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Testing
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusTimeline
@testable import TactusInstrument
@testable import TactusScreen
import TactusBase

@Suite struct MIDIParserTests {
    func parse(_ bytes: [UInt8]) -> [MIDIMessage] {
        var parser = MIDIParser()
        return bytes.compactMap { parser.feed($0) }
    }

    @Test func runningStatusAndVelocityZero() {
        #expect(parse([0x90, 60, 100, 62, 90, 60, 0]) == [
            .noteOn(channel: 0, note: 60, velocity: 100), .noteOn(channel: 0, note: 62, velocity: 90),
            .noteOff(channel: 0, note: 60, velocity: 0),
        ])
        #expect(parse([0xB3, 64, 127, 64, 0]) == [.controlChange(channel: 3, controller: 64, value: 127),
                                                 .controlChange(channel: 3, controller: 64, value: 0)])
        #expect(parse([0xC1, 5, 6]) == [.programChange(channel: 1, program: 5), .programChange(channel: 1, program: 6)])
    }

    @Test func realTimeInsideMessages() {
        // F8 between status and data, and between the two data bytes, leaves the note whole.
        #expect(parse([0x92, 0xF8, 60, 0xFA, 100, 0xF8]) == [.clock, .start, .noteOn(channel: 2, note: 60, velocity: 100), .clock])
        #expect(parse([0xF2, 0x10, 0xF8, 0x00, 0xFB]) == [.clock, .songPosition(16), .continue])
        // Real time inside SysEx does not end it.
        #expect(parse([0xF0, 0x7E, 0xF8, 0x01, 0xF7, 0xFC]) == [.clock, .systemExclusive(length: 4), .stop])
    }

    @Test func sysExAndStrayBytes() {
        // Data with no status is dropped; SysEx cancels running status; a status ends an
        // unterminated SysEx.
        #expect(parse([60, 100, 0x90, 60, 1, 0xF0, 1, 2, 3, 0xF7, 61, 1]) == [.noteOn(channel: 0, note: 60, velocity: 1),
                                                                           .systemExclusive(length: 5)])
        #expect(parse([0xF0, 1, 2, 0x80, 60, 0]) == [.noteOff(channel: 0, note: 60, velocity: 0)])
        // System common cancels running status.
        #expect(parse([0x90, 60, 1, 0xF2, 0, 0, 61, 1]) == [.noteOn(channel: 0, note: 60, velocity: 1), .songPosition(0)])
    }

    @Test func floodsAreBounded() {
        var parser = MIDIParser()
        var clocks = 0
        for _ in 0..<10_000 { if parser.feed(0xF8) == .clock { clocks += 1 } }
        #expect(clocks == 10_000)
        // A million SysEx data bytes: nothing stored, the message comes out with its length.
        _ = parser.feed(0xF0)
        for _ in 0..<1_000_000 { #expect(parser.feed(0x55) == nil) }
        #expect(parser.feed(0xF7) == .systemExclusive(length: 1_000_002))
        #expect(MemoryLayout<MIDIParser>.size <= 32)
    }

    @Test func hexAndSongPosition() {
        #expect(MIDIMessage.clock.hex == "F8")
        #expect(MIDIMessage.songPosition(16).hex == "F2 10 00")
        #expect(MIDIMessage.songPosition(sixteenths: 200).hex == "F2 48 01")
        #expect(MIDIMessage.songPosition(sixteenths: 16383) == .songPosition(16383))
        #expect(MIDIMessage.songPosition(sixteenths: 16384) == .songPosition(16383))
        #expect(MIDIMessage.songPosition(sixteenths: 1_000_000).hex == "F2 7F 7F")
        #expect(MIDIMessage.noteOn(channel: 9, note: 36, velocity: 127).hex == "99 24 7F")
    }
}

@Suite struct MIDIClockFollowerTests {
    /// Feeds a clock at `bpm` quarter notes a minute with uniform jitter of +-`jitter` ns and
    /// returns, per beat, the follower's predicted time of that beat's tick minus its true time
    /// (ns) and the tempo error (fraction) at that moment.
    struct Run {
        var phase: [Double] = []
        var tempo: [Double] = []
        var shown: [Double] = []
        var locks: [MIDIClockFollower.Lock] = []
    }

    static func run(_ follower: inout MIDIClockFollower, segments: [(bpm: Double, beats: Int)], jitter: Double, seed: UInt64) -> Run {
        var random = SplitMix64(state: seed)
        var run = Run()
        var t = 1_000_000_000.0
        var first = true
        for segment in segments {
            let period = 60e9 / (24 * segment.bpm)
            for k in 0..<(segment.beats * 24) {
                if !first { t += period }
                first = false
                if k % 24 == 0 && follower.ticks >= 2 {
                    run.phase.append(follower.nextTick - t)
                    run.tempo.append(abs(follower.period - period) / period)
                    run.shown.append(follower.shownQuarterBPM)
                    run.locks.append(follower.lock)
                } else if k % 24 == 0 {
                    run.phase.append(.infinity)
                    run.tempo.append(.infinity)
                    run.shown.append(0)
                    run.locks.append(follower.lock)
                }
                let noise = (Double(random.next() % 2_000_001) / 1_000_000 - 1) * jitter
                follower.tick(at: Int64((t + noise).rounded()))
            }
        }
        return run
    }

    /// The first beat from which phase stays under 0.5 ms and tempo under 0.2 %.
    static func lockedFrom(_ run: Run, from start: Int = 0, to end: Int? = nil) -> Int? {
        let end = end ?? run.phase.count
        var candidate: Int?
        for beat in start..<end {
            if abs(run.phase[beat]) < 500_000 && run.tempo[beat] < 0.002 {
                if candidate == nil { candidate = beat }
            } else {
                candidate = nil
            }
        }
        return candidate.map { $0 - start }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func locksWithinThreeBeatsAndHolds(seed: UInt64) {
        var follower = MIDIClockFollower()
        let run = Self.run(&follower, segments: [(120, 40)], jitter: 500_000, seed: seed)
        let locked = Self.lockedFrom(run)
        #expect(locked != nil && locked! <= 3, "locked after \(String(describing: locked)) beats")
        // Steady phase error: SD under 0.1 ms (beats 10 on).
        let steady = Array(run.phase[10...])
        let mean = steady.reduce(0, +) / Double(steady.count)
        let sd = (steady.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(steady.count)).squareRoot()
        #expect(sd < 100_000, "phase SD \(sd) ns")
        #expect(follower.lock == .locked)
        // Shown tempo once locked (averaged over up to 96 ticks), rounded to one decimal.
        for shown in run.shown[3...] {
            let tenth = (shown * 10).rounded() / 10
            #expect(tenth >= 119.9 && tenth <= 120.1, "shown \(shown)")
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func relocksAfterStepWithinFiveBeats(seed: UInt64) {
        var follower = MIDIClockFollower()
        let run = Self.run(&follower, segments: [(120, 20), (140, 30)], jitter: 500_000, seed: seed)
        let locked = Self.lockedFrom(run, from: 20)
        #expect(locked != nil && locked! <= 5, "relocked after \(String(describing: locked)) beats")
        #expect(follower.lock == .locked)
        #expect(abs(follower.shownQuarterBPM - 140) < 0.1)
    }

    @Test func silenceForTwoBeatsIsLost() {
        var follower = MIDIClockFollower()
        for k in 0..<100 { follower.tick(at: Int64(k) * 20_833_333) }
        let last = Int64(99) * 20_833_333
        let early = follower.checkSilence(now: last + 48 * 20_833_333 - 1_000_000)
        #expect(!early)
        let late = follower.checkSilence(now: last + 48 * 20_833_333 + 1_000_000)
        #expect(late)
        #expect(follower.lock == .lost)
    }
}

@Suite struct MIDIConfigurationTests {
    @Test func parsesTheMidiTable() throws {
        let configuration = try ConfigurationFile.parse("""
            [midi]
            offset_ms = -5
            clock_when_stopped = false
            out = ["USB MIDI Interface", "Midi Through"]
            uart = "/dev/ttyAMA0"
            [midi.map]
            "note 36" = "tap"
            "cc 64 ch 1" = "start-stop"
            "program 4" = "preset 2"
            """, file: "c.toml")
        let midi = configuration.midi
        #expect(midi.offsetMilliseconds == -5)
        #expect(!midi.clockWhenStopped)
        #expect(midi.out == ["USB MIDI Interface", "Midi Through"])
        #expect(midi.uart == "/dev/ttyAMA0")
        #expect(midi.map.count == 3)
        #expect(midi.control(for: .noteOn(channel: 5, note: 36, velocity: 1)) == .tap)
        #expect(midi.control(for: .controlChange(channel: 0, controller: 64, value: 127)) == .startStop)
        #expect(midi.control(for: .controlChange(channel: 0, controller: 64, value: 10)) == nil)
        #expect(midi.control(for: .controlChange(channel: 1, controller: 64, value: 127)) == nil)
        #expect(midi.control(for: .programChange(channel: 0, program: 4)) == .preset(2))
        #expect(midi.control(for: .programChange(channel: 0, program: 6)) == .song(6))
        #expect(ConfigurationFile().midi.clockWhenStopped)
    }

    @Test func offsetOutOfRangeNamesTheKeyAndTheLine() {
        do {
            _ = try ConfigurationFile.parse("[midi]\nclock_when_stopped = false\noffset_ms = 21\n", file: "c.toml")
            Issue.record("offset_ms = 21 was accepted")
        } catch {
            #expect(error.description.hasPrefix("c.toml:3"), "\(error.description)")
            #expect(error.description.contains("offset_ms") && error.description.contains("-20 to 20"), "\(error.description)")
        }
        #expect((try? ConfigurationFile.parse("[midi]\noffset_ms = -20\nstart_at_count_in = true\n", file: "c.toml"))
            .map { $0.midi.offsetMilliseconds == -20 && $0.midi.startAtCountIn } == true)
        // Program change N selects setlist song N; 0 selects nothing; a velocity-0 note-on presses nothing.
        var midi = MIDIConfiguration()
        midi.map = [MIDIMapping(kind: .note, number: 36, channel: nil, control: .tap)]
        #expect(midi.control(for: .programChange(channel: 3, program: 2)) == .song(2))
        #expect(midi.control(for: .programChange(channel: 3, program: 0)) == nil)
        #expect(midi.control(for: .noteOn(channel: 0, note: 36, velocity: 0)) == nil)
        #expect(midi.control(for: .noteOn(channel: 9, note: 36, velocity: 1)) == .tap)
    }
}

@Suite struct MIDISyncViewTests {
    @Test func theFollowedTempoAndMarkAreOnScreenAndInTheState() throws {
        var saved = SavedState()
        saved.preferences.sync = .midi
        var box = try BoxState(saved: saved, soundNames: ["woodblock"], at: .zero)
        let plain = ScreenRenderer.render(ScreenPresenter.model(for: box, grid: nil))
        _ = box.handle(.midiSync(MIDISyncView(lock: .locked, bpm: "119.9"), at: .zero))
        #expect(box.screen.midiSync?.bpm == "119.9")
        #expect(box.screen.midiSync?.mark == "M=")
        let following = ScreenRenderer.render(ScreenPresenter.model(for: box, grid: nil))
        #expect(following != plain)
        _ = box.handle(.midiSync(MIDISyncView(lock: .locking, bar: 3, beat: 2), at: .zero))
        #expect(box.screen.midiSync?.mark == "M~ 3.2")
        #expect(box.screen.midiSync?.bpm == nil)
        #expect(MIDISyncView(lock: .lost).mark == "M?")
        // Sync: Internal shows none of it.
        _ = box.handle(.sync(.internal, at: .zero))
        #expect(box.screen.midiSync == nil)
    }
}

