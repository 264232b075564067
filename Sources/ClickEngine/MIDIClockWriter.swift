// SPDX-License-Identifier: GPL-3.0-or-later
import TactusArithmetic
import TactusBase
import TactusMusic
import TactusTimeline
import MIDIWire

/// What the renderer knows when a new program is taken up, as the clock writer needs it.
struct ClockContext {
    /// The render clock (the first sample of the block about to be rendered).
    var clock: Int64
    /// Playing before this program.
    var wasPlaying: Bool
    /// The sample of the song's start (songs only).
    var songOrigin: Int64
    /// Where the program's grid is pinned now (`ClickRenderer.anchor(of:)`).
    var gridAnchor: GridAnchor
    /// The sample of the placement's anchor (a start: bar 0's downbeat, rounded up).
    var placementStart: Int64
    /// Twice the sample a start puts bar 0 on (`ClickRenderer.startTwice(of:)`), if placed.
    var startTwice: Int64?
    /// A start from stopped placed on the running clock (`runningTick`).
    var onRunningClock = false
    /// The re-placement moves the bars against the clock count (`ClickEngine.align`).
    var relocatesClock = false
}

/// MIDI clock out, one more reader of the timeline, beside the renderer (which calls it on
/// the render thread: no allocation, lock or log here). Clock k is tick `k - offset` of the
/// current program's piece (`EngineProgram.piece`, what `ClickEngine.gridPiece(for:)` gives
/// every other reader), k / 96 of a whole note from bar 0's downbeat. The offset keeps k
/// counting on where a change renumbers the bars; a start sets it to 0 (bar 0). Only bitwise
/// state is kept: the piece is made from the program when read, so nothing the control side
/// frees is ever released here. On a steady grid the clocks are stepped (`TickLine`):
/// integer additions per clock, the same exact samples.
struct MIDIClockWriter {
    let sampleRate: Int
    /// Where every message goes, at its exact sample (the renderer's `midi` ring).
    let midi: SPSCRing<MIDIOutEvent>

    private var grid = ClockGrid.none
    private var anchor = GridAnchor(sampleTwice: 0, bar: 0, positionNumerator: 0, positionDenominator: 1, program: 0)
    private var offset: Int64 = 0
    private var nextClock: Int64 = 0
    private var lastSample: Int64 = 0
    private var sentAny = false
    /// Start (or Song Position Pointer then Continue) goes out just before clock `transportClock`
    /// (a Start on the running clock: just after the clock before it, a clock's warning).
    private var transport: MIDIMessage?
    private var transportAfterPrevious = false
    private var transportPosition: Int64 = 0
    private var transportClock: Int64 = 0
    /// The steady grid's ticks from `nextClock - offset` on, once made (nil: make it).
    private var line: TickLine?
    /// The played timeline the clocks are on, while the grid is steady (nil otherwise).
    private var played: PlayedLine?
    /// A re-placement moved the bars against the count (Link moved the phase): at this tick
    /// (a bar's downbeat on a sixteenth) the count becomes the bars' again and SPP and
    /// Continue tell chained gear where that is.
    private var relocation: Int64?

    /// Where the clock is on the played timeline: at sample `twice / 2`, tick position
    /// `numerator / denominator` whole notes (clock k = tick + offset, 96 per whole note),
    /// moving `samplesPerWhole` samples a whole note. A change goes on from it, so a bar the
    /// change cuts short (into 4/5, 3/5, 7/12) neither adds nor drops a clock.
    private struct PlayedLine {
        var twice: Int64
        var numerator: Int128
        var denominator: Int128
        var samplesPerWhole: Rational

        /// The line's position at `twice / 2`, exactly, or nil when it would not fit in 128 bits.
        func position(atTwice t: Int64) -> (numerator: Int128, denominator: Int128)? {
            // + (t - twice) / (2 samplesPerWhole) whole notes.
            let dn = Int128(t - twice) * Int128(samplesPerWhole.denominator)
            let dd = 2 * Int128(samplesPerWhole.numerator)
            let (a, o1) = numerator.multipliedReportingOverflow(by: dd)
            let (b, o2) = dn.multipliedReportingOverflow(by: denominator)
            let (d, o3) = denominator.multipliedReportingOverflow(by: dd)
            guard !(o1 || o2 || o3) else { return nil }
            let (n, o4) = a.addingReportingOverflow(b)
            guard !o4 else { return nil }
            let g = Rational.gcd(n, d)
            return PlayedLine.fits(n / g, d / g) ? (n / g, d / g) : nil
        }

