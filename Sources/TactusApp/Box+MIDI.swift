// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import TactusBase
import HAL
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusInstrument

/// What the box remembers while it follows a MIDI clock (control thread only).
struct MIDIFollow {
    var follower = MIDIClockFollower()
    /// Start or Continue came in before the clock's tempo was known: the box starts on the next Clock.
    var pending: MIDIMessage?
    /// Song Position Pointer (16ths) for the next Continue; Start sets it to 0.
    var songPosition = 0
    /// The position (in clocks from bar 0) of the next incoming Clock, while playing.
    var nextClock: Int64?
    var lastAlignment: MonotonicTime?
    /// Where the next START puts bar 0 (twice the engine sample), for the start effect.
    var startAt: Int64?
    /// The clock tick the next START plays first (twice the engine sample): bar 0 or the SPP's position.
    var startDue: Int64?
    /// The position an SPP started from, on screen until the next start.
    var shownPosition: (bar: Int64, beat: Int)?
}

extension Box {
    private var followsMIDI: Bool { state.saved.preferences.sync == .midi }

    /// One incoming MIDI message, with its arrival time (the sequencer's kernel stamp).
    /// Following (Sync: MIDI), Clock, Start, Continue, Stop and SPP drive the box; mapped
    /// notes, controllers and program changes are controls whatever the sync source; other
    /// note-ons are the coach's hits with `[coach] midi = true`.
    public func handleMIDI(_ message: MIDIMessage, at time: MonotonicTime) {
        preconditionOnBoxThread()
        now = max(now, time)
        observer?.box(self, didReceive: message, at: time)
        let following = followsMIDI
        switch message {
        case .clock:
            if following { clockTick(at: time) }
        case .start:
            guard following else { break }
            midiFollow.songPosition = 0
            startFollowing(.start, at: time)
        case .continue:
            guard following else { break }
            startFollowing(.continue, at: time)
        case .stop:
            guard following else { break }
            midiFollow.pending = nil
            midiFollow.nextClock = nil
            if state.isPlaying { perform(state.handle(.gesture(.startStop, .press, at: time)), at: time) }
        case .songPosition(let sixteenths):
            guard following else { break }
            midiFollow.songPosition = sixteenths
            midiFollow.shownPosition = barAndBeat(sixteenths: sixteenths)
        case .noteOff, .systemExclusive, .other:
            break
        default:
            // The map edited at the companion, when there is one, takes the configuration's place.
            guard let control = midiConfiguration.control(for: message, map: state.saved.midiMap ?? midiConfiguration.map) else {
                // An unmapped note-on is a stroke for the coach (`[coach] midi`); a mapped one
                // is a control pad only, so tapping in or starting from a pad is not judged.
                if coachTuning.midi, case .noteOn(_, _, let velocity) = message { coachNote(velocity: Int(velocity), at: time) }
                break
            }
            switch control {
            case .tap: handle(.gesture(.tap, .press, at: time))
            case .startStop: handle(.gesture(.startStop, .press, at: time))
            case .footswitch: handle(.gesture(.footswitch, .press, at: time))
            case .tempoUp: handle(.detent(1, at: time))
            case .tempoDown: handle(.detent(-1, at: time))
            case .nextSection, .previousSection, .preset, .song: handle(.midiControl(control, at: time))
            }
        }
        showMIDISync()
    }

    /// Sync changed (menu, `sync` script line): following starts afresh.
    func midiSyncChanged() {
        midiFollow = MIDIFollow()
        showMIDISync()
    }

    /// No clock for two beats: a notice; the box keeps playing at the last tempo until Stop or START.
    func checkMIDIClock() {
        if followsMIDI != (state.midiSync != nil) { showMIDISync() }
        guard followsMIDI, midiFollow.follower.checkSilence(now: now.nanoseconds) else { return }
        perform(state.handle(.syncNotice("MIDI clock lost: playing on at the last tempo", at: now)), at: now)
        showMIDISync()
    }

    /// START while following: the START button or a followed Start/Continue. Bar 0's
    /// downbeat (or the SPP's position) on the next Clock, as predicted by the loop; false
    /// when this start is not the clock's (START pressed on the box starts on its own).
    func startFollowedClock() -> Bool {
        guard followsMIDI, let start = midiFollow.startAt else { return false }
        midiFollow.startAt = nil
        engine.start(atTwice: start, playsLateFrom: midiFollow.startDue)
        return true
    }

    /// A Start or Continue: starts at the next Clock's predicted time when the clock's
    /// period is known, else on the next Clock when it comes.
    private func startFollowing(_ message: MIDIMessage, at time: MonotonicTime) {
        let follower = midiFollow.follower
        guard follower.ticks >= 2, follower.period > 0 else {
            midiFollow.pending = message
            return
        }
        // The next Clock to arrive is the one after the last received (it may be a little
        // late); a clock silent for half a period longer is not running: wait for it.
        guard follower.nextTick > Double(time.nanoseconds) - follower.period / 2 else {
            midiFollow.pending = message
            return
        }
        begin(at: follower.nextTick, received: false)
    }

