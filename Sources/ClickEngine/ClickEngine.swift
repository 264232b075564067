// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusBase
import MIDIWire

/// A sound set name that is neither built in nor registered.
public struct UnknownSoundError: Error, Sendable, CustomStringConvertible {
    public let name: String
    public var description: String {
        "sound '\(name)' is unknown: built-in sets are \(BuiltInSounds.names.joined(separator: ", ")), or give a folder with accent.wav, beat.wav and sub.wav"
    }
}

/// The control side of the click engine: owns the settings and the transport, compiles
/// them into immutable programs and publishes them to the renderer, which picks each one
/// up at the start of its next render call. Use it from one thread (or actor) at a time.
public final class ClickEngine {
    public let renderer: ClickRenderer
    public private(set) var settings: MetronomeSettings
    public private(set) var isPlaying = false
    private var transportEpoch: UInt64 = 0
    /// The song played from each start instead of the bar pattern, if any.
    public private(set) var song: SongSchedule?
    private var programSerial: UInt64 = 0
    /// Settings (and song) of the most recent programs, by serial, for `settings(ofProgram:)`
    /// and `gridPiece(for:)`.
    private var recentPrograms: [(serial: UInt64, settings: MetronomeSettings, song: SongSchedule?)] = []
    /// The reference tone, or nil (off). It sounds whether or not the clicks play.
    public private(set) var tone: ReferenceTone?
    /// Sound sets used so far. Kept for the engine's lifetime because voices may still be
    /// playing their clips after a change of sound; they are small (a few hundred KB).
    private var soundSets: [String: SoundSet] = [:]

    /// Voices for the worst case: 999 BPM with every layer 2-9 (28 distinct onsets per beat,
    /// about 466 per second) and clips of the longest allowed length (2 s), with margin.
    public static let defaultVoiceCount = 1024

    public init(
        sampleRate: Int, channels: Int = 2, maxFrameCount: Int = 4096,
        voiceCount: Int = ClickEngine.defaultVoiceCount, eventCapacity: Int = 8192,
        settings: MetronomeSettings = MetronomeSettings(), sounds: [SoundSet] = []
    ) throws(UnknownSoundError) {
        renderer = ClickRenderer(sampleRate: sampleRate, channels: channels, maxFrameCount: maxFrameCount,
                                 voiceCount: voiceCount, eventCapacity: eventCapacity)
        self.settings = settings
        // Registered first, so only the set the settings name is ever synthesized.
        for set in sounds { soundSets[set.name] = set }
        _ = try soundSet(named: settings.sound)
        publish()
    }

    /// Makes a loaded sound set (for example from WAV files) available under its name.
    public func register(_ set: SoundSet) {
        soundSets[set.name] = set
    }

    /// Applies new settings; playback continues in phase with the next render call.
    public func apply(_ newSettings: MetronomeSettings) throws(UnknownSoundError) {
        _ = try soundSet(named: newSettings.sound)
        settings = newSettings
        publish()
    }

    /// Switches the reference tone on (or changes it) or off (nil), from the next render
    /// call, through a ramp of a few ms: no click. Independent of start and stop.
    public func setTone(_ newTone: ReferenceTone?) {
        guard newTone != tone else { return }
        tone = newTone
        publish()
    }

    /// Plays `songs` back to back (a setlist advancing by itself, or one song) from each
    /// start instead of the bar pattern, with the current sound and volumes; nil returns
    /// to the bar pattern. The song stops starting clicks at its end, at the downbeat of
    /// bar `bars`, or at `samples` after its start, whichever is given.
    public func load(songs: [Song]?, seed: UInt64 = 0, bars: Int64? = nil, samples: Int64? = nil) throws {
        if let songs {
            let sounds = try soundSet(named: settings.sound)
            song = try SongSchedule(songs: songs, seed: seed, sounds: sounds, volumes: settings.volumes,
                                    sampleRate: renderer.sampleRate, bars: bars, samples: samples)
        } else {
            song = nil
        }
        publish()
    }

    /// Frames between the renderer's clock and the sample a live song change is planned
    /// for: 0 offline (changes are applied between render calls); on a live device at least
    /// one period, so the render thread takes the change up before its sample.
    public var songChangeLead: Int64 = 0

