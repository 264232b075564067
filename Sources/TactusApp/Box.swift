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
import MIDIWire

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
    let persistence: any SettingsPersistence
    /// The features (screen, indicators, practice log, live view, song), in the order they run.
    var features: BoxFeatures
    let report: @Sendable (String) -> Void
    let inform: @Sendable (String) -> Void
    /// When START was last pressed, until its first click is heard (the latency is logged).
    private var startPressedAt: MonotonicTime?
    /// The one timeline: the engine's grid as published with each start and change
    /// (`GridAnchor`), songs included. The screen, LEDs and buzzer read only this.
    public internal(set) var grid = BeatGrid()
    /// The steady grid in effect at the sample heard now (Link compares its phase with it).
    var timeline: SteadyGrid? {
        let heard = heardSample(at: now).map(Double.init) ?? Double(grid.pieces.last?.startSample ?? 0)
        if case .steady(let steady) = grid.piece(atSample: heard) { return steady }
        return nil
    }
    public internal(set) var now: MonotonicTime
    /// The Ableton Link session (Sync: Link), when the box has one: Features/LinkFeature.swift.
    public var link: (any LinkSession)? {
        get { linking.link }
        set { linking.link = newValue }
    }
    lazy var linking = LinkFeature(box: self)
    /// The coach: Features/CoachFeature.swift (its tuning, input and calibration are
    /// reached through Box+CoachEntry.swift).
    lazy var coaching = CoachFeature(box: self)
    /// `[midi]` of the configuration: the control map, the offset, the clock's options.
    public var midiConfiguration = MIDIConfiguration() {
        didSet {
            engine.midiClock.whenStopped = midiConfiguration.clockWhenStopped
            midiOut.offsetNanoseconds.store(Int64(midiConfiguration.offsetMilliseconds) * 1_000_000, ordering: .relaxed)
            engine.midiClock.startAtCountIn = midiConfiguration.startAtCountIn
        }
    }
    /// The MIDI thread on a real box: it sends each message when its sample is heard.
    public var midiSender: (any MIDISender)? {
        didSet {
            engine.midiClock.startsOnRunningClock = midiSender != nil
            midiSender?.takeMessages { [midiOut] in midiOut.next() }
        }
    }
    /// The engine's MIDI messages as the clock thread takes them (Box+MIDIOut.swift).
    lazy var midiOut = MIDIOutFeed(engine: engine, audio: audio)
    /// Following a MIDI clock (Sync: MIDI): Features/MIDIFollowFeature.swift.
    lazy var midiFollowing = MIDIFollowFeature(box: self)

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
        self.persistence = persistence
        self.features = BoxFeatures(display: display, indicators: indicators, indicatorSettings: indicatorSettings,
                                    maximumFramesPerSecond: maximumFramesPerSecond)
        self.report = report
        self.now = time
        self.settings = state.settings
        // A live song change is planned one period ahead, so the render thread takes it up
        // before its sample.
        engine.songChangeLead = Int64(engine.renderer.maxFrameCount)
        features.addFirst([midiFollowing, coaching, linking])
        perform(state.startupEffects, at: time)
    }

    #if DEBUG
    /// The thread the box belongs to: the first to use it after init, or the one that took it
    /// over (`takeOver()`); 0 until then (Box+Lifecycle.swift).
    var boxThread: UInt = 0
    #endif

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

    /// One incoming MIDI message, with its arrival time (the sequencer's kernel stamp): the
    /// MIDI feature follows the clock and maps controls.
    public func handleMIDI(_ message: MIDIMessage, at time: MonotonicTime) {
        preconditionOnBoxThread()
        now = max(now, time)
        midiFollowing.receive(message, at: time)
    }

    /// A part (display, sound device) went missing or came back: the screen says so.
    public func part(_ name: String, working: Bool) {
        preconditionOnBoxThread()
        handle(.part(name, working: working, at: now))
    }

    /// Silent practice (a menu setting, set by its effect) mutes the clicks and lets the
    /// buzzer pulse instead, without touching the volumes the musician set.
    private var silentPractice = false
    /// Where the practice log goes (nil: not kept).
    public var practiceLog: (any PracticeLogStore)? {
        get { features.practice.store }
        set { features.practice.store = newValue }
    }
    /// The coach's hits of the current stretch (CoachFeature), for its practice log line.
    var practiceCoach: CoachStatistics {
        get { features.practice.coach }
        set { features.practice.coach = newValue }
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
        drainOnsets()
        for feature in features.all { feature.advance(self) }
    }

    /// When `advance` next has something to do (at the latest), or nil when only input can
    /// change anything.
    public var nextWakeup: MonotonicTime? {
        var wakeups: [MonotonicTime] = []
        if let deadline = state.nextDeadline { wakeups.append(deadline) }
        wakeups += features.all.compactMap { $0.nextWakeup(self) }
        // Onsets arrive from the render thread: look for them at least every few ms while
        // playing. (The MIDI clock thread takes its clocks from the engine itself.)
        if state.isPlaying || engine.renderer.activeVoiceCount > 0 {
            wakeups.append(now.advanced(byNanoseconds: 4_000_000))
        }
        return wakeups.min()
    }

    // MARK: effects

    /// The reducer's effects: the engine's and the box's own first, then every feature's.
    func perform(_ effects: [Effect], at time: MonotonicTime) {
        var stateChanged = false
        for effect in effects {
            stateChanged = performOwn(effect, at: time) || stateChanged
            for feature in features.all { feature.perform(effect, at: time, in: self) }
        }
        if stateChanged {
            observer?.box(self, didChange: state, at: time)
            controlObserver?.box(self, didChange: state, at: time)
        }
    }

    /// What the engine and the box do for an effect; true when observers must see the state.
    private func performOwn(_ effect: Effect, at time: MonotonicTime) -> Bool {
        switch effect {
        case .applySettings(let settings):
            apply(settings)
            return true
        case .start(let origin):
            if !features.all.contains(where: { $0.placeStart(origin, in: self) }) { startAhead() }
            startPressedAt = time
            forgetGrid() // anchored by the grid the engine publishes at the start
            return true
        case .stop:
            engine.stop()
            forgetGrid()
            return true
        case .tone(let tone):
            engine.setTone(tone)
            return true
        case .silentPractice(let on):
            silentPractice = on
            // A song holds its volumes per stretch: the mute starts from here.
            applyToEngine(settings, tempoChanged: false, patternChanged: false)
        case .screen:
            return true
        case .loadSong(let songs, let seed):
            load(songs, seed: seed)
        case .earnedTempo(let step):
            applyEarnedTempo(step, settings: audible(settings))
        case .drawPairingCode:
            var random = SystemRandomNumberGenerator()
            perform(state.handle(.remote(.showPairingCode(Companion.code(from: random.next())), at: time)), at: time)
            return true
        case .save(let saved):
            do { try persistence.save(saved) } catch {
                report("saving settings failed: \(error)")
                perform(state.handle(.saveFailed("\(error)", at: now)), at: now)
            }
        case .darkGap, .buzzer, .sync, .calibrateCoach, .cancelCoachCalibration:
            break
        }
        return false
    }

    private func apply(_ settings: MetronomeSettings) {
        let before = self.settings
        self.settings = settings
        // During a song: the wheel's tempo ends a ramp; a pattern edit holds for the rest of the section.
        let pattern = settings.accents != before.accents || settings.subdivisions != before.subdivisions
            || settings.swing != before.swing || settings.groove != before.groove || settings.poly != before.poly
        applyToEngine(settings, tempoChanged: settings.tempo != before.tempo, patternChanged: pattern)
    }

    private func applyToEngine(_ settings: MetronomeSettings, tempoChanged: Bool, patternChanged: Bool) {
        do {
            if state.practice.isLoaded {
                try engine.applyDuringSong(audible(settings), tempo: tempoChanged ? .to(settings.tempo.bpm) : nil, pattern: patternChanged)
            } else {
                try engine.apply(audible(settings))
            }
        } catch { report("\(error)") }
    }

    private func load(_ songs: [Song]?, seed: UInt64) {
        do {
            // An endless song (looped, until stopped) is scheduled an hour ahead.
            let endless = songs?.contains(where: \.isEndless) ?? false
            // A song started from a later section: its clock out starts with SPP and Continue.
            engine.midiClock.songPosition = songs == nil ? 0 : state.practice.startSixteenths(state.saved)
            try engine.load(songs: songs, seed: seed, samples: endless ? Int64(engine.renderer.sampleRate) * 3600 : nil)
        } catch { report("song: \(error)") }
    }

    var outputClock: AudioOutputClock? {
        guard let position = audio.outputPosition else { return nil }
        return AudioOutputClock(position, sampleRate: engine.renderer.sampleRate)
    }

    /// The engine frame sounding at `time` on the output clock (nil without one).
    func heardSample(at time: MonotonicTime) -> Int64? {
        outputClock.map { Box.frame(heardAt: time, on: $0) }
    }

    /// The engine frame sounding at `time` on `clock`: its exact heard sample, rounded down.
    static func frame(heardAt time: MonotonicTime, on clock: AudioOutputClock) -> Int64 {
        Int64(clock.heardSample(atNanoseconds: time.nanoseconds).rounded(.down))
    }

    /// What the render thread published: grid pieces, MIDI messages to send, onsets heard.
    private func drainOnsets() {
        while let anchor = engine.nextAnchor() {
            // One grid for everyone: the screen, LEDs and buzzer use the engine's own anchor.
            if let piece = engine.gridPiece(for: anchor) {
                grid.append(piece)
                for feature in features.all { feature.gridChanged(from: piece.startSample, in: self) }
            }
        }
        if let heard = heardSample(at: now) { grid.forget(before: heard) }
        // With a MIDI sender the clock thread takes the MIDI ring itself (its one consumer).
        let drainsMIDI = midiSender == nil
        guard let clock = outputClock else {
            while engine.nextEvent() != nil {}
            while drainsMIDI && engine.nextMIDIEvent() != nil {}
            return
        }
        for feature in features.all { feature.gridPublished(clock: clock, in: self) }
        while drainsMIDI, let message = engine.nextMIDIEvent() {
            observer?.box(self, willSend: message, heardAt: MonotonicTime(nanoseconds: clock.outputNanoseconds(ofSample: message.sample)))
        }
        while let event = engine.nextEvent() {
            let heard = MonotonicTime(nanoseconds: clock.outputNanoseconds(ofSample: event.sample))
            if let pressed = startPressedAt {
                startPressedAt = nil
                inform("first click heard \((heard.nanoseconds - pressed.nanoseconds) / 1_000_000) ms after START")
            }
            observer?.box(self, didStart: event, heardAt: heard)
            controlObserver?.box(self, didStart: event, heardAt: heard)
            for feature in features.all { feature.heard(event, at: heard, clock: clock, in: self) }
        }
    }
}
