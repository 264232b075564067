#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Scenario 24's check: the coach's live hits against the take's known offsets.

    coach.py SERVICE.LOG TRUTH.TXT [--tolerance 10] [--median 3]

TRUTH.TXT (guest/coachtake.c): "j beat offset_ms" per hit, beat counted from the box's
first click (beat 0 = bar 0's downbeat after START, 4/4). The service log has one line per
judged hit, `coach: hit bar B beat N index I error_ms E`. Every hit must be there, on its
beat (bar*4 + index = beat, on the default grid of beats), each error within TOLERANCE ms of
its offset, the median of (error - offset) within MEDIAN ms, and no other hits."""
import argparse
import re
import statistics
import sys

LINE = re.compile(r"coach: hit bar (-?\d+) beat (\d+) index (\d+) error_ms (-?\d+\.\d+)")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("log")
    p.add_argument("truth")
    p.add_argument("--tolerance", type=float, default=10.0)
    p.add_argument("--median", type=float, default=3.0)
    p.add_argument("--beats-per-bar", type=int, default=4)
    a = p.parse_args()
    truth = {}
    for line in open(a.truth):
        if line.strip():
            j, beat, off = line.split()
            truth[int(beat)] = float(off)
    heard = {}
    extra = []
    for m in LINE.finditer(open(a.log, errors="replace").read()):
        bar, _, index, err = int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4))
        beat = bar * a.beats_per_bar + index
        if beat in truth and beat not in heard:
            heard[beat] = err
        else:
            extra.append(f"bar {bar} index {index} {err:+.2f} ms")
    problems = []
    missing = sorted(set(truth) - set(heard))
    if not truth:
        problems.append("no truth (the take never started: no click seen?)")
    if missing:
        problems.append(f"{len(missing)} of {len(truth)} hits not judged (beats {missing})")
    if extra:
        problems.append(f"{len(extra)} extra hits: {', '.join(extra[:5])}")
    dev = {b: heard[b] - truth[b] for b in heard}
    far = {b: d for b, d in dev.items() if abs(d) > a.tolerance}
    if far:
        problems.append("off the truth by more than %g ms: %s" % (
            a.tolerance, ", ".join(f"beat {b} {heard[b]:+.2f} for {truth[b]:+.1f}" for b, d in sorted(far.items()))))
    detail = "no hits"
    if dev:
        med = statistics.median(dev.values())
        mabs = statistics.median(abs(d) for d in dev.values())
        worst = max(dev.values(), key=abs)
        if abs(med) > a.median:
            problems.append(f"median deviation {med:+.2f} ms, over {a.median:g}")
        detail = (f"{len(heard)}/{len(truth)} hits, deviation from the truth median {med:+.2f} ms, "
                  f"median |dev| {mabs:.2f} ms, worst {worst:+.2f} ms; "
                  + " ".join(f"{truth[b]:+.0f}>{heard[b]:+.1f}" for b in sorted(heard)))
    print(("FAIL " + "; ".join(problems) + " | " if problems else "PASS ") + detail)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
