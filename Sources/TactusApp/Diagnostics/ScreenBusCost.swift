// SPDX-License-Identifier: GPL-3.0-or-later
import Devices
import HAL
import TactusBase
import SimHAL
import TactusMusic
import TactusTimeline
import TactusScreen

/// What the playing screen costs on the display bus: frames rendered at a given rate, sent
/// through the real SSD1306/SH1106 driver and its changed-runs flush onto a recording bus,
/// every byte counted with its address byte (9 bits each on the wire: 8 data + ACK). The
/// simulated panel must show exactly each frame. Used by the frame-pacing test and by
/// `tactus-screen-bench`.
public struct ScreenBusCost: Sendable {
    /// Frames measured (the first, full frame is left out: steady state is what counts).
    public var frames = 0
    public var totalBytes = 0
    public var worstBytes = 0

    public var meanBytes: Double { Double(totalBytes) / Double(max(frames, 1)) }

    /// Frames per second a bus of `busHertz` carries at `bytes` per frame.
    public static func framesPerSecond(bytes: Double, busHertz: Double = 400_000) -> Double { busHertz / (bytes * 9) }

    public static func measure(settings: MetronomeSettings, controller: DisplayController = .ssd1306,
                               seconds: Double, framesPerSecond: Int, sampleRate: Int = 48000) throws -> ScreenBusCost {
        let address = I2CAddress(0x3C)!
        let bus = RecordingI2CBus()
        let panel = SimulatedOLEDPanel(controller: controller)
        bus.attach(panel, at: address)
        let display = try OLEDDisplay(controller: controller, transport: I2CDisplayTransport(bus: bus, address: address))
        try display.initialize()
        let grid = BeatGrid(.steady(SteadyGrid(settings: settings, sampleRate: sampleRate, downbeatSample: .zero)))
        let model = ScreenModel(page: .playing, settings: settings, marking: TempoMarking.of(settings.tempo).name, grid: grid)
        var cost = ScreenBusCost()
        for index in 0...Int(seconds * Double(framesPerSecond)) {
            let bitmap = ScreenRenderer.render(model, heardSample: Double(index) * Double(sampleRate) / Double(framesPerSecond))
            bus.clearRecording()
            try display.show(bitmap)
            guard panel.visibleFrame == bitmap else { throw HALError(.io, "the panel differs from frame \(index)") }
            if index == 0 { continue }
            let bytes = bus.writes.reduce(0) { $0 + 1 + $1.count }
            cost.frames += 1
            cost.totalBytes += bytes
            cost.worstBytes = max(cost.worstBytes, bytes)
        }
        return cost
    }
}
