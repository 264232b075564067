// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import BoardFiles
import HAL
import TOMLReader
import TactusApp
import TactusArithmetic
import TactusMusic
import TactusInstrument
import TactusBase
import TactusCommandLine
import TactusSimulation

/// Every reader of outside input as one fuzz target: bytes in, and either a clear one-line
/// error or a value that then plays for a bounded time ("accepted" must mean "plays").
/// A target that finds a broken promise (a multi-line error, an accepted value that does
/// not render) traps, so libFuzzer (`make fuzz`) and the replay test (FuzzTests) both see
/// it as a crash.
///
/// The same functions run in three places: the libFuzzer binary (`tactus-fuzz`, built with
/// `-sanitize=fuzzer,address` by scripts/fuzz.sh), the corpus replay of `make test`
/// (Tests/FuzzTests/CorpusTests.swift over Fuzz/corpus and Fuzz/crashes), and the plain
/// `tactus-fuzz` build, which replays files given as arguments.
///
/// To add a reader (HTTP bodies): add a case to `all` with a name, write its
/// function below, and put a few valid inputs in Fuzz/corpus/NAME/; `make fuzz` and the
/// replay test pick it up by the name.
public enum FuzzTargets {
    public struct Target: Sendable {
        public let name: String
        let body: @Sendable ([UInt8], Budget) -> Void
        /// As the fuzzer runs it: renders what parsed for seconds of audio.
        public func run(_ bytes: [UInt8]) { body(bytes, .fuzzing) }
        /// As the corpus replay runs it (thousands of inputs in a debug build): the same
        /// checks, a shorter render.
        public func replay(_ bytes: [UInt8]) { body(bytes, .replay) }

        init(name: String, run: @escaping @Sendable ([UInt8], Budget) -> Void) {
            self.name = name
            body = run
        }
    }

    /// How long an accepted input is played: seconds of plain settings, bars of songs.
    public struct Budget: Sendable {
        let scale: Int64
        static let fuzzing = Budget(scale: 4)
        static let replay = Budget(scale: 1)
    }

    public static let all: [Target] = [
        Target(name: "toml", run: toml),
        Target(name: "config", run: config),
        Target(name: "board", run: board),
        Target(name: "settings", run: settings),
        Target(name: "songs", run: songs),
        Target(name: "presets", run: presets),
        Target(name: "practice-log", run: practiceLog),
        Target(name: "klick-map", run: klickMap),
        Target(name: "changes", run: changes),
        Target(name: "simulate-script", run: simulateScript),
        Target(name: "flags", run: flags),
        Target(name: "tempo", run: tempo),
        Target(name: "wav", run: wav),
        Target(name: "midi", run: midi),
        Target(name: "companion", run: companion),
    ]

    public static func named(_ name: String) -> Target? { all.first { $0.name == name } }

