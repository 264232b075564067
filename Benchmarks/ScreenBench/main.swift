// SPDX-License-Identifier: GPL-3.0-or-later
// tactus-screen-bench: what the playing screen costs on the I2C bus.
//
// Renders the playing screen at 60 frames per second of audio time, sends every frame
// through the SSD1306/SH1106 driver's changed-runs flush onto the recording bus, checks the
// simulated panel shows exactly the frame, and reports bytes per frame and the frame rate a
// 400 kHz bus allows (bytes x 9 bits / 400000). Also: `tactus-screen-bench png IN.pbm OUT.png`.
import Foundation
import TactusMusic
import TactusScreen
import TactusBase
import HAL
import Devices
import SimHAL
import TactusApp

func fps(_ bytes: Double) -> Double { ScreenBusCost.framesPerSecond(bytes: bytes) }

func pad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }

let arguments = CommandLine.arguments
if arguments.count == 4 && arguments[1] == "png" {
    guard let text = try? String(contentsOfFile: arguments[2], encoding: .utf8), let bitmap = PBM.decode(text) else {
        FileHandle.standardError.write(Data("tactus-screen-bench: \(arguments[2]) is not a readable P1 PBM image\n".utf8))
        exit(2)
    }
    do { try Data(PNG.encode(bitmap)).write(to: URL(fileURLWithPath: arguments[3])) } catch {
        FileHandle.standardError.write(Data("tactus-screen-bench: cannot write \(arguments[3]): \(error)\n".utf8))
        exit(2)
    }
    exit(0)
}

print("Playing screen at 60 frames/s, 10 s each, changed-runs flush; 9 bits per byte on a 400 kHz bus")
print("controller  BPM  layers  mean B/frame  fps@400kHz   worst B/frame  fps@400kHz")
do {
    for controller in [DisplayController.ssd1306, .sh1106] {
        for (bpm, layers) in [("120", "none"), ("240", "none"), ("120", "2,3"), ("40", "none"), ("999", "none")] {
            let settings = MetronomeSettings(tempo: try Tempo(parsing: bpm), subdivisions: try Subdivisions(parsing: layers))
            let cost = try ScreenBusCost.measure(settings: settings, controller: controller, seconds: 10, framesPerSecond: 60)
            print(pad(controller.rawValue, 10), pad(bpm, 4), pad(layers, 7),
                  pad(String(Int(cost.meanBytes.rounded())), 13), pad(String(Int(fps(cost.meanBytes))), 11),
                  pad(String(cost.worstBytes), 15), pad(String(Int(fps(Double(cost.worstBytes)))), 11))
        }
    }
    // A whole frame for comparison: what a driver without changed-runs would send every time.
    let full = 8 * (1 + 1 + 3) + 8 * (1 + 1 + 128)
    print("full frame: \(full) B -> \(Int(fps(Double(full)))) fps at 400 kHz")
} catch {
    FileHandle.standardError.write(Data("tactus-screen-bench: \(error)\n".utf8))
    exit(1)
}