    /// A live change while the song plays (see `SongChange`): `settings` become the
    /// engine's (their sound and volumes play from the change on); `tempo` re-times the
    /// rest of the current section; with `pattern` its accents, subdivisions, swing, groove
    /// and poly layers replace the section's. `notBefore`: an engine sample the change waits
    /// for (a bar line still to come; an earned trainer's step). Returns the change's sample
    /// from the song's start, or nil when no song is playing (then it is a plain `apply`).
    @discardableResult
    public func applyDuringSong(_ newSettings: MetronomeSettings, tempo: SongChange.TempoChange?, pattern: Bool,
                                notBefore: Int64? = nil) throws -> Int64? {
        let sounds = try soundSet(named: newSettings.sound)
        guard isPlaying, let song else {
            try apply(newSettings)
            return nil
        }
        let origin = renderer.songStart
        // Not yet started on the render thread: the change holds from the song's start.
        let at = origin.epoch == transportEpoch ? max(renderer.sampleClock + songChangeLead - origin.sample, 0) : 0
        let wanted = origin.epoch == transportEpoch ? (notBefore.map { $0 - origin.sample } ?? 0) : 0
        let from = max(at, wanted, song.changes.last?.sample ?? 0)
        settings = newSettings
        if from < song.endSample {
            self.song = try song.changed(SongChange(sample: from, tempo: tempo, pattern: pattern ? newSettings : nil),
                                         mix: SongMix(sample: from, sounds: sounds, volumes: newSettings.volumes),
                                         sampleRate: renderer.sampleRate)
        }
        publish()
        return from
    }

    /// The engine sample where the song loaded stops starting clicks in this start, once the
    /// render thread has started it; nil otherwise.
    public var songEndSample: Int64? {
        guard isPlaying, let song else { return nil }
        let origin = renderer.songStart
        return origin.epoch == transportEpoch ? origin.sample + song.endSample : nil
    }

    /// Where the next start puts bar 0's downbeat (twice the sample, exact); nil: at the
    /// render call that takes the start up.
    private var startTwice: Int64?
    /// Where the start's first onset is due (twice the sample): found more than 5 ms in the
    /// past by the render thread, the start moves so it sounds from the render clock (a
    /// followed MIDI Start or Continue) rather than being passed over.
    private var startDueTwice: Int64?
    /// The latest outside re-placement of the grid (Link), attached to every program until
    /// the next start; the render thread applies each serial once.
    private var alignment: (serial: UInt64, twice: Int64, bar: Int64, position: Rational, lateWithin: Int64, relocatesClock: Bool)?
    private var alignmentSerial: UInt64 = 0

    /// Starts with bar 0's downbeat at sample `twice / 2` (an outside timeline's bar line, in
    /// the future by at least a period), or at the next render call when nil. `playsLateFrom`:
    /// the first position to play (twice its sample; bar 0 or an SPP's position), which sounds
    /// late from the render clock, the whole grid moved with it, when the render thread finds
    /// it more than 5 ms in the past (a MIDI Start gives no warning, and under load the control
    /// and render threads take it up later than predicted); without it late onsets are passed over.
    public func start(atTwice twice: Int64?, playsLateFrom due: Int64? = nil) {
        startTwice = twice
        startDueTwice = due
        alignment = nil
        startTransport()
    }

    /// Re-places the playing grid (an outside timeline moved, Link): from sample `twice / 2`
    /// on, bar `bar` is `position` whole notes in. No onset is doubled; see `ClickRenderer`.
    /// `lateWithin` (samples): an onset the move puts in the past by up to this much plays
    /// at once (the latest such one only), older ones are passed over. A jump (joining a
    /// session) keeps the default 5 ms; a followed clock's corrections, which never jump a
    /// beat, pass a wider window, so a correction while locking never passes over a beat.
    /// `relocatesClock`: a move of the bars against the MIDI clock count (Link moving the
    /// phase) is told to chained gear with SPP and Continue at the next bar; a followed
    /// clock's corrections keep its count and send none.
    public func align(atTwice twice: Int64, bar: Int64, position: Rational, lateWithin: Int64? = nil, relocatesClock: Bool = false) {
        guard isPlaying, song == nil else { return }
        alignmentSerial &+= 1
        alignment = (alignmentSerial, twice, bar, position, lateWithin ?? Int64(renderer.sampleRate / 200), relocatesClock)
        publish()
    }

    /// Starts at the beginning of a bar with the next render call.
    public func start() {
        start(atTwice: nil)
    }

