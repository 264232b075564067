// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TactusApp
import TactusMusic
import TactusInstrument
import TactusScreen
import TactusBase

/// The one timeline on the whole simulated box: a song with a count-in, a ramp 60-180 over
/// 8 bars of 4/4, a section in 3/4 at 200 and a trainer's steps (+10 BPM every bar), checked
/// frame by frame against the beats as they are heard: at every beat the frame on screen
/// shows the bob at an end (within 1 px), on alternate ends, and on the tempo page the
/// filled beat box is the beat being heard, among as many boxes as the bar has beats.
@Suite struct TimelineFrameTests {
    static let song = Song(name: "Ramp", countIn: .bars(1), sections: [
        SongSection(label: "ramp", bars: 8, tempo: .rampTime(from: 60, to: 180)),
        SongSection(label: "waltz", bars: 2, meter: try! Meter(3, 4), tempo: .constant(200)),
        // What the trainer makes of a constant section: a step every bar.
        SongSection(label: "trainer", bars: 3, tempo: .stepped(start: 100, step: 10, every: 1, unit: .bars, limit: nil)),
    ])
    static var saved: SavedState { SavedState(library: SongLibrary(songs: [song])) }
    /// Menu > Songs (1 ... 5 s), a turn chooses the song, START at 8 s on the song page.
    static let toSong = "1 press wheel long\n3 turn +2 over 0.6\n5 press wheel\n7 turn +1 over 0.1\n8 press start\n"

    struct Beat {
        var t: Double
        var beat: Int
        var bar: Int
    }

    /// The beats (accent and beat onsets, the count-in's included) as heard, from START on.
    static func beats(_ output: MemoryOutput) -> [Beat] {
        output.events("onset").filter { ["accent", "beat", "soft", "count"].contains($0["kind"] as? String) }.map {
            Beat(t: $0["t"] as! Double, beat: $0["beat"] as! Int, bar: $0["bar"] as! Int)
        }
    }

    /// The frame on the panel at `t` seconds: the last one shown at or before it.
    static func frame(at t: Double, _ output: MemoryOutput) -> Bitmap? {
        output.frames.last { $0.0 <= Int64((t * 1000).rounded(.down)) }?.1
    }

    /// With TACTUS_TIMELINE_FRAMES=DIR the frame shown at each beat is written there as PNG (to look at).
    static func keep(_ frame: Bitmap, _ name: String) {
        guard let folder = ProcessInfo.processInfo.environment["TACTUS_TIMELINE_FRAMES"], !folder.isEmpty else { return }
        try? Data(PNG.encode(frame)).write(to: URL(fileURLWithPath: folder).appendingPathComponent("\(name).png"))
    }

    /// Centres of the discs of radius 3 (a lit 5x5 block) inside `area`.
    static func discCentres(_ frame: Bitmap, in area: Rect) -> [Point] {
        var centres: [Point] = []
        for y in (area.y + 2)..<(area.maxY - 2) {
            for x in (area.x + 2)..<(area.maxX - 2) {
                let lit = (-2...2).allSatisfy { dy in (-2...2).allSatisfy { dx in frame[x + dx, y + dy] } }
                if lit { centres.append(Point(x, y)) }
            }
        }
        return centres
    }

    /// The main pendulum's bob: -1 at the left end, +1 at the right end, 0 elsewhere (1 px slack).
    static func mainBobEnd(_ frame: Bitmap) -> Int {
        let pivot = Pendulum.Geometry.mainScreen.pivot
        // The farthest disc from the pivot: an accent's pulse ring starts as a blob on the pivot.
        func distance(_ p: Point) -> Int { (p.x - pivot.x) * (p.x - pivot.x) + (p.y - pivot.y) * (p.y - pivot.y) }
        guard let bob = discCentres(frame, in: ScreenRenderer.pendulumArea).max(by: { distance($0) < distance($1) }) else { return 0 }
        let dx = Double(bob.x - pivot.x), dy = Double(bob.y - pivot.y)
        let length = Int((dx * dx + dy * dy).squareRoot().rounded())
        let reach = Pendulum.reach(length: length, geometry: .mainScreen)
        guard abs(abs(Int(dx)) - reach) <= 1 else { return 0 }
        return dx < 0 ? -1 : 1
    }