    /// Inputs are cut here: the files are read at most 1 MiB, but a fuzzer learns nothing
    /// more from long inputs and each run must stay fast.
    static let maximumBytes = 1 << 16

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes.prefix(maximumBytes), as: UTF8.self) }

    /// A broken promise: trap with what was wrong (libFuzzer keeps the input).
    static func fail(_ what: String) -> Never { fatalError("fuzz target: \(what)") }

    static func expectOneLine(_ message: String) {
        if message.isEmpty || message.contains("\n") { fail("error is not one line: \(message)") }
    }

    // MARK: rendering what parsed, for a bounded time

    /// Sample rate of the bounded renders: low, so a run stays fast.
    static let rate = 8000

    /// Plays `settings` (with `changes`) for `seconds`.
    static func render(_ settings: MetronomeSettings, changes: [TimedChange] = [], seconds: Int64) {
        var playable = settings
        playable.sound = "woodblock"
        let engine: ClickEngine
        do { engine = try ClickEngine(sampleRate: rate, channels: 1, maxFrameCount: 512, settings: playable) } catch {
            fail("accepted settings do not load: \(error)")
        }
        var frames = 0
        do {
            try OfflineRender.run(engine: engine, changes: changes, end: .sample(seconds * Int64(rate)), periodFrames: 512) { block in
                frames += block.count
                for sample in block where !sample.isFinite { fail("a rendered sample is not finite") }
            } onEvent: { _ in }
        } catch { fail("accepted settings do not render: \(error)") }
    }

    /// Plays songs for at most `bars` bars (and a bounded time), as the box and render do.
    static func render(_ songs: [Song], bars: Int64) {
        let playable = songs.filter { !$0.sections.isEmpty }
        guard !playable.isEmpty else { return }
        let engine: ClickEngine
        do { engine = try ClickEngine(sampleRate: rate, channels: 1, maxFrameCount: 512) } catch { fail("\(error)") }
        do { try engine.load(songs: playable, seed: 1, bars: bars, samples: 30 * Int64(rate)) } catch {
            // Too many onsets is a clear refusal the box shows; anything else is not.
            expectOneLine("\(error)")
            return
        }
        do {
            try OfflineRender.run(engine: engine, changes: [], end: .sample(2 * Int64(rate)), periodFrames: 512) { _ in } onEvent: { _ in }
        } catch { fail("an accepted song does not render: \(error)") }
    }

    /// The shape every reader's target starts with: what the reader makes of the bytes, or
    /// nil once its refusal is checked to be one line (a setting's: what is allowed).
    static func parsed<T>(_ read: () throws -> T) -> T? {
        do { return try read() } catch let error as SettingError { expectOneLine(error.allowed) } catch { expectOneLine("\(error)") }
        return nil
    }

    // MARK: the targets

    static func toml(_ bytes: [UInt8], _ budget: Budget) {
        do {
            let table = try TOML.parse(text(bytes), file: "f.toml")
            // What was read writes back as a document that reads again.
            do { _ = try TOML.parse(table.tomlDocument(), file: "g.toml") } catch {
                fail("TOML refuses what it wrote: \(error)")
            }
        } catch { expectOneLine(error.description) }
    }

    static func config(_ bytes: [UInt8], _ budget: Budget) {
        do { _ = try ConfigurationFile.parse(text(bytes), file: "c.toml") } catch { expectOneLine(error.description) }
    }

    static func board(_ bytes: [UInt8], _ budget: Budget) {
        do { _ = try BoardFile.parse(text(bytes), file: "b.toml", identifier: "b") } catch { expectOneLine(error.description) }
    }

    static func settings(_ bytes: [UInt8], _ budget: Budget) {
        guard let saved = parsed({ try SettingsFile.decode(text(bytes), file: "s.toml") }) else { return }
        render(saved.settings, seconds: budget.scale / 2 + 1)
        // What the box saves it reads back.
        do {
            let again = try SettingsFile.decode(SettingsFile.encode(saved), file: "s.toml")
            if again.settings != saved.settings { fail("settings do not read back as written") }
        } catch { fail("the box's own settings file is refused: \(error)") }
        render(saved.library.songs.prefix(2).map { $0 }, bars: budget.scale)
    }

    static func songs(_ bytes: [UInt8], _ budget: Budget) {
        guard let library = parsed({ try SongFile.decode(text(bytes), file: "songs.toml") }) else { return }
        for song in library.songs.prefix(3) { render([song], bars: 2 * budget.scale) }
        do { _ = try SongFile.decode(SongFile.encode(library), file: "songs.toml") } catch {
            fail("a songs file Tactus wrote is refused: \(error)")
        }
    }

    static func presets(_ bytes: [UInt8], _ budget: Budget) {
        do {
            let root = TOMLSection(try TOML.parse(text(bytes), file: "p.toml"), file: "p.toml")
            let list = try SettingsFile.presets(from: root)
            for preset in list.prefix(3) {
                render(preset.settings, seconds: 1)
                render([Song(preset: preset)], bars: budget.scale)
            }
        } catch { expectOneLine(error.description) }
    }

    static func practiceLog(_ bytes: [UInt8], _ budget: Budget) {
        do {
            var log = try PracticeLog(parsing: text(bytes), file: "practice.toml")
            log.add(seconds: 90, day: "2026-11-25")
        } catch { expectOneLine("\(error.field) '\(error.value)': \(error.allowed)") }
    }

    static func klickMap(_ bytes: [UInt8], _ budget: Budget) {
        do {
            let map = try KlickTempoMap(parsing: text(bytes))
            let song = try map.song(name: "map")
            render([song], bars: 2 * budget.scale)
            // import-klick writes what Tactus reads.
            let written = SongFile.encode(SongLibrary(songs: [song]))
            if written.utf8.count <= 1 << 20 {
                do { _ = try SongFile.decode(written, file: "map.toml") } catch {
                    fail("import-klick would write a file Tactus refuses: \(error)")
                }
            }
        } catch {
            // klick's style: a message, then the line.
            if error.message.isEmpty || error.message.contains("\n") { fail("klick message is not one line: \(error.message)") }
        }
    }

    static func changes(_ bytes: [UInt8], _ budget: Budget) {
        guard let script = parsed({ try ChangeScript(text: text(bytes), file: "c.txt") }) else { return }
        var current = MetronomeSettings()
        var timed: [TimedChange] = []
        for (seconds, _, step) in script.steps.prefix(64) {
            guard seconds <= Rational(2 * budget.scale) else { break }
            let sample = (seconds * Rational(Int64(rate))).rounded
            switch step {
            case .start: timed.append(TimedChange(sample: sample, action: .start))
            case .stop: timed.append(TimedChange(sample: sample, action: .stop))
            case .set(let assignments):
                var next = current
                do {
                    for (name, value) in MetronomeSettings.inAssignmentOrder(assignments) where name != "sound" {
                        try next.assign(name, value)
                    }
                    try next.validate()
                } catch { expectOneLine(error.allowed); continue }
                current = next
                timed.append(TimedChange(sample: sample, action: .apply(current)))
            }
        }
        render(MetronomeSettings(), changes: timed, seconds: 2 * budget.scale)
    }

    static func simulateScript(_ bytes: [UInt8], _ budget: Budget) {
        do {
            let script = try SimulationScript(text: text(bytes), file: "s.txt")
            var stream = script.edgeStream(stepsPerDetent: 4, origin: MonotonicTime(nanoseconds: 0))
            var count = 0
            while count < 100_000, stream.next() != nil { count += 1 }
        } catch { expectOneLine(error.description) }
    }

    /// The first byte picks the flag, the rest is its value: `--bpm`, `--meter`, ... as
    /// `render` and change files read them, then the whole settings render.
    static func flags(_ bytes: [UInt8], _ budget: Budget) {
        guard let first = bytes.first else { return }
        let names = SettingName.names.filter { $0 != "sound" }
        let name = names[Int(first) % names.count]
        let value = text(Array(bytes.dropFirst()))
        guard let settings = parsed({ () throws -> MetronomeSettings in
            var settings = MetronomeSettings()
            try settings.assign(name, value)
            try settings.validate()
            return settings
        }) else { return }
        render(settings, seconds: budget.scale / 2 + 1)
    }

    /// Song-level value syntaxes: a tempo segment (first byte even) with bars, gap and
    /// count-in read from the rest, as `render --bpm SEGMENT --bars N --gap G` does.
    static func tempo(_ bytes: [UInt8], _ budget: Budget) {
        let parts = text(bytes).split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        do {
            let segment = try TempoSegment(parsing: parts[0], field: "bpm")
            var section = SongSection(bars: 4, tempo: segment)
            if parts.count > 1 {
                guard let bars = Int(parts[1]), SongSection.barRange.contains(bars) else { return }
                section.bars = bars
            }
            if parts.count > 2, !parts[2].isEmpty {
                if parts[2].hasSuffix("%") {
                    section.randomMute = try RandomMute.parsePercent(parts[2], field: "gap")
                } else {
                    section.gap = try GapPattern(parsing: parts[2])
                }
            }
            var song = Song(name: "t", sections: [section])
            if parts.count > 3 { song.countIn = try CountIn(parsing: parts[3]) }
            render([song], bars: 4 * budget.scale)
        } catch { expectOneLine(error.allowed) }
    }

    static func wav(_ bytes: [UInt8], _ budget: Budget) {
        do {
            let audio = try WAVDecoder.decode(bytes)
            if audio.frames.contains(where: { !$0.isFinite || abs($0) > 1 }) { fail("decoded samples outside -1...1") }
            if audio.channels <= 0 || audio.frames.count % audio.channels != 0 { fail("decoded frames do not fill whole channels") }
        } catch { expectOneLine(error.description) }
    }
}
