// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Testing
@testable import TactusArithmetic
@testable import TactusMusic
@testable import TactusTimeline
@testable import TactusInstrument
@testable import TactusScreen
import TactusBase
import MIDIWire

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


/// The MIDI map edited at the companion: read by the configuration's reader, kept in the
/// settings file, and written back as it was read.
@Suite struct CompanionMIDIMapTests {
    static let table = """
        [midi.map]
        "note 36" = "tap"
        "cc 64 ch 10" = "start-stop"
        "program 4" = "preset 2"
        "cc 22" = "next-section"
        "program 0 ch 16" = "song 1"

        """

    @Test func readsAsTheConfigurationReadsAndWritesItBack() throws {
        let map = try RemotePatch.midiMap(fromTOML: Self.table)
        #expect(map == (try ConfigurationFile.parse("[midi]\n" + Self.table, file: "c.toml")).midi.map)
        #expect(map.map(\.key) == ["note 36", "cc 64 ch 10", "program 4", "cc 22", "program 0 ch 16"])
        #expect(map.map(\.control.text) == ["tap", "start-stop", "preset 2", "next-section", "song 1"])
        #expect(RemotePatch.toml(map) == "[midi]\n\n" + Self.table)
        #expect(try RemotePatch.midiMap(fromTOML: RemotePatch.toml(map)) == map)
        #expect(try RemotePatch.midiMap(fromTOML: "[midi.map]\n").isEmpty)
    }

    @Test func errorsAreTheConfigurationReadersWords() {
        for (bad, message) in [
            ("[midi.map]\n\"note 36\" = \"tap\"\n\"note 200\" = \"tap\"\n",
             #"midi-map.toml:3: midi.map."note 200" = "tap" is invalid: keys are "note N", "cc N" or "program N" (N 0-127), optionally followed by "ch C" (1-16)"#),
            ("[midi.map]\n\"cc 1\" = \"dance\"\n",
             #"midi-map.toml:2: midi.map."cc 1" = "dance" is invalid: allowed "tap", "start-stop", "footswitch", "tempo-up", "tempo-down", "next-section", "previous-section", "preset N" or "song N" (N from 1)"#),
            ("[midi]\noffset_ms = 3\n", "midi-map.toml:2: midi.offset_ms"),
        ] {
            do {
                _ = try RemotePatch.midiMap(fromTOML: bad)
                Issue.record("accepted \(bad)")
            } catch {
                #expect(error.description.hasPrefix(message), "\(error.description)")
                // The configuration file says the same of the same entry, in its own name.
                if !bad.contains("offset_ms"), let config = try? ConfigurationFile.parse("[midi]\n" + bad, file: "midi-map.toml") {
                    Issue.record("the configuration took \(config.midi.map)")
                }
            }
        }
    }

    @Test func theSettingsFileKeepsItInOrderAndWithoutItIsUnchanged() throws {
        var saved = SavedState()
        #expect(!SettingsFile.encode(saved).contains("[midi"))
        #expect(try SettingsFile.decode(SettingsFile.encode(saved), file: "s.toml").midiMap == nil)
        saved.midiMap = try RemotePatch.midiMap(fromTOML: Self.table)
        let text = SettingsFile.encode(saved)
        #expect(text.contains("[midi.map]\n\"note 36\" = \"tap\"\n\"cc 64 ch 10\" = \"start-stop\"\n"))
        #expect(try SettingsFile.decode(text, file: "s.toml") == saved)
        saved.midiMap = []
        #expect(try SettingsFile.decode(SettingsFile.encode(saved), file: "s.toml").midiMap == [])
    }
}
