// SPDX-License-Identifier: GPL-3.0-or-later
import Devices
import HAL
import TactusBase
import TactusInstrument
import TactusScreen

/// The panel: draws a frame when the content changed or the pendulum moves (paced by
/// `FrameScheduler`), keeps the contrast, and tries a display that went missing again every
/// few seconds even when nothing changes, so it comes back by itself.
final class ScreenFeature: BoxFeature {
    let display: (any MonochromeDisplay)?
    private var frames: FrameScheduler
    /// Something the screen shows changed since the last frame.
    var changed = true
    private var lastFrame: Bitmap?
    private var lastContrast: UInt8?
    private var nextDisplayRetry: MonotonicTime?

    init(display: (any MonochromeDisplay)?, maximumFramesPerSecond: Int) {
        self.display = display
        frames = FrameScheduler(maximumFramesPerSecond: maximumFramesPerSecond)
    }

    func perform(_ effect: Effect, at time: MonotonicTime, in box: Box) {
        switch effect {
        case .applySettings, .start, .stop, .screen: changed = true
        default: break
        }
    }

    func gridChanged(from sample: Int64?, in box: Box) {
        if sample == nil { changed = true }
    }

    func advance(_ box: Box) {
        drawIfDue(box)
        retryMissingDisplay(box)
    }

    func nextWakeup(_ box: Box) -> MonotonicTime? {
        [nextFrameStart(box), nextDisplayRetry].compactMap { $0 }.min()
    }

    func initialize(report: (String) -> Void) {
        guard let display else { return report("display: none configured") }
        do { try display.initialize() } catch { report("display: \(error); running without it, retrying") }
        changed = true
    }

    func blank(report: (String) -> Void) {
        guard let display else { return }
        do {
            try display.show(display.blankFrame())
            try display.setSleeping(true)
        } catch { report("display: \(error)") }
    }

    private func retryMissingDisplay(_ box: Box) {
        guard let resilient = display as? ResilientDisplay, !resilient.isWorking else {
            nextDisplayRetry = nil
            return
        }
        if let due = nextDisplayRetry, due > box.now { return }
        resilient.poll()
        if resilient.isWorking {
            changed = true
            box.part("Display", working: true)
        }
        nextDisplayRetry = box.now.advanced(byNanoseconds: resilient.retryNanoseconds)
    }

    /// Every page keeps the beat visible while playing (the pendulum, or the beat strip).
    private func animating(_ box: Box) -> Bool { box.state.isPlaying && !box.grid.isEmpty }

    private func nextFrameStart(_ box: Box) -> MonotonicTime? {
        guard display != nil || box.observer != nil else { return nil }
        let animating = animating(box)
        var nextBeat: Int64?
        if animating, let clock = box.outputClock {
            if let beat = box.grid.beat(atSample: Double(Box.frame(heardAt: box.now, on: clock))) { nextBeat = clock.outputNanoseconds(ofSample: beat.nextBeatSample) }
        }
        return frames.nextFrameStart(now: box.now.nanoseconds, animating: animating, contentChanged: changed,
                                     nextBeatNanoseconds: nextBeat).map { MonotonicTime(nanoseconds: $0) }
    }

    private func drawIfDue(_ box: Box) {
        guard let start = nextFrameStart(box), start <= box.now else { return }
        let shownAt = frames.presentationTime(ofFrameStartingAt: box.now.nanoseconds)
        let heard = box.outputClock?.heardSample(atNanoseconds: shownAt) ?? 0
        let model = ScreenPresenter.model(for: box.state, grid: animating(box) ? box.grid : nil)
        let frame = ScreenRenderer.render(model, heardSample: heard)
        changed = false
        if frame != lastFrame {
            lastFrame = frame
            show(frame, contrast: model.contrast, report: box.report)
            box.observer?.box(box, didShow: frame, at: box.now)
        }
        // Frame time is measured by the caller's clock on the next advance; render and I2C
        // happen inside this call, so the start is a fair stand-in for both ends here.
        frames.frameFinished(startedAt: start.nanoseconds, finishedAt: max(start.nanoseconds, box.now.nanoseconds))
    }

    private func show(_ frame: Bitmap, contrast: UInt8, report: (String) -> Void) {
        guard let display else { return }
        do {
            if lastContrast != contrast {
                try display.setContrast(contrast)
                lastContrast = contrast
            }
            try display.show(frame)
        } catch { report("display: \(error)") }
    }
}
