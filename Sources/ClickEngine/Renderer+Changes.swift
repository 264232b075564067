// SPDX-License-Identifier: GPL-3.0-or-later
import TactusBase
import TactusTimeline

/// A new program while playing (a change): where the render thread's cursor goes on from.
extension ClickRenderer {
    /// Re-anchors so the change happens exactly at the first sample of this block: the new
    /// program continues from the exact musical position the old one had reached there
    /// (nothing is rounded, so a change that keeps the tempo moves no onset at all). Onsets
    /// whose exact time lies in the half sample before (they round to this sample and have not
    /// played) are still played, on this sample.
    func keepPhase(from old: EngineProgram, to new: EngineProgram) {
        let anchor = placement.anchor
        // A start still waiting for its downbeat (the cursor on bar 0's first onset: nothing of
        // it played) keeps that downbeat where the grid has it now, whatever the anchor: after
        // an outside re-placement (Link re-mapping a start that waits for the quantum) the
        // anchor lies in bar -1, and carrying the position from there would play bar -1's last
        // beats before the start.
        if cursorBar == 0 && cursorIndex == 0 && !leadInActive {
            let startTwice = anchor.bar == 0 && anchor.grid == 0 && anchor.numerator == 0
                ? anchor.twice : 2 * old.sample(bar: 0, offset: 0, placement: placement)
            if startTwice >= 2 * clock - 1 {
                placement = new.placement(of: Anchor(twice: startTwice, bar: 0, grid: 0))
                return
            }
        }
        // Before a start's own downbeat nothing has played yet: the start stays where it is.
        let pivotTwice = max(2 * clock, anchor.twice)
        let cutTwice = max(2 * clock - 1, anchor.twice)
        let cut = old.position(from: anchor, atTwice: cutTwice)  // what is still to play starts here
        let unplayed = playedAhead(of: cut, in: old)
        // The position at the pivot, relative to the cut's bar, in old grid units (exact).
        var kept = old.travelled(fromTwice: cutTwice, toTwice: pivotTwice)
        kept = Anchor.add(kept, (Int128(cut.grid) * Int128(cut.denominator) + Int128(cut.numerator), Int128(cut.denominator)))
        var bar = cut.bar
        var carry = false
        let cutOnNew = new.converted(cut, from: old)
        if cutOnNew.grid >= new.barGrid {
            // The new bar is shorter than where we are: the current beat (of the old bar)
            // finishes, with the new subdivisions, then the next bar starts with its downbeat.
            let rest = old.remainingInBeat(cut)
            let cutPosition = (Int128(cut.grid) * Int128(cut.denominator) + Int128(cut.numerator), Int128(cut.denominator))
            let barEnd = Anchor.add(cutPosition, rest)
            kept = Anchor.add(kept, (-barEnd.numerator, barEnd.denominator))
            bar += 1
            cursorBar = bar
            cursorIndex = 0
            finishingBar = cut.bar
            finishingBeat = Int32(cut.grid / old.beatGrid)
            // Where the cut lies before the next downbeat, on the new grid (exact, negative).
            let before = Anchor.add(cutPosition, (-barEnd.numerator, barEnd.denominator))
            let onNew = Anchor.split(before.numerator * Int128(new.gridPerWhole), before.denominator * Int128(old.gridPerWhole))
            beginLeadIn(new, grid: onNew.whole, numerator: onNew.numerator)
        } else if cutOnNew.grid < 0 {
            // A change while a beat finishes after a shrink: it goes on with this program.
            cursorBar = bar
            cursorIndex = 0
            beginLeadIn(new, grid: cutOnNew.grid, numerator: cutOnNew.numerator)
        } else {
            leadInActive = false
            cursorBar = bar
            cursorIndex = 0
            if cutOnNew.grid >= 0 {
                carry = true
                cursorIndex = new.firstOnset(atOrAfter: cutOnNew)
                if cursorIndex == new.onsetCount {
                    cursorIndex = 0
                    cursorBar += 1
                }
                if let unplayed { skipPlayed(before: unplayed, old: old, new: new) }
            }
        }
        let parts = Anchor.split(kept.numerator * Int128(new.gridPerWhole), kept.denominator * Int128(old.gridPerWhole))
        placement = new.placement(of: Anchor(twice: pivotTwice, bar: bar, grid: parts.whole,
                                             numerator: parts.numerator, denominator: parts.denominator))
        if carry { carryMovedNotes(from: old, to: new, oldCut: cut, newCut: cutOnNew, bar: cut.bar) }
    }

