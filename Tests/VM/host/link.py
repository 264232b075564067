#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks scenario 11 (Ableton Link under netem, then no network): the events of box A and
box B (`simulate --headless --realtime --sync link`: `mono` is CLOCK_MONOTONIC when a click
is heard) and the guest's times of the network going and coming back.

Usage: link.py A_EVENTS B_EVENTS NET_TXT
  - B plays A's 120 (it started at 137) and, from 3 s after it did until the network goes,
    every beat onset of B is within 5 ms of one of A's;
  - both play on at their tempo while the network is gone (every beat interval of each box
    from 1 s before it goes to 1 s after it is back within 2 ms of 500 ms, none missing);
  - both lose their peer while it is gone and find it again after it is back ("Link: a peer
    left" / "a peer joined" notices);
  - after it is back, A's wheel moves it off 120 and B follows to the same tempo within 2 s,
    and B's onsets are again within 5 ms of A's over the last 3 s.
Prints one line (PASS/FAIL and the measured figures); exit 0 or 1.
"""
import json
import sys


def events(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    A, B = events(sys.argv[1]), events(sys.argv[2])
    net = dict(l.split() for l in open(sys.argv[3]) if l.strip())
    down, back = float(net["down"]), float(net["up"])
    problems, figures = [], []
    beats = lambda E: [e for e in E if e["type"] == "onset" and e["kind"] in ("accent", "beat") and "mono" in e]
    states = lambda E: [e for e in E if e["type"] == "state" and "mono" in e]
    a_beats, b_beats = beats(A), beats(B)
    if len(a_beats) < 40 or len(b_beats) < 40:
        print(f"FAIL too few onsets with mono: A {len(a_beats)}, B {len(b_beats)}")
        return 1
    a_monos = [e["mono"] for e in a_beats]

    def worst_phase(first, last):
        pairs = [e for e in b_beats if first <= e["mono"] <= last]
        worst = max((min(abs(e["mono"] - m) for m in a_monos) for e in pairs), default=None)
        return len(pairs), (worst or 0) * 1000

    # B joins at A's tempo.
    joined = next((e for e in states(B) if float(e["bpm"]) == 120), None)
    if joined is None:
        problems.append("B never played 120")
        joined_at = b_beats[0]["mono"]
    else:
        joined_at = joined["mono"]
        figures.append(f"B at 120 after {joined['t']:.2f} s")
    n, worst = worst_phase(joined_at + 3, down)
    figures.append(f"under netem {n} beats of B within {worst:.2f} ms of A's")
    if n < 5 or worst > 5:
        problems.append(f"phase under netem: {n} beats, worst {worst:.2f} ms (at most 5)")

    # Both play on at 120 while the network is gone.
    for name, E in (("A", a_beats), ("B", b_beats)):
        monos = [e["mono"] for e in E if down - 1 <= e["mono"] <= back + 1]
        gaps = [b - a for a, b in zip(monos, monos[1:])]
        expected = (back - down + 2) / 0.5
        off = max((abs(g - 0.5) for g in gaps), default=1) * 1000
        figures.append(f"{name} while the network was gone: {len(monos)} beats, intervals within {off:.2f} ms of 500 ms")
        if len(monos) < expected - 2 or off > 2:
            problems.append(f"{name} did not keep playing at 120 while the network was gone ({len(monos)} beats, want about {expected:.0f}; worst interval {off:.2f} ms off)")

    # The network was really gone: both boxes lost their peer during it and found it after.
    for name, E in (("A", A), ("B", B)):
        notes = [(e["mono"], e["notice"]) for e in states(E) if e.get("notice")]
        left = next((m for m, n in notes if down < m <= back and "peer left" in n), None)
        found = next((m for m, n in notes if m > back and "peer joined" in n), None)
        if left is None or found is None:
            problems.append(f"{name} did not lose its peer while the network was gone and find it again after (notices {notes})")
        else:
            figures.append(f"{name} lost its peer {left - down:.1f} s into the outage, found it {found - back:.1f} s after")

    # Rejoined: A's wheel after the network is back, B follows.
    a_new = next((e for e in states(A) if e["mono"] > back and float(e["bpm"]) != 120 and e["playing"]), None)
    if a_new is None:
        problems.append("A's tempo never changed after the network came back")
    else:
        a_final = float(states(A)[-1]["bpm"])
        b_follow = next((e for e in states(B) if e["mono"] > back and float(e["bpm"]) == a_final), None)
        a_at = next(e for e in states(A) if float(e["bpm"]) == a_final and e["mono"] > back)
        if b_follow is None:
            problems.append(f"B never followed A to {a_final:g} after the network came back")
        else:
            lag = (b_follow["mono"] - a_at["mono"]) * 1000
            figures.append(f"B followed A to {a_final:g} in {lag:.0f} ms")
            if lag > 2000:
                problems.append(f"B followed A to {a_final:g} only after {lag:.0f} ms")
        end = min(a_monos[-1], b_beats[-1]["mono"])
        n, worst = worst_phase(end - 3, end)
        figures.append(f"rejoined: {n} beats of B within {worst:.2f} ms of A's")
        if n < 3 or worst > 5:
            problems.append(f"phase after rejoining: {n} beats, worst {worst:.2f} ms (at most 5)")
    print(("FAIL " + "; ".join(problems) + " | " if problems else "PASS ") + "; ".join(figures))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
