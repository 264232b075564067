// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import Glibc
import LinuxHAL

@main
struct Tactus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tactus",
        abstract: "Tactus metronome box.",
        subcommands: [RunCommand.self, SimulateCommand.self, RenderCommand.self, CoachCommand.self, CheckCommand.self, ImportKlickCommand.self, CtlCommand.self, WiringCommand.self]
    )

    /// ArgumentParser prints usage blocks and uses its own exit codes; Tactus reports every
    /// bad input as one line and exits 2.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ExitError {
            // Values inside messages come from users: control characters (a newline, an
            // escape sequence) are shown escaped so the error stays one honest line.
            FileSystem.writeStandardError("tactus: error: \(Escaped.controlCharacters(error.message))\n")
            Glibc.exit(error.code)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            let line = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            FileSystem.writeStandardError("tactus: error: \(Escaped.controlCharacters(line))\n")
            Glibc.exit(2)
        }
    }
}
