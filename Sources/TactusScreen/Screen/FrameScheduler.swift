// SPDX-License-Identifier: GPL-3.0-or-later
/// When to draw the next frame. Pure: it is told the time and how long frames take.
///
/// While playing it paces frames at up to `maximumFramesPerSecond`, slower when the bus
/// cannot keep up (never a burst to catch up), and moves the frame nearest each beat so it
/// is on the panel at the beat's output time: the bob is seen at its end on the beat.
/// Stopped, it draws only when something changed.
public struct FrameScheduler: Sendable, Hashable {
    public var maximumFramesPerSecond: Int
    /// Measured time from starting a frame to its last byte on the panel (render + I2C).
    public private(set) var frameDurationNanoseconds: Int64
    public private(set) var lastFrameStart: Int64?

    public init(maximumFramesPerSecond: Int = 60, expectedFrameDurationNanoseconds: Int64 = 5_000_000) {
        precondition(maximumFramesPerSecond > 0, "frame rate must be positive")
        self.maximumFramesPerSecond = maximumFramesPerSecond
        self.frameDurationNanoseconds = expectedFrameDurationNanoseconds
    }

    public var minimumIntervalNanoseconds: Int64 { (1_000_000_000 + Int64(maximumFramesPerSecond) - 1) / Int64(maximumFramesPerSecond) }

    /// When to start the next frame, or nil when there is nothing to draw.
    /// `nextBeatNanoseconds` is the output time of the next beat (from the beat timeline
    /// and the audio clock) while playing.
    public func nextFrameStart(now: Int64, animating: Bool, contentChanged: Bool, nextBeatNanoseconds: Int64? = nil) -> Int64? {
        guard animating || contentChanged else { return nil }
        guard let last = lastFrameStart else { return now }
        let interval = max(minimumIntervalNanoseconds, frameDurationNanoseconds)
        let earliest = max(now, last + interval)
        if animating, let beat = nextBeatNanoseconds {
            let beatFrame = beat - frameDurationNanoseconds
            // Wait (less than one interval) for the beat's frame rather than draw just before it.
            if beatFrame >= earliest && beatFrame < earliest + interval { return beatFrame }
        }
        return earliest
    }

    /// The moment the frame started at `start` will be on the panel: draw the pendulum for it.
    public func presentationTime(ofFrameStartingAt start: Int64) -> Int64 { start + frameDurationNanoseconds }

    /// Records a frame; the duration follows measurements quickly upwards (a slow bus must
    /// lower the rate at once) and slowly downwards.
    public mutating func frameFinished(startedAt start: Int64, finishedAt end: Int64) {
        lastFrameStart = start
        let measured = max(0, end - start)
        frameDurationNanoseconds = measured > frameDurationNanoseconds
            ? measured
            : frameDurationNanoseconds - (frameDurationNanoseconds - measured) / 8
    }
}
