// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import HAL
import TactusBase
import TactusInstrument

/// etc/config.toml, the example `make install` puts in /etc/tactus: as shipped it changes
/// nothing, and with every `#key = value` line uncommented it parses and shows the real
/// defaults, so the example cannot drift from the parser or the board files.
@Suite struct ExampleConfigTests {
    static let file = "etc/config.toml"

    static func text() throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent(file), encoding: .utf8)
    }

    @Test func asShippedItChangesNothing() throws {
        #expect(try ConfigurationFile.parse(Self.text(), file: Self.file) == ConfigurationFile())
    }

    @Test func everyKeyUncommentedShowsItsDefault() throws {
        var keys: [String] = []
        // `#key = value` is a setting; `# words` is prose.
        let uncommented = try Self.text().split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.hasPrefix("#"), let first = line.dropFirst().first, first.isLetter else { return line }
            keys.append(String(line.dropFirst().prefix { $0 != " " && $0 != "=" }))
            return line.dropFirst()
        }.joined(separator: "\n")
        #expect(keys.sorted() == ["board", "clock_when_stopped", "debounce_ms", "device", "double_press_ms", "listen", "long_press_ms",
                                  "midi", "midi_offset_ms", "offset_ms", "out", "period_frames", "periods", "sample_rate", "settings_file",
                                  "sounds_folder", "start_at_count_in"])

        let config = try ConfigurationFile.parse(uncommented, file: "\(Self.file) (uncommented)")
        let board = try Repository.board("pi4b")
        var expected = ConfigurationFile()
        expected.board = "pi4b"
        expected.soundsFolder = "/var/lib/tactus/sounds"
        expected.audioDevice = board.audio.device
        expected.audioSampleRate = board.audio.sampleRate
        expected.audioPeriodFrames = board.audio.periodFrames
        expected.audioPeriods = board.audio.periodCount
        expected.webListen = "0.0.0.0:8080"
        #expect(config == expected)
    }
}
