// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TactusMusic

/// The songs of a first start are what a user could write: they decode, round-trip through
/// the songs file, and show the features they are there to show.
@Suite struct DemoSongsTests {
    @Test func decodeAndRoundTrip() throws {
        let library = try SongFile.decode(DemoSongs.text, file: "demo")
        #expect(library.songs.map(\.name) == ["Demo: warm-up ramp", "Demo: speed trainer", "Demo: 7/8 and 4/4", "Demo: gap click"])
        #expect(DemoSongs.library == library)
        #expect(try SongFile.decode(SongFile.encode(library), file: "again") == library)
    }
}
