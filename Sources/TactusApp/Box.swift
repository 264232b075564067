// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Coach
import Glibc
import Devices
import HAL
import TactusMusic
import TactusTimeline
import TactusInstrument
import TactusScreen
import TactusBase

/// Where the engine's samples are being heard, if anywhere: the active audio sink.
public protocol AudioClockSource: AnyObject, Sendable {
    var outputPosition: AudioOutputPosition? { get }
}

/// Writes the settings file; the message of a failure is shown on the screen.
public protocol SettingsPersistence: Sendable {
    func save(_ saved: SavedState) throws
}

/// Keeps the minutes played per day (the practice log in the state folder). The box adds
/// each stretch of playing when it stops.
public protocol PracticeLogStore: Sendable {
    /// A stretch of playing: how long, the song ("" for none), the fastest tempo played and
    /// the coach's figures when it judged hits in it.
    func addPractice(seconds: Int64, song: String, bpm: Double, coach: CoachFigures?) throws
}

/// Why an LED or the buzzer pulsed.
public enum PulseReason: Sendable, Hashable {
    case onset(OnsetKind)
    case wheel(WheelFeedback)
}

/// Something that wants to see everything the box does (the headless simulator's log).
public protocol BoxObserver: AnyObject {
    func box(_ box: Box, didStart onset: OnsetEvent, heardAt time: MonotonicTime)
    func box(_ box: Box, didChange state: BoxState, at time: MonotonicTime)
    func box(_ box: Box, didPulse pulse: IndicatorPulse, because reason: PulseReason)
    func box(_ box: Box, didShow frame: Bitmap, at time: MonotonicTime)
    /// A MIDI message the engine placed for sending (`heardAt`: when its sample is heard).
    func box(_ box: Box, willSend message: MIDIOutEvent, heardAt time: MonotonicTime)
    /// A MIDI message that came in.
    func box(_ box: Box, didReceive message: MIDIMessage, at time: MonotonicTime)
    /// The coach judged a hit heard at `time` (the round trip or MIDI offset taken off).
    func box(_ box: Box, didJudge hit: CoachHit, heardAt time: MonotonicTime)
    /// An earned trainer stepped the tempo (Box+Trainer), from the downbeat heard at `time`.
    func box(_ box: Box, didStepTrainer step: TrainerStep, heardAt time: MonotonicTime)
}

extension BoxObserver {
    public func box(_ box: Box, willSend message: MIDIOutEvent, heardAt time: MonotonicTime) {}
    public func box(_ box: Box, didReceive message: MIDIMessage, at time: MonotonicTime) {}
    public func box(_ box: Box, didJudge hit: CoachHit, heardAt time: MonotonicTime) {}
    public func box(_ box: Box, didStepTrainer step: TrainerStep, heardAt time: MonotonicTime) {}
}

/// Where MIDI messages placed by the engine go on a real box (the MIDI thread).
public protocol MIDISender: AnyObject {
    /// Called on the control thread with each message and when it is heard.
    func schedule(_ message: MIDIOutEvent, heardAtNanoseconds: Int64)
}

/// What the control socket follows: the onsets as heard and every state change.
public protocol BoxControlObserver: AnyObject {
    func box(_ box: Box, didStart onset: OnsetEvent, heardAt time: MonotonicTime)
    func box(_ box: Box, didChange state: BoxState, at time: MonotonicTime)
    /// Someone follows the beat remotely (an open live view): the box announces its beats
    /// ahead and places START a little ahead, so the view hears of the first beat in time.
    var followsBeats: Bool { get }
    /// The beats of the published grid heard from `from` on, up to half a second ahead, as
    /// they now are: a beat announced earlier at or after `from` that is not listed is gone
    /// (a change, STOP). Sent when beats enter that window and when the grid changes.
    func box(_ box: Box, willPlay beats: [AnnouncedBeat], from: MonotonicTime)
}

/// A beat of the one timeline announced ahead: bar, beat in the bar and when it is heard.
public struct AnnouncedBeat: Sendable, Hashable {
    public var bar: Int64
    public var beat: Int
    public var time: MonotonicTime
}

