import Testing
import TactusCore
import HAL
import Devices
import SimHAL

/// Bus cost of the playing screen through the real SSD1306 driver and its changed-runs
/// flush, counted on the recording bus: every written byte plus the address byte, 9 bits
/// each on the wire (8 data + ACK).
struct BusCost {
    var frames = 0
    var totalBytes = 0
    var worstBytes = 0
    var mean: Double { Double(totalBytes) / Double(max(frames, 1)) }
    static func framesPerSecond(bytes: Double, busHertz: Double = 400_000) -> Double { busHertz / (bytes * 9) }
}

func measurePlayingScreen(bpm: String, seconds: Double, framesPerSecond: Int, controller: DisplayController = .ssd1306) throws -> BusCost {
    let address = I2CAddress(0x3C)!
    let bus = RecordingI2CBus()
    let panel = SimulatedOLEDPanel(controller: controller)
    bus.attach(panel, at: address)
    let display = try OLEDDisplay(controller: controller, transport: I2CDisplayTransport(bus: bus, address: address))
    try display.initialize()
    let settings = makeSettings(bpm: bpm, subdivisions: "2")
    let timeline = BeatTimeline(settings: settings, sampleRate: 48000, downbeatSample: .zero)
    let model = ScreenModel(page: .playing, settings: settings, marking: "Allegro", timeline: timeline)
    var cost = BusCost()
    let frameCount = Int(seconds * Double(framesPerSecond))
    for index in 0...frameCount {
        let heard = Double(index) * 48000 / Double(framesPerSecond)
        let bitmap = ScreenRenderer.render(model, heardSample: heard)
        bus.clearRecording()
        try display.show(bitmap)
        guard panel.visibleFrame == bitmap else { throw HALError(.io, "panel differs from the frame \(index)") }
        if index == 0 { continue }  // the first frame is a full one; steady state is what counts
        let bytes = bus.writes.reduce(0) { $0 + 1 + $1.count }
        cost.frames += 1
        cost.totalBytes += bytes
        cost.worstBytes = max(cost.worstBytes, bytes)
    }
    return cost
}

@Suite struct FramePacingTests {
    @Test(arguments: ["120", "240"])
    func pendulumFramesFitA400kHzBusAtThirtyFramesPerSecond(bpm: String) throws {
        let cost = try measurePlayingScreen(bpm: bpm, seconds: 4, framesPerSecond: 60)
        let worstFPS = BusCost.framesPerSecond(bytes: Double(cost.worstBytes))
        print("screen \(bpm) BPM @60 fps: \(cost.frames) frames, mean \(Int(cost.mean.rounded())) B/frame "
              + "(\(Int(BusCost.framesPerSecond(bytes: cost.mean))) fps at 400 kHz), worst \(cost.worstBytes) B "
              + "(\(Int(worstFPS)) fps)")
        #expect(cost.frames == 240)
        #expect(worstFPS >= 30, "worst frame \(cost.worstBytes) bytes allows only \(worstFPS) fps")
        // A full frame would be 8 pages x (129 data + 5 command + 2 address) bytes: changed runs must beat it.
        #expect(cost.worstBytes < 8 * 136)
        #expect(cost.mean < 400)
    }

    @Test func anUnchangedFrameCostsNothing() throws {
        let cost = try measurePlayingScreen(bpm: "120", seconds: 0, framesPerSecond: 60)
        #expect(cost.frames == 0)
        let address = I2CAddress(0x3C)!
        let bus = RecordingI2CBus()
        bus.attach(SimulatedOLEDPanel(controller: .ssd1306), at: address)
        let display = try OLEDDisplay(controller: .ssd1306, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        let bitmap = ScreenRenderer.render(ScreenModel(page: .stopped, settings: makeSettings(), marking: "Allegro"))
        let frame = bitmap
        try display.show(frame)
        bus.clearRecording()
        try display.show(frame)
        #expect(bus.writes.isEmpty)
    }
}