        /// A position a `SteadyGrid` can be pinned at (it multiplies both by its tempo's
        /// parts): after a storm of changes the denominators outgrow that, and the clock
        /// takes the grid's own anchor instead.
        static func fits(_ numerator: Int128, _ denominator: Int128) -> Bool {
            denominator < (1 << 60) && numerator < (1 << 60) && numerator > -(1 << 60)
        }
    }

    private enum ClockGrid {
        case none
        /// The program's own grid (its settings, pinned at `anchor`).
        case steady
        /// The song's ticks.
        case song
        /// After the song's last tick: its last beat's tempo, pinned at `anchor`.
        case afterSong
    }

    init(sampleRate: Int, midi: SPSCRing<MIDIOutEvent>) {
        self.sampleRate = sampleRate
        self.midi = midi
    }

    /// Where the clock goes under a new program (called after the placement changed, before
    /// the renderer's `playing` and `current` do): a start realigns it to bar 0 (Start just
    /// before bar 0's clock, or SPP and Continue for a song started further in); a stop sends
    /// Stop at its sample; a change goes on on the new grid with k counting on; while stopped
    /// it goes on from the last clock at the program's tempo, or stops when
    /// `clock_when_stopped` is off.
    mutating func update(for program: EngineProgram, restart: Bool, realigned: Bool, _ context: ClockContext) {
        line = nil
        let options = program.midiClock
        guard options.enabled else {
            grid = .none
            played = nil
            transport = nil
            return
        }
        if program.playing && (restart || !context.wasPlaying) {
            start(program, context)
            return
        }
        if context.wasPlaying && !program.playing {
            _ = midi.push(MIDIOutEvent(sample: context.clock, message: .stop))
            transport = nil
            relocation = nil
        }
        guard program.playing else {
            guard options.whenStopped else {
                grid = .none
                return
            }
            // On from the last clock sent, at this program's tempo: from where the played
            // line is at the stop (the clocks stay on their exact times, rounded), else from
            // the last clock's sample.
            let pivot = 2 * context.clock
            if grid == .steady, let played, let at = played.position(atTwice: pivot) {
                anchor = GridAnchor(sampleTwice: pivot, bar: 0, positionNumerator: at.numerator, positionDenominator: at.denominator,
                                    program: program.serial)
            } else {
                let pin = sentAny ? lastSample : context.clock
                anchor = GridAnchor(sampleTwice: 2 * pin, bar: 0, positionNumerator: 0, positionDenominator: 1, program: program.serial)
                offset = sentAny ? nextClock - 1 : nextClock
            }
            grid = .steady
            setPlayed(program.settings)
            return
        }
        change(program, realigned: realigned, context)
    }

    /// While stopped with the clock running (`clock_when_stopped`) and a port taking it
    /// (`MIDIClockOptions.startsOnRunningClock`), the sample of the second running clock at
    /// or after `sample`: a start on the box puts bar 0 there and sends Start right after the
    /// clock before it, so the clock runs on evenly through Start and a box following this
    /// one, already locked to the running clock, has a clock's warning: it plays its first
    /// downbeat with this one's (a Start with bar 0's clock gives none: its downbeat sounds an
    /// output latency late). Nil otherwise.
    func runningTick(atOrAfter sample: Int64, program: EngineProgram) -> Int64? {
        guard grid == .steady, sentAny, program.song == nil, program.midiClock.enabled, program.midiClock.startsOnRunningClock,
              let piece = piece(of: program, songOrigin: 0),
              let first = piece.firstTick(atOrAfter: max(sample, lastSample + 1)) else { return nil }
        return piece.sample(tick: first.k + 1)
    }

