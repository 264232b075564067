// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import HAL
import TactusBase
import LinuxHAL

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Probe the board's GPIO lines, display and audio device and report what works.",
        discussion: "Blinks each LED, beeps the buzzer, shows a test card and plays a short tone. Exit 0 only when every part is ok."
    )

    @Option(help: "Board file, or a board name such as pi4b (looked up in /etc/tactus/boards, /usr/local/share/tactus/boards, /usr/share/tactus/boards, ./boards).")
    var board: String = "/etc/tactus/board.toml"

    func run() throws {
        let definition = try BoardLoader.load(board)
        print("tactus check: \(definition.model) (\(definition.identifier))")
        let results = HardwareCheck.run(definition)
        for result in results { print(result.description) }
        if results.contains(where: { $0.status != .ok }) {
            // One name per part: GPIO may report several held lines.
            var failed: [String] = []
            for result in results where result.status != .ok && !failed.contains(result.part) { failed.append(result.part) }
            throw ExitError("\(failed.joined(separator: ", ")) not working (see above)", code: 1)
        }
    }
}
