// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import ClickEngine
import Coach
import Glibc
import LinuxHAL
import TOMLReader
import TactusArithmetic
import TactusMusic
import TactusTimeline

struct CoachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coach",
        abstract: "Measure every hit of a recorded take early or late against the exact grid.",
        discussion: "Bar 0's downbeat is at the take's first sample plus --offset; the grid is the one render plays with the same flags."
    )

    @Option(help: "The take: a WAV file (mono, or its first channel is used).") var input: String?
    @OptionGroup var music: MusicFlags
    @Option(help: "Judge against this note value (1/N, e.g. 1/16) instead of the beats and sounding subdivision layers.") var grid: String?
    @Option(parsing: .unconditional, help: "Seconds from the take's first sample to bar 0's downbeat (negative: before it). Default 0.") var offset: String?
    @Option(help: "Write one JSON object per hit to this file.") var hits: String?
    @Option(help: "Draw the errors over time and their histogram to this SVG file.") var plot: String?

    func run() throws {
        try CoachJob(self).run()
    }
}

/// A validated coach run: every flag and the take are checked before anything is written.
struct CoachJob {
    /// Takes up to 1 GiB of WAV (about 3 hours of 48 kHz 16-bit mono).
    static let maximumTakeBytes = 1 << 30

    let inputPath: String
    let hitsPath: String
    let plotPath: String?
    let take: [Float]
    /// The take's sample step (16-bit: 1/32768), 0 for floating point.
    let quantizationStep: Float
    let sampleRate: Int
    let offset: Rational
    let gridText: String?
    let settings: MetronomeSettings
    /// `--grid 1/N`: N (nil: the beats and the sounding subdivision layers).
    let gridPerWholeNote: Int?
    let userSounds: [SoundSet]
    let song: SongRequest?

    init(_ options: CoachCommand) throws {
        guard let input = options.input else { throw ExitError("--input is required: the take (a WAV file) to measure") }
        guard let hits = options.hits else { throw ExitError("--hits is required: the JSON lines file to write the hits to") }
        inputPath = input
        hitsPath = hits
        plotPath = options.plot
        offset = try CoachJob.seconds(options.offset ?? "0", flag: "--offset")
        gridText = options.grid

        var outputs = OutputPaths()
        try outputs.claim(hits, flag: "--hits")
        if let plot = options.plot { try outputs.claim(plot, flag: "--plot") }
        for (flag, path) in [("--hits", hits), ("--plot", options.plot)] {
            if let path, CoachJob.sameFile(path, input) {
                throw ExitError("\(flag) \(Escaped.quoted(path)) is invalid: it is the take given as --input; give the output its own file")
            }
        }

        let decoded = try CoachJob.readTake(input, flag: "--input")
        sampleRate = decoded.sampleRate
        guard (8000...192_000).contains(sampleRate) else {
            throw ExitError("--input \(Escaped.quoted(input)) is invalid: its rate is \(sampleRate) Hz; allowed 8000 to 192000 Hz")
        }
        let channel = CoachJob.firstChannel(decoded)
        guard !channel.isEmpty else { throw ExitError("--input \(Escaped.quoted(input)) is empty: it holds no audio") }
        quantizationStep = TakeInput.quantizationStep(channel)
        take = CoachJob.prepared(channel, input: input, sampleRate: sampleRate)

        var loaded: [String: SoundSet] = [:]
        settings = try options.music.settings(sampleRate: sampleRate, loaded: &loaded)
        userSounds = Array(loaded.values)
        song = try SongRequest.make(options.music, bars: nil, settings: settings, sampleRate: sampleRate)

        // The grid is the one timeline's (JudgingGrid over BeatGrid); --grid is checked
        // against every beat unit it meets.
        var perWhole: Int?
        if let text = options.grid {
            _ = try CoachJob.gridLayer(text, beatUnit: settings.beatUnit, flag: "--grid")
            if let song {
                for s in song.songs { for section in s.sections {
                    _ = try CoachJob.gridLayer(text, beatUnit: section.beatUnit, flag: "--grid", section: section.label)
                } }
            }
            perWhole = Int(text.dropFirst(2))
        }
        gridPerWholeNote = perWhole
    }

    /// Seconds as a decimal or fraction, with a sign.
    static func seconds(_ text: String, flag: String) throws -> Rational {
        let negative = text.hasPrefix("-")
        let body = negative || text.hasPrefix("+") ? String(text.dropFirst()) : text
        guard !body.hasPrefix("-"), !body.hasPrefix("+"), let value = Rational(parsing: body), value <= Rational(86_400) else {
            throw ExitError("\(flag) '\(text)' is invalid: allowed seconds from -86400 to 86400 (e.g. 0.25 or -1/8)")
        }
        return negative ? .zero - value : value
    }

