// SPDX-License-Identifier: GPL-3.0-or-later
import CLink
import TactusBase
import Glibc
import HAL

/// Ableton Link through Tactus's C interface (Sources/CLink). Link keeps its own threads and
/// sockets (UDP multicast 224.76.78.75:20808 and unicast on every interface that is up).
/// Its host clock is CLOCK_MONOTONIC_RAW in microseconds; the box's times are CLOCK_MONOTONIC
/// nanoseconds minus `originNanoseconds` (0 for `tactus run`, the start of the run for
/// `simulate --realtime`), so every conversion reads both clocks at once: NTP's slewing of
/// CLOCK_MONOTONIC never builds up.
public final class AbletonLink: LinkSession {
    private let link: OpaquePointer
    private let state: OpaquePointer
    /// CLOCK_MONOTONIC of the box's time 0, read at every conversion (a real-time simulation
    /// sets it when its run begins).
    private let origin: () -> Int64
    private var originNanoseconds: Int64 { origin() }

    public init?(tempo: Double, origin: @escaping () -> Int64 = { 0 }) {
        guard let link = tactus_link_create(tempo), let state = tactus_link_state_create() else { return nil }
        self.link = link
        self.state = state
        self.origin = origin
    }

    deinit {
        tactus_link_enable(link, false)
        tactus_link_destroy(link)
        tactus_link_state_destroy(state)
    }

    public func enable(_ enabled: Bool) { tactus_link_enable(link, enabled) }
    public var isEnabled: Bool { tactus_link_is_enabled(link) }
    public func enableStartStopSync(_ enabled: Bool) { tactus_link_enable_start_stop_sync(link, enabled) }
    public var peers: Int { Int(tactus_link_peers(link)) }

    /// Link's host time (µs) and the box's time (ns) of the same moment.
    private func clocks() -> (linkMicros: Int64, box: Int64) {
        let before = Syscalls.monotonicNanoseconds()
        let micros = tactus_link_clock_micros(link)
        let after = Syscalls.monotonicNanoseconds()
        return (micros, before + (after - before) / 2 - originNanoseconds)
    }

    private func micros(_ time: MonotonicTime, _ now: (linkMicros: Int64, box: Int64)) -> Int64 {
        now.linkMicros + Int64((Double(time.nanoseconds - now.box) / 1000).rounded())
    }

    private func boxTime(_ micros: Int64, _ now: (linkMicros: Int64, box: Int64)) -> MonotonicTime {
        MonotonicTime(nanoseconds: now.box + (micros - now.linkMicros) * 1000)
    }

    public func capture(quantum: Double) -> LinkTimeline {
        tactus_link_capture_app_state(link, state)
        let now = clocks()
        return LinkTimeline(tempo: tactus_link_state_tempo(state),
                            beatOrigin: tactus_link_state_beat_at_time(state, now.linkMicros, quantum), quantum: quantum,
                            timeOrigin: MonotonicTime(nanoseconds: now.box), isPlaying: tactus_link_state_is_playing(state),
                            timeForIsPlaying: boxTime(tactus_link_state_time_for_is_playing(state), now))
    }

    public func commit(tempo: Double, at time: MonotonicTime) {
        tactus_link_capture_app_state(link, state)
        tactus_link_state_set_tempo(state, tempo, micros(time, clocks()))
        tactus_link_commit_app_state(link, state)
    }

    public func commit(beat: Double, at time: MonotonicTime, quantum: Double) {
        tactus_link_capture_app_state(link, state)
        tactus_link_state_force_beat_at_time(state, beat, micros(time, clocks()), quantum)
        tactus_link_commit_app_state(link, state)
    }

    public func commit(playing: Bool, at time: MonotonicTime) {
        tactus_link_capture_app_state(link, state)
        tactus_link_state_set_playing(state, playing, micros(time, clocks()))
        tactus_link_commit_app_state(link, state)
    }
}
