// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusMusic
/// Tempo from the hand: the wheel and the TAP button, and what the wheel tells the buzzer.
public struct TempoControl: Sendable {
    public internal(set) var wheel: TempoWheel
    public internal(set) var tap: TapTempo

    public init(bpm: Double, preferences: Preferences) {
        var tuning = TempoWheel.Tuning()
        tuning.momentum = preferences.momentum
        wheel = TempoWheel(bpm: bpm, tuning: tuning)
        tap = TapTempo(tolerancePercent: preferences.tapTolerancePercent)
    }

    mutating func follow(_ preferences: Preferences) {
        wheel.tuning.momentum = preferences.momentum
        tap.tolerancePercent = preferences.tapTolerancePercent
    }

    /// Another control set the tempo: the wheel continues from it.
    mutating func set(_ tempo: Tempo) { wheel.set(bpm: tempo.bpm.doubleValue) }

    /// A detent in tempo mode: the new whole BPM (if it changed) and the buzzer cues.
    mutating func detent(_ direction: Int, at time: MonotonicTime) -> (bpm: Int?, effects: [Effect]) {
        tap.reset()
        return translate(wheel.detent(direction, at: time))
    }

    mutating func advance(to time: MonotonicTime) -> (bpm: Int?, effects: [Effect]) {
        translate(wheel.advance(to: time))
    }

    /// A tap: the tapped tempo once a series has two taps.
    mutating func tap(at time: MonotonicTime) -> Tempo? {
        tap.tap(at: time).map { Tempo(clampingWholeBPM: $0) }
    }

    var nextDeadline: MonotonicTime? { wheel.nextDeadline }

    private func translate(_ events: [TempoWheel.Event]) -> (bpm: Int?, effects: [Effect]) {
        var bpm: Int?
        var effects: [Effect] = []
        for event in events {
            switch event {
            case .tempo(let value): bpm = value
            case .tick(_, let at): effects.append(.buzzer(.tick, at: at))
            case .limit(let at): effects.append(.buzzer(.bump, at: at))
            }
        }
        return (bpm, effects)
    }
}

/// Playing or not.
public struct Transport: Sendable, Hashable {
    public internal(set) var isPlaying = false

    mutating func toggle() -> Effect {
        isPlaying.toggle()
        return isPlaying ? .start(.box) : .stop(.box)
    }
}

/// Who starts or stops playing: the box's own controls (START, the footswitch, a song, the
/// companion, shutting down), a followed MIDI clock, or a Link peer (start/stop sync).
public enum TransportOrigin: Sendable, Hashable {
    case box
    /// A followed MIDI Start, Continue or Stop; a start carries where it places the grid.
    case midiClock(MIDIClockStart?)
    case link
}

/// Where a followed MIDI Start or Continue puts the grid, in twice the engine's samples (the
/// one exact unit of the timeline): bar 0 at `barZeroTwice`, the first clock tick to sound
/// (bar 0's downbeat or the Song Position Pointer's) at `firstTickTwice`.
public struct MIDIClockStart: Sendable, Hashable {
    public var barZeroTwice: Int64
    public var firstTickTwice: Int64

    public init(barZeroTwice: Int64, firstTickTwice: Int64) {
        self.barZeroTwice = barZeroTwice
        self.firstTickTwice = firstTickTwice
    }
}
