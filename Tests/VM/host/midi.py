#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of the MIDI scenarios (20, 21, 26, 28) on the host: MIDI byte logs from midiio and a raw
FLOAT_LE capture from snd-aloop put on the same clock (CLOCK_MONOTONIC in the guest).

The capture's clock: midiio stamp logged when each chunk of arecord's output arrived and
how many bytes had come by then. A frame cannot arrive before it was captured, so frame 0
was captured at the latest at min(arrival - frames_so_far / rate) over all chunks (the
lower envelope; chunks that came without delay define it).

  midi.py lead READER CAPTURE TIMES --bpm B --seconds S --rate R --channels C
      READER ("NS HH" per byte): Start (FA) comes,
      then clocks only (no other byte until the STOP press); over the first S seconds after
      Start, clocks 0..N (N = 24 * beats in S) have a mean interval within 0.1 % of
      60 / (24 B); between consecutive clicks lie exactly 24 clocks; the clicks' mean offset
      from clock 24 j (click j) is within 5 ms.
  midi.py clocks READER --bpm B --seconds S
      the clock alone (no sound card to capture): Start comes, then clocks only until Stop,
      over the first S seconds a mean interval within 0.1 % of 60 / (24 B); the intervals'
      spread is printed (under TCG a figure, not a check).
  midi.py follow SENDER CAPTURE TIMES --bpm B --reference REF --rate R --channels C
      SENDER ("W NS HH..." per write): the first click is the accent (REF's first click,
      sample for sample), the second a beat, the fifth the next accent; the first click is
      not before the first clock after Start and at most 150 ms after it (a Start gives no
      warning: the downbeat sounds one output latency late, and the box moves its grid back
      onto the clock within the first bar); from click --settle (4: the second bar) on the
      mean interval is within 0.5 % of 60 / B and click j lies within 5 ms of clock 24 j on
      average.

  midi.py twobox LEADER FOLLOWER --bpm B
      two boxes, one following the other (scenario 28): LEADER and FOLLOWER ("NS HH" per
      byte, both read by midiio on one CLOCK_MONOTONIC) are the leader's clock out and the
      follower's. Both send Start; beat k of each is its clock 24 k since its Start (the
      first downbeat is clock 0). From the first downbeat on, every beat of the follower
      lies within --within (1) ms of the leader's (median, p99 and worst printed), and up
      to the leader's Stop the follower sends the same clocks: exactly 24 between two of
      the leader's beats (a window from half a clock before one to half a clock before the
      next), the same count from Start to Stop, each clock within half a clock of the
      leader's; the follower sends Stop too.

