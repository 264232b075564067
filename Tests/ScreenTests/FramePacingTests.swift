// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusScreen
import TactusBase
import HAL
import Devices
import SimHAL
import TactusApp

@Suite struct FramePacingTests {
    @Test(arguments: ["120", "240"])
    func pendulumFramesFitA400kHzBusAtThirtyFramesPerSecond(bpm: String) throws {
        let cost = try ScreenBusCost.measure(settings: makeSettings(bpm: bpm, subdivisions: "2"), seconds: 4, framesPerSecond: 60)
        let worstFPS = ScreenBusCost.framesPerSecond(bytes: Double(cost.worstBytes))
        print("screen \(bpm) BPM @60 fps: \(cost.frames) frames, mean \(Int(cost.meanBytes.rounded())) B/frame "
              + "(\(Int(ScreenBusCost.framesPerSecond(bytes: cost.meanBytes))) fps at 400 kHz), worst \(cost.worstBytes) B "
              + "(\(Int(worstFPS)) fps)")
        #expect(cost.frames == 240)
        #expect(worstFPS >= 30, "worst frame \(cost.worstBytes) bytes allows only \(worstFPS) fps")
        // A full frame would be 8 pages x (129 data + 5 command + 2 address) bytes: changed runs must beat it.
        #expect(cost.worstBytes < 8 * 136)
        #expect(cost.meanBytes < 400)
    }

    @Test func anUnchangedFrameCostsNothing() throws {
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
        // One changed pixel costs one short run, not the frame.
        var changed = frame
        changed.plot(5, 5, changed[5, 5] ? .clear : .set)
        try display.show(changed)
        let bytes = bus.writes.reduce(0) { $0 + 1 + $1.count }
        #expect(bytes > 0 && bytes < 16)
    }
}
