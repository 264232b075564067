// SPDX-License-Identifier: GPL-3.0-or-later

/// The songs a new box starts with (no settings file yet), so the song page, the trainer
/// and the companion's song list have something to show at once. Written in the songs
/// file's own format (docs/manual/songs.md), so they are exactly what a user could write;
/// they are ordinary songs afterwards (edit or delete them like any other).
public enum DemoSongs {
    public static let text = """
        [[song]]
        name = "Demo: warm-up ramp"
        count_in = 1
          [[song.section]]
          label = "ramp"
          bars = 16
          meter = "4/4"
          tempo = "80-120"
          accents = "Xxxx"
          [[song.section]]
          label = "hold"
          bars = 8
          meter = "4/4"
          tempo = "120"
          accents = "Xxxx"
          subdivisions = "2"

        [[song]]
        name = "Demo: speed trainer"
        count_in = 1
        trainer_step = 4
        trainer_bars = 4
          [[song.section]]
          label = "groove"
          bars = "until-stop"
          meter = "4/4"
          tempo = "90"
          accents = "Xxxx"

        [[song]]
        name = "Demo: 7/8 and 4/4"
        count_in = 1
          [[song.section]]
          label = "verse"
          bars = 8
          meter = "7/8"
          tempo = "240"
          groove = "2,2,3"
          [[song.section]]
          label = "chorus"
          bars = 8
          meter = "4/4"
          tempo = "120"
          accents = "Xxxx"

        [[song]]
        name = "Demo: gap click"
        count_in = 1
          [[song.section]]
          label = "time"
          bars = "until-stop"
          meter = "4/4"
          tempo = "100"
          accents = "Xxxx"
          gap = "2:2"

        """

    /// The demo songs as a library.
    public static var library: SongLibrary {
        // Tested to decode (DemoSongsTests): a failure here is a defect of this file.
        (try? SongFile.decode(text, file: "demo songs")) ?? SongLibrary()
    }
}
