// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import ClickEngine
import LinuxHAL
import TOMLReader
import TactusCore

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a click track to a WAV file with the live engine.",
        discussion: "Stops starting clicks at the end (--bars or --seconds) and lets the last clicks ring out."
    )

    // The musical flags, shared with `tactus coach` (MusicFlags.swift).
    @OptionGroup var music: MusicFlags
    @Option(parsing: .unconditional, help: "Sample rate, 8000 to 192000.") var rate = "48000"
    @Option(help: "Sample format: s16, s24 or f32.") var format = "s16"
    @Option(parsing: .unconditional, help: "Output channels, 1 or 2.") var channels = "2"
    @Option(parsing: .unconditional, help: "Bars to play, 1 to 1000000 (default 4).") var bars: String?
    @Option(parsing: .unconditional, help: "Seconds to play (instead of --bars).") var seconds: String?
    @Option(help: "Timed changes: '<seconds> set bpm=150 meter=5/4', '<seconds> stop', '<seconds> start'.") var changes: String?
    @Option(help: "Write one JSON object per onset to this file.") var events: String?
    @Option(name: .shortAndLong, help: "Output WAV file.") var output: String?
    @Flag(name: .customLong("list-sounds"), help: "List the built-in sound sets and exit.") var listSounds = false

    // RenderJob and SongRequest read the musical flags by these names.
    var bpm: String { music.bpm }
    var meter: String { music.meter }
    var beatUnit: String? { music.beatUnit }
    var accents: String? { music.accents }
    var subdivisions: String { music.subdivisions }
    var swing: String? { music.swing }
    var groove: String? { music.groove }
    var poly: [String] { music.poly }
    var sound: String { music.sound }
    var volume: String? { music.volume }
    var song: String? { music.song }
    var songName: String? { music.songName }
    var tempoMap: String? { music.tempoMap }
    var countIn: String? { music.countIn }
    var gap: String? { music.gap }
    var seed: String? { music.seed }

    func run() throws {
        if listSounds {
            print(BuiltInSounds.names.joined(separator: "\n"))
            return
        }
        let job = try RenderJob(self)
        try job.run()
    }
}

/// A validated render: every input is checked before any file is created.
struct RenderJob {
    let settings: MetronomeSettings
    let userSounds: [SoundSet]
    let sampleRate: Int
    let channels: Int
    let format: WAVSampleFormat
    let end: RenderEnd
    let changes: [TimedChange]
    let outputPath: String
    let eventsPath: String?
    let song: SongRequest?
    let explicitEnd: Bool

    /// The longest render, whether given in --seconds or --bars: 24 hours.
    static let maximumSeconds = Rational(86_400)

