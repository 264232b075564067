import ArgumentParser
import Foundation

@main
struct Tactus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tactus",
        abstract: "Tactus metronome box.",
        subcommands: [RenderCommand.self, CheckCommand.self]
    )

    /// ArgumentParser prints usage blocks and uses its own exit codes; Tactus reports every
    /// bad input as one line and exits 2.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as ExitError {
            FileHandle.standardError.write(Data("tactus: error: \(error.message)\n".utf8))
            Foundation.exit(error.code)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            let line = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            FileHandle.standardError.write(Data("tactus: error: \(line)\n".utf8))
            Foundation.exit(2)
        }
    }
}
