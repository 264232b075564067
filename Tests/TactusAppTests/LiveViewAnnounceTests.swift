// SPDX-License-Identifier: GPL-3.0-or-later
import Logging
import Testing
@testable import TactusApp
import TactusSimulation
import TactusBase
import ClickEngine
import TactusMusic
import TactusInstrument

/// The live view's news of the beats (README "Companion", control socket `subscribe`): the
/// box announces its grid's beats ahead of their heard time, places START ahead while a view
/// follows, and takes back what a change or STOP removed.
@Suite struct LiveViewAnnounceTests {
    /// A view that follows the beat: every announcement and beat onset, with the box's time.
    final class View: BoxControlObserver {
        var announcements: [(at: Int64, from: Int64, beats: [AnnouncedBeat])] = []
        var onsets: [(heard: Int64, bar: Int64, beat: Int)] = []
        var followsBeats: Bool { true }
        func box(_ box: Box, didStart onset: OnsetEvent, heardAt time: MonotonicTime) {
            if onset.layer == 0 && onset.kind <= .beat { onsets.append((time.nanoseconds, onset.bar, Int(onset.beat))) }
        }
        func box(_ box: Box, didChange state: BoxState, at time: MonotonicTime) {}
        func box(_ box: Box, willPlay beats: [AnnouncedBeat], from: MonotonicTime) {
            announcements.append((box.now.nanoseconds, from.nanoseconds, beats))
        }
    }

    func run(_ script: String, saved: SavedState = SavedState()) throws -> View {
        let view = View()
        let simulation = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: saved, problem: nil,
                                                persistence: RecordingPersistence(), output: MemoryOutput(), logger: Logger(label: "test"))
        simulation.box.controlObserver = view
        try simulation.run(try SimulationScript(text: script, file: "test.script"))
        return view
    }

    @Test func startIsPlacedAheadAndEveryBeatIsAnnouncedBeforeItIsHeard() throws {
        let view = try run("0.500 press start\n3.000 end\n")
        // START at 0.5 s: bar 0's downbeat heard 40 ms later (the live view's lead), exactly.
        let first = try #require(view.onsets.first)
        #expect(first.heard == 540_000_000 && first.bar == 0 && first.beat == 0)
        // Announced within the first render period after the press (2.7 ms here): 37 ms and more ahead.
        let told = try #require(view.announcements.first { $0.beats.contains { $0.bar == 0 && $0.beat == 0 } })
        #expect(told.at <= 503_000_000)
        #expect(told.beats.first.map { $0.time.nanoseconds } == 540_000_000)
        // Every beat heard was announced with its heard time; each after the first 400 ms and more ahead.
        #expect(view.onsets.count == 5) // 0.54, 1.04 ... 2.54 s
        for onset in view.onsets {
            let news = view.announcements.first { $0.beats.contains { $0.time.nanoseconds == onset.heard && $0.bar == onset.bar && $0.beat == onset.beat } }
            let ahead = try #require(news.map { onset.heard - $0.at }, "beat \(onset.bar):\(onset.beat) never announced")
            #expect(ahead >= (onset.heard == first.heard ? 37_000_000 : 400_000_000), "\(onset.bar):\(onset.beat) \(ahead) ns ahead")
        }
    }

    /// A song with its count-in and a muted bar: START 40 ms ahead, every beat heard (count-in
    /// included, bar -1) announced ahead with its time, the song's samples as without a view.
    @Test func aSongIsAnnouncedFromItsCountIn() throws {
        let view = try run(SongBoxTests.script + "16 end\n", saved: SongBoxTests.saved())
        let first = try #require(view.onsets.first)
        #expect(first.bar == -1 && first.beat == 0)
        #expect(view.onsets.map { $0.heard - first.heard } == [0, 24000, 48000, 72000, 96000, 120000, 144000, 168000, 192000, 224000,
                                                               256000, 288000, 320000, 352000].map { Int64($0) * 1_000_000_000 / 48000 })
        let press = try #require(view.announcements.first?.at)
        #expect(abs(first.heard - press - 40_000_000) < 3_000_000, "\(first.heard - press)")
        for onset in view.onsets {
            let news = view.announcements.first { $0.beats.contains { abs($0.time.nanoseconds - onset.heard) <= 1 && $0.bar == onset.bar && $0.beat == onset.beat } }
            #expect(news.map { onset.heard - $0.at >= 30_000_000 } == true, "\(onset.bar):\(onset.beat)")
        }
    }

    /// What a page keeps of the announcements (share/web/play.js: a later line takes back the
    /// beats at or after its `from` it does not list, unless already drawn) is exactly what was heard.
    @Test func aTempoChangeAndStopTakeBackWhatWillNotSound() throws {
        let view = try run("0.000 press start\n1.100 turn +30 over 0.1\n2.620 press start\n3.500 end\n")
        var planned: [String: Int64] = [:]
        for line in view.announcements {
            let listed = Set(line.beats.map { "\($0.bar):\($0.beat)" })
            planned = planned.filter { $0.value < line.from || $0.value <= line.at || listed.contains($0.key) }
            for beat in line.beats { planned["\(beat.bar):\(beat.beat)"] = beat.time.nanoseconds }
        }
        let heard = Dictionary(uniqueKeysWithValues: view.onsets.map { ("\($0.bar):\($0.beat)", $0.heard) })
        // The same beats; their times agree to the ns rounding of two readings of the audio clock.
        #expect(Set(planned.keys) == Set(heard.keys))
        #expect(heard.allSatisfy { abs((planned[$0.key] ?? 0) - $0.value) <= 1 }, "\(planned) \(heard)")
        // The change took: later beats closer together than 0.5 s; STOP at 2.62 s ended them.
        let times = view.onsets.map(\.heard)
        #expect(times.count >= 2 && times[times.count - 1] - times[times.count - 2] < 450_000_000)
        #expect(times.allSatisfy { $0 < 2_625_000_000 })
        #expect(view.announcements.last?.beats.isEmpty == true)
    }
}
