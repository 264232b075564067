// SPDX-License-Identifier: GPL-3.0-or-later
import BoardFiles
import Foundation
import HAL
import Testing

/// docs/wiring/NAME-wiring.svg is what `tactus wiring --board NAME` draws from boards/NAME.toml,
/// byte for byte: change a board file and this fails until the picture is made again
/// (`tactus wiring --board NAME -o docs/wiring/NAME-wiring.svg`).
@Suite struct WiringDiagramTests {
    static let boards = ["pi4b", "pi5", "pi3bplus", "pi-zero-2w"]

    @Test(arguments: boards)
    func theCommittedPictureIsTheBoardFilesDrawing(identifier: String) throws {
        let board = try Repository.board(identifier)
        let drawn = WiringDiagram.svg(board, file: "boards/\(identifier).toml")
        let url = Repository.root.appendingPathComponent("docs/wiring/\(identifier)-wiring.svg")
        let committed = try Data(contentsOf: url)
        #expect(Array(committed) == Array(drawn.utf8), "docs/wiring/\(identifier)-wiring.svg differs from boards/\(identifier).toml's drawing: run `tactus wiring --board \(identifier) -o docs/wiring/\(identifier)-wiring.svg`")
    }

    @Test func everyBoardFileHasItsPicture() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Repository.boards.path).filter { $0.hasSuffix(".toml") }
        #expect(files.map { String($0.dropLast(5)) }.sorted() == Self.boards.sorted())
    }

    @Test func wiresFollowTheBoardFile() throws {
        var board = try Repository.board("pi4b")
        let before = WiringDiagram.svg(board, file: "b.toml")
        #expect(before.contains(">pin 16</text>"))   // TAP on GPIO23
        #expect(before.contains(">SSD1306") || before.contains("OLED SSD1306"))
        // TAP moved to GPIO 26 (header pin 37): the wire goes to pin 37.
        board.inputs = board.inputs.map { $0.role == .tap ? InputLineDefinition(role: .tap, chipLabel: $0.chipLabel, line: .offset(26)) : $0 }
        let after = WiringDiagram.svg(board, file: "b.toml")
        #expect(!after.contains(">pin 16</text>") && after.contains(">pin 37</text>"))
        // No footswitch line: no footswitch part; an LED wired active low sinks from 3V3.
        board.inputs.removeAll { $0.role == .footswitch }
        #expect(!WiringDiagram.svg(board, file: "b.toml").contains("Footswitch"))
        #expect(WiringDiagram.headerPin(gpio: 17) == 11 && WiringDiagram.headerPin(gpio: 12) == 32 && WiringDiagram.headerPin(gpio: 99) == nil)
    }

    @Test func textIsEscaped() throws {
        var board = try Repository.board("pi4b")
        board.model = "A<B & \"C\""
        let svg = WiringDiagram.svg(board, file: "b.toml")
        #expect(svg.contains("A&lt;B &amp; &quot;C&quot;") && !svg.contains("A<B"))
    }
}
