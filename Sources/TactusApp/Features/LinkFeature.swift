// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import TactusBase
import HAL
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusInstrument

/// What the box remembers about its Link session between two looks (control thread only).
struct LinkFollow {
    var enabled = false
    var startStopSync = false
    /// The box's tempo at the last look: a difference is the wheel, TAP or a song (to send).
    var boxTempo: Tempo?
    /// Our own tempo commit, until the session shows it (Link applies commits asynchronously).
    var committed: (microsPerBeat: Int64, until: MonotonicTime)?
    /// The tempo is outside Link's range: the box plays on its own until it is back inside.
    var local = false
    /// The session's tempo (microseconds per beat) that the box cannot play in its beat unit:
    /// the box plays its own and leaves the session alone until the session's tempo changes.
    var unplayableSession: Int64?
    /// The session's start/stop state at the last look, and until when changes are only
    /// noted (this box joined a session: joining never starts or stops anyone).
    var sessionPlaying: Bool?
    var transportQuietUntil = MonotonicTime.zero
    var lastAlignment: MonotonicTime?
    /// A start waiting for the quantum: its Link beat (a multiple of the quantum) and where
    /// bar 0's downbeat was put (twice the heard sample). A tempo change before it re-maps it.
    var pendingStart: (beat: Double, quantum: Double, twice: Int64)?
    /// The tempo of the song's latest onset (songs lead the session tempo).
    var songBPM: Double = 0
}

/// Link's numbers (the music and timeline targets stay free of them): a Link beat is a quarter note, the
/// quantum is the bar in quarter notes, the wire carries whole microseconds per beat.
enum LinkMath {
    static let tempoRange = 20.0...999.0

    static func microsPerBeat(_ bpm: Double) -> Int64 { Int64((60e6 / bpm).rounded()) }

    /// Quarter notes a minute for `bpm` counted in `unit` (a 1/8 unit at 120 is 60).
    static func linkTempo(_ bpm: Rational, unit: BeatUnit) -> Double { (bpm * Rational(4) * unit.wholeNotes).doubleValue }

    /// The bar in quarter notes: 7/8 is 3.5, 4/5 is 3.2.
    static func quantum(_ meter: Meter) -> Rational { meter.wholeNotes * Rational(4) }

    /// The box's tempo for a session tempo: the shortest decimal (whole BPM, then 1 to 3
    /// decimals) that goes on the wire as the same microseconds per beat, so a peer's 120
    /// (500000 µs) is 120 and its 137 (437956 µs, 137.0000639...) is 137; nil outside 1-999.
    static func boxTempo(_ linkBPM: Double, unit: BeatUnit) -> Tempo? {
        let wire = microsPerBeat(linkBPM)
        let perQuarter = 4 * unit.wholeNotes.doubleValue
        let exact = linkBPM / perQuarter
        var scale: Int64 = 1
        var candidate = Rational(Int64((exact * 1000).rounded()), 1000)
        for _ in 0...3 {
            let value = Rational(Int64((exact * Double(scale)).rounded()), scale)
            if microsPerBeat(value.doubleValue * perQuarter) == wire { candidate = value; break }
            scale *= 10
        }
        return try? Tempo(candidate)
    }
}

/// The Ableton Link session (Sync: Link): peers, tempo both ways, start/stop sync and the
/// grid's phase, looked at every 10 ms; a start in a session with peers waits for the quantum.
final class LinkFeature: BoxFeature {
    unowned let box: Box
    /// The session, when the box has one (none: Sync: Link has no effect).
    var link: (any LinkSession)?
    var linkFollow = LinkFollow()

    init(box: Box) { self.box = box }

    func advance(_ box: Box) { followLink() }

    func nextWakeup(_ box: Box) -> MonotonicTime? {
        linkFollow.enabled ? box.now.advanced(byNanoseconds: 10_000_000) : nil
    }

