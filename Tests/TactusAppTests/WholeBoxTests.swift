// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Devices
import SimHAL
import Foundation
import HAL
import Logging
import Testing
@testable import TactusApp
@testable import TactusSimulation
import TactusMusic
import TactusInstrument
import TactusBase

/// Keeps a headless simulation's results in memory.
final class MemoryOutput: SimulationOutput {
    var samples: [Float] = []
    var lines: [[String: Any]] = []
    var frames: [(Int64, Bitmap)] = []

    func audio(_ interleaved: [Float]) throws { samples += interleaved }
    func event(_ line: String) throws {
        lines.append(try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any])
    }
    func frame(_ frame: Bitmap, milliseconds: Int64) throws { frames.append((milliseconds, frame)) }

    func events(_ type: String) -> [[String: Any]] { lines.filter { $0["type"] as? String == type } }
    var states: [[String: Any]] { events("state") }
}

final class RecordingPersistence: SettingsPersistence, @unchecked Sendable {
    var saves: [SavedState] = []
    func save(_ saved: SavedState) throws { saves.append(saved) }
}

func testBoard() -> BoardDefinition {
    let inputs = InputRole.allCases.enumerated().map { InputLineDefinition(role: $1, chipLabel: "sim", line: .offset($0)) }
    let outputs = IndicatorChannel.allCases.enumerated().map { OutputLineDefinition(indicator: $1, chipLabel: "sim", line: .offset(10 + $0)) }
    return BoardDefinition(identifier: "test", model: "test", inputs: inputs, outputs: outputs,
                           display: DisplayDefinition(controller: .ssd1306, address: I2CAddress(0x3C)!), audio: AudioDefinition())
}

func simulate(_ script: String, saved: SavedState = SavedState()) throws -> (MemoryOutput, RecordingPersistence, HeadlessSimulation) {
    let output = MemoryOutput()
    let persistence = RecordingPersistence()
    let simulation = try HeadlessSimulation(board: testBoard(), configuration: ConfigurationFile(), saved: saved, problem: nil,
                                            persistence: persistence, output: output, logger: Logger(label: "test"))
    try simulation.run(try SimulationScript(text: script, file: "test.script"))
    return (output, persistence, simulation)
}

@Suite struct WholeBoxTests {
    @Test func startPlaysExactBeatsWithLEDsAtTheirOnsetsAndTheAudioHoldsTheClicks() throws {
        let (output, _, _) = try simulate("0.000 press start\n3.000 end\n")
        let onsets = output.events("onset")
        #expect(onsets.map { $0["sample"] as! Int } == [0, 24000, 48000, 72000, 96000, 120000])
        #expect(onsets.map { $0["kind"] as! String } == ["accent", "beat", "beat", "beat", "accent", "beat"])
        #expect(onsets.map { $0["t"] as! Double } == [0, 0.5, 1, 1.5, 2, 2.5])
        // The beat LED goes on exactly when its click is heard and off 60 ms later.
        let beatLED = output.events("led").filter { $0["which"] as? String == "beat" }
        #expect(beatLED.prefix(4).map { $0["t"] as! Double } == [0.5, 0.56, 1.0, 1.06])
        #expect(beatLED.prefix(2).map { $0["on"] as! Bool } == [true, false])
        // audio.wav is what was rendered: stereo, silent before each click, sound right at it.
        #expect(output.samples.count == 2 * 144_000)
        #expect(output.samples[2 * 23_999] == 0)
        #expect(output.samples[(2 * 24_000)..<(2 * 24_200)].contains { abs($0) > 0.01 })
        #expect(output.samples[(2 * 30_000)..<(2 * 47_990)].allSatisfy { $0 == 0 })
    }

    @Test func slowTurnMovesExactlyOneBPMPerDetentAndFlickAccelerates() throws {
        let (output, _, _) = try simulate("""
            1.000 turn +5 over 2.5
            5.000 turn -40 over 0.3
            8.000 end
            """)
        let bpms = output.states.map { $0["bpm"] as! Int }
        #expect(Array(bpms.prefix(6)) == [120, 121, 122, 123, 124, 125])
        // Forty detents in 0.3 s travel far more than 40 BPM.
        #expect(bpms.last! < 125 - 40)
        #expect(output.events("buzzer").filter { $0["kind"] as? String == "tick" }.count >= 5)
    }

