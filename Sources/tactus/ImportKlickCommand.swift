// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import LinuxHAL
import TactusMusic
import TactusBase

struct ImportKlickCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-klick",
        abstract: "Convert a klick tempo map into a Tactus songs TOML file.",
        discussion: "Each map line becomes a [[song.section]]: tempo in the meter's note (7/8 at 150 is 300 eighths per minute), ramps as T0~T1 (klick's model), patterns as accents, volume as gain."
    )

    @Argument(help: "The klick tempo map file ('-' reads standard input).") var file: String
    @Option(name: .shortAndLong, help: "Write the songs TOML here (default: standard output).") var output: String?
    @Option(help: "The song's name (default: the file's name without its extension).") var name: String?
    @Option(name: .customLong("count-in"), help: "Count-in: 0 to 4 bars, or 2beats (klick's -c).") var countIn: String?

    func run() throws {
        var countIn = CountIn.none
        if let text = self.countIn {
            do { countIn = try CountIn(parsing: text, field: "count-in") } catch {
                throw ExitError("--count-in '\(text)' is invalid: expected 0 to 4 bars, or 2beats")
            }
        }
        if let name, name.isEmpty { throw ExitError("--name '' is invalid: the song's name must not be empty") }
        var song = try SongRequest.songFromMap(file, countIn: countIn)
        if let name { song.name = name }
        let text = SongFile.encode(SongLibrary(songs: [song]))
        // Never write what Tactus would refuse to read back.
        guard text.utf8.count <= BoundedFile.textLimit else {
            throw ExitError("tempo map \(Escaped.quoted(file)) is too long for a songs file: \(song.sections.count) sections make \(text.utf8.count) bytes, over Tactus's \(BoundedFile.textLimit) (1 MiB)")
        }
        // And read it back as Tactus will: whatever slipped past the checks above is
        // refused here rather than written.
        do { _ = try SongFile.decode(text, file: output ?? "standard output") } catch {
            throw ExitError("tempo map \(Escaped.quoted(file)) cannot become a songs file Tactus reads: \(error.description)")
        }
        guard let output else {
            print(text, terminator: "")
            return
        }
        var outputs = OutputPaths()
        outputs.input(file, flag: "the tempo map")
        try outputs.claim(output, flag: "-o")
        do { try AtomicFile.write(Array(text.utf8), to: output) } catch {
            throw ExitError("writing \(Escaped.quoted(output)) failed: \(error)", code: 1)
        }
        // Say what was written: a silent success looked like nothing happened (issue 29).
        let sections = song.sections.count == 1 ? "1 section" : "\(song.sections.count) sections"
        print("wrote \(output): song \(Escaped.quoted(song.name)), \(sections), \(text.utf8.count) bytes")
    }
}