/// The whole box as one discrete-event machine on the control side: physical input goes in
/// as timestamped edges, time goes in as `advance(to:)`, and out come engine changes,
/// screen frames, LED and buzzer pulses and settings saves. It never reads a clock and owns
/// no thread, so the service runs it in real time and the simulator in simulated time.
///
/// One thread touches it: the service's control thread (`ControlLoop`, which takes it over
/// when its thread starts), or the simulator's loop. Not Sendable, so the compiler keeps it
/// where it is made; debug builds also check each entry point (`preconditionOnBoxThread`, as
/// NIO's `preconditionInEventLoop`).
public final class Box {
    public internal(set) var state: BoxState
    public let engine: ClickEngine
    public let board: BoardDefinition
    public weak var observer: (any BoxObserver)?
    /// The control socket's clients (the companion's live view): onsets and state changes.
    public weak var controlObserver: (any BoxControlObserver)?

    private let audio: any AudioClockSource
    private let display: (any MonochromeDisplay)?
    private let indicators: any IndicatorOutput
    private let persistence: any SettingsPersistence
    let report: @Sendable (String) -> Void
    let inform: @Sendable (String) -> Void
    /// When START was last pressed, until its first click is heard (the latency is logged).
    private var startPressedAt: MonotonicTime?
    private var indicatorScheduler: IndicatorScheduler
    private var frames: FrameScheduler
    /// The one timeline: the engine's grid as published with each start and change
    /// (`GridAnchor`), songs included. The screen, LEDs and buzzer read only this.
    public private(set) var grid = BeatGrid()
    /// The steady grid in effect at the sample heard now (Link compares its phase with it).
    var timeline: SteadyGrid? {
        let heard = heardSample(at: now).map(Double.init) ?? Double(grid.pieces.last?.startSample ?? 0)
        if case .steady(let steady) = grid.piece(atSample: heard) { return steady }
        return nil
    }
    /// What a remote view was told of the beats ahead (`announceBeats`).
    struct Announcement {
        /// The last beat's sample announced.
        var through: Int64?
        /// The grid changed from this sample on (a start, a change, STOP): announce again.
        var changedFrom: Int64?
    }
    var announcement = Announcement()
    private var screenChanged = true
    private var lastFrame: Bitmap?
    private var lastContrast: UInt8?
    public internal(set) var now: MonotonicTime
    /// The Ableton Link session (Sync: Link), when the box has one; see Box+Link.swift.
    public var link: (any LinkSession)?
    var linkFollow = LinkFollow()
    /// The coach's grid and latencies (`[coach]` settings, the calibrated round trip).
    public var coachTuning = CoachTuning() {
        didSet { coachJudging = JudgingGrid(perWholeNote: coachTuning.perWholeNote) }
    }
    var coachJudging = JudgingGrid()
    /// The coach's input last reported a problem (so "back" is said only after one).
    var coachInputProblem = false
    /// The coach has an audio input (`[coach] input` opened, or the simulator's take).
    public var coachInputAvailable = false
    /// Tells the capture side the round trip to align the click bleed with (nanoseconds) and
    /// whether to take the bleed out (not while calibrating: it must hear the clicks).
    public var coachInputTuning: (@Sendable (_ roundTripNanoseconds: Int64, _ subtractBleed: Bool) -> Void)?
    /// Menu > Coach > Calibrate playing its clicks (Box+Coach).
    var coachCalibrationRun: CoachCalibrationRun?
    /// `[midi]` of the configuration: the control map, the offset, the clock's options.
    public var midiConfiguration = MIDIConfiguration() {
        didSet {
            engine.midiClock.whenStopped = midiConfiguration.clockWhenStopped
            engine.midiClock.startAtCountIn = midiConfiguration.startAtCountIn
        }
    }
    /// The MIDI thread on a real box: it sends each message when its sample is heard.
    public var midiSender: (any MIDISender)?
    /// Following a MIDI clock (Sync: MIDI); see Box+MIDI.swift.
    var midiFollow = MIDIFollow()

    public init(
        board: BoardDefinition, state: BoxState, engine: ClickEngine, audio: any AudioClockSource,
        display: (any MonochromeDisplay)?, indicators: any IndicatorOutput, persistence: any SettingsPersistence,
        indicatorSettings: IndicatorSettings = IndicatorSettings(), maximumFramesPerSecond: Int = 60,
        at time: MonotonicTime, report: @escaping @Sendable (String) -> Void,
        inform: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.inform = inform
        self.board = board
        self.state = state
        self.engine = engine
        self.audio = audio
        self.display = display
        self.indicators = indicators
        self.persistence = persistence
        self.indicatorScheduler = IndicatorScheduler(settings: indicatorSettings)
        self.frames = FrameScheduler(maximumFramesPerSecond: maximumFramesPerSecond)
        self.report = report
        self.now = time
        self.settings = state.settings
        // A live song change is planned one period ahead, so the render thread takes it up
        // before its sample.
        engine.songChangeLead = Int64(engine.renderer.maxFrameCount)
        perform(state.startupEffects, at: time)
    }

