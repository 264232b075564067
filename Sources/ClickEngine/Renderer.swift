// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization
import TactusArithmetic
import TactusBase
import TactusTimeline

/// The real-time half of the engine: turns the current program into samples. Only the audio
/// thread calls `render`; it never allocates, locks, logs or does I/O. New programs arrive
/// through a one-slot atomic handoff and are picked up at the start of the next call;
/// programs it is done with go back through a ring so they are freed on the control side.
public final class ClickRenderer: @unchecked Sendable {
    public let sampleRate: Int
    public let channels: Int
    public let maxFrameCount: Int

    /// Latest published program (retained), or nil when the render thread has taken it.
    let pending = Atomic<UnsafeMutableRawPointer?>(nil)
    /// Programs the render thread no longer uses, released by the control side.
    let retired: SPSCRing<UnsafeMutableRawPointer>
    /// Every onset that started a clip.
    public let events: SPSCRing<OnsetEvent>
    /// Every re-anchoring of the grid (start, change, a song's start and each live change in
    /// it): the timeline (`BeatGrid`) that the screen, LEDs and buzzer read.
    public let anchors: SPSCRing<GridAnchor>
    /// Every MIDI message to send (clocks, Start, Stop), at its exact sample.
    public let midi: SPSCRing<MIDIOutEvent>
    let droppedOnsets = Atomic<Int>(0)
    /// What `render` leaves behind for other threads (the control thread, the service's
    /// stop): stored at the end of every call, relaxed (a count, not a handoff).
    let publishedClock = Atomic<Int64>(0)
    let publishedVoices = Atomic<Int>(0)
    let publishedFramesUntilSilent = Atomic<Int>(0)
    let publishedToneFramesUntilSilent = Atomic<Int>(0)
    /// No onset at or after this sample starts a clip (an offline render's end: onsets are
    /// started up to a lead ahead, and none past the end may be).
    let startLimit = Atomic<Int64>(.max)
    let publishedPlaying = Atomic<Bool>(false)
    let publishedSongOrigin = Atomic<Int64>(0)
    let publishedEpoch = Atomic<UInt64>(0)

    // Render-thread state (what a change moves is internal: Renderer+Changes.swift).
    private(set) var current: UnsafeMutableRawPointer?
    private var appliedEpoch: UInt64 = 0
    /// The last outside alignment applied (`EngineProgram.alignment`).
    private var appliedAlignment: UInt64 = 0
    private(set) var playing = false
    /// Where the current program's grid is pinned to the sample clock (exact).
    var placement = Placement(anchor: .start(atSample: 0), lag: .zero)
    /// Next onset to play.
    var cursorBar: Int64 = 0
    var cursorIndex = 0
    /// After the meter shrank: the finishing beat (`finishingBar`, `finishingBeat` of the old
    /// bar) plays the program's first-beat subdivisions laid back from the next downbeat;
    /// the next is `leadIn[leadInIndex]` `leadInTile` beats before it (see `beginLeadIn`).
    var leadInActive = false
    private var leadInTile: Int64 = 0
    private var leadInIndex = 0
    var finishingBar: Int64 = 0
    var finishingBeat: Int32 = 0
    var clock: Int64 = 0
    /// Song playback: the sample of the song's start and the next scheduled onset.
    private(set) var songOrigin: Int64 = 0
    private var songCursor = 0
    /// Onsets before this sample were already started (a clip begins up to its lead before
    /// its onset, so the cursor runs up to the program's longest lead ahead of the block):
    /// after a change the new program skips them rather than play them twice. With clicks
    /// only (no lead) it is the block's first sample and skips nothing.
    var startedUntil: Int64 = 0
    /// The sample of the latest onset the cursor started, for a realignment to judge the
    /// next one by.
    private var lastOnsetSample: Int64 = .min
    /// MIDI clock out (clocks, Start, SPP, Continue, Stop into `midi`), on this thread.
    private var clockWriter: MIDIClockWriter
    var voices: VoicePool
    /// The reference tone, mixed under the clicks before the limiter.
    private var tone: ToneSource
    private var limiter: Limiter
    private let mix: UnsafeMutablePointer<Float>