    @Test func tapSetsTheTempoOfItsInterval() throws {
        let (output, _, _) = try simulate("0 tap\n0.4 tap\n0.8 tap\n2 end\n")
        #expect(output.states.last?["bpm"] as? Int == 150)
    }

    /// TAP while playing at 120: quarters, a pause of 1.95 s, then taps 0.25 s apart. The
    /// outlying interval sets no tempo (never 31 BPM); 240 comes with the next tap, and until
    /// then every beat stays on the 0.5 s grid: a tap never moves the beat being heard.
    @Test func anOutlyingTapWhilePlayingSetsNoTempoAndMovesNoBeat() throws {
        let (output, _, _) = try simulate("0 press start\n0.1 tap\n0.6 tap\n1.1 tap\n1.6 tap\n3.55 tap\n3.8 tap\n4.05 tap\n5 end\n")
        let bpms = output.states.map { $0["bpm"] as! Int }
        #expect(!bpms.contains(31))
        #expect(bpms.last == 240)
        let change = try #require(output.states.first { $0["bpm"] as? Int == 240 }?["t"] as? Double)
        #expect(abs(change - 3.8) < 0.1)
        let beats = output.events("onset").map { $0["t"] as! Double }.filter { $0 <= 3.8 }
        #expect(beats.count == 8)
        #expect(beats.enumerated().allSatisfy { abs($0.element - Double($0.offset) * 0.5) < 1e-6 })
    }

    @Test func longPressOpensTheMenuAndDoublePressReturns() throws {
        let (output, _, _) = try simulate("0 press wheel short\n1 press wheel long\n3 press wheel double\n5 end\n")
        let states = output.states.map { ($0["mode"] as! String, $0["menu"] as? String) }
        #expect(states.contains { $0.0 == "accents" })
        #expect(states.contains { $0.1 == "Tempo markings" })
        #expect(states.last!.0 == "tempo")
        #expect(states.last!.1 == nil)
    }

    @Test func framesShowThePendulumMovingWithTheBeat() throws {
        let (output, _, _) = try simulate("0 press start\n2 end\n")
        #expect(output.frames.count > 60) // about 60 frames per second while playing
        let times = output.frames.map(\.0)
        #expect(times == times.sorted())
        #expect(Set(output.frames.map(\.1)).count == output.frames.count) // only distinct frames
    }

    /// The box saves by itself once the wheel has rested for the debounce (2 s), not before.
    /// (The save at stop is BoxServiceTests' job: it goes through the service's stop.)
    @Test func settingsAreSavedShortlyAfterAChange() throws {
        let (_, persistence, _) = try simulate("0 turn +3 over 0.6\n4 end\n")
        #expect(persistence.saves.map(\.settings.tempo) == [Tempo(clampingWholeBPM: 123)])
        let (_, early, _) = try simulate("0 turn +3 over 0.6\n2.5 end\n")
        #expect(early.saves.isEmpty)
    }

