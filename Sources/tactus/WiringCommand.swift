// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import BoardFiles
import LinuxHAL
import TactusBase

/// `tactus wiring --board NAME -o wiring.svg`: the board file's wiring as a picture
/// (docs/wiring/NAME-wiring.svg are made with it and tested against it).
struct WiringCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wiring",
        abstract: "Draw the wiring diagram (SVG) of a board file.",
        discussion: "The header pins the board file names, a wire from each to its part (OLED, wheel, TAP, START/STOP, footswitch jack, LEDs with their resistors, buzzer with its transistor), and the audio device. The repository's docs/wiring/BOARD-wiring.svg are made this way."
    )

    @Option(help: "The board file: a name (pi4b, pi5, pi3bplus, pi-zero-2w) or a path to a .toml file.") var board: String
    @Option(name: .shortAndLong, help: "Write the SVG here (default: standard output).") var output: String?

    func run() throws {
        let definition = try BoardLoader.load(board)
        // The file as the picture names it: boards/NAME.toml for the repository's boards, so
        // the SVG does not depend on where it was made.
        let path = BoardLoader.path(for: board)
        let file = path.hasSuffix("boards/\(definition.identifier).toml") ? "boards/\(definition.identifier).toml" : path
        let svg = WiringDiagram.svg(definition, file: file)
        guard let output else {
            print(svg, terminator: "")
            return
        }
        var outputs = OutputPaths()
        try outputs.claim(output, flag: "-o")
        do { try AtomicFile.write(Array(svg.utf8), to: output) } catch {
            throw ExitError("writing \(Escaped.quoted(output)) failed: \(error)", code: 1)
        }
        print("wrote \(output): the wiring of \(definition.model) (\(file))")
    }
}
