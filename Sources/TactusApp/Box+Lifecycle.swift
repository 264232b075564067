// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import TactusBase

/// The box's one thread, and its start and shutdown steps in the order the services run them.
extension Box {
    // MARK: the one thread

    /// Debug builds stop here when a second thread touches the box; release builds compile it
    /// away (the ControlLoop's queue is what keeps the box on its thread there).
    @inline(__always)
    func preconditionOnBoxThread(_ function: StaticString = #function) {
        #if DEBUG
        let current = UInt(bitPattern: Int(bitPattern: pthread_self()))
        if boxThread == 0 { boxThread = current }
        precondition(boxThread == current, "Box.\(function) on a second thread: only the box's thread may touch it (post to its ControlLoop)")
        #endif
    }

    /// Makes the calling thread the box's thread, for a loop that starts a thread of its own
    /// and hands the box to it (nothing else may hold the box afterwards).
    public func takeOver() {
        #if DEBUG
        boxThread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        #endif
    }

    // MARK: shutdown, in the order the services stop

    /// No new clicks; those in flight play to their end.
    public func stopPlayback() {
        preconditionOnBoxThread()
        perform(state.handle(.transport(playing: false, origin: .box, at: now)), at: now)
        engine.stop()
        forgetGrid()
    }

    /// START and STOP: the grid is gone until the engine publishes the next; a remote view
    /// is told so (the beats it was announced do not sound).
    func forgetGrid() {
        grid.removeAll()
        for feature in features.all { feature.gridChanged(from: nil, in: self) }
    }

    /// Writes the settings file now (the reducer's debounce may still be waiting).
    /// The problem, if the file could not be written (a change is answered only once saved).
    @discardableResult
    public func saveNow() -> String? {
        preconditionOnBoxThread()
        do { try persistence.save(state.saved) } catch {
            report("saving settings failed: \(error)")
            return "\(error)"
        }
        return nil
    }

    public func initializeDisplay() {
        preconditionOnBoxThread()
        features.screen.initialize(report: report)
    }

    public func blankDisplay() {
        preconditionOnBoxThread()
        features.screen.blank(report: report)
    }

    public func indicatorsOff() {
        preconditionOnBoxThread()
        features.indicators.allOff()
    }
}