    // MARK: the one thread

    #if DEBUG
    /// The thread the box belongs to: the first to use it after init, or the one that took it
    /// over (`takeOver()`); 0 until then.
    private var boxThread: UInt = 0
    #endif

    /// Debug builds stop here when a second thread touches the box; release builds compile it
    /// away (the ControlLoop's queue is what keeps the box on its thread there).
    @inline(__always)
    func preconditionOnBoxThread(_ function: StaticString = #function) {
        #if DEBUG
        let current = UInt(bitPattern: Int(bitPattern: pthread_self()))
        if boxThread == 0 { boxThread = current }
        precondition(boxThread == current, "Box.\(function) on a second thread: only the box's thread may touch it (post to its ControlLoop)")
        #endif
    }

    /// Makes the calling thread the box's thread, for a loop that starts a thread of its own
    /// and hands the box to it (nothing else may hold the box afterwards).
    public func takeOver() {
        #if DEBUG
        boxThread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        #endif
    }

    // MARK: input

    /// One edge of a physical input line, with the kernel's timestamp.
    public func handle(_ edge: LineEdge) {
        preconditionOnBoxThread()
        if edge.missedBefore > 0, edge.role == .encoderA || edge.role == .encoderB { state.encoderLostEdges() }
        let action: Action = switch edge.role {
        case .encoderA: .encoderEdge(.a, isHigh: edge.isActive, at: edge.timestamp)
        case .encoderB: .encoderEdge(.b, isHigh: edge.isActive, at: edge.timestamp)
        case .encoderPush: .buttonEdge(.wheel, pressed: edge.isActive, at: edge.timestamp)
        case .tap: .buttonEdge(.tap, pressed: edge.isActive, at: edge.timestamp)
        case .startStop: .buttonEdge(.startStop, pressed: edge.isActive, at: edge.timestamp)
        case .footswitch: .buttonEdge(.footswitch, pressed: edge.isActive, at: edge.timestamp)
        }
        handle(action)
    }

    /// Any action (the interactive simulator's keys send detents and gestures directly).
    public func handle(_ action: Action) {
        preconditionOnBoxThread()
        now = max(now, action.time)
        perform(state.handle(action), at: action.time)
    }

    /// A part (display, sound device) went missing or came back: the screen says so.
    public func part(_ name: String, working: Bool) {
        preconditionOnBoxThread()
        handle(.part(name, working: working, at: now))
    }

    /// Silent practice (a menu setting, set by its effect) mutes the clicks and lets the
    /// buzzer pulse instead, without touching the volumes the musician set.
    private var silentPractice = false
    private var darkGap = false
    /// Where the practice log goes (nil: not kept) and when the current stretch of playing began.
    public var practiceLog: (any PracticeLogStore)?
    private var practiceStartedAt: MonotonicTime?
    /// The song and the fastest tempo of the current stretch (from the beats heard).
    private var practiceSong = ""
    private var practiceTopBPM = 0.0
    /// The coach's hits of the current stretch (Box+Coach), for its practice log line.
    var practiceCoach = CoachStatistics()
    /// The earned trainer's steps of the current stretch (Box+Trainer), for the practice log.
    var practiceSteps: [TrainerStep] = []

    private func logPractice(until time: MonotonicTime) {
        guard let started = practiceStartedAt else { return }
        practiceStartedAt = nil
        let seconds = (time.nanoseconds - started.nanoseconds) / 1_000_000_000
        let song = practiceSong, bpm = practiceTopBPM
        let heard = practiceCoach
        practiceSong = ""
        practiceTopBPM = 0
        practiceCoach = CoachStatistics()
        let steps = practiceSteps
        practiceSteps = []
        guard seconds > 0, let practiceLog else { return }
        let coach = heard.count == 0 && steps.isEmpty ? nil : CoachFigures(
            hits: heard.count, meanMs: heard.mean, sdMs: heard.standardDeviation,
            within10Percent: heard.shareWithin10 * 100, within25Percent: heard.shareWithin25 * 100, trainer: steps)
        do { try practiceLog.addPractice(seconds: seconds, song: song, bpm: bpm, coach: coach) } catch { report("practice log: \(error)") }
    }
    /// The settings the reducer last asked for (the engine may have them muted).
    private var settings: MetronomeSettings

