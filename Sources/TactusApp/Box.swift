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
    /// The one timeline: the engine's grid as published with each start and change
    /// (`GridAnchor`), songs included. The screen, LEDs and buzzer read only this.
    public private(set) var grid = BeatGrid()
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
        grid.removeAll()
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
                    } else {
                        try engine.apply(audible(settings))
                    }
                } catch { report("\(error)") }
                screenChanged = true
                stateChanged = true
            case .start:
                engine.start()
                if practiceStartedAt == nil { practiceStartedAt = time }
                startPressedAt = time
                grid.removeAll() // anchored by the grid the engine publishes at the start
                screenChanged = true
                stateChanged = true
            case .stop:
                engine.stop()
                logPractice(until: time)
                grid.removeAll()
                screenChanged = true
                stateChanged = true
            case .darkGap(let on):
                darkGap = on
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
            // One grid for everyone: the screen, LEDs and buzzer use the engine's own anchor.
            if let piece = engine.gridPiece(for: anchor) { grid.append(piece) }
        }
        if let heard = heardSample(at: now) { grid.forget(before: heard) }
        guard let clock = outputClock else {
            while engine.nextEvent() != nil {}
            return
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
