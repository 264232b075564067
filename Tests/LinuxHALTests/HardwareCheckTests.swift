// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import BoardFiles
import HAL
import TactusBase
import LinuxHAL

@Suite struct HardwareCheckTests {
    static let boardText = """
        [board]
        model = "Raspberry Pi 4 Model B"
        [gpio]
        chip = "pinctrl-bcm2711"
        [inputs.tap]
        line = 23
        [outputs.buzzer]
        line = 12
        [display]
        controller = "ssd1306"
        address = 0x3C
        [audio]
        device = "hw:5,0"
        """

    static let hasHardware = ["/dev/gpiochip0", "/dev/i2c-1", "/dev/snd/controlC5"].contains { FileManager.default.fileExists(atPath: $0) }

    /// This build machine has no GPIO chip, no I2C bus and no sound card: three clear
    /// failures, no crash, no hang. Skipped (not failed) on a machine with the hardware.
    @Test(.enabled(if: !hasHardware, "this machine has hardware; the check is exercised on the device"))
    func reportsEachMissingPartClearly() throws {
        let board = try BoardFile.parse(Self.boardText, file: "test.toml", identifier: "test")
        let results = HardwareCheck.run(board)
        for result in results { print(result) }
        #expect(results.map(\.part) == ["gpio", "display", "audio"])
        #expect(results.allSatisfy { $0.status == .missing })
        #expect(results[0].detail.contains("gpiodetect"))
        #expect(results[1].detail.contains("/dev/i2c-1"))
        #expect(results[2].detail.contains("hw:5,0"))
    }

    @Test func audioCheckPlaysTheBeepThroughALSA() throws {
        let board = try BoardFile.parse(Self.boardText.replacingOccurrences(of: "hw:5,0", with: "null"), file: "test.toml", identifier: "test")
        let result = HardwareCheck.checkAudio(board, log: HALLog { _, _ in })
        #expect(result.status == .ok, "\(result)")
        #expect(result.detail.contains("48000 Hz"))
    }

    @Test func testCardHasABorder() {
        let card = HardwareCheck.testCard(width: 128, height: 64)
        #expect(card[0, 0] && card[127, 63] && card[64, 0] && card[0, 32])
    }
}
