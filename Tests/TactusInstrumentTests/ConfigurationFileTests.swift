// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import Testing
@testable import TactusInstrument
import TactusBase

@Suite struct ConfigurationFileTests {
    @Test func defaultsAndOverrides() throws {
        let config = try ConfigurationFile.parse("""
            board = "pi4b"
            [audio]
            device = "plughw:0"
            period_frames = 256
            [controls]
            long_press_ms = 800
            """, file: "config.toml")
        #expect(config.board == "pi4b")
        #expect(config.settingsFile == "/var/lib/tactus/settings.toml")
        #expect(config.buttonTiming.longPress == .milliseconds(800))
        #expect(config.buttonTiming.debounce == .milliseconds(8))
        #expect(config.audioDevice == "plughw:0")
        #expect(config.audioPeriodFrames == 256)
        #expect(config.audioSampleRate == nil)
        #expect(try ConfigurationFile.parse("", file: "empty.toml") == ConfigurationFile())
    }

    @Test func badValuesNameFileLineFieldValueAndRange() {
        #expect(throws: TOMLError(file: "config.toml", line: 2, field: "controls.debounce_ms", value: "500",
                                  message: "allowed a whole number from 0 to 100")) {
            try ConfigurationFile.parse("[controls]\ndebounce_ms = 500\n", file: "config.toml")
        }
        #expect(throws: TOMLError(file: "config.toml", line: 1, field: "settings_file", value: "\"settings.toml\"",
                                  message: "an absolute path to a file, e.g. \"/var/lib/tactus/settings.toml\"")) {
            try ConfigurationFile.parse("settings_file = \"settings.toml\"\n", file: "config.toml")
        }
        #expect(throws: TOMLError.self) { try ConfigurationFile.parse("[audio]\nsample_rate = 1000\n", file: "config.toml") }
        #expect(throws: TOMLError.self) { try ConfigurationFile.parse("colour = \"red\"\n", file: "config.toml") }
    }

    @Test func coachSection() throws {
        let config = try ConfigurationFile.parse("[coach]\ninput = \"hw:CARD=Device,0\"\ngrid = \"1/16\"\nmidi = true\nmidi_offset_ms = 4\n",
                                                 file: "config.toml")
        #expect(config.coachInput == "hw:CARD=Device,0" && config.coachGrid == 16)
        #expect(config.coachMIDI && config.coachMIDIOffsetMilliseconds == 4)
        let plain = try ConfigurationFile.parse("", file: "config.toml")
        #expect(plain.coachInput == nil && plain.coachGrid == nil && !plain.coachMIDI && plain.coachMIDIOffsetMilliseconds == 0)
        #expect(throws: TOMLError(file: "config.toml", line: 2, field: "coach.grid", value: "\"1/0\"",
                                  message: "a note value 1/N, N 1 to 99 (e.g. \"1/8\", \"1/16\", \"1/12\")")) {
            try ConfigurationFile.parse("[coach]\ngrid = \"1/0\"\n", file: "config.toml")
        }
        #expect(throws: TOMLError.self) { try ConfigurationFile.parse("[coach]\nmidi_offset_ms = 900\n", file: "config.toml") }
        #expect(throws: TOMLError.self) { try ConfigurationFile.parse("[coach]\nlatency = 3\n", file: "config.toml") }
    }
}