    /// Layers per beat for a grid of 1/N notes: 1 (the beat itself) to 9.
    static func gridLayer(_ text: String, beatUnit: BeatUnit, flag: String, section: String? = nil) throws -> Int {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "1", let n = Int(parts[1]), (1...99).contains(n) else {
            throw ExitError("\(flag) '\(text)' is invalid: allowed a note value 1/N, N 1 to 99 (e.g. 1/8, 1/16, 1/12)")
        }
        guard let layer = JudgingGrid.layer(perWholeNote: n, beatUnit: beatUnit) else {
            let place = section.map { " in section '\($0)'" } ?? ""
            throw ExitError("\(flag) '\(text)' is invalid\(place): the beat (\(beatUnit)) must hold 1 to 9 of them")
        }
        return layer
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var x = stat()
        var y = stat()
        return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    static func firstChannel(_ decoded: DecodedAudio) -> [Float] {
        var mono = [Float](repeating: 0, count: decoded.frameCount)
        for i in 0..<decoded.frameCount { mono[i] = decoded.frames[i * decoded.channels] }
        return mono
    }

    /// The take's audio; not a WAV, unreadable or without frames is one line naming `flag`.
    static func readTake(_ path: String, flag: String) throws -> DecodedAudio {
        let shown = Escaped.quoted(path)
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, limit: maximumTakeBytes, refuseLargerFiles: false) { prefix, size in
                do throws(WAVError) { return try WAVDecoder.layout(prefix, fileSize: size).bytesNeeded } catch {
                    return fileSizeForError(error, prefix: prefix.count, size: size)
                }
            }
        } catch {
            throw ExitError("\(flag) \(shown) cannot be read: \(error)")
        }
        guard !bytes.isEmpty else { throw ExitError("\(flag) \(shown) is empty: it holds no audio") }
        do { return try WAVDecoder.decode(bytes) } catch {
            if error == .noFrames { throw ExitError("\(flag) \(shown) is empty: it holds no audio (a WAV header with zero frames)") }
            throw ExitError("\(flag) \(shown) is not a WAV file it can read: \(error)")
        }
    }

    /// A header whose chunks lie beyond the first 64 KiB: read on, up to the limit.
    private static func fileSizeForError(_ error: WAVError, prefix: Int, size: Int) -> Int {
        size > prefix && (error == .missingDataChunk || error == .missingFormatChunk) ? size : prefix
    }

    /// The take with its DC offset removed; a DC offset and clipping are each one warning
    /// (a clipped take is judged all the same: its onsets are still where they were).
    static func prepared(_ samples: [Float], input: String, sampleRate: Int) -> [Float] {
        let shown = Escaped.quoted(input)
        if let clipped = TakeInput.clipping(samples) {
            let percent = fixedDecimal(Double(clipped.count) * 100 / Double(samples.count), decimals: 2)
            let from = fixedDecimal(Double(clipped.first) / Double(sampleRate), decimals: 3)
            FileSystem.writeStandardError("tactus: warning: --input \(shown) is clipped: \(clipped.count) samples (\(percent) %) at full scale, the first at \(from) s; judged all the same (record with less input gain)\n")
        }
        let dc = TakeInput.dcOffset(samples)
        guard abs(dc) >= 0.0005 else { return samples }
        FileSystem.writeStandardError("tactus: warning: --input \(shown) has a DC offset of \(dc < 0 ? "-" : "+")\(fixedDecimal(abs(dc), decimals: 4)) (of full scale); removed before judging\n")
        let offset = Float(dc)
        return samples.map { $0 - offset }
    }

    // MARK: running

    struct Rendered {
        var output: [Float] = []
        var events: [OnsetEvent] = []
        var barZero: Int64?
        /// The song the engine scheduled (its beats are the timeline's song piece).
        var schedule: SongSchedule?
    }

    private struct Enough: Error {}

    /// The engine's output (mono) and onsets from its start, far enough to cover the take.
    func render(settings: MetronomeSettings, songs: [Song]?, keepAudio: Bool) throws -> Rendered {
        let engine: ClickEngine
        do {
            engine = try ClickEngine(sampleRate: sampleRate, channels: 1, maxFrameCount: 128, settings: settings, sounds: userSounds)
        } catch { throw ExitError(error.description) }
        let offsetSamples = (offset * Rational(Int64(sampleRate))).rounded
        // Engine samples past bar 0 the take reaches, plus a second of margin.
        let reach = Int64(take.count) - offsetSamples + Int64(sampleRate)
        if let songs, let song {
            do { try engine.load(songs: songs, seed: song.seed, bars: nil, samples: max(reach, 0) + 3600 * Int64(sampleRate)) } catch {
                throw ExitError("\(error)")
            }
        }
        var result = Rendered()
        result.schedule = engine.song
        var frames: Int64 = 0
        do {
            try OfflineRender.run(engine: engine, changes: [], end: .sample(Int64.max / 4)) { block in
                if keepAudio { result.output.append(contentsOf: block) }
                frames += Int64(block.count)
                if let zero = result.barZero, frames > zero + reach, result.events.count >= 2 { throw Enough() }
                if frames > 4 * 3600 * Int64(sampleRate) { throw Enough() }
            } onEvent: { event in
                if result.barZero == nil && event.bar == 0 && !event.isCount { result.barZero = event.sample }
                result.events.append(event)
            }
        } catch is Enough {}
        return result
    }

    func run() throws {
        let heard = try render(settings: settings, songs: song?.songs, keepAudio: true)
        let rate = Double(sampleRate)
        let offsetSamples = (offset * Rational(Int64(sampleRate))).doubleValue
        // The click in the take: output sample j is heard at take sample j - barZero + offset + round trip.
        let base = Int((offset * Rational(Int64(sampleRate))).rounded) - Int(heard.barZero ?? 0)
        let clickStarts = heard.events.filter { !$0.muted }.map { Int($0.sample) }
        let bleed = BleedFit.estimate(input: take, output: heard.output, clickStarts: clickStarts, sampleRate: sampleRate,
                                      lags: base...(base + sampleRate / 4))
        let onsets = TakeAnalysis.onsets(input: take, sampleRate: sampleRate, output: heard.output, clickStarts: clickStarts, bleed: bleed,
                                         quantizationStep: quantizationStep)
        guard !onsets.isEmpty else {
            throw ExitError("--input \(Escaped.quoted(inputPath)) has no hits: \(bleed == nil ? "the take is silent (nothing rises above its noise)" : "only the click is in it (nothing is left once the click is taken out)")")
        }

        // The one timeline in engine samples: a steady grid with bar 0 at engine sample 0, or
        // the song's beats as the engine scheduled them; take sample t is engine sample
        // t - offset (+ bar 0's engine sample in a song).
        let grid: BeatGrid
        var shift = -offsetSamples
        if let schedule = heard.schedule {
            grid = BeatGrid(.song(SongGrid(beats: schedule.beats, origin: 0, sampleRate: sampleRate)))
            shift += Double(heard.barZero ?? 0)
        } else {
            grid = BeatGrid(.steady(SteadyGrid(settings: settings, sampleRate: sampleRate, downbeatSample: .zero)))
        }
        var judging = JudgingGrid(perWholeNote: gridPerWholeNote, songs: song?.songs ?? [])
        var matched: [MatchedHit] = []
        var outside = 0
        for onset in onsets {
            let engineSample = Double(onset) + shift
            guard let (position, halfStep) = judging.nearest(toSample: engineSample, on: grid),
                  abs(engineSample - Double(position.sample)) <= halfStep else { outside += 1; continue }
            let point = GridPoint(sample: Double(position.sample) - shift, bar: position.bar, beat: position.beat, index: position.index)
            matched.append(MatchedHit(sample: onset, point: point, errorMilliseconds: (engineSample - Double(position.sample)) * 1000 / rate))
        }
        guard !matched.isEmpty else {
            throw ExitError("every hit of --input \(Escaped.quoted(inputPath)) (\(onsets.count)) is more than half a grid step from the grid: the tempo or --offset is probably wrong")
        }
        if outside > 0 {
            FileSystem.writeStandardError("tactus: warning: \(outside) of \(onsets.count) hits lie more than half a grid step outside the grid (before its first position or after its last) and are left out\n")
        }

        var statistics = CoachStatistics()
        var lines = ""
        let gridField = gridText.map { TOMLWriter.quoted($0) } ?? "null"
        for hit in matched {
            statistics.add(hit.errorMilliseconds)
            lines += "{\"sample\":\(hit.sample),\"t\":\(fixedDecimal(Double(hit.sample) / rate, decimals: 6)),"
                + "\"bar\":\(hit.point.bar),\"beat\":\(hit.point.beat),\"grid\":\(gridField),\"index\":\(hit.point.index),"
                + "\"error_ms\":\(fixedDecimal(hit.errorMilliseconds, decimals: 3))}\n"
        }
        AtomicFile.removeTemporaryFilesOnSignals()
        do {
            let hitsFile = try AtomicFile(replacing: hitsPath)
            let plotFile = try plotPath.map { path throws(SystemError) in try AtomicFile(replacing: path) }
            do {
                try hitsFile.write(Array(lines.utf8))
                if let plotFile {
                    let svg = CoachPlot.svg(hits: matched, sampleRate: sampleRate, title: "tactus coach: \(FileSystem.stem(of: inputPath))",
                                            summary: statistics.summary)
                    try plotFile.write(Array(svg.utf8))
                }
                try hitsFile.commit()
                try plotFile?.commit()
            } catch {
                hitsFile.discard()
                plotFile?.discard()
                throw error
            }
        } catch let error as SystemError {
            throw ExitError("writing the output failed: \(error)", code: 1)
        }
        if let bleed {
            print("click bleed: round trip \(fixedDecimal(Double(bleed.lag - base) * 1000 / rate, decimals: 1)) ms, gain \(fixedDecimal(Double(bleed.gain), decimals: 3)), subtracted")
        }
        print("Wrote \(hitsPath)" + (plotPath.map { " and \($0)" } ?? ""))
        print(statistics.summary)
    }
}