    private func audible(_ settings: MetronomeSettings) -> MetronomeSettings {
        guard silentPractice else { return settings }
        var muted = settings
        muted.volumes = settings.volumes.silenced
        return muted
    }

    // MARK: time

    /// Everything due by `time`: reducer deadlines, onsets reported by the engine (LED and
    /// buzzer pulses at the moment they are heard), and the next screen frame.
    public func advance(to time: MonotonicTime) {
        preconditionOnBoxThread()
        now = max(now, time)
        if let deadline = state.nextDeadline, deadline <= now {
            perform(state.handle(.tick(at: now)), at: now)
        }
        checkMIDIClock()
        drainOnsets()
        finishCoachCalibration()
        followLink()
        checkSongEnd()
        drawIfDue()
        retryMissingDisplay()
    }

    /// A display that went missing is tried again every few seconds even when nothing on
    /// the screen changes (stopped, idle), so it comes back by itself.
    private var nextDisplayRetry: MonotonicTime?

    private func retryMissingDisplay() {
        guard let resilient = display as? ResilientDisplay, !resilient.isWorking else {
            nextDisplayRetry = nil
            return
        }
        guard let due = nextDisplayRetry, due > now else {
            resilient.poll()
            if resilient.isWorking {
                screenChanged = true
                part("Display", working: true)
            }
            nextDisplayRetry = now.advanced(byNanoseconds: resilient.retryNanoseconds)
            return
        }
    }

    /// When `advance` next has something to do (at the latest), or nil when only input can
    /// change anything.
    public var nextWakeup: MonotonicTime? {
        var wakeups: [MonotonicTime] = []
        if let deadline = state.nextDeadline { wakeups.append(deadline) }
        if let frame = nextFrameStart { wakeups.append(frame) }
        if let retry = nextDisplayRetry { wakeups.append(retry) }
        // Onsets arrive from the render thread: look for them at least every few ms while playing.
        // So do the MIDI clocks while stopped (`clock_when_stopped`): the clock thread must
        // have each before it is due, a buffer (8 ms on a Pi) after the engine placed it.
        let clockWhileStopped = midiSender != nil && engine.midiClock.enabled && engine.midiClock.whenStopped
        if state.isPlaying || engine.renderer.activeVoiceCount > 0 || clockWhileStopped {
            wakeups.append(now.advanced(byNanoseconds: 4_000_000))
        }
        // A Link session is looked at every 10 ms (peers, tempo, start/stop) even when stopped.
        if linkFollow.enabled { wakeups.append(now.advanced(byNanoseconds: 10_000_000)) }
        if let calibration = coachCalibrationRun { wakeups.append(calibration.endsAt) }
        return wakeups.min()
    }

    // MARK: shutdown, in the order the services stop

    /// No new clicks; those in flight play to their end.
    public func stopPlayback() {
        preconditionOnBoxThread()
        if state.isPlaying {
            // As if START/STOP were pressed, so the state machine knows it stopped.
            perform(state.handle(.gesture(.startStop, .press, at: now)), at: now)
        }
        engine.stop()
        forgetGrid()
    }

    /// START and STOP: the grid is gone until the engine publishes the next; a remote view
    /// is told so (the beats it was announced do not sound).
    func forgetGrid() {
        grid.removeAll()
        announcement.changedFrom = .min
    }

    /// Writes the settings file now (the reducer's debounce may still be waiting).
    public func saveNow() {
        preconditionOnBoxThread()
        do { try persistence.save(state.saved) } catch { report("saving settings failed: \(error)") }
    }

    public func initializeDisplay() {
        preconditionOnBoxThread()
        guard let display else { return report("display: none configured") }
        do { try display.initialize() } catch { report("display: \(error); running without it, retrying") }
        screenChanged = true
    }

    public func blankDisplay() {
        preconditionOnBoxThread()
        guard let display else { return }
        do {
            try display.show(display.blankFrame())
            try display.setSleeping(true)
        } catch { report("display: \(error)") }
    }

    public func indicatorsOff() {
        preconditionOnBoxThread()
        for indicator in IndicatorChannel.allCases { indicators.set(indicator, on: false) }
    }

    // MARK: effects

