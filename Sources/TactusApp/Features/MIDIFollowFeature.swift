// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import TactusBase
import HAL
import TactusArithmetic
import TactusMusic
import TactusTimeline
import TactusInstrument
import MIDIWire

/// What the box remembers while it follows a MIDI clock (control thread only).
struct MIDIFollow {
    var follower = MIDIClockFollower()
    /// Start or Continue came in before the clock's tempo was known: the box starts on the next Clock.
    var pending: MIDIMessage?
    /// Song Position Pointer (16ths) for the next Continue; Start sets it to 0.
    var songPosition = 0
    /// While playing: the follower's index of the clock at `position` (clocks from bar 0),
    /// or the arrival of that clock while the follower is still counting its first ticks.
    var startIndex: Int64?
    var startArrival: Int64?
    var position: Int64 = 0
    var lastAlignment: MonotonicTime?
    /// When the followed tempo was last applied (it moves in small steps while locking; the
    /// phase is kept by alignment meanwhile) and when the shown tempo last changed.
    var lastTempo: MonotonicTime?
    var lastShown: MonotonicTime?
    /// Which controllers (channel x 128 + number) were last at 64 or more: a CC mapped to an
    /// action acts on the rise through 64 only.
    var controllerHigh = [Bool](repeating: false, count: 16 * 128)
    /// The position an SPP started from, on screen until the next start.
    var shownPosition: (bar: Int64, beat: Int)?
}

/// Following a MIDI clock (Sync: MIDI): Clock, Start, Continue, Stop and Song Position
/// Pointer drive the box's tempo and grid; mapped notes and controllers are controls
/// whatever the sync source. The box hands it every incoming message (`Box.handleMIDI`).
final class MIDIFollowFeature: BoxFeature {
    unowned let box: Box
    var midiFollow = MIDIFollow()

    init(box: Box) { self.box = box }

    func perform(_ effect: Effect, at time: MonotonicTime, in box: Box) {
        if case .sync = effect { midiSyncChanged() }
    }

    func advance(_ box: Box) { checkMIDIClock() }

    /// A followed Start or Continue places bar 0 on the clock's tick.
    func placeStart(_ origin: TransportOrigin, in box: Box) -> Bool {
        guard case .midiClock(let start?) = origin else { return false }
        box.engine.start(atTwice: start.barZeroTwice, playsLateFrom: start.firstTickTwice)
        return true
    }

    private var followsMIDI: Bool { box.state.saved.preferences.sync == .midi }

