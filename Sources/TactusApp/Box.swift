// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import Devices
import HAL
import TactusCore

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
    func addPractice(seconds: Int64) throws
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
}

extension BoxObserver {
    public func box(_ box: Box, willSend message: MIDIOutEvent, heardAt time: MonotonicTime) {}
    public func box(_ box: Box, didReceive message: MIDIMessage, at time: MonotonicTime) {}
}

/// Where MIDI messages placed by the engine go on a real box (the MIDI thread).
public protocol MIDISender: AnyObject {
    /// Called on the control thread with each message and when it is heard.
    func schedule(_ message: MIDIOutEvent, heardAtNanoseconds: Int64)
}

/// The whole box as one discrete-event machine on the control side: physical input goes in
/// as timestamped edges, time goes in as `advance(to:)`, and out come engine changes,
/// screen frames, LED and buzzer pulses and settings saves. It never reads a clock and owns
/// no thread, so the service runs it in real time and the simulator in simulated time.
///
/// One thread at a time: the service's control thread, or the simulator's loop.
public final class Box: @unchecked Sendable {
    public private(set) var state: BoxState
    public let engine: ClickEngine
    public let board: BoardDefinition
    public weak var observer: (any BoxObserver)?

    private let audio: any AudioClockSource
    private let display: (any MonochromeDisplay)?
    private let indicators: any IndicatorOutput
    private let persistence: any SettingsPersistence
    private let report: @Sendable (String) -> Void
    private let inform: @Sendable (String) -> Void
    /// When START was last pressed, until its first click is heard (the latency is logged).
    private var startPressedAt: MonotonicTime?
    private var indicatorScheduler: IndicatorScheduler
    private var frames: FrameScheduler
    /// The engine's grid as published with each start and change (`GridAnchor`), oldest
    /// first; the one in effect for a sample is the last whose anchor is not after it.
    private var timelines: [BeatTimeline] = []
    /// The grid in effect at the sample being heard now.
    private var timeline: BeatTimeline? {
        guard let heard = heardSample(at: now) else { return timelines.last }
        return timelines.last { $0.anchorTwice <= 2 * heard } ?? timelines.first
    }
    private var screenChanged = true
    private var lastFrame: Bitmap?
    private var lastContrast: UInt8?
    private var now: MonotonicTime

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

    // MARK: MIDI

    /// `[midi]` of the configuration (the control map, the offset).
    public var midiConfiguration = MIDIConfiguration() {
        didSet { engine.midiClock = MIDIClockOptions(enabled: true, whenStopped: midiConfiguration.clockWhenStopped) }
    }
    /// The MIDI thread, on a real box.
    public var midiSender: (any MIDISender)?
    /// Where the beat comes from: Menu > Settings > Sync, `--sync`, or a script's `sync`.
    public var sync = SyncSource.internal {
        didSet {
            guard sync != oldValue else { return }
            follower.reset()
            followedTempo = nil
            observer?.box(self, didChange: state, at: now)
        }
    }
    private var follower = MIDIClockFollower()
    /// The tempo being followed (BPM of the beat unit, 3 decimals), while following.
    private var followedTempo: Tempo?
    /// Start or Continue came in: the box starts on the next Clock.
    private var transportPending = false
    /// Clocks since the followed Start (clock k of the grid), while playing.
    private var followedClock: Int64?
    /// Song Position Pointer (16ths), for the next Continue.
    private var songPosition = 0
    /// The engine's clocks out, by k (recent ones): where its grid puts each clock.
    private var sentClocks: [(k: Int64, sample: Int64)] = []
    private var lastShownLock: MIDIClockFollower.Lock = .lost
    private var lastShownBPM = ""

    /// What the sync mark shows while following MIDI (locked, locking, lost); nil otherwise.
    public var syncLock: MIDIClockFollower.Lock? { sync == .midi ? follower.lock : nil }