    init(_ options: RenderCommand) throws {
        guard let output = options.output else { throw ExitError("-o/--output is required: the WAV file to write") }
        let rate = try wholeNumber(options.rate, flag: "--rate", in: 8000...192_000, allowed: "8000 to 192000 (Hz)")
        guard let format = WAVSampleFormat(rawValue: options.format) else {
            throw ExitError("--format '\(options.format)' is invalid: allowed s16, s24 or f32")
        }
        sampleRate = rate
        channels = try wholeNumber(options.channels, flag: "--channels", in: 1...2, allowed: "1 or 2")
        self.format = format

        var loaded: [String: SoundSet] = [:]
        let settings = try options.music.settings(sampleRate: sampleRate, loaded: &loaded)
        self.settings = settings

        var bars: Int?
        switch (options.bars, options.seconds) {
        case (.some, .some): throw ExitError("--bars and --seconds are exclusive: give one of them")
        case (let text?, nil):
            let n = try wholeNumber(text, flag: "--bars", in: 1...1_000_000, allowed: "1 to 1000000, and at most 24 hours")
            (bars, end) = (n, .bars(Int64(n)))
        case (nil, let text?):
            guard let value = Rational(parsing: text), !text.contains("/"), value > .zero, value <= RenderJob.maximumSeconds else {
                throw ExitError("--seconds '\(text)' is invalid: allowed more than 0 up to 86400")
            }
            end = .sample((value * Rational(Int64(sampleRate))).rounded)
        case (nil, nil): end = .bars(4)
        }
        explicitEnd = options.bars != nil || options.seconds != nil

        song = try SongRequest.make(options.music, bars: bars, settings: settings, sampleRate: sampleRate)
        if song == nil, let n = bars {
            // As --seconds: at most 24 hours. The plain bar pattern knows its bar length
            // here; a song's bars are checked once its schedule is made (run()).
            let barSeconds = settings.beatsPerBar * Rational(60) / settings.tempo.bpm
            if Rational(Int64(n)) * barSeconds > RenderJob.maximumSeconds {
                let most = (RenderJob.maximumSeconds / barSeconds).floor
                throw ExitError("--bars '\(n)' is invalid: allowed 1 to \(most) (24 hours at \(settings.tempo) BPM in \(settings.meter))")
            }
        }

        var timed: [TimedChange] = []
        if let path = options.changes {
            let text = try InputFile.text(path, flag: "--changes")
            let script: ChangeScript
            do { script = try ChangeScript(text: text, file: path) } catch { throw ExitError(error.description) }
            var current = settings
            if let first = song?.songs.first?.sections.first {
                // Pattern changes are checked against the song's meter, not --meter's.
                (current.meter, current.beatUnit) = (first.meter, first.beatUnit)
            }
            for (seconds, line, step) in script.steps {
                let sample = (seconds * Rational(Int64(sampleRate))).rounded
                switch step {
                case .start: timed.append(TimedChange(sample: sample, action: .start))
                case .stop: timed.append(TimedChange(sample: sample, action: .stop))
                case .set(let assignments):
                    var holdTempo = false
                    for (name, value) in MetronomeSettings.inAssignmentOrder(assignments) {
                        if song != nil {
                            if name == "meter" || name == "beat-unit" {
                                throw ExitError("\(path):\(line): \(name) '\(value)' cannot change during a song: its sections set the meter; allowed: bpm (or bpm=hold), accents, subdivisions, swing, groove, poly, sound, volume")
                            }
                            if name == "bpm" && value == "hold" { holdTempo = true; continue }
                        }
                        do {
                            if name == "sound" {
                                current.sound = try RenderJob.resolveSound(value, rate: sampleRate, loaded: &loaded, origin: "\(path):\(line): sound")
                            } else {
                                try current.assign(name, value)
                            }
                        } catch let error as SettingError {
                            throw ExitError("\(path):\(line): \(error.field) '\(error.value)' is invalid: \(error.allowed)")
                        }
                    }
                    do { try current.validate() } catch {
                        throw ExitError("\(path):\(line): \(error.field) '\(error.value)' is invalid: \(error.allowed)")
                    }
                    if song != nil {
                        let names = Set(assignments.map(\.name))
                        let tempo: SongChange.TempoChange? = holdTempo ? .hold : names.contains("bpm") ? .to(current.tempo.bpm) : nil
                        let pattern = !names.isDisjoint(with: ["accents", "subdivisions", "swing", "groove", "poly"])
                        timed.append(TimedChange(sample: sample, action: .changeSong(current, tempo: tempo, pattern: pattern)))
                    } else {
                        timed.append(TimedChange(sample: sample, action: .apply(current)))
                    }
                }
            }
        }
        changes = timed
        userSounds = Array(loaded.values)
        outputPath = output
        eventsPath = options.events
        var outputs = OutputPaths()
        for (path, flag) in [(options.song, "--song"), (options.tempoMap, "--tempo-map"), (options.changes, "--changes")] {
            if let path { outputs.input(path, flag: flag) }
        }
        for folder in loaded.keys.sorted() {
            for name in SoundFolder.fileNames { outputs.input((folder.hasSuffix("/") ? folder : folder + "/") + name, flag: "--sound") }
        }
        try outputs.claim(output, flag: "-o")
        if let events = options.events { try outputs.claim(events, flag: "--events") }
    }

    /// A built-in name as is, or a folder of WAV files loaded (once) and named by its path.
    static func resolveSound(_ value: String, rate: Int, loaded: inout [String: SoundSet], origin: String) throws -> String {
        if BuiltInSounds.names.contains(value) || loaded[value] != nil { return value }
        guard FileSystem.isDirectory(value) else {
            throw ExitError("\(origin) '\(value)' is invalid: not a built-in sound (\(BuiltInSounds.names.joined(separator: ", "))) nor a folder with accent.wav, beat.wav and sub.wav")
        }
        do {
            loaded[value] = try SoundFolder.load(value, name: value, sampleRate: rate)
        } catch {
            throw ExitError("\(origin) '\(value)': \(error.message)")
        }
        return value
    }


