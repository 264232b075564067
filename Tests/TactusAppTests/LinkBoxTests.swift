// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import HAL
import Logging
import SimHAL
import Testing
@testable import TactusApp
import TactusInstrument
import TactusMusic
import TactusArithmetic
import TactusBase

/// A Link session in memory: the test plays the peers (their count, the session's tempo and
/// start/stop state); every commit the box makes is recorded.
final class FakeLink: LinkSession {
    var isEnabled = false
    var startStopSync: [Bool] = []
    var peers = 0
    var tempo = 120.0
    var playing = false
    var tempoCommits: [Double] = []
    var playingCommits: [Bool] = []

    func enable(_ enabled: Bool) { isEnabled = enabled }
    func enableStartStopSync(_ enabled: Bool) { startStopSync.append(enabled) }
    /// The session's beat line passes through (timeOrigin, beatOrigin); `setTempo` keeps the
    /// beat continuous at its time as Link does.
    var beatOrigin = 0.0
    var timeOrigin = MonotonicTime.zero

    func capture(quantum: Double) -> LinkTimeline {
        LinkTimeline(tempo: tempo, beatOrigin: beatOrigin, quantum: quantum, timeOrigin: timeOrigin, isPlaying: playing, timeForIsPlaying: .zero)
    }
    /// A peer's tempo change at `time`.
    func setTempo(_ newTempo: Double, at time: MonotonicTime) {
        beatOrigin = capture(quantum: 4).beat(at: time)
        timeOrigin = time
        tempo = newTempo
    }
    func commit(tempo: Double, at time: MonotonicTime) {
        tempoCommits.append(tempo)
        self.tempo = tempo
    }
    func commit(beat: Double, at time: MonotonicTime, quantum: Double) {}
    func commit(playing: Bool, at time: MonotonicTime) { playingCommits.append(playing) }
}

@Suite struct LinkBoxTests {
    static func makeBox(_ link: FakeLink, bpm: Rational, unit: String = "1/4") throws -> (Box, ManualClock) {
        let clock = ManualClock(start: .zero)
        let sink = OfflineAudioSink(clock: clock)
        var saved = SavedState()
        saved.settings.tempo = try Tempo(bpm)
        saved.settings.beatUnit = try BeatUnit(parsing: unit)
        saved.preferences.sync = .link
        let parts = BoxParts(board: testBoard(), configuration: ConfigurationFile(), audio: try AudioOutput(device: sink, silent: sink),
                             input: ScriptedInput(), display: nil, indicators: SimulatedIndicators(),
                             persistence: RecordingPersistence(), clock: clock, link: link)
        return (try BoxAssembly.makeBox(parts, saved: saved, problem: nil, logger: Logger(label: "test")), clock)
    }

    static func run(_ box: Box, _ clock: ManualClock, until seconds: Double) {
        var time = clock.now().nanoseconds
        let end = Int64(seconds * 1e9)
        while time < end {
            time = min(box.nextWakeup?.nanoseconds ?? end, time + 10_000_000, end)
            clock.set(MonotonicTime(nanoseconds: time))
            box.advance(to: clock.now())
        }
    }

    /// Outside Link's 20-999 quarter notes a minute the box stays local and says so: 15 BPM
    /// in quarters is never sent, the box keeps it, and the notice names the range.
    @Test func aTempoOutsideLinksRangeStaysLocalAndSaysSo() throws {
        let link = FakeLink()
        let (box, clock) = try Self.makeBox(link, bpm: 15)
        Self.run(box, clock, until: 0.5)
        #expect(link.isEnabled)
        #expect(link.tempoCommits.allSatisfy { (20...999).contains($0) })
        #expect(box.state.settings.tempo == Tempo(clampingWholeBPM: 15))
        #expect(box.state.notice?.text.contains("outside Link's 20-999") == true)
        // A peer's tempo does not move a box that plays on its own.
        link.peers = 1
        link.tempo = 100
        Self.run(box, clock, until: 1)
        #expect(box.state.settings.tempo == Tempo(clampingWholeBPM: 15))
    }

    /// A session tempo the box cannot play in its beat unit (300 quarter notes is 1200 in
    /// 1/16) is left alone: the box plays its own, says so, and never sends its tempo over
    /// the session's; when the session moves to a tempo it can play, it follows again.
    @Test func anUnplayableSessionTempoIsLeftAlone() throws {
        let link = FakeLink()
        let (box, clock) = try Self.makeBox(link, bpm: 120, unit: "1/16")
        Self.run(box, clock, until: 0.3)
        #expect(link.tempoCommits == [30])
        link.peers = 1
        link.setTempo(300, at: clock.now())
        Self.run(box, clock, until: 1.5)
        #expect(link.tempo == 300, "the session's tempo was overwritten: \(link.tempoCommits)")
        #expect(link.tempoCommits == [30])
        #expect(box.state.settings.tempo == Tempo(clampingWholeBPM: 120))
        #expect(box.state.notice?.text.contains("outside 1-999 BPM in 1/16; playing on its own") == true)
        link.setTempo(200, at: clock.now())
        Self.run(box, clock, until: 2)
        #expect(box.state.settings.tempo == Tempo(clampingWholeBPM: 800))
        #expect(link.tempoCommits == [30])
    }

    /// A Link beat is a quarter note: a 1/8 beat unit at 120 is 60 in the session, and the
    /// session's 70 plays 140 there.
    @Test func aLinkBeatIsAQuarterNote() throws {
        let link = FakeLink()
        link.tempo = 90
        let (box, clock) = try Self.makeBox(link, bpm: 120, unit: "1/8")
        Self.run(box, clock, until: 0.5)
        #expect(link.tempoCommits.first == 60)
        link.peers = 1
        link.tempo = 70
        Self.run(box, clock, until: 1)
        #expect(box.state.settings.tempo == Tempo(clampingWholeBPM: 140))
    }

    /// Start/stop sync is off by default; with it on, joining a playing session neither starts
    /// the box nor sends anything; a peer's later START does start it.
    @Test func joiningNeverStartsOrStopsAnyone() throws {
        #expect(Preferences().linkStartStopSync == false)
        let link = FakeLink()
        let (box, clock) = try Self.makeBox(link, bpm: 120)
        Self.run(box, clock, until: 0.5)
        #expect(!link.startStopSync.contains(true))
        box.perform(box.state.handle(.linkStartStopSync(true, at: clock.now())), at: clock.now())
        Self.run(box, clock, until: 1)
        #expect(link.startStopSync.last == true)
        link.peers = 1
        link.playing = true
        Self.run(box, clock, until: 3)
        #expect(!box.state.isPlaying)
        #expect(link.playingCommits.isEmpty)
        link.playing = false
        Self.run(box, clock, until: 4)
        link.playing = true
        Self.run(box, clock, until: 5)
        #expect(box.state.isPlaying)
        #expect(link.playingCommits.isEmpty)
    }
}