    /// The song page's strip: -1 / +1 when its bob (4 px wide) is at the left / right end.
    static func stripBobEnd(_ frame: Bitmap) -> Int {
        let strip = ScreenRenderer.beatStrip
        let lit = (strip.x..<strip.maxX).filter { x in frame[x, 2] && frame[x, 0] && (frame[x - 1, 2] || frame[x + 1, 2]) }
        guard let left = lit.first, let right = lit.last, right - left == 3 else { return 0 }
        let centre = left + 2
        if abs(centre - (strip.x + 2)) <= 1 { return -1 }
        if abs(centre - (strip.maxX - 2)) <= 1 { return 1 }
        return 0
    }

    /// The tempo page's beat boxes: how many, and which one is filled.
    static func beatBoxes(_ frame: Bitmap) -> (count: Int, filled: [Int]) {
        var runs: [ClosedRange<Int>] = []
        var x = 0
        while x < 64 {
            if frame[x, 63] {
                let start = x
                while x < 64 && frame[x, 63] { x += 1 }
                runs.append(start...(x - 1))
            } else {
                x += 1
            }
        }
        let filled = runs.indices.filter { frame[(runs[$0].lowerBound + runs[$0].upperBound) / 2, 61] }
        return (runs.count, filled)
    }

    @Test func onTheTempoPageTheBobIsAtAnEndAndTheBoxIsTheBeatAtEveryBeat() throws {
        // A double press returns to the tempo page while the song plays on.
        let (output, _, _) = try simulate(Self.toSong + "8.2 press wheel double\n38 end\n", saved: Self.saved)
        let beats = Self.beats(output).filter { $0.t > 8.6 }
        // Count-in 4, ramp 32, waltz 6, trainer 12; minus the first beat (before the double press).
        #expect(beats.count == 53)
        var previous = 0
        var sectionsSeen = Set<Int>()
        for beat in beats {
            let frame = try #require(Self.frame(at: beat.t, output))
            Self.keep(frame, "tempo-\(beat.t)-bar\(beat.bar)-beat\(beat.beat)")
            let end = Self.mainBobEnd(frame)
            #expect(end != 0, "bob away from an end at the beat heard at \(beat.t) s (bar \(beat.bar) beat \(beat.beat))")
            #expect(end != previous, "bob on the same end as the previous beat at \(beat.t) s (bar \(beat.bar) beat \(beat.beat))")
            previous = end
            let boxes = Self.beatBoxes(frame)
            let expectedCount = beat.bar >= 8 && beat.bar < 10 ? 3 : 4
            #expect(boxes.count == expectedCount, "\(boxes.count) beat boxes at \(beat.t) s (bar \(beat.bar))")
            #expect(boxes.filled == [beat.beat], "box \(boxes.filled) filled at beat \(beat.beat) heard at \(beat.t) s; frames \(output.frames.filter { abs(Double($0.0) / 1000 - beat.t) < 0.04 }.map(\.0))")
            sectionsSeen.insert(expectedCount)
        }
        #expect(sectionsSeen == [3, 4])
        #expect(output.states.last?["mode"] as? String == "tempo")
    }

    @Test func onTheSongPageTheStripsBobIsAtAnEndAtEveryBeat() throws {
        let (output, _, _) = try simulate(Self.toSong + "38 end\n", saved: Self.saved)
        let beats = Self.beats(output)
        #expect(beats.count == 54)
        var previous = 0
        for beat in beats {
            let frame = try #require(Self.frame(at: beat.t, output))
            Self.keep(frame, "song-\(beat.t)-bar\(beat.bar)-beat\(beat.beat)")
            let end = Self.stripBobEnd(frame)
            #expect(end != 0, "strip's bob away from an end at the beat heard at \(beat.t) s (bar \(beat.bar) beat \(beat.beat))")
            #expect(end != previous, "strip's bob on the same end as the previous beat at \(beat.t) s")
            previous = end
        }
        #expect(output.states.last?["mode"] as? String == "song")
    }
}