    func heard(_ event: OnsetEvent, at time: MonotonicTime, clock: AudioOutputClock, in box: Box) {
        // Songs lead the session's tempo with the tempo of their latest onset.
        if box.engine.song != nil { linkFollow.songBPM = event.bpm }
    }

    func perform(_ effect: Effect, at time: MonotonicTime, in box: Box) {
        // A stop that came from the session is not sent back to it.
        if case .stop(let origin) = effect, origin != .link { linkStopped(at: time) }
    }

    private var linkWanted: Bool { box.state.saved.preferences.sync == .link }

    /// In a Link session and following it (the tempo is inside Link's range).
    var followsLink: Bool { link != nil && linkWanted && linkFollow.enabled && !linkFollow.local }

    /// One look at the session: peers, tempo both ways, start/stop, and the grid's phase.
    func followLink() {
        guard let link else { return }
        if linkWanted != linkFollow.enabled {
            linkFollow = LinkFollow(enabled: linkWanted)
            if linkWanted {
                // The box's tempo goes in before Link is on: alone, the new session has it
                // (TEMPO-5); joining, the session's wins (a commit after the join would not).
                let settings = box.state.settings
                let tempo = LinkMath.linkTempo(settings.tempo.bpm, unit: settings.beatUnit)
                if LinkMath.tempoRange.contains(tempo) { link.commit(tempo: tempo, at: box.now) }
                linkFollow.boxTempo = settings.tempo
            }
            link.enable(linkWanted)
            if !linkWanted { box.perform(box.state.handle(.linkPeers(0, at: box.now)), at: box.now) }
        }
        guard linkWanted else { return }
        let startStop = box.state.saved.preferences.linkStartStopSync
        if startStop != linkFollow.startStopSync {
            link.enableStartStopSync(startStop)
            linkFollow.startStopSync = startStop
            linkFollow.sessionPlaying = nil
        }
        let peers = link.peers
        if peers != box.state.linkPeers {
            // Joining a session (alone before) takes on its start/stop state: noted, not acted on.
            if box.state.linkPeers == 0 { linkFollow.transportQuietUntil = box.now.advanced(byNanoseconds: 1_000_000_000) }
            box.perform(box.state.handle(.linkPeers(peers, at: box.now)), at: box.now)
        }
        let settings = box.state.settings
        let quantum = LinkMath.quantum(settings.meter)
        var session = link.capture(quantum: quantum.doubleValue)
        followTempo(link, session: &session, settings: settings, peers: peers)
        if linkFollow.startStopSync { followTransport(session) }
        guard !linkFollow.local else { return }
        if peers == 0 { leadBeat(link, session, quantum: quantum) } else { alignGrid(session, quantum: quantum) }
    }

