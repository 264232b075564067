// SPDX-License-Identifier: GPL-3.0-or-later
import TOMLReader
import Foundation
import Testing
import HAL
import BoardFiles
import TactusBase

/// The repository's folders, found from this file's path.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let boards = root.appendingPathComponent("boards")
    static let overlays = root.appendingPathComponent("overlays")

    static func board(_ identifier: String) throws -> BoardDefinition {
        let url = boards.appendingPathComponent("\(identifier).toml")
        return try BoardFile.parse(String(contentsOf: url, encoding: .utf8), file: "boards/\(identifier).toml", identifier: identifier)
    }
}

@Suite struct BoardFileTests {
    static let identifiers = ["pi-zero-2w", "pi3bplus", "pi4b", "pi5"]

    @Test func everySupportedBoardHasAFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Repository.boards.path).filter { $0.hasSuffix(".toml") }.sorted()
        #expect(files == Self.identifiers.map { "\($0).toml" }.sorted())
    }

    @Test func allBoardsShareOneWiring() throws {
        let boards = try Self.identifiers.map(Repository.board)
        let reference = boards[0]
        #expect(reference.inputs.map(\.role) == InputRole.allCases)
        #expect(reference.outputs.map(\.indicator) == IndicatorChannel.allCases)
        #expect(reference.input(.encoderA)?.line == .offset(17))
        #expect(reference.input(.tap)?.bias == .pullUp)
        #expect(reference.input(.tap)?.activeLow == true)
        #expect(reference.output(.buzzer)?.line == .offset(12))
        #expect(reference.display == DisplayDefinition(controller: .ssd1306, address: I2CAddress(0x3C)!))
        #expect(reference.audio == AudioDefinition())
        for board in boards {
            #expect(board.inputs.map { [$0.role.rawValue, "\($0.line)", $0.bias.rawValue, "\($0.activeLow)"] }
                    == reference.inputs.map { [$0.role.rawValue, "\($0.line)", $0.bias.rawValue, "\($0.activeLow)"] }, "\(board.identifier)")
            #expect(board.outputs.map { "\($0.indicator) \($0.line) \($0.activeLow)" } == reference.outputs.map { "\($0.indicator) \($0.line) \($0.activeLow)" })
            #expect(board.display == reference.display)
            #expect(board.audio == reference.audio)
        }
    }

    @Test func chipLabelsPerBoard() throws {
        let labels = try Self.identifiers.map { try Repository.board($0).inputs[0].chipLabel }
        #expect(labels == ["pinctrl-bcm2835", "pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-rp1"])
        #expect(try Repository.board("pi5").model == "Raspberry Pi 5")
    }

    static let minimal = """
        [board]
        model = "Test"
        [gpio]
        chip = "gpio-sim.0-node0"
        """

    func parseError(_ extra: String) -> TOMLError? {
        do {
            _ = try BoardFile.parse(Self.minimal + "\n" + extra, file: "boards/test.toml", identifier: "test")
            return nil
        } catch {
            return error
        }
    }

    @Test func namedLinesAndOverridesAreRead() throws {
        let board = try BoardFile.parse(Self.minimal + """

            [inputs.tap]
            line = "TACTUS_TAP"
            bias = "as-is"
            active_low = false
            [outputs.buzzer]
            line = 12
            chip = "other-chip"
            active_low = true
            [display]
            controller = "sh1106"
            address = 0x3D
            transfer = "smbus"
            i2c_bus = 0
            [encoder]
            steps_per_detent = 2
            reverse = true
            """, file: "t.toml", identifier: "t")
        #expect(board.encoder == EncoderDefinition(stepsPerDetent: 2, reverse: true))
        #expect(board.input(.tap) == InputLineDefinition(role: .tap, chipLabel: "gpio-sim.0-node0", line: .name("TACTUS_TAP"), bias: .asIs, activeLow: false))
        #expect(board.output(.buzzer) == OutputLineDefinition(indicator: .buzzer, chipLabel: "other-chip", line: .offset(12), activeLow: true))
        #expect(board.display == DisplayDefinition(controller: .sh1106, i2cBus: 0, address: I2CAddress(0x3D)!, transferMode: .smbus))
    }

    @Test func errorsNameFileLineFieldAndAllowedValues() throws {
        let badAddress = try #require(parseError("[display]\naddress = 0x50"))
        #expect(badAddress.description == "boards/test.toml:6: display.address = 80 is invalid: allowed a whole number from 60 to 61")

        let badRole = try #require(parseError("[inputs.tapp]\nline = 3"))
        #expect(badRole.field == "inputs.tapp")
        #expect(badRole.message.contains("start_stop"))

        let badBias = try #require(parseError("[inputs.tap]\nline = 3\nbias = \"up\""))
        #expect(badBias.line == 7)
        #expect(badBias.field == "inputs.tap.bias")

        let shared = try #require(parseError("[inputs.tap]\nline = 3\n[outputs.buzzer]\nline = 3"))
        #expect(shared.description == "boards/test.toml:8: outputs.buzzer.line = 3 is invalid: already used by inputs.tap; each part needs its own line")

        let missingLine = try #require(parseError("[outputs.led_beat]\nactive_low = true"))
        #expect(missingLine.field == "outputs.led_beat.line")

        let threeSteps = try #require(parseError("[encoder]\nsteps_per_detent = 3"))
        #expect(threeSteps.description == "boards/test.toml:6: encoder.steps_per_detent = 3 is invalid: allowed 1, 2 or 4 (see the encoder's datasheet)")

        let tallSH1106 = try #require(parseError("[display]\ncontroller = \"sh1106\"\nheight = 32"))
        #expect(tallSH1106.field == "display.height")

        #expect(throws: TOMLError.self) { try BoardFile.parse("[board]\nmodel = \"x\"", file: "f", identifier: "f") }
    }
}
