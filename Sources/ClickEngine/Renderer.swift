import Synchronization
import TactusCore

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
    private let droppedOnsets = Atomic<Int>(0)

    // Render-thread state.
    private var current: UnsafeMutableRawPointer?
    private var appliedEpoch: UInt64 = 0
    private var playing = false
    /// Where the current program's grid is pinned to the sample clock (exact).
    private var placement = Placement(anchor: .start(atSample: 0), lagWhole: 0, lagRest: 0, lagDenominator: 1)
    /// Next onset to play.
    private var cursorBar: Int64 = 0
    private var cursorIndex = 0
    private var clock: Int64 = 0
    /// Song playback: the sample of the song's start and the next scheduled onset.
    private var songOrigin: Int64 = 0
    private var songCursor = 0
    private var voices: VoicePool
    private var limiter: Limiter
    private let mix: UnsafeMutablePointer<Float>

    init(sampleRate: Int, channels: Int, maxFrameCount: Int, voiceCount: Int, eventCapacity: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.maxFrameCount = maxFrameCount
        retired = SPSCRing(minimumCapacity: 64)
        events = SPSCRing(minimumCapacity: eventCapacity)
        voices = VoicePool(capacity: voiceCount)
        limiter = Limiter(sampleRate: sampleRate, maxFrames: maxFrameCount)
        mix = .allocate(capacity: max(maxFrameCount, 1))
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
        takePendingProgram()
        let blockEnd = clock + Int64(frameCount)
        if playing, let current {
            Unmanaged<EngineProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { program in
                if let song = program.song {
                    startSongOnsets(of: song, before: blockEnd)
                } else {
                    startOnsets(of: program, before: blockEnd)
                }
            }
        }
        clock = blockEnd
        guard voices.activeCount > 0 || limiter.gain < 1 else {
            buffer.update(repeating: 0, count: frameCount * channels)
            return
        }
        mix.update(repeating: 0, count: frameCount)
        voices.mix(into: mix, frameCount: frameCount)
        limiter.process(mix, frameCount: frameCount)
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

    private func takePendingProgram() {
        guard let incoming = pending.exchange(nil, ordering: .acquiringAndReleasing) else { return }
        let new = Unmanaged<EngineProgram>.fromOpaque(incoming)
        new._withUnsafeGuaranteedRef { program in
            let restart = program.transportEpoch != appliedEpoch
            if program.playing && program.song != nil {
                // A song starts from its beginning at each start; a new program without a
                // new start (a volume change) keeps its place.
                if restart || !playing || current == nil {
                    songOrigin = clock
                    songCursor = 0
                }
            } else if program.playing {
                if restart || !playing || current == nil {
                    placement = program.placement(of: .start(atSample: clock))
                    cursorBar = 0
                    cursorIndex = 0
                } else if let current {
                    Unmanaged<EngineProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { old in
                        keepPhase(from: old, to: program)
                    }
                }
            }
            appliedEpoch = program.transportEpoch
            playing = program.playing
        }
        if let previous = current, !retired.push(previous) {
            // Cannot happen while the control side drains the ring before each publish;
            // keeping the reference (a leak) is the only real-time-safe fallback.
        }
        current = incoming
    }

    /// Re-anchors so the change happens exactly at the first sample of this block: the new
    /// program continues from the exact musical position the old one had reached there
    /// (nothing is rounded, so a change that keeps the tempo moves no onset at all). Onsets
    /// whose exact time lies in the half sample before (they round to this sample and have not
    /// played) are still played, on this sample.
    private func keepPhase(from old: EngineProgram, to new: EngineProgram) {
        let anchor = placement.anchor
        // Before a start's own downbeat nothing has played yet: the start stays where it is.
        let pivotTwice = max(2 * clock, anchor.twice)
        let cutTwice = max(2 * clock - 1, anchor.twice)
        let cut = old.position(from: anchor, atTwice: cutTwice)  // what is still to play starts here
        // The position at the pivot, relative to the cut's bar, in old grid units (exact).
        var kept = old.travelled(fromTwice: cutTwice, toTwice: pivotTwice)
        kept = Anchor.add(kept, (Int128(cut.grid) * Int128(cut.denominator) + Int128(cut.numerator), Int128(cut.denominator)))
        var bar = cut.bar
        let cutOnNew = new.converted(cut, from: old)
        if cutOnNew.grid >= new.barGrid {
            // The new bar is shorter than where we are: the current beat (of the old bar)
            // finishes, then the next bar starts with its downbeat.
            let rest = old.remainingInBeat(cut)
            let barEnd = Anchor.add((Int128(cut.grid) * Int128(cut.denominator) + Int128(cut.numerator), Int128(cut.denominator)), rest)
            kept = Anchor.add(kept, (-barEnd.numerator, barEnd.denominator))
            bar += 1
            cursorBar = bar
            cursorIndex = 0
        } else {
            cursorBar = bar
            cursorIndex = 0
            if cutOnNew.grid >= 0 {
                while cursorIndex < new.onsetCount
                        && (new.onsets[cursorIndex].offset < cutOnNew.grid
                            || (new.onsets[cursorIndex].offset == cutOnNew.grid && cutOnNew.numerator != 0)) {
                    cursorIndex += 1
                }
                if cursorIndex == new.onsetCount {
                    cursorIndex = 0
                    cursorBar += 1
                }
            }
        }
        let parts = Anchor.split(kept.numerator * Int128(new.gridPerWhole), kept.denominator * Int128(old.gridPerWhole))
        placement = new.placement(of: Anchor(twice: pivotTwice, bar: bar, grid: parts.whole,
                                             numerator: parts.numerator, denominator: parts.denominator))
    }

    @inline(__always)
    private func sampleOfCursor(_ program: EngineProgram) -> Int64 {
        program.sample(bar: cursorBar, offset: program.onsets[cursorIndex].offset, placement: placement)
    }

    private func startOnsets(of program: EngineProgram, before blockEnd: Int64) {
        guard program.onsetCount > 0 else { return }
        while true {
            // Never before this block: only onsets due in the half sample before a change
            // (which round to its first sample) can compute earlier.
            let sample = max(sampleOfCursor(program), clock)
            guard sample < blockEnd else { return }
            let onset = program.onsets[cursorIndex]
            let offset = Int(max(sample - clock, 0))
            if voices.start(clip: onset.clip, frames: onset.clipFrames, gain: onset.gain, offset: offset) {
                events.push(OnsetEvent(sample: sample, bar: cursorBar, beat: onset.beat, layer: onset.layer, kind: onset.kind))
            } else {
                droppedOnsets.add(1, ordering: .relaxed)
            }
            cursorIndex += 1
            if cursorIndex == program.onsetCount {
                cursorIndex = 0
                cursorBar += 1
            }
        }
    }

    /// Walks the song's table: integers only, no allocation. Muted onsets are reported
    /// (the pendulum and LEDs keep counting) but start no clip.
    private func startSongOnsets(of song: SongSchedule, before blockEnd: Int64) {
        while songCursor < song.count {
            let onset = song.onsets[songCursor]
            guard onset.sample < song.endSample else { songCursor = song.count; return }
            let sample = songOrigin + onset.sample
            guard sample < blockEnd else { return }
            let event = OnsetEvent(sample: sample, bar: onset.bar, beat: onset.beat, layer: onset.layer, kind: onset.kind,
                                   section: onset.section, song: onset.song, isCount: onset.isCount, muted: onset.muted,
                                   bpm: onset.bpm)
            if onset.muted {
                events.push(event)
            } else if voices.start(clip: onset.clip, frames: onset.clipFrames, gain: onset.gain, offset: Int(max(sample - clock, 0))) {
                events.push(event)
            } else {
                droppedOnsets.add(1, ordering: .relaxed)
            }
            songCursor += 1
        }
    }

    /// Song playback: the engine sample where the song stops starting clicks, or nil.
    public var songEndSample: Int64? {
        guard playing, let current else { return nil }
        return Unmanaged<EngineProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { program in
            program.song.map { songOrigin + $0.endSample }
        }
    }

    // MARK: queries (offline use and tests: call from the thread that renders)

    /// Frames rendered so far: the engine's sample clock.
    public var sampleClock: Int64 { clock }
    public var activeVoiceCount: Int { voices.activeCount }
    /// Frames from now until every playing clip has finished.
    public var framesUntilSilent: Int { voices.framesUntilSilent }
    /// Onsets dropped because every voice was busy.
    public var droppedOnsetCount: Int { droppedOnsets.load(ordering: .relaxed) }
    public var isPlaying: Bool { playing }

    /// The sample at which bar `bar` (counted from the last start) begins under the program
    /// in use, or nil when stopped.
    public func sampleOfBarStart(_ bar: Int64) -> Int64? {
        guard playing, let current else { return nil }
        return Unmanaged<EngineProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { program in
            program.sample(bar: bar, offset: 0, placement: placement)
        }
    }
}
