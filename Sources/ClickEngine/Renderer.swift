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
    /// The anchor: sample anchorTwice / 2 is musical position (anchorBar, anchorOffset).
    private var anchorTwice: Int64 = 0
    private var anchorBar: Int64 = 0
    private var anchorOffset: Int64 = 0
    /// Next onset to play.
    private var cursorBar: Int64 = 0
    private var cursorIndex = 0
    private var clock: Int64 = 0
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
            Unmanaged<EngineProgram>.fromOpaque(current)._withUnsafeGuaranteedRef { startOnsets(of: $0, before: blockEnd) }
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
            if program.playing {
                if restart || !playing || current == nil {
                    anchorTwice = 2 * clock
                    anchorBar = 0
                    anchorOffset = 0
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

    /// Re-anchors so the musical position at the first sample of this block carries over:
    /// onsets whose exact time rounds into an earlier block were played by the old program;
    /// the rest follow from the same position in the bar under the new one.
    private func keepPhase(from old: EngineProgram, to new: EngineProgram) {
        let cutTwice = 2 * clock - 1 // the boundary between rendered and not yet rendered
        let fromAnchor = old.gridCeiling(anchorTwice: anchorTwice, sampleTwice: cutTwice) + Int128(anchorOffset)
        let barsAhead = Rational.floorDivide(fromAnchor, Int128(old.barGrid))
        let bar = anchorBar + Int64(barsAhead)
        let oldOffset = fromAnchor - barsAhead * Int128(old.barGrid)
        // Same position in whole notes on the new grid, rounded up so no onset is doubled.
        var offset = Int64(-Rational.floorDivide(-oldOffset * Int128(new.gridPerWhole), Int128(old.gridPerWhole)))
        let sameBar = offset < new.barGrid
        if offset >= new.barGrid {
            // The new bar is shorter than where we are: finish the current beat, then a downbeat.
            let toNextBeat = (offset + new.beatGrid - 1) / new.beatGrid * new.beatGrid - offset
            offset = max(0, new.barGrid - toNextBeat)
        }
        anchorTwice = cutTwice
        anchorBar = bar
        anchorOffset = offset
        cursorBar = bar
        cursorIndex = 0
        while cursorIndex < new.onsetCount && new.onsets[cursorIndex].offset < offset { cursorIndex += 1 }
        if sameBar { carryMovedNotes(from: old, to: new, oldCut: oldOffset, newCut: Int128(offset), bar: bar) }
        if cursorIndex == new.onsetCount {
            cursorIndex = 0
            cursorBar += 1
        }
    }

    /// Notes that a change moves across the cut (a swing or groove amount changing while
    /// the bar plays) keep "played once": a note the old program already played and the
    /// new one puts later is not played again in this bar; a note the old program had
    /// still to play and the new one puts earlier is played now, at the first sample of
    /// this block (unless an onset starts on that very sample). Linear in the onsets.
    private func carryMovedNotes(from old: EngineProgram, to new: EngineProgram, oldCut: Int128, newCut: Int128, bar: Int64) {
        var i = 0
        var j = 0
        var late: CompiledOnset?
        while i < old.onsetCount && j < new.onsetCount {
            let a = old.onsets[Int(old.byKey[i])]
            let bIndex = Int(new.byKey[j])
            let b = new.onsets[bIndex]
            if a.key < b.key { i += 1; continue }
            if a.key > b.key { j += 1; continue }
            let played = Int128(a.offset) < oldCut || a.playedInBar == bar
            let ahead = Int128(b.offset) >= newCut
            if played && ahead {
                new.onsets[bIndex].playedInBar = bar
            } else if !played && !ahead && late == nil {
                late = b
            }
            i += 1
            j += 1
        }
        guard let late else { return }
        if cursorIndex < new.onsetCount && sampleOfCursor(new) == clock { return }
        if voices.start(clip: late.clip, frames: late.clipFrames, gain: late.gain, offset: 0) {
            events.push(OnsetEvent(sample: clock, bar: bar, beat: late.beat, layer: late.layer, kind: late.kind, index: late.index))
        } else {
            droppedOnsets.add(1, ordering: .relaxed)
        }
    }

    @inline(__always)
    private func sampleOfCursor(_ program: EngineProgram) -> Int64 {
        let fromAnchor = Int128(cursorBar - anchorBar) * Int128(program.barGrid)
            + Int128(program.onsets[cursorIndex].offset - anchorOffset)
        return program.sample(anchorTwice: anchorTwice, gridFromAnchor: fromAnchor)
    }

    private func startOnsets(of program: EngineProgram, before blockEnd: Int64) {
        guard program.onsetCount > 0 else { return }
        while true {
            let sample = sampleOfCursor(program)
            guard sample < blockEnd else { return }
            let onset = program.onsets[cursorIndex]
            let offset = Int(max(sample - clock, 0))
            if onset.playedInBar == cursorBar {
                // Played under the previous program before a change moved it later.
            } else if voices.start(clip: onset.clip, frames: onset.clipFrames, gain: onset.gain, offset: offset) {
                events.push(OnsetEvent(sample: sample, bar: cursorBar, beat: onset.beat, layer: onset.layer, kind: onset.kind,
                                        index: onset.index))
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
            program.sample(anchorTwice: anchorTwice,
                           gridFromAnchor: Int128(bar - anchorBar) * Int128(program.barGrid) - Int128(anchorOffset))
        }
    }
}