    private func followTempo(_ link: any LinkSession, session: inout LinkTimeline, settings: MetronomeSettings, peers: Int) {
        let songPlaying = box.engine.song != nil && box.state.isPlaying
        let local = songPlaying && linkFollow.songBPM > 0
            ? linkFollow.songBPM * 4 * settings.beatUnit.wholeNotes.doubleValue
            : LinkMath.linkTempo(settings.tempo.bpm, unit: settings.beatUnit)
        let changedHere = settings.tempo != linkFollow.boxTempo
        let first = linkFollow.boxTempo == nil
        linkFollow.boxTempo = settings.tempo
        if let unplayable = linkFollow.unplayableSession {
            guard LinkMath.microsPerBeat(session.tempo) != unplayable else { return }
            // The session moved: follow it again (its new tempo is taken below, nothing is sent).
            linkFollow.unplayableSession = nil
            linkFollow.local = false
        }
        guard LinkMath.tempoRange.contains(local) else {
            if !linkFollow.local {
                linkFollow.local = true
                box.perform(box.state.handle(.linkNotice("Link: \(settings.tempo) BPM is outside Link's 20-999 quarter notes a minute; playing on its own",
                                                 at: box.now)), at: box.now)
            }
            return
        }
        let wasLocal = linkFollow.local
        linkFollow.local = false
        let wire = LinkMath.microsPerBeat(local)
        // A song leads the session all the way; the wheel, TAP or a return into range send
        // once. On joining (peers already there) the session's tempo is taken instead.
        if songPlaying || (changedHere && !(first && peers > 0)) || wasLocal {
            if LinkMath.microsPerBeat(session.tempo) != wire {
                link.commit(tempo: local, at: box.now)
                linkFollow.committed = (wire, box.now.advanced(byNanoseconds: 1_000_000_000))
            }
            return
        }
        if let committed = linkFollow.committed {
            if LinkMath.microsPerBeat(session.tempo) != committed.microsPerBeat && box.now < committed.until { return }
            linkFollow.committed = nil
        }
        guard LinkMath.microsPerBeat(session.tempo) != wire else { return }
        if let tempo = LinkMath.boxTempo(session.tempo, unit: settings.beatUnit) {
            box.perform(box.state.handle(.linkTempo(tempo, at: box.now)), at: box.now)
            linkFollow.boxTempo = box.state.settings.tempo
        } else if linkFollow.boxTempo != nil {
            box.perform(box.state.handle(.linkNotice("Link: the session's \(Int(session.tempo.rounded())) quarter notes a minute is outside 1-999 BPM in \(settings.beatUnit); playing on its own",
                                             at: box.now)), at: box.now)
            linkFollow.local = true
            linkFollow.unplayableSession = LinkMath.microsPerBeat(session.tempo)
        }
    }

    /// Start/stop sync: a peer's START or STOP goes through the reducer as a transport action
    /// from Link (so it is not sent back to the session).
    private func followTransport(_ session: LinkTimeline) {
        guard let seen = linkFollow.sessionPlaying else {
            linkFollow.sessionPlaying = session.isPlaying
            return
        }
        guard session.isPlaying != seen else { return }
        linkFollow.sessionPlaying = session.isPlaying
        guard box.now >= linkFollow.transportQuietUntil, session.isPlaying != box.state.isPlaying else { return }
        box.perform(box.state.handle(.transport(playing: session.isPlaying, origin: .link, at: box.now)), at: box.now)
    }

    /// START in a Link session: bar 0's downbeat on the next multiple of the quantum (a
    /// peer's start: at or after its start time), far enough ahead to be rendered in time.
    func placeStart(_ origin: TransportOrigin, in box: Box) -> Bool {
        linkFollow.pendingStart = nil
        let peerStarted = origin == .link
        // Alone in the session the box starts at once, as without Link, and Link follows it.
        guard followsLink, let link, link.peers > 0, let clock = box.outputClock, box.engine.song == nil else { return false }
        let quantum = LinkMath.quantum(box.state.settings.meter).doubleValue
        let session = link.capture(quantum: quantum)
        let lead = Int64(4 * box.engine.renderer.maxFrameCount) * 1_000_000_000 / Int64(box.engine.renderer.sampleRate) + 20_000_000
        var from = box.now.advanced(byNanoseconds: lead)
        if peerStarted, session.timeForIsPlaying > from { from = session.timeForIsPlaying }
        let startBeat = (session.beat(at: from) / quantum).rounded(.up) * quantum
        let start = session.time(atBeat: startBeat)
        let twice = box.startGrid(heardAtNanoseconds: start.nanoseconds, on: clock)
        linkFollow.pendingStart = (startBeat, quantum, twice)
        linkFollow.lastAlignment = box.now
        if linkFollow.startStopSync && !peerStarted { link.commit(playing: true, at: start) }
        return true
    }

    /// STOP in a Link session with start/stop sync: everyone stops.
    func linkStopped(at time: MonotonicTime) {
        guard followsLink, linkFollow.startStopSync, let link else { return }
        link.commit(playing: false, at: time)
    }