Exit status 0 when the check holds; one summary line on stdout either way.
"""
import argparse
import os
import sys
from array import array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from audio import load, onsets  # noqa: E402


def capture(path, times, rate, channels):
    samples = array("f")
    with open(path, "rb") as f:
        data = f.read()
    width = 4 * channels
    samples.frombytes(data[:len(data) - len(data) % width])
    if sys.byteorder != "little":
        samples.byteswap()
    frames = [tuple(samples[i:i + channels]) for i in range(0, len(samples), channels)]
    t0 = None
    with open(times) as f:
        for line in f:
            at, total = (int(x) for x in line.split())
            start = at - (total // width) * 1e9 / rate
            t0 = start if t0 is None else min(t0, start)
    return frames, t0


def click_times(frames, t0, rate):
    ons = onsets(frames, rate // 100)
    return ons, [t0 + o * 1e9 / rate for o in ons]


def clocks_after_start(a):
    """(clocks' times from Start until Stop, problems, n, period, mean, err) or None after
    printing why not."""
    bytes_in = []
    with open(a.reader) as f:
        for line in f:
            ns, hx = line.split()
            bytes_in.append((int(ns), int(hx, 16)))
    starts = [i for i, (_, b) in enumerate(bytes_in) if b == 0xFA]
    if not starts:
        print(f"FAIL no Start among {len(bytes_in)} bytes")
        return None
    after = bytes_in[starts[0] + 1:]
    # Until the STOP press: clocks only.
    stop = next((i for i, (_, b) in enumerate(after) if b == 0xFC), len(after))
    others = sorted({b for _, b in after[:stop] if b != 0xF8})
    clocks = [t for t, b in after[:stop] if b == 0xF8]
    period = 60e9 / (24 * a.bpm)
    n = int(round(a.seconds * 1e9 / period))
    problems = []
    if others:
        problems.append("bytes other than clock between Start and Stop: " + " ".join(f"{b:02X}" for b in others))
    if len(clocks) < n + 1:
        print(f"FAIL {len(clocks)} clocks after Start, need {n + 1} ({a.seconds} s at {a.bpm} BPM)")
        return None
    mean = (clocks[n] - clocks[0]) / n
    err = (mean - period) / period
    if abs(err) > 0.001:
        problems.append(f"mean clock interval {mean / 1e6:.4f} ms, want {period / 1e6:.4f} ms within 0.1 % ({err * 100:+.3f} %)")
    return clocks, problems, n, period, mean, err


def cmd_clocks(a):
    got = clocks_after_start(a)
    if got is None:
        return 1
    clocks, problems, n, period, mean, err = got
    spread = sorted(abs((t - clocks[0]) - k * mean) / 1e6 for k, t in enumerate(clocks[:n + 1]))
    detail = (f"Start then {len(clocks)} clocks; {n} intervals mean {mean / 1e6:.4f} ms (want {period / 1e6:.4f}, "
              f"{err * 100:+.4f} %); off their mean line p50 {spread[len(spread) // 2]:.2f} ms, "
              f"p99 {spread[int(len(spread) * 0.99)]:.2f} ms, worst {spread[-1]:.2f} ms (TCG)")
    print(("FAIL " + "; ".join(problems) + " | " if problems else "PASS ") + detail)
    return 1 if problems else 0


def cmd_lead(a):
    got = clocks_after_start(a)
    if got is None:
        return 1
    clocks, problems, n, period, mean, err = got
    frames, t0 = capture(a.capture, a.times, a.rate, a.channels)
    ons, clicks = click_times(frames, t0, a.rate)
    # The clicks from the first one at or after Start's clock 0 (minus half a clock).
    clicks = [c for c in clicks if c >= clocks[0] - period / 2 and c <= clocks[n] + period / 2]
    beats = n // 24
    if len(clicks) < beats:
        problems.append(f"{len(clicks)} clicks in the {a.seconds} s after Start, want {beats}")
    per_beat = []
    for j in range(min(len(clicks), beats) - 1):
        lo, hi = clicks[j] - period / 2, clicks[j + 1] - period / 2
        per_beat.append(sum(1 for c in clocks if lo <= c < hi))
    wrong = [(j, c) for j, c in enumerate(per_beat) if c != 24]
    if wrong:
        problems.append(f"clocks between clicks not 24: {wrong[:6]}")
    offsets = [clicks[j] - clocks[24 * j] for j in range(min(len(clicks), beats + 1)) if 24 * j < len(clocks)]
    mean_offset = sum(offsets) / len(offsets) / 1e6 if offsets else float("nan")
    if not offsets or abs(mean_offset) > 5:
        problems.append(f"clicks' mean offset from their clocks {mean_offset:+.2f} ms (within 5 ms)")
    detail = (f"Start then {len(clocks)} clocks; {n} intervals mean {mean / 1e6:.4f} ms (want {period / 1e6:.4f}, {err * 100:+.4f} %); "
              f"{len(per_beat)} beats with {set(per_beat) or '{}'} clocks each; click - clock offset mean {mean_offset:+.2f} ms "
              f"(min {min(offsets) / 1e6 if offsets else 0:+.2f}, max {max(offsets) / 1e6 if offsets else 0:+.2f}) over {len(offsets)} clicks")
    print(("FAIL " + "; ".join(problems) + " | " if problems else "PASS ") + detail)
    return 1 if problems else 0


def cmd_follow(a):
    writes = []
    with open(a.sender) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == "W":
                writes.append((int(parts[1]), [int(x, 16) for x in parts[2:]]))
    start_i = next((i for i, (_, b) in enumerate(writes) if b == [0xFA]), None)
    if start_i is None:
        print("FAIL the sender's log has no Start")
        return 1
    first_clock = next((t for t, b in writes[start_i + 1:] if b == [0xF8]), None)
    frames, t0 = capture(a.capture, a.times, a.rate, a.channels)
    ons, clicks = click_times(frames, t0, a.rate)
    problems = []
    if len(ons) < 8:
        print(f"FAIL {len(ons)} clicks captured, need 8")
        return 1
    # A Start gives no warning: the downbeat is heard one output latency after the clock
    # that starts it (the box cannot play into the past), and within the first bar the
    # box's grid is moved back onto the followed clock (seen at beat 2 or 4). The tempo and
    # the phase are measured from the second bar (click --settle on).
    k0 = a.settle
    iv = [(b - a_) for a_, b in zip(ons[k0:], ons[k0 + 1:])]
    if not iv:
        print(f"FAIL {len(ons)} clicks, none after the first {k0}")
        return 1
    mean = sum(iv) / len(iv) / a.rate
    want = 60 / a.bpm
    err = (mean - want) / want
    if abs(err) > 0.005:
        problems.append(f"mean click interval {mean * 1000:.2f} ms, want {want * 1000:.2f} within 0.5 % ({err * 100:+.3f} %)")
    clocks = [t for t, b in writes[start_i + 1:] if b == [0xF8]]
    all_offsets = [(clicks[j] - clocks[24 * j]) / 1e6 for j in range(len(clicks)) if 24 * j < len(clocks)]
    offsets = all_offsets[k0:]
    mean_offset = sum(offsets) / len(offsets) if offsets else float("nan")
    if not offsets or abs(mean_offset) > 5:
        problems.append(f"clicks {k0}... mean offset from clock 24j {mean_offset:+.2f} ms (within 5 ms)")
    _, rrate, ref = load(a.reference)
    rons = onsets(ref, rrate // 100, sound_at_start_is_onset=True)
    span = min(rons[1] - rons[0], 2000)

    def same(k, r):
        seg, want_seg = frames[ons[k]:ons[k] + span], ref[rons[r]:rons[r] + span]
        return len(seg) == len(want_seg) and all(abs(x - y) <= 1e-6 for f, g in zip(seg, want_seg) for x, y in zip(f, g))
    if not same(0, 0):
        problems.append("the first click is not the accent (bar 0's downbeat)")
    if not same(1, 1):
        problems.append("the second click is not a beat")
    if len(ons) > 4 and not same(4, 0):
        problems.append("the fifth click is not the next bar's accent")
    early = (clicks[0] - first_clock) / 1e6 if first_clock else float("nan")
    if first_clock is None or early < -2 or early > 150:
        problems.append(f"the first click came {early:+.1f} ms from the first clock after Start (not before it, at most 150 ms after)")
    detail = (f"{len(ons)} clicks, mean interval from click {k0} {mean * 1000:.3f} ms (want {want * 1000:.3f}, {err * 100:+.3f} %); "
              f"clicks {k0}... from clock 24j {mean_offset:+.2f} ms on average; first bar's offsets "
              f"{', '.join(f'{o:+.1f}' for o in all_offsets[:k0])} ms; "
              f"first click {early:+.1f} ms after the first clock after Start; accent first: {same(0, 0)}")
    print(("FAIL " + "; ".join(problems) + " | " if problems else "PASS ") + detail)
    return 1 if problems else 0


def transport(path):
    """(Start's time, clocks from Start until Stop, Stop's time or None, other bytes) of a
    reader's log, or None when there is no Start."""
    bytes_in = []
    with open(path) as f:
        for line in f:
            ns, hx = line.split()
            bytes_in.append((int(ns), int(hx, 16)))
    start = next((i for i, (_, b) in enumerate(bytes_in) if b == 0xFA), None)
    if start is None:
        return None, len(bytes_in)
    after = bytes_in[start + 1:]
    stop = next((i for i, (_, b) in enumerate(after) if b == 0xFC), None)
    until = after[:stop] if stop is not None else after
    clocks = [t for t, b in until if b == 0xF8]
    others = sorted({b for _, b in until if b != 0xF8})
    return (bytes_in[start][0], clocks, after[stop][0] if stop is not None else None, others), len(bytes_in)


def pct(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def cmd_twobox(a):
    lead, lead_bytes = transport(a.leader)
    follow, follow_bytes = transport(a.follower)
    if lead is None:
        print(f"FAIL no Start from the leader among {lead_bytes} bytes")
        return 1
    if follow is None:
        print(f"FAIL the follower sent no Start (among {follow_bytes} bytes) after the leader's")
        return 1
    l_start, lc, l_stop, l_other = lead
    f_start, fc, f_stop, f_other = follow
    period = 60e9 / (24 * a.bpm)
    problems = []
    if l_stop is None:
        problems.append("the leader sent no Stop")
    if f_stop is None:
        problems.append("the follower sent no Stop")
    if l_other:
        problems.append("leader: bytes other than clock between Start and Stop: " + " ".join(f"{b:02X}" for b in l_other))
    if f_other:
        problems.append("follower: bytes other than clock between Start and Stop: " + " ".join(f"{b:02X}" for b in f_other))
    beats = (len(lc) - 1) // 24 + 1 if lc else 0
    if beats < 8:
        print(f"FAIL the leader sent {len(lc)} clocks between Start and Stop: under 8 beats")
        return 1
    # Beats: clock 24 k since each box's Start.
    offsets = [(fc[24 * k] - lc[24 * k]) / 1e6 for k in range(beats) if 24 * k < len(fc)]
    if len(offsets) < beats:
        problems.append(f"the follower sent {len(fc)} clocks between its Start and Stop: {len(offsets)} beats of the leader's {beats}")
    far = [(k, o) for k, o in enumerate(offsets) if abs(o) > a.within]
    if far:
        problems.append(f"{len(far)} of {len(offsets)} follower beats over {a.within} ms from the leader's: "
                        + ", ".join(f"beat {k} {o:+.3f} ms" for k, o in far[:8]))
    # The same clocks: 24 of the follower's in each of the leader's beats (windows shifted
    # half a clock back), none doubled or dropped, the same count from Start to Stop.
    per_beat = []
    for k in range(beats - 1):
        lo, hi = lc[24 * k] - period / 2, lc[24 * (k + 1)] - period / 2
        per_beat.append(sum(1 for t in fc if lo <= t < hi))
    wrong = [(k, c) for k, c in enumerate(per_beat) if c != 24]
    if wrong:
        problems.append(f"follower clocks in the leader's beats not 24: {wrong[:8]}")
    if len(fc) != len(lc):
        problems.append(f"{len(fc)} follower clocks from Start to Stop, the leader sent {len(lc)}")
    clock_offsets = [(f - l) / 1e6 for f, l in zip(fc, lc)]
    off_clocks = [(i, o) for i, o in enumerate(clock_offsets) if abs(o) * 1e6 >= period / 2]
    if off_clocks:
        problems.append(f"{len(off_clocks)} follower clocks half a clock or more from the leader's: {off_clocks[:6]}")
    mags = sorted(abs(o) for o in offsets) or [float("nan")]
    cmags = sorted(abs(o) for o in clock_offsets) or [float("nan")]
    worst = max(offsets, key=abs) if offsets else float("nan")
    start_gap = (f_start - l_start) / 1e6
    stop_gap = (f_stop - l_stop) / 1e6 if f_stop is not None and l_stop is not None else float("nan")
    detail = (f"{len(offsets)} beats from the first downbeat after START, follower - leader: median {pct(mags, 0.5):.3f} ms, "
              f"p99 {pct(mags, 0.99):.3f} ms, worst {worst:+.3f} ms (within {a.within} ms); "
              f"clocks leader {len(lc)}, follower {len(fc)}, 24 a beat in {sum(1 for c in per_beat if c == 24)} of {len(per_beat)} beats; "
              f"every clock: median {pct(cmags, 0.5):.3f} ms, worst {cmags[-1]:.3f} ms; "
              f"follower's Start {start_gap:+.3f} ms, Stop {stop_gap:+.3f} ms after the leader's")
    print(("FAIL " + "; ".join(problems) + " | " if problems else "PASS ") + detail)
    return 1 if problems else 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    lead = sub.add_parser("lead")
    lead.add_argument("reader")
    lead.add_argument("capture")
    lead.add_argument("times")
    lead.add_argument("--bpm", type=float, required=True)
    lead.add_argument("--seconds", type=float, default=10)
    follow = sub.add_parser("follow")
    follow.add_argument("sender")
    follow.add_argument("capture")
    follow.add_argument("times")
    follow.add_argument("--bpm", type=float, required=True)
    follow.add_argument("--reference", required=True)
    follow.add_argument("--settle", type=int, default=4, help="clicks (the first bar) before tempo and phase are measured")
    alone = sub.add_parser("clocks")
    alone.add_argument("reader")
    alone.add_argument("--bpm", type=float, required=True)
    alone.add_argument("--seconds", type=float, default=10)
    two = sub.add_parser("twobox")
    two.add_argument("leader")
    two.add_argument("follower")
    two.add_argument("--bpm", type=float, required=True)
    two.add_argument("--within", type=float, default=1.0, help="ms: a follower beat's greatest distance from the leader's")
    for s in (lead, follow, alone, two):
        s.add_argument("--rate", type=int, default=48000)
        s.add_argument("--channels", type=int, default=2)
    a = p.parse_args()
    return {"lead": cmd_lead, "follow": cmd_follow, "clocks": cmd_clocks, "twobox": cmd_twobox}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