    /// A start: bar 0's clock first (a song's count-in clocks before it).
    private mutating func start(_ program: EngineProgram, _ context: ClockContext) {
        let options = program.midiClock
        offset = 0
        relocation = nil
        transportAfterPrevious = false
        // A start placed a little in the past (an outside timeline's) still sends bar 0's
        // clock, late as its click is (the onsets' 5 ms rule); earlier ones are skipped.
        let late = context.clock - Int64(sampleRate / 200)
        if let song = program.song {
            grid = .song
            played = nil
            let ticks = song.beats.ticks
            guard ticks.count > 0 else { grid = .none; return }
            var first = ticks[0]
            if context.songOrigin + first.sample < late {
                guard let due = piece(of: program, songOrigin: context.songOrigin)?.firstTick(atOrAfter: late) else {
                    grid = .none
                    return
                }
                first = SongTick(k: due.k, sample: due.sample - context.songOrigin)
            }
            nextClock = first.k
            // Count-in clocks (k < 0) run before Start unless it goes at the count-in.
            transportClock = options.startAtCountIn ? first.k : max(0, first.k)
            transportPosition = options.songPosition
            transport = options.songPosition > 0 ? .continue : .start
            return
        }
        grid = .steady
        anchor = context.gridAnchor
        setPlayed(program.settings)
        let start = context.placementStart
        // A followed Continue starts at its SPP's clock: the clocks of bar 0 up to it are not
        // sent (one sample of rounding allowed).
        let due = context.startTwice == program.startTwice ? program.startDueTwice.map { Rational.floorDivide($0 + 1, 2) - 1 } : nil
        let first = piece(of: program, songOrigin: context.songOrigin)?.firstTick(atOrAfter: max(late, start, due ?? start))
        nextClock = first?.k ?? 0
        if nextClock > 0 && program.startDueTwice != nil {
            // Forwarded as it came: SPP (16ths, 6 clocks each) and Continue before the clock
            // there, so gear chained after the box goes on from it too.
            transportPosition = (nextClock + 5) / 6
            transportClock = transportPosition * 6
            transport = .continue
        } else {
            transportClock = nextClock
            transportPosition = 0
            transport = .start
            if context.onRunningClock, nextClock == 0, let before = piece(of: program, songOrigin: context.songOrigin)?.sample(tick: -1),
               before >= max(context.clock, lastSample + 1) {
                // The running clock's tick before bar 0 goes out as clock -1, Start right after it.
                nextClock = -1
                transportAfterPrevious = true
            }
        }
    }

    /// A change while playing (tempo, meter, a live song change, an outside timeline's
    /// re-placement): the new grid from here on, k counting on.
    private mutating func change(_ program: EngineProgram, realigned: Bool, _ context: ClockContext) {
        if program.song == nil && !realigned && grid == .steady, let played,
           let at = played.position(atTwice: context.gridAnchor.sampleTwice) {
            // Along the played timeline: from where the clock is at the change's pivot, at the
            // new tempo, k counting on (the bars' numbering, which a cut moves, plays no part).
            anchor = GridAnchor(sampleTwice: context.gridAnchor.sampleTwice, bar: 0, positionNumerator: at.numerator,
                                positionDenominator: at.denominator, program: program.serial)
            setPlayed(program.settings)
            return
        }
        grid = program.song != nil ? .song : .steady
        played = nil
        if program.song == nil {
            anchor = context.gridAnchor
            setPlayed(program.settings)
        }
        let from = sentAny ? max(context.clock, lastSample + 1) : context.clock
        guard let piece = piece(of: program, songOrigin: context.songOrigin), var first = piece.firstTick(atOrAfter: from) else { return }
        // A re-placement that moved the grid a little later (a followed clock's correction)
        // leaves the clock just sent nearer this tick than the one before it: that tick was
        // sent, so counting on from it would send it twice. (Only a re-placement: a tempo
        // change shortens the intervals themselves.)
        if realigned, sentAny, let before = piece.sample(tick: first.k - 1), first.sample - lastSample < lastSample - before,
           let after = piece.sample(tick: first.k + 1) {
            first = SongTick(k: first.k + 1, sample: after)
        }
        let before = offset
        offset = nextClock - first.k
        if context.relocatesClock, sentAny, transport == nil, offset != before, program.song == nil {
            relocation = MIDIClockWriter.nextDownbeatOnASixteenth(atOrAfter: first.k, settings: program.settings)
        }
    }

    /// The first bar's downbeat at or after `tick` (96 a whole note from bar 0's) that falls
    /// on a sixteenth (SPP counts sixteenths); nil if none within 96 bars.
    static func nextDownbeatOnASixteenth(atOrAfter tick: Int64, settings: MetronomeSettings) -> Int64? {
        let bar = settings.meter.wholeNotes
        let (n, d) = (bar.numerator * 96, bar.denominator)  // ticks a bar: n / d
        guard n > 0 else { return nil }
        var b = Rational.floorDivide(tick * d + n - 1, n)
        for _ in 0..<96 {
            if (b * n) % d == 0, ((b * n) / d) % 6 == 0 { return (b * n) / d }
            b += 1
        }
        return nil
    }