    init(sampleRate: Int, channels: Int, maxFrameCount: Int, voiceCount: Int, eventCapacity: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.maxFrameCount = maxFrameCount
        retired = SPSCRing(minimumCapacity: 64)
        events = SPSCRing(minimumCapacity: eventCapacity)
        anchors = SPSCRing(minimumCapacity: 256)
        midi = SPSCRing(minimumCapacity: 4096)
        clockWriter = MIDIClockWriter(sampleRate: sampleRate, midi: midi)
        voices = VoicePool(capacity: voiceCount)
        tone = ToneSource(sampleRate: sampleRate)
        limiter = Limiter(sampleRate: sampleRate, maxFrames: maxFrameCount)
        mix = .allocate(capacity: maxFrameCount + limiter.lookahead)
    }

    deinit {
        if let current { Unmanaged<EngineProgram>.fromOpaque(current).release() }
        if let leftover = pending.exchange(nil, ordering: .acquiring) {
            Unmanaged<EngineProgram>.fromOpaque(leftover).release()
        }
        voices.deallocate()
        limiter.deallocate()
        mix.deallocate()
    }

    /// Fills `frameCount` interleaved frames (`channels` floats each, -1...1).
    /// `frameCount` must not exceed `maxFrameCount`; 0 only picks up a pending program.
    public func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) {
        precondition(frameCount <= maxFrameCount, "render call larger than the prepared maximum")
        defer { publishCounters() }
        takePendingProgram()
        let blockEnd = clock + Int64(frameCount)
        if let current {
            Unmanaged<EngineProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { program in
                clockWriter.send(before: blockEnd, program: program, clock: clock, songOrigin: songOrigin)
            }
        }
        var program: Unmanaged<EngineProgram>?
        if playing, let current {
            program = Unmanaged<EngineProgram>.fromOpaque(current)
            program!._withUnsafeGuaranteedRef { p in
                if let song = p.song {
                    startSongOnsets(of: song, before: blockEnd)
                    startedUntil = max(startedUntil, blockEnd + song.maxLead)
                } else {
                    startOnsets(of: p, before: blockEnd)
                    startedUntil = max(startedUntil, blockEnd + p.maxLead)
                }
            }
        }
        // The limiter needs the mix `lookahead` frames past the block only when this block or
        // the look-ahead could reach its ceiling: bounded by the sum of every clip's peak.
        let lookahead = limiter.lookahead
        var limiting = !limiter.isIdle
        if !limiting && (voices.activeCount > 0 || tone.isActive) {
            var bound = voices.levelBound + tone.levelBound
            if bound <= Limiter.ceiling, let program {
                bound += program._withUnsafeGuaranteedRef { upcoming(of: $0, from: blockEnd, count: lookahead, into: nil) }
            }
            limiting = bound > Limiter.ceiling
        }
        clock = blockEnd
        guard voices.activeCount > 0 || tone.isActive || limiting else {
            buffer.update(repeating: 0, count: frameCount * channels)
            return
        }
        mix.update(repeating: 0, count: frameCount + (limiting ? lookahead : 0))
        if limiting {
            voices.peek(into: mix + frameCount, skip: frameCount, count: lookahead)
            if tone.isActive {
                // The tone's frames after this block: advance a copy over the block first.
                var ahead = tone
                ahead.render(into: mix, count: frameCount)
                ahead.peek(into: mix + frameCount, count: lookahead)
                mix.update(repeating: 0, count: frameCount)
            }
            if let program {
                _ = program._withUnsafeGuaranteedRef { upcoming(of: $0, from: blockEnd, count: lookahead, into: mix + frameCount) }
            }
        }
        voices.mix(into: mix, frameCount: frameCount)
        if tone.isActive { tone.render(into: mix, count: frameCount) }
        if limiting { limiter.process(mix, frameCount: frameCount) }
        switch channels {
        case 1:
            buffer.update(from: mix, count: frameCount)
        case 2:
            for frame in 0..<frameCount {
                buffer[2 * frame] = mix[frame]
                buffer[2 * frame + 1] = mix[frame]
            }
        default:
            for frame in 0..<frameCount {
                let value = mix[frame]
                for channel in 0..<channels { buffer[frame * channels + channel] = value }
            }
        }
    }

    // MARK: render thread

    private func publishCounters() {
        publishedClock.store(clock, ordering: .relaxed)
        publishedVoices.store(voices.activeCount, ordering: .relaxed)
        publishedFramesUntilSilent.store(voices.framesUntilSilent, ordering: .relaxed)
        publishedToneFramesUntilSilent.store(tone.framesUntilSilent, ordering: .relaxed)
        publishedPlaying.store(playing, ordering: .relaxed)
        publishedSongOrigin.store(songOrigin, ordering: .relaxed)
        publishedEpoch.store(appliedEpoch, ordering: .relaxed)
    }

    private func takePendingProgram() {
        guard let incoming = pending.exchange(nil, ordering: .acquiringAndReleasing) else { return }
        let new = Unmanaged<EngineProgram>.fromOpaque(incoming)
        new._withUnsafeGuaranteedRef { program in
            tone.set(program.tone)
            let restart = program.transportEpoch != appliedEpoch
            var realigned = false
            var onRunningClock = false
            var relocatesClock = false
            if program.playing, let song = program.song {
                // A song starts from its beginning at each start; a new program without a
                // new start (a volume change) keeps its place.
                let previous = current.flatMap { Unmanaged<EngineProgram>.fromOpaque($0)._withUnsafeGuaranteedRef { $0.song } }
                if restart || !playing || previous == nil {
                    // With spoken words the song starts one longest lead later, so even
                    // its first word begins its lead before its onset.
                    songOrigin = startTwice(of: program).map { ($0 + 1) >> 1 } ?? clock + song.maxLead
                    songCursor = 0
                    startedUntil = clock
                } else if previous !== song, let sameBefore = song.sameBefore, clock - songOrigin > sameBefore {
                    // A live change taken up later than planned: go on from here.
                    songCursor = song.firstIndex(atOrAfter: clock - songOrigin)
                }
                // Otherwise the new schedule has the same onsets before the change as the
                // old one, at the same indices: the cursor stays.
            } else if program.playing {
                if restart || !playing || current == nil {
                    leadInActive = false
                    // The downbeat one longest lead after START (0 for clicks), so the
                    // first word too begins its lead before its onset.
                    let running = playing ? nil : clockWriter.runningTick(atOrAfter: clock + program.maxLead, program: program)
                    onRunningClock = running != nil
                    let own = running ?? clock + program.maxLead
                    placement = program.placement(of: startTwice(of: program).map { Anchor(twice: $0, bar: 0, grid: 0) }
                                                  ?? .start(atSample: own))
                    cursorBar = 0
                    cursorIndex = 0
                    startedUntil = clock
                    skipLateOnsets(of: program)
                } else if let current {
                    Unmanaged<EngineProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { old in
                        keepPhase(from: old, to: program)
                    }
                    if let alignment = program.alignment, alignment.serial != appliedAlignment {
                        realign(program, to: alignment.anchor, lateWithin: alignment.lateWithin)
                        realigned = true
                        relocatesClock = alignment.relocatesClock
                    }
                }
                if let alignment = program.alignment { appliedAlignment = alignment.serial }
            }
            let context = ClockContext(clock: clock, wasPlaying: playing, songOrigin: songOrigin, gridAnchor: anchor(of: program),
                                       placementStart: Rational.floorDivide(placement.anchor.twice + 1, 2),
                                       startTwice: startTwice(of: program), onRunningClock: onRunningClock,
                                       relocatesClock: relocatesClock)
            clockWriter.update(for: program, restart: restart, realigned: realigned, context)
            appliedEpoch = program.transportEpoch
            playing = program.playing
            if program.playing { publishAnchor(of: program) }
        }
        if let previous = current, !retired.push(previous) {
            // Cannot happen while the control side drains the ring before each publish;
            // keeping the reference (a leak) is the only real-time-safe fallback.
        }
        current = incoming
    }

    /// An outside timeline (Link, a followed clock) moved the grid: the same musical
    /// positions land on new samples from `anchor` on. The cursor keeps its place in the
    /// music, so no onset is played twice; the latest one the move made due up to
    /// `lateWithin` samples ago plays now, older ones (a jump, as when joining a session) are
    /// passed over instead of bursting out together.
    private func realign(_ program: EngineProgram, to anchor: Anchor, lateWithin: Int64) {
        leadInActive = false
        // Pinned at the render clock, not ahead of it (a followed clock places a tick 60 ms
        // ahead): a later change re-anchors from the clock, and the onsets before the
        // alignment's own time are still to play.
        let pinned = anchor.twice > 2 * clock ? program.position(from: anchor, rewoundTo: 2 * clock) : anchor
        placement = program.placement(of: pinned)
        skipLateOnsets(of: program, within: lateWithin)
        skipOnsetPlayedAlready(of: program)
    }

    /// A move that brings the next onset nearer the one played last than half its spacing on
    /// the new grid (joining a Link session: a beat 238 ms after the last at 120 BPM): the
    /// onset played stands for it, so it is passed over rather than heard as a stumble.
    private func skipOnsetPlayedAlready(of program: EngineProgram) {
        guard program.onsetCount > 0, lastOnsetSample != .min, !leadInActive else { return }
        // One due already is the late onset the caller's window lets play (a followed clock's correction).
        let next = sampleOfCursor(program)
        guard next >= clock else { return }
        var (bar, index) = (cursorBar, cursorIndex)
        var previous = next
        for _ in 0..<program.onsetCount where previous == next {
            (bar, index) = index == 0 ? (bar - 1, program.onsetCount - 1) : (bar, index - 1)
            previous = program.sample(bar: bar, offset: program.onsets[index].offset, placement: placement)
        }
        guard previous < next, next - lastOnsetSample < (next - previous) / 2 else { return }
        // Every layer's onset at that position.
        while sampleOfCursor(program) == next { stepCursor(in: program) }
    }

    /// Where a start puts bar 0 (twice the sample): the program's, moved later so its first
    /// position sounds at the render clock when that lies more than 5 ms in the past and the
    /// start plays late (a followed MIDI Start taken up late would otherwise pass over its
    /// downbeat and sound a beat behind).
    private func startTwice(of program: EngineProgram) -> Int64? {
        guard let twice = program.startTwice else { return nil }
        guard let due = program.startDueTwice, due < 2 * (clock - Int64(sampleRate / 200)) else { return twice }
        return twice + 2 * clock - due
    }

    /// Passes over the onsets due more than `within` samples (default 5 ms) before the render
    /// clock, and of those due since then all but the latest, so at most one plays late.
    private func skipLateOnsets(of program: EngineProgram, within: Int64? = nil) {
        guard program.onsetCount > 0 else { return }
        let late = clock - (within ?? Int64(sampleRate / 200))
        while true {
            let due = sampleOfCursor(program)
            guard due < clock else { return }
            let bar = cursorBar
            let index = cursorIndex
            stepCursor(in: program)
            if due >= late && sampleOfCursor(program) >= clock {
                // The latest late onset: it plays now.
                (cursorBar, cursorIndex) = (bar, index)
                return
            }
        }
    }

    /// Starts the finishing beat's subdivisions at the first one at or after the position
    /// `grid + numerator / denominator` (before the next downbeat, so negative) of `program`'s
    /// grid: its first-beat subdivisions, tiled back from the downbeat one beat at a time.
    func beginLeadIn(_ program: EngineProgram, grid: Int64, numerator: Int64) {
        leadInActive = false
        guard grid < 0, program.leadInCount > 0 else { return }
        var tile = (-grid + program.beatGrid - 1) / program.beatGrid
        while tile >= 1 {
            for i in 0..<program.leadInCount {
                let position = program.onsets[Int(program.leadIn[i])].offset - tile * program.beatGrid
                if position > grid || (position == grid && numerator == 0) {
                    (leadInActive, leadInTile, leadInIndex) = (true, tile, i)
                    return
                }
            }
            tile -= 1
        }
    }

    /// Grid offset of the next finishing-beat subdivision, from the start of `cursorBar`.
    @inline(__always)
    private func leadInOffset(_ program: EngineProgram) -> Int64 {
        program.onsets[Int(program.leadIn[leadInIndex])].offset - leadInTile * program.beatGrid
    }

    @inline(__always)
    private func advanceLeadIn(_ program: EngineProgram) {
        leadInIndex += 1
        if leadInIndex == program.leadInCount {
            leadInIndex = 0
            leadInTile -= 1
            if leadInTile == 0 { leadInActive = false }
        }
    }

    private func publishAnchor(of program: EngineProgram) {
        // A full ring only costs the screen an update; the audio never waits.
        _ = anchors.push(anchor(of: program))
    }

    /// Where the grid is pinned now, as the timeline's readers get it.
    private func anchor(of program: EngineProgram) -> GridAnchor {
        if program.song != nil {
            // A song's beats are all placed in its schedule: the anchor is its start.
            return GridAnchor(sampleTwice: 2 * songOrigin, bar: 0, positionNumerator: 0, positionDenominator: 1, program: program.serial)
        }
        let anchor = placement.anchor
        let numerator = Int128(anchor.grid) * Int128(anchor.denominator) + Int128(anchor.numerator)
        let denominator = Int128(anchor.denominator) * Int128(program.gridPerWhole)
        let g = Rational.gcd(numerator, denominator)
        return GridAnchor(sampleTwice: anchor.twice, bar: anchor.bar, positionNumerator: numerator / g,
                          positionDenominator: denominator / g, program: program.serial)
    }

    /// The cursor on to the next onset of `program`, into the next bar after its last.
    @inline(__always)
    func stepCursor(in program: EngineProgram) {
        cursorIndex += 1
        if cursorIndex == program.onsetCount {
            cursorIndex = 0
            cursorBar += 1
        }
    }

    @inline(__always)
    func sampleOfCursor(_ program: EngineProgram) -> Int64 {
        program.sample(bar: cursorBar, offset: program.onsets[cursorIndex].offset, placement: placement)
    }

    private func startOnsets(of program: EngineProgram, before blockEnd: Int64) {
        guard program.onsetCount > 0 else { return }
        // Onsets up to the longest lead ahead, so each clip begins its lead before its onset.
        let horizon = min(blockEnd + program.maxLead, startLimit.load(ordering: .relaxed))
        while leadInActive {
            let sample = max(program.sample(bar: cursorBar, offset: leadInOffset(program), placement: placement), clock)
            guard sample < horizon else { return }
            let onset = program.onsets[Int(program.leadIn[leadInIndex])]
            if sample < startedUntil {
                // Started under the previous program.
            } else if voices.start(clip: onset.clip, frames: onset.clipFrames, gain: onset.gain, level: onset.level,
                                   offset: clipOffset(sample, lead: onset.lead)) {
                events.push(OnsetEvent(sample: sample, bar: finishingBar, beat: finishingBeat, layer: onset.layer, kind: onset.kind,
                                       index: onset.index, polySteps: onset.polySteps, polySpanBeats: onset.polySpanBeats))
            } else {
                droppedOnsets.add(1, ordering: .relaxed)
            }
            advanceLeadIn(program)
        }
        while true {
            // Never before this block: only onsets due in the half sample before a change
            // (which round to its first sample) can compute earlier.
            let sample = max(sampleOfCursor(program), clock)
            guard sample < horizon else { return }
            let onset = program.onsets[cursorIndex]
            if onset.playedInBar == cursorBar || sample < startedUntil {
                // Played under the previous program (before a change moved it later, or
                // started ahead of its onset by its lead).
            } else if voices.start(clip: onset.clip, frames: onset.clipFrames, gain: onset.gain, level: onset.level,
                                   offset: clipOffset(sample, lead: onset.lead)) {
                lastOnsetSample = sample
                events.push(OnsetEvent(sample: sample, bar: cursorBar, beat: onset.beat, layer: onset.layer, kind: onset.kind,
                                        index: onset.index, polySteps: onset.polySteps, polySpanBeats: onset.polySpanBeats))
            } else {
                droppedOnsets.add(1, ordering: .relaxed)
            }
            stepCursor(in: program)
        }
    }

    /// Frames from this block's first sample to where a clip anchored `lead` frames in must
    /// begin for its anchor to sound on `sample`; a clip is never begun before the block
    /// (right after a start or a change the word begins late rather than part-way in).
    @inline(__always)
    private func clipOffset(_ sample: Int64, lead: Int) -> Int {
        Int(max(sample - Int64(lead), clock) - clock)
    }

    /// Walks the song's table: integers only, no allocation. Muted onsets are reported
    /// (the pendulum and LEDs keep counting) but start no clip.
    private func startSongOnsets(of song: SongSchedule, before blockEnd: Int64) {
        while songCursor < song.count {
            let onset = song.onsets[songCursor]
            guard onset.sample < song.endSample else { songCursor = song.count; return }
            let sample = songOrigin + onset.sample
            guard sample < blockEnd + song.maxLead else { return }
            let event = OnsetEvent(sample: sample, bar: onset.bar, beat: onset.beat, layer: onset.layer, kind: onset.kind,
                                   index: onset.index, section: onset.section, song: onset.song, isCount: onset.isCount,
                                   muted: onset.muted, bpm: onset.bpm, polySteps: onset.polySteps, polySpanBeats: onset.polySpanBeats)
            if onset.muted {
                events.push(event)
            } else if voices.start(clip: onset.clip, frames: onset.clipFrames, gain: onset.gain, level: onset.level,
                                   offset: clipOffset(max(sample, clock), lead: onset.lead)) {
                events.push(event)
            } else {
                droppedOnsets.add(1, ordering: .relaxed)
            }
            songCursor += 1
        }
    }

    /// The song onsets the cursor will start in `from ..< from + count`, without moving it
    /// (the limiter's look-ahead, as `upcoming` does for the bar pattern).
    private func upcomingSong(_ song: SongSchedule, from: Int64, count: Int, into mix: UnsafeMutablePointer<Float>?) -> Float {
        var level: Float = 0
        var index = songCursor
        while index < song.count {
            let onset = song.onsets[index]
            guard onset.sample < song.endSample else { break }
            let sample = max(songOrigin + onset.sample, from)
            guard sample < from + Int64(count) + song.maxLead else { break }
            let begin = max(sample - Int64(onset.lead), from)
            if !onset.muted && begin < from + Int64(count) {
                level += onset.level
                if let mix {
                    let offset = Int(begin - from)
                    VoicePool.addScaled(onset.clip, gain: onset.gain, into: mix + offset, count: min(count - offset, onset.clipFrames))
                }
            }
            index += 1
        }
        return level
    }

    /// One onset of `upcoming`, heard at `sample`: its clip's first frames go into `mix` when
    /// it begins in the block and was not started by an earlier block; returns its level then.
    @inline(__always)
    private func upcomingOnset(_ onset: CompiledOnset, at sample: Int64, from: Int64, count: Int,
                               into mix: UnsafeMutablePointer<Float>?) -> Float {
        let begin = max(sample - Int64(onset.lead), from)
        guard begin < from + Int64(count) && sample >= startedUntil else { return 0 }
        if let mix {
            let offset = Int(begin - from)
            VoicePool.addScaled(onset.clip, gain: onset.gain, into: mix + offset, count: min(count - offset, onset.clipFrames))
        }
        return onset.level
    }

    /// The onsets the current cursor will start in `from ..< from + count`, without moving
    /// it: their clips' first frames are added into `mix` (frame 0 = `from`) when given.
    /// Returns the sum of their levels.
    private func upcoming(of program: EngineProgram, from: Int64, count: Int, into mix: UnsafeMutablePointer<Float>?) -> Float {
        if let song = program.song { return upcomingSong(song, from: from, count: count, into: mix) }
        guard program.onsetCount > 0 else { return 0 }
        let savedBar = cursorBar, savedIndex = cursorIndex
        let savedLeadIn = (leadInActive, leadInTile, leadInIndex)
        defer {
            cursorBar = savedBar
            cursorIndex = savedIndex
            (leadInActive, leadInTile, leadInIndex) = savedLeadIn
        }
        var level: Float = 0
        let end = from + Int64(count)
        // As far as `startOnsets` will look: a lead ahead, never past an offline end.
        let horizon = min(end + program.maxLead, startLimit.load(ordering: .relaxed))
        while leadInActive {
            let sample = max(program.sample(bar: cursorBar, offset: leadInOffset(program), placement: placement), from)
            guard sample < horizon else { return level }
            let onset = program.onsets[Int(program.leadIn[leadInIndex])]
            level += upcomingOnset(onset, at: sample, from: from, count: count, into: mix)
            advanceLeadIn(program)
        }
        while true {
            let sample = max(sampleOfCursor(program), from)
            guard sample < horizon else { return level }
            let onset = program.onsets[cursorIndex]
            level += upcomingOnset(onset, at: sample, from: from, count: count, into: mix)
            stepCursor(in: program)
        }
    }
}