    /// While following: the followed tempo averaged over 96 clocks, one decimal (in the
    /// beat unit's BPM), as the screen and the state's `bpm` show it.
    public var followedBPM: String? {
        guard sync == .midi, follower.lock != .lost, follower.ticks >= 2 else { return nil }
        let bpm = follower.shownQuarterBPM * 0.25 / settings.beatUnit.wholeNotes.doubleValue
        let tenths = Int64((bpm * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// One incoming MIDI message, with its arrival time (the sequencer's kernel stamp).
    public func handleMIDI(_ message: MIDIMessage, at time: MonotonicTime) {
        now = max(now, time)
        observer?.box(self, didReceive: message, at: time)
        let following = sync == .midi
        switch message {
        case .clock:
            guard following else { return }
            clockTick(at: time)
        case .start:
            guard following else { return }
            songPosition = 0
            transportPending = true
        case .continue:
            guard following else { return }
            transportPending = true
        case .stop:
            guard following else { return }
            transportPending = false
            followedClock = nil
            if state.isPlaying { perform(state.handle(.gesture(.startStop, .press, at: time)), at: time) }
        case .songPosition(let sixteenths):
            guard following else { return }
            songPosition = sixteenths
        default:
            guard let control = midiConfiguration.control(for: message) else { return }
            switch control {
            case .tap: handle(.gesture(.tap, .press, at: time))
            case .startStop: handle(.gesture(.startStop, .press, at: time))
            case .footswitch: handle(.gesture(.footswitch, .press, at: time))
            case .tempoUp: handle(.detent(1, at: time))
            case .tempoDown: handle(.detent(-1, at: time))
            case .nextSection, .previousSection, .preset, .song:
                // Not wired to the song page yet (see the README's MIDI section).
                report("MIDI: \(message.hex) maps to a control this version does not act on")
            }
        }
        showSyncIfChanged()
    }

    private func clockTick(at time: MonotonicTime) {
        follower.tick(at: time.nanoseconds)
        guard follower.ticks >= 2 else { return }
        let unit = settings.beatUnit.wholeNotes.doubleValue
        let bpm = follower.quarterBPM * 0.25 / unit
        let thousandths = Int64((bpm * 1000).rounded())
        let tempo = try? Tempo(Rational(min(max(thousandths, 1000), 999_000), 1000))
        if transportPending, !state.isPlaying {
            transportPending = false
            followedTempo = tempo
            applyFollowed(shift: 0)
            // Bar 0 (or the SPP's position: 6 clocks a 16th) on this Clock.
            followedClock = Int64(songPosition) * 6
            perform(state.handle(.gesture(.startStop, .press, at: time)), at: time)
            return
        }
        guard state.isPlaying, let k = followedClock.map({ $0 + 1 }) else {
            followedTempo = tempo
            return
        }
        followedClock = k
        followedTempo = tempo
        // The phase error: when the engine's grid puts clock k against the filtered time of
        // this Clock. Corrected every sixth clock (a 16th), with the tempo.
        guard k % 6 == 0, let clock = outputClock, let latest = sentClocks.last else { return }
        let target = k - Int64(songPosition) * 6
        let heard: Double
        if let sent = sentClocks.last(where: { $0.k == target }) {
            heard = Double(clock.outputNanoseconds(ofSample: sent.sample))
        } else if latest.k < target, sentClocks.count >= 2, sentClocks[sentClocks.count - 2].k < latest.k {
            // The engine has not placed clock k yet: the box is later than one buffer (a
            // Start gives no warning), and waiting for it would never correct. Clock k on
            // the engine's own grid, from its latest two clocks.
            let previous = sentClocks[sentClocks.count - 2]
            let samplesPerClock = Double(latest.sample - previous.sample) / Double(latest.k - previous.k)
            heard = Double(clock.outputNanoseconds(ofSample: latest.sample))
                + Double(target - latest.k) * samplesPerClock * 1e9 / Double(engine.renderer.sampleRate)
        } else {
            return
        }
        let filtered = follower.nextTick - follower.period
        let errorNanoseconds = heard - filtered
        applyFollowed(shift: -errorNanoseconds * Double(engine.renderer.sampleRate) / 1e9)
    }

    private func applyFollowed(shift: Double) {
        guard let followedTempo else { return }
        var followed = audible(settings)
        followed.tempo = followedTempo
        do { try engine.follow(followed, shiftSamples: shift) } catch { report("\(error)") }
    }

    private func showSyncIfChanged() {
        let shown = followedBPM ?? ""
        guard follower.lock != lastShownLock || shown != lastShownBPM else { return }
        lastShownLock = follower.lock
        lastShownBPM = shown
        observer?.box(self, didChange: state, at: now)
    }

    // MARK: input

    /// One edge of a physical input line, with the kernel's timestamp.
    public func handle(_ edge: LineEdge) {
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
        now = max(now, action.time)
        perform(state.handle(action), at: action.time)
    }

    /// A part (display, sound device) went missing or came back: the screen says so.
    public func part(_ name: String, working: Bool) {
        handle(.part(name, working: working, at: now))
    }

    /// Silent practice (a menu setting, set by its effect) mutes the clicks and lets the
    /// buzzer pulse instead, without touching the volumes the musician set.
    private var silentPractice = false
    private var darkGap = false
    /// Where the practice log goes (nil: not kept) and when the current stretch of playing began.
    public var practiceLog: (any PracticeLogStore)?
    private var practiceStartedAt: MonotonicTime?

    private func logPractice(until time: MonotonicTime) {
        guard let started = practiceStartedAt else { return }
        practiceStartedAt = nil
        let seconds = (time.nanoseconds - started.nanoseconds) / 1_000_000_000
        guard seconds > 0, let practiceLog else { return }
        do { try practiceLog.addPractice(seconds: seconds) } catch { report("practice log: \(error)") }
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
        now = max(now, time)
        if let deadline = state.nextDeadline, deadline <= now {
            perform(state.handle(.tick(at: now)), at: now)
        }
        if sync == .midi, follower.checkSilence(now: now.nanoseconds) {
            // The box keeps playing at the last tempo until Stop or START.
            handle(.part("MIDI clock", working: false, at: now))
            showSyncIfChanged()
        }
        drainOnsets()
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
        if state.isPlaying || engine.renderer.activeVoiceCount > 0 { wakeups.append(now.advanced(byNanoseconds: 4_000_000)) }
        return wakeups.min()
    }

    // MARK: shutdown, in the order the services stop

    /// No new clicks; those in flight play to their end.
    public func stopPlayback() {
        if state.isPlaying {
            // As if START/STOP were pressed, so the state machine knows it stopped.
            perform(state.handle(.gesture(.startStop, .press, at: now)), at: now)
        }
        engine.stop()
        timelines = []
    }

    /// Writes the settings file now (the reducer's debounce may still be waiting).
    public func saveNow() {
        do { try persistence.save(state.saved) } catch { report("saving settings failed: \(error)") }
    }

    public func initializeDisplay() {
        guard let display else { return report("display: none configured") }
        do { try display.initialize() } catch { report("display: \(error); running without it, retrying") }
        screenChanged = true
    }

    public func blankDisplay() {
        guard let display else { return }
        do {
            try display.show(display.blankFrame())
            try display.setSleeping(true)
        } catch { report("display: \(error)") }
    }

    public func indicatorsOff() {
        for indicator in Indicator.allCases { indicators.set(indicator, on: false) }
    }

    // MARK: effects

    private func perform(_ effects: [Effect], at time: MonotonicTime) {
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
                    } else if sync == .midi, let followedTempo {
                        var followed = audible(settings)
                        followed.tempo = followedTempo
                        try engine.follow(followed, shiftSamples: 0)
                    } else {
                        try engine.apply(audible(settings))
                    }
                } catch { report("\(error)") }
                screenChanged = true
                stateChanged = true
            case .start:
                if sync == .midi, followedClock != nil, let position = heardSample(at: time) {
                    // A followed Start: bar 0 on the Clock that started it.
                    engine.start(atSample: position)
                } else {
                    engine.start()
                }
                sentClocks = []
                if practiceStartedAt == nil { practiceStartedAt = time }
                startPressedAt = time
                timelines = [] // anchored by the grid the engine publishes at the start
                screenChanged = true
                stateChanged = true
            case .stop:
                engine.stop()
                logPractice(until: time)
                timelines = []
                screenChanged = true
                stateChanged = true
            case .darkGap(let on):
                darkGap = on
            case .sync(let source):
                sync = source
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
                    try engine.load(songs: songs, seed: seed, samples: endless ? Int64(engine.renderer.sampleRate) * 3600 : nil)
                } catch { report("song: \(error)") }
            case .save(let saved):
                do { try persistence.save(saved) } catch {
                    report("saving settings failed: \(error)")
                    perform(state.handle(.saveFailed("\(error)", at: now)), at: now)
                }
            }
        }
        if stateChanged { observer?.box(self, didChange: state, at: time) }
    }

    private func emit(_ pulse: IndicatorPulse, because reason: PulseReason) {
        indicators.pulse(pulse.channel, at: MonotonicTime(nanoseconds: pulse.startNanoseconds),
                         lastingNanoseconds: pulse.lengthNanoseconds)
        observer?.box(self, didPulse: pulse, because: reason)
    }

    private var outputClock: AudioOutputClock? {
        guard let position = audio.outputPosition else { return nil }
        return AudioOutputClock(sampleRate: engine.renderer.sampleRate, engineSample: position.framesRendered,
                                outputDelayFrames: Int64(position.delayFrames), nanoseconds: position.timestamp.nanoseconds)
    }

    private func heardSample(at time: MonotonicTime) -> Int64? {
        outputClock.map { Int64($0.heardSample(atNanoseconds: time.nanoseconds).rounded(.down)) }
    }

    private func drainOnsets() {
        while let anchor = engine.nextAnchor() {
            guard let settings = engine.settings(ofProgram: anchor.program) else { continue }
            // One grid for everyone: the screen, LEDs and buzzer use the engine's own anchor.
            timelines.append(BeatTimeline(settings: settings, sampleRate: engine.renderer.sampleRate,
                                          sampleTwice: anchor.sampleTwice, bar: anchor.bar,
                                          positionNumerator: anchor.positionNumerator,
                                          positionDenominator: anchor.positionDenominator))
        }
        if timelines.count > 1, let heard = heardSample(at: now),
           let inEffect = timelines.lastIndex(where: { $0.anchorTwice <= 2 * heard }), inEffect > 0 {
            timelines.removeFirst(inEffect)
        }
        guard let clock = outputClock else {
            while engine.nextEvent() != nil {}
            while engine.nextMIDIEvent() != nil {}
            return
        }
        while let message = engine.nextMIDIEvent() {
            let heard = clock.outputNanoseconds(ofSample: message.sample)
            if message.message == .clock {
                sentClocks.append((message.clock, message.sample))
                if sentClocks.count > 256 { sentClocks.removeFirst(sentClocks.count - 128) }
            }
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
            if state.practice.isLoaded && (event.kind.isBeat || event.isCount) {
                perform(state.handle(.songProgress(section: Int(event.section), bar: event.bar, bpm: event.bpm,
                                                   song: Int(event.song), at: now)), at: now)
            }
            // Dark gap: the LEDs and buzzer rest with the muted bars; else they keep counting.
            if event.muted && darkGap { continue }
            for pulse in indicatorScheduler.pulses(onsetSample: event.sample, kind: event.kind, layer: Int(event.layer),
                                                   clock: clock, samplesPerBeat: timeline?.samplesPerBeat) {
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
    private var animating: Bool { state.isPlaying && timeline != nil }

    private var nextFrameStart: MonotonicTime? {
        guard display != nil || observer != nil else { return nil }
        var nextBeat: Int64?
        if animating, let timeline, let clock = outputClock, let heard = heardSample(at: now) {
            nextBeat = clock.outputNanoseconds(ofSample: timeline.position(atSample: Double(heard)).nextBeatSample)
        }
        return frames.nextFrameStart(now: now.nanoseconds, animating: animating, contentChanged: screenChanged,
                                     nextBeatNanoseconds: nextBeat).map { MonotonicTime(nanoseconds: $0) }
    }

    private func drawIfDue() {
        guard let start = nextFrameStart, start <= now else { return }
        let shownAt = frames.presentationTime(ofFrameStartingAt: now.nanoseconds)
        let heard = outputClock?.heardSample(atNanoseconds: shownAt) ?? 0
        let model = ScreenPresenter.model(for: state, timeline: animating ? timeline : nil)
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