    func perform(_ effects: [Effect], at time: MonotonicTime) {
        var stateChanged = false
        for effect in effects {
            switch effect {
            case .applySettings(let settings):
                let before = self.settings
                self.settings = settings
                do {
                    if state.practice.isLoaded {
                        // During a song: the wheel's tempo ends a ramp; a pattern edit holds
                        // for the rest of the section.
                        let pattern = settings.accents != before.accents || settings.subdivisions != before.subdivisions
                            || settings.swing != before.swing || settings.groove != before.groove || settings.poly != before.poly
                        try engine.applyDuringSong(audible(settings), tempo: settings.tempo != before.tempo ? .to(settings.tempo.bpm) : nil,
                                                   pattern: pattern)
                    } else {
                        try engine.apply(audible(settings))
                    }
                } catch { report("\(error)") }
                screenChanged = true
                stateChanged = true
            case .start:
                if !startFollowedClock() { startEngine() }
                if practiceStartedAt == nil { practiceStartedAt = time }
                startPressedAt = time
                forgetGrid() // anchored by the grid the engine publishes at the start
                screenChanged = true
                stateChanged = true
            case .stop:
                linkStopped(at: time)
                engine.stop()
                logPractice(until: time)
                forgetGrid()
                screenChanged = true
                stateChanged = true
            case .darkGap(let on):
                darkGap = on
            case .sync:
                midiSyncChanged()
            case .tone(let tone):
                engine.setTone(tone)
                stateChanged = true
            case .silentPractice(let on):
                silentPractice = on
                indicatorScheduler.settings.buzzerPulses = on
                do {
                    // A song holds its volumes per stretch: the mute starts from here.
                    if state.practice.isLoaded {
                        try engine.applyDuringSong(audible(settings), tempo: nil, pattern: false)
                    } else {
                        try engine.apply(audible(settings))
                    }
                } catch { report("\(error)") }
            case .buzzer(let cue, let at):
                let feedback: WheelFeedback = cue == .tick ? .tick : .bump
                emit(indicatorScheduler.wheelPulse(feedback, edgeNanoseconds: at.nanoseconds, nowNanoseconds: now.nanoseconds),
                     because: .wheel(feedback))
            case .screen:
                screenChanged = true
                stateChanged = true
            case .loadSong(let songs, let seed):
                do {
                    // An endless song (looped, until stopped) is scheduled an hour ahead.
                    let endless = songs?.contains(where: \.isEndless) ?? false
                    // A song started from a later section: its clock out starts with SPP and Continue.
                    engine.midiClock.songPosition = songs == nil ? 0 : state.practice.startSixteenths(state.saved)
                    try engine.load(songs: songs, seed: seed, samples: endless ? Int64(engine.renderer.sampleRate) * 3600 : nil)
                } catch { report("song: \(error)") }
            case .earnedTempo(let step):
                applyEarnedTempo(step, settings: audible(settings))
            case .calibrateCoach:
                startCoachCalibration()
            case .cancelCoachCalibration:
                endCoachCalibration()
            case .drawPairingCode:
                var random = SystemRandomNumberGenerator()
                perform(state.handle(.remote(.showPairingCode(Companion.code(from: random.next())), at: time)), at: time)
                stateChanged = true
            case .save(let saved):
                do { try persistence.save(saved) } catch {
                    report("saving settings failed: \(error)")
                    perform(state.handle(.saveFailed("\(error)", at: now)), at: now)
                }
            }
        }
        if stateChanged {
            observer?.box(self, didChange: state, at: time)
            controlObserver?.box(self, didChange: state, at: time)
        }
    }

    private func emit(_ pulse: IndicatorPulse, because reason: PulseReason) {
        indicators.pulse(pulse.channel, at: MonotonicTime(nanoseconds: pulse.startNanoseconds),
                         lastingNanoseconds: pulse.lengthNanoseconds)
        observer?.box(self, didPulse: pulse, because: reason)
    }

    var outputClock: AudioOutputClock? {
        guard let position = audio.outputPosition else { return nil }
        return AudioOutputClock(sampleRate: engine.renderer.sampleRate, engineSample: position.framesRendered,
                                outputDelayFrames: Int64(position.delayFrames), nanoseconds: position.timestamp.nanoseconds,
                                nanosecondsPerSample: position.nanosecondsPerFrame)
    }

    private func heardSample(at time: MonotonicTime) -> Int64? {
        outputClock.map { Int64($0.heardSample(atNanoseconds: time.nanoseconds).rounded(.down)) }
    }