    @Test func scriptErrorsNameTheLine() {
        #expect(throws: SimulationScriptError(file: "s", line: 2, problem: "press 'hard' is invalid: allowed short, long or double")) {
            try SimulationScript(text: "0 tap\n1 press wheel hard\n2 end\n", file: "s")
        }
        #expect(throws: SimulationScriptError(file: "s", line: 2, problem: "time 0.5 goes back (the previous step was at 1 s)")) {
            try SimulationScript(text: "1 tap\n0.5 tap\n2 end\n", file: "s")
        }
        #expect(throws: SimulationScriptError.self) { try SimulationScript(text: "0 tap\n", file: "s") }
        #expect(throws: SimulationScriptError.self) { try SimulationScript(text: "0 turn 5 in 2\n1 end\n", file: "s") }
    }

    @Test func turnsBecomeQuadratureEdgesOfTheBoardsEncoder() throws {
        let script = try SimulationScript(text: "0 turn +1 over 0.4\n0.5 turn -1 over 0.4\n1 end\n", file: "s")
        let edges = script.edges(stepsPerDetent: 4, origin: .zero)
        #expect(edges.map(\.role) == [.encoderB, .encoderA, .encoderB, .encoderA, .encoderA, .encoderB, .encoderA, .encoderB])
        #expect(edges.map(\.isActive) == [true, true, false, false, true, true, false, false])
        #expect(edges.map(\.timestamp.nanoseconds).prefix(4) == [100_000_000, 200_000_000, 300_000_000, 400_000_000])
    }

    @Test func overlappingStepsMergeInTimeOrder() throws {
        // A pushed turn over 2 s with a long START press and a tap inside it: the push's
        // release comes after the last quarter step, the tap between quarter steps.
        let script = try SimulationScript(text: "0 turn +3 over 2 pushed\n0.5 press start long\n0.61 tap\n3 end\n", file: "s")
        let edges = script.edges(stepsPerDetent: 4, origin: .zero)
        #expect(edges.count == 12 + 2 + 2 + 2)
        let times = edges.map(\.timestamp.nanoseconds)
        #expect(times == times.sorted())
        #expect(edges.filter { $0.role == .encoderPush }.map(\.timestamp.nanoseconds) == [0, 2_050_000_000])
        #expect(edges.filter { $0.role == .startStop }.map(\.timestamp.nanoseconds) == [500_000_000, 1_700_000_000])
        #expect(edges.filter { $0.role == .tap }.map(\.timestamp.nanoseconds) == [610_000_000, 690_000_000])
        // Quarter steps every 2 s / 12; the third one (0.5 s) and the tap keep their places.
        #expect(Array(edges.prefix(5).map(\.role)) == [.encoderPush, .encoderB, .encoderA, .encoderB, .startStop])
    }
}

@Suite struct SilentPracticeTests {
    @Test func silentPracticeMutesTheClicksAndPulsesTheBuzzer() throws {
        var saved = SavedState()
        saved.preferences.silentPractice = true
        let (output, _, _) = try simulate("0 press start\n1.2 end\n", saved: saved)
        #expect(output.events("onset").count == 3)
        #expect(output.samples.allSatisfy { $0 == 0 })
        let pulses = output.events("buzzer").filter { $0["kind"] as? String == "pulse" }
        #expect(pulses.map { $0["t"] as! Double } == [0, 0.5, 1.0])
        #expect(pulses.map { $0["length_ms"] as! Double } == [12, 6, 6]) // accent, beat, beat
        // The musician's own volumes are untouched.
        let volume = output.states.last?["volume"] as? [String: Any]
        #expect(volume?["master"] as? Int == 80 && volume?["accent"] as? Int == 100 && volume?["beat"] as? Int == 80)
    }
}

@Suite struct MissingPartsTests {
    /// The screen is missing when the box starts: the box runs without it and, while idle,
    /// tries again every 5 s; once the panel answers, it shows the current screen.
    @Test func aDisplayThatAppearsLaterShowsTheScreenWithoutAnyInput() throws {
        let clock = ManualClock(start: .zero)
        let bus = RecordingI2CBus()
        let address = I2CAddress(0x3C)!
        let oled = try OLEDDisplay(DisplayDefinition(controller: .ssd1306, address: address), bus: bus)
        var reports: [ResilientDisplay.Status] = []
        let display = ResilientDisplay(oled, clock: clock) { reports.append($0) }
        let sink = OfflineAudioSink(clock: clock)
        let parts = BoxParts(board: testBoard(), configuration: ConfigurationFile(), audio: try AudioOutput(device: sink, silent: sink),
                             input: ScriptedInput(), display: display, indicators: SimulatedIndicators(),
                             persistence: RecordingPersistence(), clock: clock)
        let box = try BoxAssembly.makeBox(parts, saved: SavedState(), problem: nil, logger: Logger(label: "test"))
        box.initializeDisplay()
        box.advance(to: clock.now())
        #expect(!display.isWorking)
        #expect(reports.count == 1)

        let panel = SimulatedOLEDPanel(controller: .ssd1306)
        bus.attach(panel, at: address)
        var time = Int64(0)
        while time < 6_000_000_000 {
            time = min(box.nextWakeup?.nanoseconds ?? time + 100_000_000, time + 100_000_000)
            clock.set(MonotonicTime(nanoseconds: time))
            box.advance(to: clock.now())
        }
        #expect(display.isWorking)
        #expect(panel.visibleFrame.litPixelCount > 100) // the stopped screen, drawn by itself
        #expect(reports.count == 2)
    }
}