    /// One incoming MIDI message, with its arrival time (the sequencer's kernel stamp).
    /// Following (Sync: MIDI), Clock, Start, Continue, Stop and SPP drive the box; mapped
    /// notes, controllers and program changes are controls whatever the sync source; other
    /// note-ons are the coach's hits with `[coach] midi = true`.
    func receive(_ message: MIDIMessage, at time: MonotonicTime) {
        box.observer?.box(box, didReceive: message, at: time)
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
            midiFollow.startIndex = nil
            midiFollow.startArrival = nil
            box.perform(box.state.handle(.transport(playing: false, origin: .midiClock(nil), at: time)), at: time)
        case .songPosition(let sixteenths):
            guard following else { break }
            midiFollow.songPosition = sixteenths
            midiFollow.shownPosition = barAndBeat(sixteenths: sixteenths)
        case .noteOff, .systemExclusive, .other:
            break
        default:
            // A controller is a switch: it acts on the rise through 64 (held high, it is one press).
            if case .controlChange(let channel, let controller, let value) = message {
                let slot = Int(channel & 15) * 128 + Int(controller & 127)
                let wasHigh = midiFollow.controllerHigh[slot]
                midiFollow.controllerHigh[slot] = value >= 64
                if wasHigh { break }
            }
            // The map edited at the companion, when there is one, takes the configuration's place.
            guard let control = box.midiConfiguration.control(for: message, map: box.state.saved.midiMap ?? box.midiConfiguration.map) else {
                // An unmapped note-on is a stroke for the coach (`[coach] midi`); a mapped one
                // is a control pad only, so tapping in or starting from a pad is not judged.
                if box.coachTuning.midi, case .noteOn(_, _, let velocity) = message { box.coachNote(velocity: Int(velocity), at: time) }
                break
            }
            switch control {
            case .tap: box.handle(.gesture(.tap, .press, at: time))
            case .startStop: box.handle(.gesture(.startStop, .press, at: time))
            case .footswitch: box.handle(.gesture(.footswitch, .press, at: time))
            case .tempoUp: box.handle(.detent(1, at: time))
            case .tempoDown: box.handle(.detent(-1, at: time))
            case .nextSection, .previousSection, .preset, .song: box.handle(.midiControl(control, at: time))
            }
        }
        showMIDISync()
    }

    /// Sync changed (menu, `sync` script line): following starts afresh.
    func midiSyncChanged() {
        let controllers = midiFollow.controllerHigh
        midiFollow = MIDIFollow()
        midiFollow.controllerHigh = controllers
        showMIDISync()
    }

    /// No clock for two beats: a notice; the box keeps playing at the last tempo until Stop or START.
    func checkMIDIClock() {
        if followsMIDI != (box.state.midiSync != nil) { showMIDISync() }
        guard followsMIDI, midiFollow.follower.checkSilence(now: box.now.nanoseconds) else { return }
        box.perform(box.state.handle(.syncNotice("MIDI clock lost: playing on at the last tempo", at: box.now)), at: box.now)
        showMIDISync()
    }

    /// A Start or Continue: starts at the next Clock's predicted time when the clock is
    /// counted, else on the next Clock when it comes.
    private func startFollowing(_ message: MIDIMessage, at time: MonotonicTime) {
        let follower = midiFollow.follower
        // The next Clock to arrive is the one after the last counted (it may be a little
        // late); a clock silent for half a period longer is not running: wait for it.
        guard follower.isTracking, follower.lock != .lost, follower.nextTick > Double(time.nanoseconds) - follower.period / 2 else {
            midiFollow.pending = message
            return
        }
        begin(at: follower.nextTick, index: follower.lastIndex + 1, arrival: nil)
    }

    /// Bar 0 (or the SPP's position) at the clock tick at `nanoseconds`: the clock `index`
    /// of the follower, or the one that arrived at `arrival` while it is still counting.
    private func begin(at nanoseconds: Double, index: Int64?, arrival: Int64?) {
        guard let clock = box.outputClock else { return }
        applyFollowedTempo(force: true)
        let position = Int64(midiFollow.songPosition) * 6
        let settings = box.state.settings
        // Bar 0 lies `position` clocks before the tick, at the followed tempo: exact (twice
        // the samples a whole note takes, a Rational), only the tick's own sample is measured.
        let twicePerWhole = Rational(Int64(2 * box.engine.renderer.sampleRate) * 60) / settings.tempo.bpm / settings.beatUnit.wholeNotes
        // A Start gives no warning: its clock may come sooner than the output can still play
        // (a buffer longer than the time to it, a loaded control or render thread), so the
        // engine sounds a downbeat it finds in the past late, from where it renders next,
        // and alignToClock moves the grid back onto the clock from the next 16th.
        let tickTwice = Box.twice(heardAtNanoseconds: Int64(nanoseconds.rounded()), on: clock)
        let start = MIDIClockStart(barZeroTwice: tickTwice - (Rational(position, 96) * twicePerWhole).rounded, firstTickTwice: tickTwice)
        midiFollow.startIndex = index
        midiFollow.startArrival = arrival
        midiFollow.position = position
        midiFollow.lastAlignment = box.now
        midiFollow.shownPosition = midiFollow.songPosition > 0 ? barAndBeat(sixteenths: midiFollow.songPosition) : nil
        if box.state.isPlaying {
            // Start again while playing: the grid realigns to bar 0 (or the SPP's position).
            box.engine.start(atTwice: start.barZeroTwice, playsLateFrom: start.firstTickTwice)
        } else {
            box.perform(box.state.handle(.transport(playing: true, origin: .midiClock(start), at: box.now)), at: box.now)
        }
    }

    /// The bar and beat (from 1) of a Song Position Pointer in the current meter, for the screen.
    private func barAndBeat(sixteenths: Int) -> (bar: Int64, beat: Int) {
        let settings = box.state.settings
        let whole = Rational(Int64(sixteenths), 16)
        let bar = (whole / settings.meter.wholeNotes).floor
        let beat = ((whole - Rational(bar) * settings.meter.wholeNotes) / settings.beatUnit.wholeNotes).floor
        return (bar + 1, Int(beat) + 1)
    }

    private func clockTick(at time: MonotonicTime) {
        midiFollow.follower.tick(at: time.nanoseconds)
        let follower = midiFollow.follower
        if midiFollow.pending != nil {
            // Start or Continue came before the clock was counted: the position on this Clock.
            midiFollow.pending = nil
            let counted = follower.isTracking && follower.index(near: Double(time.nanoseconds)) == follower.lastIndex
            if counted {
                begin(at: follower.time(ofClock: follower.lastIndex), index: follower.lastIndex, arrival: nil)
            } else {
                begin(at: Double(time.nanoseconds), index: nil, arrival: time.nanoseconds)
            }
            return
        }
        guard follower.isTracking else {
            // Started on a clock not yet counted: the first beat at the gaps' tempo so far.
            if box.state.isPlaying, midiFollow.startArrival != nil { applyTempo(quarterBPM: 60e9 / (24 * follower.provisionalPeriod), force: true) }
            return
        }
        if midiFollow.startIndex == nil, let arrival = midiFollow.startArrival {
            midiFollow.startIndex = follower.index(near: Double(arrival))
        }
        applyFollowedTempo()
        // Stopped, the tempo still follows (the clock out, the screen).
        guard box.state.isPlaying, midiFollow.startIndex != nil else { return }
        alignToClock()
    }

    /// The counted clock's tempo (three decimals, in the beat unit's BPM) becomes the box's:
    /// at once for a change of half a BPM or more, else at most every 250 ms (the phase is
    /// kept by alignment meanwhile, and each change is a state line).
    private func applyFollowedTempo(force: Bool = false) {
        let follower = midiFollow.follower
        guard follower.period > 0 else { return }
        applyTempo(quarterBPM: follower.quarterBPM, force: force)
    }

    private func applyTempo(quarterBPM: Double, force: Bool) {
        let bpm = quarterBPM * 0.25 / box.state.settings.beatUnit.wholeNotes.doubleValue
        guard bpm.isFinite, bpm > 0 else { return }
        let thousandths = Int64((min(max(bpm, 1), 999) * 1000).rounded())
        guard let tempo = try? Tempo(Rational(thousandths, 1000)), tempo != box.state.settings.tempo else { return }
        let change = abs(tempo.bpm.doubleValue - box.state.settings.tempo.bpm.doubleValue)
        if !force && change < 0.5 {
            if let last = midiFollow.lastTempo, box.now.nanoseconds - last.nanoseconds < 250_000_000 { return }
        }
        midiFollow.lastTempo = box.now
        box.perform(box.state.handle(.clockTempo(tempo, at: box.now)), at: box.now)
    }

    /// Keeps the grid on the clock: where the count puts a clock at least 60 ms ahead against
    /// where the one timeline puts it; re-placed through the engine (as Link does) when they
    /// differ by a sample or more.
    private func alignToClock() {
        let follower = midiFollow.follower
        guard let clock = box.outputClock, let startIndex = midiFollow.startIndex, follower.period > 0, box.engine.song == nil else { return }
        if let last = midiFollow.lastAlignment, box.now.nanoseconds - last.nanoseconds < 40_000_000 { return }
        let ahead = Int64((60e6 / follower.period).rounded(.up)) + 1
        let index = follower.lastIndex + ahead
        // The clock's place from bar 0 (k at k/96 of a whole note).
        let target = index - startIndex + midiFollow.position
        let tickTime = Int64(follower.time(ofClock: index).rounded())
        let sample = clock.heardSample(atNanoseconds: tickTime)
        guard sample.isFinite, abs(sample) < 1e15,
              let onGrid = box.grid.sample(tick: target, perWhole: 96, near: Int64(sample)),
              abs(Double(onGrid) - sample) >= 1 else { return }
        let settings = box.state.settings
        let whole = Rational(target, 96)
        let bar = (whole / settings.meter.wholeNotes).floor
        // A correction never jumps a beat (the count says which clock is which), so a beat it
        // makes due in the past plays at once rather than being passed over: half a beat.
        let halfBeat = Int64(follower.period * 12 * Double(box.engine.renderer.sampleRate) / 1e9)
        box.place(bar: bar, position: whole - Rational(bar) * settings.meter.wholeNotes, heardAtNanoseconds: tickTime, on: clock,
                  lateWithin: halfBeat)
        midiFollow.lastAlignment = box.now
    }

    /// The sync mark, tempo and position to the state (and so the screen and the events)
    /// when they changed.
    func showMIDISync() {
        var view: MIDISyncView?
        if followsMIDI {
            let follower = midiFollow.follower
            var bpm: String?
            let value = follower.shownQuarterBPM * 0.25 / box.state.settings.beatUnit.wholeNotes.doubleValue
            // A tempo within 1-999, or none (`lost`): whatever the timing, nothing to trap on.
            if follower.lock != .lost, follower.isTracking, value.isFinite {
                let tenths = Int64((min(max(value, 1), 999) * 10).rounded())
                bpm = "\(tenths / 10).\(tenths % 10)"
            }
            view = MIDISyncView(lock: follower.lock, bpm: bpm, bar: midiFollow.shownPosition?.bar, beat: midiFollow.shownPosition?.beat)
        }
        guard view != box.state.midiSync else { return }
        // Only the shown tempo moved: at most twice a second (each change is a state line).
        if let view, let shown = box.state.midiSync, view.lock == shown.lock, view.bar == shown.bar, view.beat == shown.beat,
           let last = midiFollow.lastShown, box.now.nanoseconds - last.nanoseconds < 500_000_000 { return }
        midiFollow.lastShown = box.now
        box.perform(box.state.handle(.midiSync(view, at: box.now)), at: box.now)
    }
}