    private func drainOnsets() {
        while let anchor = engine.nextAnchor() {
            // One grid for everyone: the screen, LEDs and buzzer use the engine's own anchor.
            if let piece = engine.gridPiece(for: anchor) {
                grid.append(piece)
                announcement.changedFrom = min(announcement.changedFrom ?? .max, piece.startSample)
            }
        }
        if let heard = heardSample(at: now) { grid.forget(before: heard) }
        guard let clock = outputClock else {
            while engine.nextEvent() != nil {}
            while engine.nextMIDIEvent() != nil {}
            return
        }
        announceBeats(clock: clock)
        while let message = engine.nextMIDIEvent() {
            let heard = clock.outputNanoseconds(ofSample: message.sample)
            midiSender?.schedule(message, heardAtNanoseconds: heard - Int64(midiConfiguration.offsetMilliseconds) * 1_000_000)
            observer?.box(self, willSend: message, heardAt: MonotonicTime(nanoseconds: heard))
        }
        while let event = engine.nextEvent() {
            let heard = MonotonicTime(nanoseconds: clock.outputNanoseconds(ofSample: event.sample))
            if let pressed = startPressedAt {
                startPressedAt = nil
                inform("first click heard \((heard.nanoseconds - pressed.nanoseconds) / 1_000_000) ms after START")
            }
            observer?.box(self, didStart: event, heardAt: heard)
            if engine.song != nil { linkFollow.songBPM = event.bpm }
            controlObserver?.box(self, didStart: event, heardAt: heard)
            if event.layer == 0 && event.kind.isBeat && !event.isCount && coachCalibrationRun == nil {
                // A song's beats carry its tempo; free play's is the setting's.
                practiceTopBPM = max(practiceTopBPM, event.bpm > 0 ? event.bpm : state.settings.tempo.bpm.doubleValue)
                if state.practice.isLoaded, let song = state.songView?.name { practiceSong = song }
            }
            if state.practice.isLoaded && (event.kind.isBeat || event.isCount) {
                perform(state.handle(.songProgress(section: Int(event.section), bar: event.bar, bpm: event.bpm,
                                                   song: Int(event.song), beat: Int(event.beat), at: now)), at: now)
            }
            // Dark gap: the LEDs and buzzer rest with the muted bars; else they keep counting.
            if event.muted && darkGap { continue }
            for pulse in indicatorScheduler.pulses(onsetSample: event.sample, kind: event.kind, layer: Int(event.layer),
                                                   clock: clock, samplesPerBeat: grid.samplesPerBeat(atSample: event.sample)) {
                emit(pulse, because: .onset(event.kind))
            }
        }
    }

    /// A song that ends by itself stops the box once its end is heard (an endless one is
    /// only scheduled an hour ahead: that is no end).
    private func checkSongEnd() {
        guard state.practice.isLoaded, state.isPlaying, let song = engine.song, !song.songs.contains(where: \.isEndless),
              let end = engine.songEndSample, let heard = heardSample(at: now), heard >= end else { return }
        perform(state.handle(.songEnded(at: now)), at: now)
    }

    // MARK: screen

    /// Every page keeps the beat visible while playing (the pendulum, or the beat strip).
    private var animating: Bool { state.isPlaying && !grid.isEmpty }

    private var nextFrameStart: MonotonicTime? {
        guard display != nil || observer != nil else { return nil }
        var nextBeat: Int64?
        if animating, let clock = outputClock, let heard = heardSample(at: now), let beat = grid.beat(atSample: Double(heard)) {
            nextBeat = clock.outputNanoseconds(ofSample: beat.nextBeatSample)
        }
        return frames.nextFrameStart(now: now.nanoseconds, animating: animating, contentChanged: screenChanged,
                                     nextBeatNanoseconds: nextBeat).map { MonotonicTime(nanoseconds: $0) }
    }

    private func drawIfDue() {
        guard let start = nextFrameStart, start <= now else { return }
        let shownAt = frames.presentationTime(ofFrameStartingAt: now.nanoseconds)
        let heard = outputClock?.heardSample(atNanoseconds: shownAt) ?? 0
        let model = ScreenPresenter.model(for: state, grid: animating ? grid : nil)
        let frame = ScreenRenderer.render(model, heardSample: heard)
        screenChanged = false
        if frame != lastFrame {
            lastFrame = frame
            if let display {
                do {
                    if lastContrast != model.contrast {
                        try display.setContrast(model.contrast)
                        lastContrast = model.contrast
                    }
                    try display.show(frame)
                } catch { report("display: \(error)") }
            }
            observer?.box(self, didShow: frame, at: now)
        }
        // Frame time is measured by the caller's clock on the next advance; render and I2C
        // happen inside this call, so the start is a fair stand-in for both ends here.
        frames.frameFinished(startedAt: start.nanoseconds, finishedAt: max(start.nanoseconds, now.nanoseconds))
    }
}