    private func startTransport() {
        if let song, !song.changes.isEmpty || song.mixes.count > 1 {
            // Live changes hold for one play; a new start plays the song as written.
            self.song = try? SongSchedule(songs: song.songs, seed: song.seed, sounds: soundSets[settings.sound] ?? song.mixes[0].sounds,
                                          volumes: settings.volumes, sampleRate: renderer.sampleRate,
                                          bars: song.bars, samples: song.samples)
        }
        transportEpoch &+= 1
        isPlaying = true
        publish()
    }

    /// Stops starting clips; clips in flight play to their end.
    public func stop() {
        isPlaying = false
        startTwice = nil
        startDueTwice = nil
        alignment = nil
        publish()
    }

    /// Next grid anchor published by the render thread (on each start and change), if any.
    public func nextAnchor() -> GridAnchor? { renderer.anchors.pop() }

    /// The settings of a program named in a grid anchor (the last 256 programs are kept).
    public func settings(ofProgram serial: UInt64) -> MetronomeSettings? {
        recentPrograms.last { $0.serial == serial }?.settings
    }

    /// The timeline's piece for an anchor the render thread published: the steady grid of
    /// the program's settings from the anchor, or the beats of the song it plays. Nil for
    /// a program no longer kept (the last 256).
    public func gridPiece(for anchor: GridAnchor) -> BeatGrid.Piece? {
        guard let program = recentPrograms.last(where: { $0.serial == anchor.program }) else { return nil }
        return EngineProgram.piece(settings: program.settings, song: program.song, sampleRate: renderer.sampleRate, anchor: anchor)
    }

    /// Next onset reported by the render thread, if any.
    public func nextEvent() -> OnsetEvent? { renderer.events.pop() }

    /// Releases programs the render thread has finished with. Called by every publish too.
    public func collectGarbage() {
        while let old = renderer.retired.pop() { Unmanaged<EngineProgram>.fromOpaque(old).release() }
    }

    private func soundSet(named name: String) throws(UnknownSoundError) -> SoundSet {
        if let set = soundSets[name] { return set }
        guard let set = BuiltInSounds.make(name, sampleRate: renderer.sampleRate) else { throw UnknownSoundError(name: name) }
        soundSets[name] = set
        return set
    }

    /// Frames a start placed by `start(atTwice:)` must be ahead of the render clock so its
    /// first clip (a spoken count's longest lead; 0 for clicks) begins whole.
    public private(set) var startLead: Int64 = 0

    /// What the render thread sends over MIDI (clocks, Start, Stop), from the next program on.
    public var midiClock = MIDIClockOptions() {
        didSet { publish() }
    }

    /// Next MIDI message placed by the render thread, if any.
    public func nextMIDIEvent() -> MIDIOutEvent? { renderer.midi.pop() }

    private func publish() {
        collectGarbage()
        // The sound set was resolved (and cached) when the settings were accepted.
        guard let sounds = soundSets[settings.sound] else { return }
        programSerial &+= 1
        recentPrograms.append((programSerial, settings, song))
        if recentPrograms.count > 256 { recentPrograms.removeFirst(recentPrograms.count - 256) }
        let program = EngineProgram(settings: settings, sounds: sounds, sampleRate: renderer.sampleRate,
                                    playing: isPlaying, transportEpoch: transportEpoch, serial: programSerial, song: song,
                                    tone: tone.map { ToneParameters($0, sampleRate: renderer.sampleRate) }, midiClock: midiClock)
        program.startTwice = startTwice
        program.startDueTwice = startDueTwice
        startLead = song?.maxLead ?? program.maxLead
        if let alignment {
            // The position on this program's grid, exactly (whole notes x grid units per whole).
            let grid = alignment.position * Rational(program.gridPerWhole)
            let parts = Anchor.split(Int128(grid.numerator), Int128(grid.denominator))
            program.alignment = (alignment.serial, Anchor(twice: alignment.twice, bar: alignment.bar, grid: parts.whole,
                                                          numerator: parts.numerator, denominator: parts.denominator),
                                 alignment.lateWithin, alignment.relocatesClock)
        }
        let raw = Unmanaged.passRetained(program).toOpaque()
        if let unclaimed = renderer.pending.exchange(raw, ordering: .acquiringAndReleasing) {
            Unmanaged<EngineProgram>.fromOpaque(unclaimed).release()
        }
    }
}
