// SPDX-License-Identifier: GPL-3.0-or-later
import ClickEngine
import TactusBase
import TactusInstrument
import TactusTimeline
import HAL

/// One part of the box with state of its own (the screen, the indicators, the practice log,
/// the live view, the song's end, ...), plugged into the event machine through this one seam:
/// the box hands every feature each effect of the reducer, each onset as it is heard, each
/// change of the grid, and time; it asks each when it next needs time. A new feature is a
/// new type and one line that registers it (`Box.register`, in BoxAssembly for a feature
/// with parts of its own; docs/dev/CONTRIBUTING.md shows one).
/// Features run on the box's one thread, like the box.
protocol BoxFeature: AnyObject {
    /// An effect of the reducer (every effect reaches every feature; most ignore most).
    func perform(_ effect: Effect, at time: MonotonicTime, in box: Box)
    /// An onset of the engine, heard at `time` (the output clock that placed it: `clock`).
    func heard(_ event: OnsetEvent, at time: MonotonicTime, clock: AudioOutputClock, in box: Box)
    /// The published grid gained a piece from `sample` on, or (nil) was forgotten at START/STOP.
    func gridChanged(from sample: Int64?, in box: Box)
    /// The box took in what the engine published by now (grid pieces), before the onsets.
    func gridPublished(clock: AudioOutputClock, in box: Box)
    /// Time moved on to `box.now`: whatever is due by then.
    func advance(_ box: Box)
    /// When `advance` next has something to do, at the latest (nil: only when told).
    func nextWakeup(_ box: Box) -> MonotonicTime?
    /// A start from `origin` is this feature's to place (a followed clock, a Link session):
    /// it starts the engine and says true; the first feature that does wins, else the box
    /// starts on its own.
    func placeStart(_ origin: TransportOrigin, in box: Box) -> Bool
}

extension BoxFeature {
    func perform(_ effect: Effect, at time: MonotonicTime, in box: Box) {}
    func heard(_ event: OnsetEvent, at time: MonotonicTime, clock: AudioOutputClock, in box: Box) {}
    func gridChanged(from sample: Int64?, in box: Box) {}
    func gridPublished(clock: AudioOutputClock, in box: Box) {}
    func advance(_ box: Box) {}
    func nextWakeup(_ box: Box) -> MonotonicTime? { nil }
    func placeStart(_ origin: TransportOrigin, in box: Box) -> Bool { false }
}

/// The box's features, in the order they run (each list is built once, at the box's start).
struct BoxFeatures {
    let screen: ScreenFeature
    let indicators: IndicatorFeature
    let practice: PracticeFeature
    let liveView: LiveViewFeature
    /// Every feature, in the order the box calls them.
    private(set) var all: [any BoxFeature]

    init(display: (any MonochromeDisplay)?, indicators: any IndicatorOutput, indicatorSettings: IndicatorSettings,
         maximumFramesPerSecond: Int) {
        screen = ScreenFeature(display: display, maximumFramesPerSecond: maximumFramesPerSecond)
        self.indicators = IndicatorFeature(output: indicators, settings: indicatorSettings)
        practice = PracticeFeature()
        liveView = LiveViewFeature()
        // The order of the original switches: the log and the song's progress before the
        // pulses of an onset; the song's end before the frame that shows it.
        all = [practice, SongFeature(), self.indicators, liveView, screen]
    }
}

extension Box {
    /// Adds a feature after the standard ones (at assembly, before the box runs).
    func register(_ feature: any BoxFeature) {
        features.add(feature)
    }
}

extension BoxFeatures {
    mutating func add(_ feature: any BoxFeature) { all.append(feature) }
    /// The features that move the grid from outside (a followed clock, Link, the coach's
    /// calibration) run before the standard ones, as they did before the seam.
    mutating func addFirst(_ features: [any BoxFeature]) { all.insert(contentsOf: features, at: 0) }
}