    /// The steady line through `anchor` at `settings`' tempo (its bars in its meter).
    private mutating func setPlayed(_ settings: MetronomeSettings) {
        let unit = settings.beatUnit.wholeNotes
        guard let perWhole = Rational(Int64(sampleRate) * 60).divided(by: settings.tempo.bpm)?.divided(by: unit),
              let bar = settings.beatsPerBar.multiplied(by: unit)?.multiplied(by: Rational(anchor.bar)) else {
            played = nil
            return
        }
        let (a, o1) = Int128(bar.numerator).multipliedReportingOverflow(by: anchor.positionDenominator)
        let (b, o2) = anchor.positionNumerator.multipliedReportingOverflow(by: Int128(bar.denominator))
        let (d, o3) = anchor.positionDenominator.multipliedReportingOverflow(by: Int128(bar.denominator))
        let (n, o4) = a.addingReportingOverflow(b)
        guard !(o1 || o2 || o3 || o4) else { played = nil; return }
        let g = Rational.gcd(n, d)
        guard PlayedLine.fits(n / g, d / g) else { played = nil; return }
        played = PlayedLine(twice: anchor.sampleTwice, numerator: n / g, denominator: d / g, samplesPerWhole: perWhole)
    }

    /// The piece the clock reads, made from `program` (no allocation; it holds the program's
    /// own settings or song, so their storage stays the control side's to free). No
    /// `Optional.map`: its closure's generic metadata would be instantiated (a lock) here.
    @inline(__always)
    private func piece(of program: EngineProgram, songOrigin: Int64) -> BeatGrid.Piece? {
        switch grid {
        case .none:
            return nil
        case .steady:
            return EngineProgram.piece(settings: program.settings, song: nil, sampleRate: sampleRate, anchor: anchor)
        case .song:
            guard let song = program.song else { return nil }
            return .song(SongGrid(beats: song.beats, origin: songOrigin, sampleRate: sampleRate))
        case .afterSong:
            guard let settings = program.afterSong else { return nil }
            return EngineProgram.piece(settings: settings, song: nil, sampleRate: sampleRate, anchor: anchor)
        }
    }

    /// The sample of the next clock on the grid, or nil past the grid's end (a song's last
    /// tick) or without a grid. A song's ticks are a table; a steady grid's are stepped.
    @inline(__always)
    private mutating func nextOnGrid(_ program: EngineProgram, songOrigin: Int64) -> Int64? {
        let tick = nextClock - offset
        switch grid {
        case .none:
            return nil
        case .song:
            guard let song = program.song, let sample = song.beats.tickSample(tick) else { return nil }
            return songOrigin + sample
        case .steady, .afterSong:
            if let line, line.k == tick { return line.sample }
            guard let piece = piece(of: program, songOrigin: songOrigin) else { return nil }
            if case .steady(let steady) = piece, let made = steady.tickLine(from: tick) {
                line = made
                return made.sample
            }
            return piece.sample(tick: tick)
        }
    }

    /// Every clock (and Start, SPP, Continue) before `blockEnd`, at its sample on the grid,
    /// never before `clock` (the block's first sample).
    mutating func send(before blockEnd: Int64, program: EngineProgram, clock: Int64, songOrigin: Int64) {
        while grid != .none {
            guard let onGrid = nextOnGrid(program, songOrigin: songOrigin) else {
                // Past the song's last tick: on from the last clock at its last beat's tempo.
                guard grid == .song, sentAny, program.afterSong != nil else {
                    grid = .none
                    return
                }
                grid = .afterSong
                line = nil
                played = nil
                anchor = GridAnchor(sampleTwice: 2 * lastSample, bar: 0, positionNumerator: 0, positionDenominator: 1,
                                    program: program.serial)
                offset = nextClock - 1
                continue
            }
            guard onGrid < blockEnd else { return }
            // A full ring drops a message for the MIDI thread; the audio never waits.
            // Never two clocks on one sample.
            let sample = sentAny ? max(onGrid, clock, lastSample + 1) : max(onGrid, clock)
            if let at = relocation, nextClock - offset >= at, (nextClock - offset) % 6 == 0 {
                // The count becomes the bars' again here: SPP and Continue before this clock.
                relocation = nil
                nextClock -= offset
                offset = 0
                transport = .continue
                transportPosition = nextClock / 6
                transportClock = nextClock
            }
            if let message = transport, nextClock >= transportClock, !transportAfterPrevious {
                if message == .continue {
                    _ = midi.push(MIDIOutEvent(sample: sample, message: .songPosition(sixteenths: transportPosition)))
                }
                _ = midi.push(MIDIOutEvent(sample: sample, message: message))
                transport = nil
            }
            _ = midi.push(MIDIOutEvent(sample: sample, message: .clock, clock: nextClock))
            lastSample = sample
            sentAny = true
            nextClock += 1
            if transportAfterPrevious, let message = transport, nextClock == transportClock {
                _ = midi.push(MIDIOutEvent(sample: sample, message: message))
                transport = nil
                transportAfterPrevious = false
            }
            if line != nil { line!.advance() }
        }
    }
}