    /// Alone in its session the box leads the beat: Link's beat is put where the box's grid
    /// is (enabling Link, a meter change), so nothing the box plays moves.
    private func leadBeat(_ link: any LinkSession, _ session: LinkTimeline, quantum: Rational) {
        guard box.state.isPlaying, box.engine.song == nil, let timeline = box.timeline, let clock = box.outputClock,
              timeline.settings.meter == box.state.settings.meter else { return }
        if let last = linkFollow.lastAlignment, box.now.nanoseconds - last.nanoseconds < 200_000_000 { return }
        let quarters = 4 * timeline.wholeNotes(atSample: clock.heardSample(atNanoseconds: box.now.nanoseconds))
        let samplesPerQuarter = timeline.samplesPerBeat.doubleValue / timeline.settings.beatUnit.wholeNotes.doubleValue / 4
        guard abs(session.beat(at: box.now) - quarters) * samplesPerQuarter >= 1 else { return }
        link.commit(beat: quarters, at: box.now, quantum: quantum.doubleValue)
        linkFollow.lastAlignment = box.now
    }

    /// Keeps the grid on Link's: where the session's beat lands soon, compared with where
    /// the engine's grid puts it on the heard-sample clock; moved through the engine when
    /// they differ by a sample or more (a peer's tempo change, a join, clock drift).
    private func alignGrid(_ session: LinkTimeline, quantum: Rational) {
        guard box.state.isPlaying, box.engine.song == nil, let timeline = box.timeline, let clock = box.outputClock else { return }
        // One move at a time: the render thread takes it up and publishes the new grid first.
        if let last = linkFollow.lastAlignment, box.now.nanoseconds - last.nanoseconds < 40_000_000 { return }
        // A start that waits for the quantum stays on its Link beat: a tempo change before it
        // moves bar 0's downbeat to where that beat now falls (nothing plays before it).
        if let pending = linkFollow.pendingStart {
            let start = session.time(atBeat: pending.beat)
            if pending.quantum == quantum.doubleValue && start > box.now {
                let twice = Box.twice(heardAtNanoseconds: start.nanoseconds, on: clock)
                if abs(twice - pending.twice) >= 2 {
                    box.place(bar: 0, position: .zero, heardAtNanoseconds: start.nanoseconds, on: clock)
                    linkFollow.pendingStart?.twice = twice
                    linkFollow.lastAlignment = box.now
                }
                return
            }
            linkFollow.pendingStart = nil
        }
        // An eighth of a Link beat near 60 ms from now: exact in quarters, so the position is.
        let eighths = Int64((session.beat(at: box.now.advanced(byNanoseconds: 60_000_000)) * 8).rounded())
        let beat = Rational(eighths, 8)
        let beatTime = session.time(atBeat: beat.doubleValue).nanoseconds
        let sample = clock.heardSample(atNanoseconds: beatTime)
        let bar = timeline.settings.meter.wholeNotes
        guard timeline.settings.meter == box.state.settings.meter else { return }
        let here = timeline.wholeNotes(atSample: sample)
        var barIndex = Int64((here / bar.doubleValue).rounded(.down))
        let inBar = here - Double(barIndex) * bar.doubleValue
        let quarters = beat - Rational(Rational.floorDivide(beat.numerator * quantum.denominator, beat.denominator * quantum.numerator)) * quantum
        let wanted = quarters / Rational(4)
        var error = wanted.doubleValue - inBar
        if error > bar.doubleValue / 2 { error -= bar.doubleValue; barIndex -= 1 }
        if error < -bar.doubleValue / 2 { error += bar.doubleValue; barIndex += 1 }
        let samplesPerWhole = timeline.samplesPerBeat.doubleValue / timeline.settings.beatUnit.wholeNotes.doubleValue
        guard abs(error * samplesPerWhole) >= 1 else { return }
        box.place(bar: barIndex, position: wanted, heardAtNanoseconds: beatTime, on: clock, relocatesClock: true)
        linkFollow.lastAlignment = box.now
    }
}
