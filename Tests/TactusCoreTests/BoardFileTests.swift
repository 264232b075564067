import Testing
@testable import TactusCore

@Suite struct BoardFileTests {
    static let board = """
        name = "Raspberry Pi 4B"
        [gpio]
        chip = "pinctrl-bcm2711"
        [encoder]
        a = 17
        b = "GPIO27"
        switch = { line = 22, active-low = false }
        steps-per-detent = 2
        [buttons]
        tap = 5
        start = 6
        [leds]
        accent = 16
        beat = { line = 20, active-low = true }
        [buzzer]
        line = 12
        [display]
        bus = 1
        address = 0x3D
        controller = "sh1106"
        [audio]
        device = "hw:1,0"
        rate = 44100
        """

    @Test func parsesTheWiring() throws {
        let b = try BoardFile.parse(Self.board, file: "rpi4.toml")
        #expect(b.name == "Raspberry Pi 4B")
        #expect(b.gpioChip == "pinctrl-bcm2711")
        #expect(b.encoderA == GPIOLineReference(.offset(17), activeLow: false))
        #expect(b.encoderB == GPIOLineReference(.name("GPIO27"), activeLow: false))
        #expect(b.encoderSwitch == GPIOLineReference(.offset(22), activeLow: false))
        #expect(b.stepsPerDetent == 2)
        #expect(b.tap == GPIOLineReference(.offset(5), activeLow: true))
        #expect(b.footswitch == nil)
        #expect(b.beatLED == GPIOLineReference(.offset(20), activeLow: true))
        #expect(b.accentLED == GPIOLineReference(.offset(16), activeLow: false))
        #expect(b.subdivisionLED == nil)
        #expect(b.buzzer == GPIOLineReference(.offset(12), activeLow: false))
        #expect(b.displayAddress == 0x3D)
        #expect(b.displayController == .sh1106)
        #expect(b.audio.device == "hw:1,0")
        #expect(b.audio.rate == 44100)
        #expect(b.audio.periodFrames == 128)
    }

    func error(replacing old: String, with new: String) -> String? {
        let text = Self.board.replacingFirst(old, with: new)
        do { _ = try BoardFile.parse(text, file: "rpi4.toml"); return nil } catch { return error.description }
    }

    @Test func errorsNameFileLineFieldValueAndAllowed() {
        #expect(error(replacing: "controller = \"sh1106\"", with: "controller = \"ssd1309\"")
            == #"rpi4.toml:20: display.controller = "ssd1309" is invalid: allowed "ssd1306", "sh1106""#)
        #expect(error(replacing: "address = 0x3D", with: "address = 0x3E")
            == "rpi4.toml:19: display.address = 62 is invalid: allowed 0x3C or 0x3D (60 or 61)")
        #expect(error(replacing: "steps-per-detent = 2", with: "steps-per-detent = 3")
            == "rpi4.toml:8: encoder.steps-per-detent = 3 is invalid: allowed 1, 2 or 4")
        #expect(error(replacing: "a = 17", with: "a = 5000")
            == "rpi4.toml:5: encoder.a = 5000 is invalid: " + BoardFile.lineHelp)
        #expect(error(replacing: "rate = 44100", with: "rate = 44000")
            == "rpi4.toml:23: audio.rate = 44000 is invalid: allowed 8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000")
        #expect(error(replacing: "tap = 5\n", with: "")
            == "rpi4.toml:9: buttons.tap: missing; " + BoardFile.lineHelp)
        #expect(error(replacing: "[buzzer]\nline = 12", with: "[buzzer]\npin = 12")
            == "rpi4.toml:16: buzzer.pin: unknown key; allowed keys here: line, active-low")
        #expect(error(replacing: "bus = 1", with: "bus = true")
            == "rpi4.toml:18: display.bus = true is invalid: allowed a whole number from 0 to 255")
    }
}

@Suite struct ConfigurationFileTests {
    @Test func defaultsAndOverrides() throws {
        let config = try ConfigurationFile.parse("""
            board = "/etc/tactus/boards/rpi4.toml"
            [audio]
            device = "plughw:0"
            [controls]
            long-press-ms = 800
            """, file: "config.toml")
        #expect(config.boardFile == "/etc/tactus/boards/rpi4.toml")
        #expect(config.settingsFile == "/var/lib/tactus/settings.toml")
        #expect(config.buttonTiming.longPress == .milliseconds(800))
        let board = try BoardFile.parse(BoardFileTests.board, file: "b.toml")
        let audio = config.audio(for: board)
        #expect(audio.device == "plughw:0")
        #expect(audio.rate == 44100)   // the board's, not overridden
    }

    @Test func badValues() {
        #expect(throws: TOMLError(file: "config.toml", line: 2, field: "controls.debounce-ms", value: "500",
                                  message: "allowed a whole number from 0 to 100")) {
            try ConfigurationFile.parse("[controls]\ndebounce-ms = 500\n", file: "config.toml")
        }
        #expect(throws: TOMLError(file: "config.toml", line: 1, field: "settings-file", value: "\"settings.toml\"",
                                  message: "an absolute path to a file, e.g. \"/var/lib/tactus/settings.toml\"")) {
            try ConfigurationFile.parse("settings-file = \"settings.toml\"\n", file: "config.toml")
        }
    }
}

extension String {
    func replacingFirst(_ old: String, with new: String) -> String {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(old) {
                return String(self[..<index]) + new + String(self[self.index(index, offsetBy: old.count)...])
            }
            index = self.index(after: index)
        }
        return self
    }
}