@Suite struct EncoderStartStateTests {
    /// A knob whose detents rest with both contacts closed (A=B=1) must count from where it
    /// sits at start-up, not from an assumed 00.
    @Test func decoderStartsFromTheLinesAsTheyAre() throws {
        let clock = ManualClock(start: .zero)
        let sink = OfflineAudioSink(clock: clock)
        let input = ScriptedInput(initialStates: [.encoderA: true, .encoderB: true])
        var board = testBoard()
        board.encoder = EncoderDefinition(stepsPerDetent: 2)
        let parts = BoxParts(board: board, configuration: ConfigurationFile(), audio: try AudioOutput(device: sink, silent: sink),
                             input: input, display: nil, indicators: SimulatedIndicators(),
                             persistence: RecordingPersistence(), clock: clock)
        let box = try BoxAssembly.makeBox(parts, saved: SavedState(), problem: nil, logger: Logger(label: "test"))
        // One detent clockwise from 11 with two steps per detent: 11 -> 10 -> 00.
        box.handle(LineEdge(role: .encoderB, level: true, isActive: false, timestamp: MonotonicTime.milliseconds(100)))
        box.handle(LineEdge(role: .encoderA, level: true, isActive: false, timestamp: MonotonicTime.milliseconds(200)))
        box.advance(to: MonotonicTime.milliseconds(2000))
        #expect(box.state.settings.tempo == Tempo(clampingWholeBPM: 121))
    }
}

@Suite struct EncoderLostEdgesTests {
    /// One step per detent, from 00: the kernel dropped A's rise of a counter-clockwise turn.
    /// Taken at face value B's rise is a clockwise detent (+1 BPM); the input layer marks the
    /// edge after the hole (missedBefore), so the box counts nothing across it and the next
    /// real detent counts the way the wheel turned.
    @Test(arguments: [false, true])
    func noDetentIsCountedAcrossAHole(marked: Bool) throws {
        let clock = ManualClock(start: .zero)
        let sink = OfflineAudioSink(clock: clock)
        let input = ScriptedInput(initialStates: [.encoderA: false, .encoderB: false])
        var board = testBoard()
        board.encoder = EncoderDefinition(stepsPerDetent: 1)
        let parts = BoxParts(board: board, configuration: ConfigurationFile(), audio: try AudioOutput(device: sink, silent: sink),
                             input: input, display: nil, indicators: SimulatedIndicators(),
                             persistence: RecordingPersistence(), clock: clock)
        let box = try BoxAssembly.makeBox(parts, saved: SavedState(), problem: nil, logger: Logger(label: "test"))
        box.handle(LineEdge(role: .encoderB, level: false, isActive: true, timestamp: MonotonicTime.milliseconds(100),
                            missedBefore: marked ? 1 : 0))
        box.advance(to: MonotonicTime.milliseconds(1000))
        #expect(box.state.settings.tempo == Tempo(clampingWholeBPM: marked ? 120 : 121))
        box.handle(LineEdge(role: .encoderB, level: true, isActive: false, timestamp: MonotonicTime.milliseconds(1500)))
        box.advance(to: MonotonicTime.milliseconds(3000))
        #expect(box.state.settings.tempo == Tempo(clampingWholeBPM: marked ? 119 : 120))
    }
}