    /// The cursor's onset when onsets between the cut and it were already played: an
    /// alignment moved them ahead of the clock again (a followed clock's grid moving later),
    /// and a change must not play them twice. Nil in the usual case, the cursor on the first
    /// onset at or after the cut (a swing change then moves notes across it freely).
    private func playedAhead(of cut: Anchor, in old: EngineProgram) -> (bar: Int64, offset: Int64)? {
        guard !leadInActive, old.onsetCount > 0, cut.grid >= 0, cut.grid < old.barGrid else { return nil }
        var bar = cut.bar
        var index = old.firstOnset(atOrAfter: cut)
        if index == old.onsetCount { (bar, index) = (bar + 1, 0) }
        guard cursorBar > bar || (cursorBar == bar && cursorIndex > index) else { return nil }
        return (cursorBar, old.onsets[cursorIndex].offset)
    }

    /// Moves the cursor on to `unplayed` (an onset of `old`, on `new`'s grid): what lies
    /// before it was played. Exact: offsets compared across the two grids by cross-multiplying.
    private func skipPlayed(before unplayed: (bar: Int64, offset: Int64), old: EngineProgram, new: EngineProgram) {
        while cursorBar < unplayed.bar || (cursorBar == unplayed.bar
                && Int128(new.onsets[cursorIndex].offset) * Int128(old.gridPerWhole)
                    < Int128(unplayed.offset) * Int128(new.gridPerWhole)) {
            stepCursor(in: new)
        }
    }

    /// Notes that a change moves across the cut (a swing or groove amount changing while
    /// the bar plays) keep "played once": a note the old program already played and the
    /// new one puts later is not played again in this bar; a note the old program had
    /// still to play and the new one puts earlier is played now, at the first sample of
    /// this block (unless an onset starts on that very sample). Linear in the onsets.
    private func carryMovedNotes(from old: EngineProgram, to new: EngineProgram, oldCut: Anchor, newCut: Anchor, bar: Int64) {
        // An onset at grid x is still to play when it lies at or after the exact cut.
        @inline(__always) func toPlay(_ x: Int64, _ cut: Anchor) -> Bool {
            x > cut.grid || (x == cut.grid && cut.numerator == 0)
        }
        var i = 0
        var j = 0
        var late: CompiledOnset?
        while i < old.onsetCount && j < new.onsetCount {
            let a = old.onsets[Int(old.byKey[i])]
            let bIndex = Int(new.byKey[j])
            let b = new.onsets[bIndex]
            if a.key < b.key { i += 1; continue }
            if a.key > b.key { j += 1; continue }
            let played = !toPlay(a.offset, oldCut) || a.playedInBar == bar
            let ahead = toPlay(b.offset, newCut)
            if played && ahead {
                new.onsets[bIndex].playedInBar = bar
            } else if !played && !ahead && late == nil {
                late = b
            }
            i += 1
            j += 1
        }
        // With leads, the old program already started what lies ahead of this block.
        guard let late, startedUntil <= clock else { return }
        if cursorIndex < new.onsetCount && sampleOfCursor(new) <= clock { return } // one click on this sample
        if voices.start(clip: late.clip, frames: late.clipFrames, gain: late.gain, level: late.level, offset: 0) {
            events.push(OnsetEvent(sample: clock, bar: bar, beat: late.beat, layer: late.layer, kind: late.kind, index: late.index,
                                   polySteps: late.polySteps, polySpanBeats: late.polySpanBeats))
        } else {
            droppedOnsets.add(1, ordering: .relaxed)
        }
    }
}