    func run() throws {
        let engine: ClickEngine
        do {
            // Built with the render's own settings and sounds: no other set is synthesized.
            engine = try ClickEngine(sampleRate: sampleRate, channels: channels, maxFrameCount: 128,
                                     settings: settings, sounds: userSounds)
        } catch { throw ExitError(error.description) }
        var renderEnd = end
        if let song {
            var bars: Int64?
            var samples: Int64?
            switch end {
            case .bars(let n): bars = n
            case .sample(let s): samples = s
            }
            // A song that ends by itself plays to its end unless --bars or --seconds says otherwise.
            if !explicitEnd { bars = song.songs.contains(where: \.isEndless) ? 4 : nil }
            do { try engine.load(songs: song.songs, seed: song.seed, bars: bars, samples: samples) } catch {
                throw ExitError("\(error)")
            }
            if case .bars(let n) = end, explicitEnd, let songEnd = engine.songEndSample,
               Rational(songEnd) > RenderJob.maximumSeconds * Rational(Int64(sampleRate)) {
                throw ExitError("--bars '\(n)' is invalid: the song's first \(n) bars last more than 24 hours; allowed at most 24 hours (as --seconds 86400)")
            }
            renderEnd = .sample(Int64.max / 4)
        }

        // Interrupted (Ctrl-C, SIGTERM, SIGHUP): the partial files go, the targets stay.
        AtomicFile.removeTemporaryFilesOnSignals()
        let wav: AtomicFile
        do { wav = try AtomicFile(replacing: outputPath) } catch { throw ExitError("\(error)", code: 1) }
        let eventsFile: AtomicFile?
        do { eventsFile = try eventsPath.map { path throws(SystemError) in try AtomicFile(replacing: path) } } catch {
            wav.discard()
            throw ExitError("\(error)", code: 1)
        }
        do {
            let encoder = WAVEncoder(sampleRate: sampleRate, channels: channels, format: format)
            try wav.write(encoder.header(dataByteCount: 0))
            var dataBytes = 0
            var frames: Int64 = 0
            // Written in chunks of 64 KiB or more: one write per render block would be a
            // system call every 128 frames.
            var bytes: [UInt8] = []
            var lines: [UInt8] = []
            try OfflineRender.run(engine: engine, changes: changes, end: renderEnd) { block in
                let before = bytes.count
                encoder.encode(block, into: &bytes)
                dataBytes += bytes.count - before
                frames += Int64(block.count / channels)
                if bytes.count >= 1 << 16 {
                    try wav.write(bytes)
                    bytes.removeAll(keepingCapacity: true)
                }
            } onEvent: { event in
                guard let eventsFile else { return }
                lines += Array(EventJSON.line(event, sampleRate: sampleRate, song: song, schedule: engine.song).utf8)
                if lines.count >= 1 << 16 {
                    try eventsFile.write(lines)
                    lines.removeAll(keepingCapacity: true)
                }
            }
            try wav.write(bytes + encoder.padding(dataByteCount: dataBytes))
            try eventsFile?.write(lines)
            try wav.rewrite(at: 0, encoder.header(dataByteCount: dataBytes))
            try wav.commit()
            try eventsFile?.commit()
            let seconds = Double(frames) / Double(sampleRate)
            print("Wrote \(outputPath): \(fixedDecimal(seconds, decimals: 3)) s, \(frames) frames, \(sampleRate) Hz, \(format.rawValue), \(channels) channel\(channels == 1 ? "" : "s")"
                  + (eventsPath.map { ", onsets in \($0)" } ?? ""))
        } catch {
            wav.discard()
            eventsFile?.discard()
            if let error = error as? SystemError { throw ExitError("writing the output failed: \(error)", code: 1) }
            throw error
        }
    }
}

/// One onset as a JSON object on one line.
enum EventJSON {

    static func line(_ event: OnsetEvent, sampleRate: Int, song: SongRequest? = nil, schedule: SongSchedule? = nil) -> String {
        let seconds = fixedDecimal(Double(event.sample) / Double(sampleRate), decimals: 6)
        let kind = event.isCount ? "count" : event.kind.name
        var line = "{\"t\":\(seconds),\"sample\":\(event.sample),\"kind\":\"\(kind)\",\"layer\":\(event.layer),\"bar\":\(event.bar),\"beat\":\(event.beat)"
        if event.kind == .poly { line += event.polyJSONFields }
        if let song, let schedule {
            let label = schedule.label(song: Int(event.song), section: Int(event.section))
            line += ",\"section\":\(event.section),\"label\":\(TOMLWriter.quoted(label))"
            if song.songs.count > 1 { line += ",\"song\":\(event.song),\"song_name\":\(TOMLWriter.quoted(song.songs[Int(event.song)].name))" }
            line += ",\"bpm\":\(fixedDecimal(event.bpm, decimals: 3)),\"muted\":\(event.muted)"
            if song.usesRandomMute { line += ",\"seed\":\(song.seed)" }
        }
        return line + "}\n"
    }
}