    /// Bar 0 (or the SPP's position) at the clock tick at `nanoseconds` (filtered time):
    /// the tick just `received`, or the next one to come.
    private func begin(at nanoseconds: Double, received: Bool) {
        guard let clock = outputClock else { return }
        applyFollowedTempo()
        let position = Int64(midiFollow.songPosition) * 6
        let settings = state.settings
        // Samples per whole note at the followed tempo: bar 0 lies `position` clocks before.
        let perWhole = Double(engine.renderer.sampleRate) * 60 / settings.tempo.bpm.doubleValue / settings.beatUnit.wholeNotes.doubleValue
        // A Start gives no warning: its clock may come sooner than the output can still play
        // (a buffer longer than the time to it, a loaded control or render thread), so the
        // engine sounds a downbeat it finds in the past late, from where it renders next,
        // and alignToClock moves the grid back onto the clock from the next 16th.
        let tick = clock.heardSample(atNanoseconds: Int64(nanoseconds.rounded()))
        let sample = tick - Double(position) / 96 * perWhole
        midiFollow.startAt = Int64((2 * sample).rounded())
        midiFollow.startDue = Int64((2 * tick).rounded())
        midiFollow.nextClock = received ? position + 1 : position
        midiFollow.lastAlignment = now
        midiFollow.shownPosition = midiFollow.songPosition > 0 ? barAndBeat(sixteenths: midiFollow.songPosition) : nil
        if state.isPlaying {
            // START again while playing: the grid realigns to bar 0.
            _ = startFollowedClock()
        } else {
            perform(state.handle(.gesture(.startStop, .press, at: now)), at: now)
            midiFollow.startAt = nil
        }
    }

    /// The bar and beat (from 1) of a Song Position Pointer in the current meter, for the screen.
    private func barAndBeat(sixteenths: Int) -> (bar: Int64, beat: Int) {
        let settings = state.settings
        let whole = Rational(Int64(sixteenths), 16)
        let bar = (whole / settings.meter.wholeNotes).floor
        let beat = ((whole - Rational(bar) * settings.meter.wholeNotes) / settings.beatUnit.wholeNotes).floor
        return (bar + 1, Int(beat) + 1)
    }

    private func clockTick(at time: MonotonicTime) {
        midiFollow.follower.tick(at: time.nanoseconds)
        let follower = midiFollow.follower
        guard follower.ticks >= 2 else {
            if midiFollow.pending != nil {
                // Start came before any clock: bar 0 on this one.
                midiFollow.pending = nil
                begin(at: Double(time.nanoseconds), received: true)
            }
            return
        }
        if midiFollow.pending != nil {
            midiFollow.pending = nil
            begin(at: follower.nextTick - follower.period, received: true)
            return
        }
        guard state.isPlaying, let k = midiFollow.nextClock else {
            // Stopped: the tempo still follows (the clock out, the screen).
            if follower.ticks % 24 == 0 { applyFollowedTempo() }
            return
        }
        midiFollow.nextClock = k + 1
        // Tempo and phase every sixth clock (a 16th).
        guard k % 6 == 0 else { return }
        applyFollowedTempo()
        alignToClock(k)
    }

    /// The loop's tempo (three decimals, in the beat unit's BPM) becomes the box's.
    private func applyFollowedTempo() {
        let follower = midiFollow.follower
        guard follower.period > 0 else { return }
        let bpm = follower.quarterBPM * 0.25 / state.settings.beatUnit.wholeNotes.doubleValue
        let thousandths = min(max(Int64((bpm * 1000).rounded()), 1000), 999_000)
        guard let tempo = try? Tempo(Rational(thousandths, 1000)), tempo != state.settings.tempo else { return }
        perform(state.handle(.clockTempo(tempo, at: now)), at: now)
    }

    /// Keeps the grid on the clock: where the loop puts a tick about 60 ms ahead against
    /// where the one timeline puts that clock; re-placed through the engine (as Link does)
    /// when they differ by a sample or more.
    private func alignToClock(_ k: Int64) {
        let follower = midiFollow.follower
        guard let clock = outputClock, follower.period > 0, engine.song == nil else { return }
        if let last = midiFollow.lastAlignment, now.nanoseconds - last.nanoseconds < 40_000_000 { return }
        let ahead = max(6, Int64((60e6 / follower.period).rounded(.up)))
        let target = k + ahead
        // This tick's filtered time is nextTick - period; the target is `ahead` ticks on.
        let time = follower.nextTick - follower.period + Double(ahead) * follower.period
        let sample = clock.heardSample(atNanoseconds: Int64(time.rounded()))
        guard let onGrid = grid.sample(tick: target, perWhole: 96, near: Int64(sample)),
              abs(Double(onGrid) - sample) >= 1 else { return }
        let settings = state.settings
        let whole = Rational(target, 96)
        let bar = (whole / settings.meter.wholeNotes).floor
        engine.align(atTwice: Int64((2 * sample).rounded()), bar: bar, position: whole - Rational(bar) * settings.meter.wholeNotes)
        midiFollow.lastAlignment = now
    }

    /// The sync mark, tempo and position to the state (and so the screen and the events)
    /// when they changed.
    func showMIDISync() {
        var view: MIDISyncView?
        if followsMIDI {
            let follower = midiFollow.follower
            var bpm: String?
            if follower.lock != .lost, follower.ticks >= 2 {
                let value = follower.shownQuarterBPM * 0.25 / state.settings.beatUnit.wholeNotes.doubleValue
                let tenths = Int64((value * 10).rounded())
                bpm = "\(tenths / 10).\(tenths % 10)"
            }
            view = MIDISyncView(lock: follower.lock, bpm: bpm, bar: midiFollow.shownPosition?.bar, beat: midiFollow.shownPosition?.beat)
        }
        guard view != state.midiSync else { return }
        perform(state.handle(.midiSync(view, at: now)), at: now)
    }
}
