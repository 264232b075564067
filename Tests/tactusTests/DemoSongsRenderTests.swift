// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TactusMusic

/// Every demo song of a first start plays: rendered from the same text, with its count-in
/// bar and its first bars on the engine's grid.
@Suite struct DemoSongsRenderTests {
    @Test(arguments: DemoSongs.library.songs.map(\.name)) func plays(_ name: String) throws {
        let dir = scratchFolder()
        let file = dir.appendingPathComponent("demo.toml")
        try DemoSongs.text.write(to: file, atomically: true, encoding: .utf8)
        let run = try tactus(["render", "--song", file.path, "--song-name", name, "--bars", "3",
                              "-o", dir.appendingPathComponent("o.wav").path, "--events", dir.appendingPathComponent("e.jsonl").path])
        #expect(run.status == 0, "\(run.stderr)")
        let events = try String(contentsOf: dir.appendingPathComponent("e.jsonl"), encoding: .utf8)
        let onsets = events.split(separator: "\n").filter { $0.contains("\"onset\"") }
        // A count-in bar, then the song's own bars.
        #expect(onsets.contains { $0.contains("\"section\":-1") })
        #expect(onsets.contains { $0.contains("\"section\":0") })
    }
}
