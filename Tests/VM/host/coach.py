#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Scenario 24's check: the coach's live hits against the take's known offsets.

    coach.py SERVICE.LOG TRUTH.TXT [--tolerance 10] [--median 3]

TRUTH.TXT (guest/coachtake.c): "j beat offset_ms" per hit, beat counted from the box's
first click (beat 0 = bar 0's downbeat after START, 4/4). The service log has one line per
judged hit, `coach: hit bar B beat N index I error_ms E`. Every hit must be there, on its
beat (bar*4 + index = beat, on the default grid of beats), each error within TOLERANCE ms of
its offset, the median of (error - offset) within MEDIAN ms, and no other hits.

Scenario 27 (the click bleeding into the input, guest/coachtake.c's bleed mode):

    coach.py run RUN.LOG TRUTH.TXT [--tolerance 10] [--median 3]
    coach.py runs N [--tolerance 10] [--median 3]
    coach.py take CLICKS.raw PLAYED.raw TRUTH.TXT COACHTAKE.LOG --bpm B --delay-ms D --gain-db G

`run` judges one run (RUN.LOG: the service log's lines of that run): each stroke of the truth
takes the judged hit on its beat nearest its offset, if within TOLERANCE; every hit left
over matches no stroke: a click judged as a hit (named by bar and beat; the box's click
sounds on every beat, so anything else the input hears on a beat is its bleed). Every stroke
found within TOLERANCE, the median deviation within MEDIAN, no click judged a hit. `runs`
judges run-01.log/truth-01.txt .. run-NN.log/truth-NN.txt the same way, prints "runs K of N
passed" and the totals, and writes each run's line to runs.txt. `take` checks the harness,
not the box: the first run's PLAYED.raw is exactly a gain times CLICKS.raw's first channel
DELAY ms later plus the hits, each hit starting on the frame the truth gives it, the first
click's bleed GAIN dB against the hits' peak, and the clicks on one grid."""
import argparse
import math
import re
import statistics
import sys
from array import array

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


RATE = 48000


def read_truth(path):
    truth = {}
    for line in open(path):
        if line.strip():
            _, beat, off = line.split()
            truth[int(beat)] = float(off)
    return truth


def judge_run(log_text, truth, tolerance, median, beats_per_bar=4):
    """One run of scenario 27: (passed, one-line figures, clicks judged as hits, strokes missed)."""
    by_beat = {}
    for m in LINE.finditer(log_text):
        bar, index, err = int(m.group(1)), int(m.group(3)), float(m.group(4))
        by_beat.setdefault(bar * beats_per_bar + index, []).append((bar, index, err))
    problems, clicks, dev, missed = [], [], {}, []
    for beat in sorted(set(by_beat) | set(truth)):
        hits = by_beat.get(beat, [])
        if beat in truth:
            best = min(hits, key=lambda h: abs(h[2] - truth[beat]), default=None)
            if best is not None and abs(best[2] - truth[beat]) <= tolerance:
                dev[beat] = best[2] - truth[beat]
                hits = [h for h in hits if h is not best]
            else:
                near = f", nearest hit {best[2]:+.2f}" if best else ", no hit on its beat"
                missed.append(f"beat {beat} {truth[beat]:+.0f} ms{near}")
        clicks += [f"bar {b} beat {i} {e:+.2f} ms" for b, i, e in hits]
    if not truth:
        problems.append("no truth (the take never started: no click heard?)")
    if clicks:
        problems.append(f"{len(clicks)} click(s) judged as hits: {', '.join(clicks)}")
    if missed:
        problems.append(f"{len(missed)} of {len(truth)} strokes not found within {tolerance:g} ms: {', '.join(missed)}")
    detail = f"{len(dev)}/{len(truth)} strokes within {tolerance:g} ms, {len(clicks)} clicks judged as hits"
    if dev:
        med = statistics.median(dev.values())
        worst = max(dev.values(), key=abs)
        if abs(med) > median:
            problems.append(f"median deviation {med:+.2f} ms, over {median:g}")
        detail += (f", deviation median {med:+.2f} ms, worst {worst:+.2f} ms; "
                   + " ".join(f"{truth[b]:+.0f}>{truth[b] + d:+.1f}" for b, d in sorted(dev.items())))
    return not problems, ("; ".join(problems) + " | " if problems else "") + detail, len(clicks), len(missed)


def run_main(argv):
    p = argparse.ArgumentParser(prog="coach.py run")
    p.add_argument("log")
    p.add_argument("truth")
    p.add_argument("--tolerance", type=float, default=10.0)
    p.add_argument("--median", type=float, default=3.0)
    a = p.parse_args(argv)
    try:
        truth = read_truth(a.truth)
    except OSError as e:
        print(f"FAIL no truth: {e}")
        return 1
    ok, detail, _, _ = judge_run(open(a.log, errors="replace").read(), truth, a.tolerance, a.median)
    print(("PASS " if ok else "FAIL ") + detail)
    return 0 if ok else 1


def runs_main(argv):
    p = argparse.ArgumentParser(prog="coach.py runs")
    p.add_argument("runs", type=int)
    p.add_argument("--tolerance", type=float, default=10.0)
    p.add_argument("--median", type=float, default=3.0)
    a = p.parse_args(argv)
    passed, clicks_all, missed_all, lines, per_run_clicks, failed = 0, 0, 0, [], [], []
    for k in range(1, a.runs + 1):
        try:
            truth = read_truth(f"truth-{k:02d}.txt")
            text = open(f"run-{k:02d}.log", errors="replace").read()
            ok, detail, clicks, missed = judge_run(text, truth, a.tolerance, a.median)
        except OSError as e:
            ok, detail, clicks, missed = False, f"no files: {e}", 0, 0
        passed += ok
        clicks_all += clicks
        missed_all += missed
        if not ok:
            failed.append(str(k))
        if clicks:
            per_run_clicks.append(f"run {k}: {clicks}")
        lines.append(f"run {k:02d} {'PASS' if ok else 'FAIL'} {detail}")
    with open("runs.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    ok = passed == a.runs and a.runs > 0
    print(f"{'PASS' if ok else 'FAIL'} runs {passed} of {a.runs} passed; clicks judged as hits {clicks_all}"
          + (f" ({', '.join(per_run_clicks)})" if per_run_clicks else "")
          + f"; strokes not found within {a.tolerance:g} ms {missed_all}; failed runs: {', '.join(failed) or 'none'}"
          + " (each run's figures: its run-NN check, runs.txt)")
    return 0 if ok else 1


def raw(path, channels):
    a = array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder != "little":
        a.byteswap()
    return a[::channels] if channels > 1 else a


def take_main(argv):
    p = argparse.ArgumentParser(prog="coach.py take")
    p.add_argument("clicks")
    p.add_argument("played")
    p.add_argument("truth")
    p.add_argument("log")
    p.add_argument("--bpm", type=float, required=True)
    p.add_argument("--delay-ms", type=float, required=True)
    p.add_argument("--gain-db", type=float, required=True)
    a = p.parse_args(argv)
    log = open(a.log, errors="replace").read()
    cch = re.search(r"capture rate \d+ channels (\d+)", log)
    pch = re.search(r"playback rate \d+ channels (\d+)", log)
    first = re.search(r"first click at capture frame (\d+)", log)
    if not (cch and pch and first):
        print("FAIL coachtake's log names no channels or first click")
        return 1
    clicks, played = raw(a.clicks, int(cch.group(1))), raw(a.played, int(pch.group(1)))
    truth = read_truth(a.truth)
    spb, d, c0 = 60.0 * RATE / a.bpm, round(a.delay_ms * RATE / 1000), int(first.group(1))
    problems = []
    # The clicks: each onset (over 0.01 after 50 ms under it, back to its first sample that is
    # not silence, 0.0) on the first one's grid.
    onsets, last = [], -RATE
    for i, x in enumerate(clicks):
        if abs(x) > 0.01:
            if i - last > RATE // 20:
                s0 = i
                while s0 > max(i - RATE // 1000, 0) and clicks[s0 - 1] != 0.0:
                    s0 -= 1
                onsets.append(s0)
            last = i
    if not onsets or onsets[0] != c0:
        problems.append(f"first click at {onsets[:1]}, coachtake says {c0}")
    grid_off = max((abs(o - c0 - round(round((o - c0) / spb) * spb)) for o in onsets), default=0)
    if grid_off > 1:
        problems.append(f"a click {grid_off} frames off the grid")
    # The bleed's gain, fitted on the two beats before the first hit (bleed alone there).
    lead = range(c0 + d, c0 + d + round(2 * spb) - RATE * 40 // 1000)
    gain = sum(played[f] * clicks[f - d] for f in lead) / sum(clicks[f - d] ** 2 for f in lead)
    starts = {b: c0 + round(b * spb) + d + round(off * RATE / 1000) for b, off in truth.items()}
    burst = RATE // 5
    residual = [played[f] - (gain * clicks[f - d] if 0 <= f - d < len(clicks) else 0.0) for f in range(len(played))]
    in_hit = bytearray(len(played))
    for t in starts.values():
        in_hit[t:t + burst] = b"\x01" * len(in_hit[t:t + burst])
    stray = max((abs(r) for r, h in zip(residual, in_hit) if not h), default=0.0)
    if stray > 1e-4:
        problems.append(f"outside the hits the played take is not the bleed: residual {stray:.2g}")
    late = []
    for b, t in sorted(starts.items()):
        first_nz = next((f for f in range(t - RATE // 1000, t + burst) if abs(residual[f]) > 1e-4), None)
        if first_nz is None or not t <= first_nz <= t + 2:
            late.append(f"beat {b}: starts at {first_nz}, truth {t}")
    if late:
        problems.append("hits not where the truth puts them: " + ", ".join(late))
    hits_peak = max(abs(r) for r, h in zip(residual, in_hit) if h) if any(in_hit) else 0.0
    bleed_first = max(abs(gain * clicks[f]) for f in range(c0, c0 + round(spb / 2)))
    bleed_all = max(abs(gain * x) for x in clicks)
    db = 20 * math.log10(bleed_first / hits_peak) if hits_peak and bleed_first else float("nan")
    if not abs(db - a.gain_db) <= 0.05:
        problems.append(f"first click's bleed {db:+.2f} dB against the hits, want {a.gain_db:+g}")
    if bleed_all > bleed_first * 1.001:
        problems.append(f"a click's bleed {20 * math.log10(bleed_all / hits_peak):+.2f} dB, louder than the first")
    detail = (f"bleed = {gain:.5f} x the box's output {d} frames later (elsewhere residual {stray:.1g}); "
              f"{len(starts)} hits start on the truth's frames; first click's bleed peak {bleed_first:.4f}, "
              f"{db:+.2f} dB against the hits' peak {hits_peak:.4f}; {len(onsets)} clicks, at most {grid_off} "
              f"frame(s) off the grid")
    print(("FAIL " + "; ".join(problems) + " | " if problems else "PASS ") + detail)
    return 1 if problems else 0


if __name__ == "__main__":
    modes = {"run": run_main, "runs": runs_main, "take": take_main}
    if len(sys.argv) > 1 and sys.argv[1] in modes:
        sys.exit(modes[sys.argv[1]](sys.argv[2:]))
    sys.exit(main())
