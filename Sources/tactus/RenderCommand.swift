// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import ClickEngine
import LinuxHAL
import TOMLReader
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusBase
import TactusCommandLine
import MIDIWire

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
    @Option(help: "A reference tone under the clicks: NOTE[@A4], C4 to B5 (A4, C#5, Bb4), A4 415 to 466 Hz (default 440), e.g. A4@442. Alone with --volume master=0.") var tone: String?
    @Option(name: .customLong("tone-timbre"), help: "The tone's timbre: sine or organ (default sine).") var toneTimbre: String?
    @Option(name: .customLong("tone-volume"), parsing: .unconditional, help: "The tone's own volume in percent, 0 to 100 (default 50).") var toneVolume: String?
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
            print((BuiltInSounds.names + SoundFolder.installedVoices().map(\.name)).joined(separator: "\n"))
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
    let tone: ReferenceTone?

    /// The longest render, whether given in --seconds or --bars: 24 hours.
    static let maximumSeconds = Rational(86_400)

    init(_ options: RenderCommand) throws {
        guard let output = options.output else { throw ExitError("-o/--output is required: the WAV file to write") }
        let rate = try wholeNumber(options.rate, flag: "--rate", in: 8000...192_000, allowed: "8000 to 192000 (Hz)")
        guard let format = WAVSampleFormat(rawValue: options.format) else {
            throw ExitError("--format '\(options.format)' is invalid: allowed s16, s24 or f32")
        }
        sampleRate = rate
        tone = try RenderJob.tone(options)
        channels = try wholeNumber(options.channels, flag: "--channels", in: 1...2, allowed: "1 or 2")
        self.format = format

        var loaded: [String: SoundSet] = [:]
        let settings = try options.music.settings(sampleRate: sampleRate, loaded: &loaded)
        self.settings = settings

        let bars: Int?
        (bars, end) = try RenderJob.end(options, sampleRate: sampleRate)
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
            timed = try RenderJob.changes(path, settings: settings, song: song, sampleRate: sampleRate, loaded: &loaded)
        }
        changes = timed
        userSounds = Array(loaded.values)
        outputPath = output
        eventsPath = options.events
        try RenderJob.claimOutputs(options, output: output, soundFolders: loaded.keys.sorted())
    }

    /// Where the render ends (--bars or --seconds, exclusive; else 4 bars), and the bars given.
    static func end(_ options: RenderCommand, sampleRate: Int) throws -> (bars: Int?, end: RenderEnd) {
        switch (options.bars, options.seconds) {
        case (.some, .some): throw ExitError("--bars and --seconds are exclusive: give one of them")
        case (let text?, nil):
            let n = try wholeNumber(text, flag: "--bars", in: 1...1_000_000, allowed: "1 to 1000000, and at most 24 hours")
            return (n, .bars(Int64(n)))
        case (nil, let text?):
            guard let value = Rational(parsing: text), !text.contains("/"), value > .zero, value <= RenderJob.maximumSeconds else {
                throw ExitError("--seconds '\(text)' is invalid: allowed more than 0 up to 86400")
            }
            return (nil, .sample((value * Rational(Int64(sampleRate))).rounded))
        case (nil, nil): return (nil, .bars(4))
        }
    }

    /// The change script (--changes): each step at its sample, checked against the settings
    /// (or the song) it changes; a sound it names is loaded into `loaded`.
    static func changes(_ path: String, settings: MetronomeSettings, song: SongRequest?, sampleRate: Int,
                        loaded: inout [String: SoundSet]) throws -> [TimedChange] {
        var timed: [TimedChange] = []
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
                        if name == SettingName.meter.name || name == SettingName.beatUnit.name {
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
        return timed
    }

    /// No output may overwrite an input (song, tempo map, change script, sound files) or the other output.
    static func claimOutputs(_ options: RenderCommand, output: String, soundFolders: [String]) throws {
        var outputs = OutputPaths()
        for (path, flag) in [(options.song, "--song"), (options.tempoMap, "--tempo-map"), (options.changes, "--changes")] {
            if let path { outputs.input(path, flag: flag) }
        }
        for folder in soundFolders {
            for name in SoundFolder.fileNames { outputs.input((folder.hasSuffix("/") ? folder : folder + "/") + name, flag: "--sound") }
        }
        try outputs.claim(output, flag: "-o")
        if let events = options.events { try outputs.claim(events, flag: "--events") }
    }

    /// `--tone NOTE[@A4]` with its timbre and volume; the latter two need the first.
    static func tone(_ options: RenderCommand) throws -> ReferenceTone? {
        guard let text = options.tone else {
            if options.toneTimbre != nil || options.toneVolume != nil {
                throw ExitError("--tone-timbre and --tone-volume need --tone NOTE[@A4] (e.g. --tone A4@442)")
            }
            return nil
        }
        guard let (note, reference) = ReferenceTone.parse(text) else {
            throw ExitError("--tone \(Escaped.quoted(text)) is invalid: allowed a note from C4 to B5 (A4, C#5, Bb4), optionally @A4 in whole Hz from 415 to 466 (A4@442)")
        }
        var tone = ReferenceTone(note: note, reference: reference)
        if let timbre = options.toneTimbre {
            guard let t = ReferenceTone.Timbre(rawValue: timbre) else {
                throw ExitError("--tone-timbre \(Escaped.quoted(timbre)) is invalid: allowed sine or organ")
            }
            tone.timbre = t
        }
        if let volume = options.toneVolume {
            tone.volume = try wholeNumber(volume, flag: "--tone-volume", in: ReferenceTone.volumeRange, allowed: "0 to 100 (%)")
        }
        return tone
    }

    /// A built-in name as is, or a folder of WAV files loaded (once) and named by its path.
    static func resolveSound(_ value: String, rate: Int, loaded: inout [String: SoundSet], origin: String) throws -> String {
        if BuiltInSounds.names.contains(value) || loaded[value] != nil { return value }
        if !FileSystem.isDirectory(value), let folder = SoundFolder.voiceFolder(named: value) {
            // A voice set by name (voice-en): `make voices` output, installed or in ./voices.
            do {
                loaded[value] = try SoundFolder.load(folder, name: value, sampleRate: rate)
            } catch {
                throw ExitError("\(origin) '\(value)' (\(folder)): \(error.message)")
            }
            return value
        }
        if !FileSystem.isDirectory(value) && value.hasPrefix("voice-") && !value.contains("/") {
            throw ExitError("\(origin) '\(value)' is invalid: no voice set of that name in \(SoundFolder.voiceFolders.joined(separator: ", ")) (make voices builds voice-en, voice-de, voice-es)")
        }
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
            engine = try ClickEngine(sampleRate: sampleRate, channels: channels, maxFrameCount: OfflineRender.filePeriodFrames,
                                     settings: settings, sounds: userSounds)
        } catch { throw ExitError(error.description) }
        engine.setTone(tone)
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
            var writer = try WAVStreamWriter(WAVEncoder(sampleRate: sampleRate, channels: channels, format: format),
                                             write: wav.write, rewrite: wav.rewrite)
            var events = OrderedEventLines()
            // MIDI clocks are placed only for an events file (nothing else reads them here).
            let onMIDI: ((MIDIOutEvent) throws -> Void)? = eventsFile.map { _ in
                { message in events.add(EventJSON.line(message, sampleRate: sampleRate), at: message.sample) }
            }
            try OfflineRender.run(engine: engine, changes: changes, end: renderEnd, periodFrames: OfflineRender.filePeriodFrames, output: { block in
                // Every event before this block has been reported (a block's own come after it).
                if let eventsFile, let ready = events.take(before: writer.frameCount) { try eventsFile.write(ready) }
                try writer.append(block)
            }, onEvent: { event in
                guard eventsFile != nil else { return }
                events.add(EventJSON.line(event, sampleRate: sampleRate, schedule: song == nil ? nil : engine.song), at: event.sample)
            }, onMIDI: onMIDI)
            try writer.finish()
            try eventsFile?.write(events.take(before: .max) ?? [])
            try wav.commit()
            let frames = writer.frameCount
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

/// The events file's lines in sample order: a spoken word's onset is reported when its
/// clip begins, up to its lead before its sample (after MIDI clocks due sooner), so lines
/// wait here until everything before them has been rendered.
struct OrderedEventLines {
    private var pending: [(sample: Int64, order: Int, line: String)] = []
    private var added = 0
    private var ready: [UInt8] = []

    mutating func add(_ line: String, at sample: Int64) {
        pending.append((sample, added, line))
        added += 1
    }

    /// The lines of the events before `sample`, in order, once 64 KiB have gathered (all of
    /// them for `.max`), else nil.
    mutating func take(before sample: Int64) -> [UInt8]? {
        if pending.contains(where: { $0.sample < sample }) {
            pending.sort { ($0.sample, $0.order) < ($1.sample, $1.order) }
            let count = pending.firstIndex { $0.sample >= sample } ?? pending.count
            for event in pending[..<count] { ready += Array(event.line.utf8) }
            pending.removeFirst(count)
        }
        guard ready.count >= 1 << 16 || (sample == .max && !ready.isEmpty) else { return nil }
        defer { ready.removeAll(keepingCapacity: true) }
        return ready
    }
}

/// One onset as a JSON object on one line: its time from its sample, then the fields every
/// events file shares (`OnsetEventJSON`).
enum EventJSON {
    static func line(_ event: OnsetEvent, sampleRate: Int, schedule: SongSchedule?) -> String {
        "{\"t\":\(fixedDecimal(Double(event.sample) / Double(sampleRate), decimals: 6)),\"type\":\"onset\",\(OnsetEventJSON.fields(event, schedule: schedule))}\n"
    }

    /// A MIDI message the box sends: `{"t":...,"type":"midi","dir":"out","bytes":"F8","sample":N}`.
    static func line(_ event: MIDIOutEvent, sampleRate: Int) -> String {
        let seconds = fixedDecimal(Double(event.sample) / Double(sampleRate), decimals: 6)
        return "{\"t\":\(seconds),\"type\":\"midi\",\"dir\":\"out\",\"bytes\":\"\(event.message.hex)\",\"sample\":\(event.sample)}\n"
    }
}
