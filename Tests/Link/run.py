#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Ableton Link between real processes: two boxes (`tactus simulate --headless --realtime
--sync link`) in two network namespaces joined by a veth pair, and a third peer written
against our C API (tactus-link-peer) beside box A. Link multicasts on every interface it
finds, so every peer runs in a namespace made here (never the host's own), removed at the end.

Usage: Tests/Link/run.py [BIN_DIR]   (default .build/debug). Needs root (ip netns); skips
loudly, exit 0, where the kernel or the user cannot make namespaces.

Automated TEST-PLAN cases (Ableton Link's TEST-PLAN.md), per meter:
  TEMPO-1 tempo changes go both ways (A's wheel -> B and the peer; the peer -> A and B)
  TEMPO-2 a box joining at 137 does not change the session's 120
  TEMPO-3 the settings B loads at start (its "document", 137) do not change the session
  TEMPO-4 the session at 20 and 999 quarter notes a minute: followed exactly, or (a box
          counting eighths, 1998) it stays local and says so
  TEMPO-5 enabling Link with no session to join keeps the box's tempo
  BEATTIME-1 enabling Link while playing, with no session to join, moves no click
  BEATTIME-2 peers joining move none of A's clicks
  STARTSTOPSTATE-1 a peer's STOP and START (start/stop sync on) stop and start the box, the
          start on the quantum, also when the peer changes the tempo while the start waits
  STARTSTOPSTATE-2 a box's STOP reaches the other box and the peer
and beyond it: a box joining a session while it plays, and rejoining after a network
outage in which it restarted on its own, never plays a beat twice; when Link moves its
phase it sends SPP and Continue at the next bar, so its MIDI clock count matches its bars.
"""
import json, os, subprocess, sys, tempfile, time

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug")
NS = ("tactus-link-a", "tactus-link-b")
failures = []


def sh(*args, check=True):
    return subprocess.run(args, check=check, capture_output=True, text=True)


def make_namespaces():
    for ns in NS:
        sh("ip", "netns", "del", ns, check=False)
    sh("ip", "netns", "add", NS[0])
    sh("ip", "netns", "add", NS[1])
    sh("ip", "link", "add", "tlk-a", "type", "veth", "peer", "name", "tlk-b")
    for ns, dev, address in ((NS[0], "tlk-a", "10.77.0.1/24"), (NS[1], "tlk-b", "10.77.0.2/24")):
        sh("ip", "link", "set", dev, "netns", ns)
        sh("ip", "-n", ns, "addr", "add", address, "dev", dev)
        sh("ip", "-n", ns, "link", "set", dev, "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", dev)


def remove_namespaces():
    for ns in NS:
        sh("ip", "netns", "del", ns, check=False)


def check(ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        failures.append(what)


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def box(ns, folder, script, settings):
    os.makedirs(folder + "/state")
    with open(folder + "/state/settings.toml", "w") as f:
        f.write("schema = 1\n[current]\n" + settings)
    with open(folder + "/script.txt", "w") as f:
        f.write(script)
    return subprocess.Popen(["ip", "netns", "exec", ns, BIN + "/tactus", "simulate", "--headless", "--realtime", "--sync", "link",
                             "--script", folder + "/script.txt", "--out", folder + "/out", "--state", folder + "/state"],
                            stdout=subprocess.DEVNULL, stderr=open(folder + "/stderr.txt", "w"))


def time_zero(folder):
    """CLOCK_MONOTONIC seconds of a real-time box's time 0, from its first event line
    (events.jsonl is written as it goes); waits up to 10 s for it."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(folder + "/out/events.jsonl") as f:
                first = f.readline()
            if first.endswith("\n"):
                e = json.loads(first)
                return e["mono"] - e["t"]
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    return time.monotonic()


def scenario(name, settings, unit_quarters, quantum, bpm_a, bpm_b, work):
    """unit_quarters: the beat unit in quarter notes (1 for 1/4, 0.5 for 1/8)."""
    print(f"{name}: A at {bpm_a}, B at {bpm_b}, quantum {quantum}")
    folder = tempfile.mkdtemp(prefix=name.replace("/", "-") + "-", dir=work)
    a = box(NS[0], folder + "/a", "0 link start-stop-sync on\n0.2 press start\n"
            "8 turn -18 over 1.8\n29 end\n", settings + f"bpm = {bpm_a}\n")
    # B comes 2 s after A's time 0, the peer (beside A) 1 s after B's: Link's older session
    # wins only by more than 0.5 s (else by a random session id). Counted from each box's
    # first event (its time 0), not from launching it: a box's start-up takes longer on a
    # busy machine (up to 2 s seen: A turns its wheel only at 8 s, so B has joined and played
    # by then), and the peer's START must come after B's STOP (B's 12 s).
    a_zero = time_zero(folder + "/a")
    time.sleep(max(0, a_zero + 2.0 - time.monotonic()))
    b = box(NS[1], folder + "/b", "0 sync link\n0 link start-stop-sync on\n0.3 press start\n12 press start\n15 end\n",
            settings + f"bpm = {bpm_b}\n")
    b_zero = time_zero(folder + "/b")
    time.sleep(max(0, a_zero + 3.0 - time.monotonic()))
    peer_out = open(folder + "/peer.jsonl", "w")
    # The peer (beside A, from A's 3 s): start/stop sync on; from B's 13 s (1 s after B's
    # STOP; A's 15 s when B started on time) START within a quarter note after the session's
    # downbeat, so A's start waits most of a quantum, and 0.3 s later 100 (in the beat unit)
    # while it waits; then 20 and 999 quarter notes a minute 5 and 6 s after START.
    go = b_zero + 13 - time.monotonic()
    peer = subprocess.Popen(["ip", "netns", "exec", NS[0], BIN + "/tactus-link-peer", "+2", str(quantum),
                             "0:sync-on", f"{go:.3f}:start-after-downbeat", f"+0.3:tempo={100 * unit_quarters:g}",
                             "+4.7:tempo=20", "+1:tempo=999"],
                            stdout=peer_out)
    for p in (a, b, peer):
        p.wait(timeout=60)
    peer_out.close()
    for who in ("a", "b"):
        with open(f"{folder}/{who}/stderr.txt") as f:
            said = f.read().strip()
        # A box that fell behind the real clock dated its events late: say so next to the
        # failures it causes (the release build keeps up; a debug build on a loaded machine may not).
        check("fell up to" not in said or int(said.split("fell up to ")[1].split()[0]) < 100,
              f"box {who.upper()} kept up with the real clock ({said or 'no warning'})")
    A, B, C = lines(folder + "/a/out/events.jsonl"), lines(folder + "/b/out/events.jsonl"), lines(folder + "/peer.jsonl")
    a0 = A[0]["mono"] - A[0]["t"]
    b0 = B[0]["mono"] - B[0]["t"]
    at = lambda e: e["mono"] - a0  # A's time of a line
    onsets = lambda E: [e for e in E if e["type"] == "onset" and e["kind"] in ("accent", "beat")]
    states = lambda E: [e for e in E if e["type"] == "state"]
    quarter_samples = 48000 * 60 / bpm_a / unit_quarters

    # TEMPO-5, BEATTIME-1, BEATTIME-2: A alone enables Link while playing, then others join:
    # its tempo and every click stay on its own grid (120: every 24000 samples from 9600).
    before = [e for e in states(A) if at(e) < 8]
    check(all(float(e["bpm"]) == bpm_a for e in before), f"TEMPO-5: A keeps {bpm_a} when enabling Link alone and as peers join")
    grid = [e for e in onsets(A) if at(e) < 8]
    step = round(48000 * 60 / bpm_a)
    check(len(grid) > 8 and all((e["sample"] - 9600) % step == 0 for e in grid),
          f"BEATTIME-1/2: A's {len(grid)} clicks up to 8 s stay on its grid through enabling Link and two joins")
    # TEMPO-2/3: B joins at A's tempo within 1 s; the session never takes B's.
    joined = next((e for e in states(B) if float(e["bpm"]) == bpm_a), None)
    check(joined is not None and joined["t"] <= 1.0, f"TEMPO-2/3: B plays {bpm_a} within 1 s of its start "
          f"({joined['t'] if joined else None} s)")
    session = [c["tempo"] for c in C if c["peers"] > 0 and c["mono"] - a0 < 8]
    check(all(abs(t - bpm_a * unit_quarters) < 1e-3 for t in session), f"TEMPO-2: the session stays {bpm_a * unit_quarters} as B joins")

    def phase_error(first, last):
        worst = 0.0
        a_monos = [e["mono"] for e in onsets(A)]
        pairs = [e for e in onsets(B) if first <= e["mono"] - a0 < last]
        for e in pairs:
            worst = max(worst, min(abs(e["mono"] - m) for m in a_monos))
        return len(pairs), worst * 1000

    count, worst = phase_error(max(3.0, (joined["mono"] - a0) if joined else 3.0), 8)
    check(count >= 3 and worst <= 1.0, f"B's {count} beats match A's within {worst:.3f} ms (at most 1 ms)")

    # The peer sees A's tempo and phase: every click of A on a beat of the peer, every
    # downbeat of A at the peer's phase 0 (quantum {quantum}), within 1 ms.
    def peer_line(mono):
        return min((c for c in C if c["mono"] <= mono), key=lambda c: mono - c["mono"], default=None)

    def peer_beat(mono):
        c = peer_line(mono)
        return None if c is None else c["beat"] + (mono - c["mono"]) * c["tempo"] / 60
    beat_ms = 0.0
    phase_ms = 0.0
    checked = 0
    for e in onsets(A):
        if not 2.5 < at(e) < 7.9:
            continue
        beat = peer_beat(e["mono"])
        if beat is None:
            continue
        checked += 1
        off = (beat / unit_quarters - round(beat / unit_quarters)) * unit_quarters * 60000 / (bpm_a * unit_quarters)
        beat_ms = max(beat_ms, abs(off))
        if e["kind"] == "accent":
            phase = beat % quantum
            phase = min(phase, quantum - phase)
            phase_ms = max(phase_ms, phase * 60000 / (bpm_a * unit_quarters))
    check(checked >= 5 and beat_ms <= 1.0 and phase_ms <= 1.0,
          f"the C-API peer: {checked} clicks of A on its beats within {beat_ms:.3f} ms, downbeats at its phase 0 within {phase_ms:.3f} ms")

    # TEMPO-1 (box -> peers): A's wheel to 90; B follows within 100 ms, the peer too.
    a90 = next((e for e in states(A) if float(e["bpm"]) == 90), None)
    b90 = next((e for e in states(B) if float(e["bpm"]) == 90), None)
    check(a90 is not None and b90 is not None and b90["mono"] - a90["mono"] <= 0.1,
          f"TEMPO-1: A turned to 90, B follows in {((b90['mono'] - a90['mono']) * 1000) if a90 and b90 else None} ms (at most 100)")
    check(any(abs(c["tempo"] - 90 * unit_quarters) < 1e-3 for c in C), f"TEMPO-1: the peer sees {90 * unit_quarters}")
    stop = next(e for e in B if e["type"] == "input" and e["line"] == "start_stop" and e["t"] > 11)
    count, worst = phase_error(10.3, stop["mono"] - a0 - 0.1)
    check(count >= 3 and worst <= 1.0, f"at 90: B's {count} beats match A's within {worst:.3f} ms")

    # STARTSTOPSTATE-2 / -1: B's STOP stops A and the peer's session; the peer's START starts A.
    a_stop = next((e for e in states(A) if e["mono"] > stop["mono"] and not e["playing"]), None)
    check(a_stop is not None and a_stop["mono"] - stop["mono"] < 0.2,
          f"STARTSTOPSTATE-2: B's STOP stops A after {((a_stop['mono'] - stop['mono']) * 1000) if a_stop else None} ms")
    check(any(not c["playing"] and c["mono"] > stop["mono"] for c in C), "STARTSTOPSTATE-2: the peer's session stops too")
    # The peer's own START (its clock: a box's start-up time shifts the boxes' t, not the peer's).
    peer_start = next((c["mono"] for c in C if c["playing"] and c["mono"] > stop["mono"] + 0.2), None)
    restart_from = peer_start - 0.1 if peer_start is not None else a0 + 15
    restart = next((e for e in onsets(A) if e["mono"] > restart_from), None)
    ok = restart is not None and restart["kind"] == "accent"
    if ok:
        phase = peer_beat(restart["mono"]) % quantum
        ok = min(phase, quantum - phase) * 60000 / peer_line(restart["mono"])["tempo"] <= 1.0
    check(ok and not any(stop["mono"] + 0.2 < e["mono"] < restart_from for e in onsets(A)),
          "STARTSTOPSTATE-1: the peer's START starts A on a downbeat at the quantum; A was silent from B's STOP until then")
    t100 = next((c["mono"] for c in C if abs(c["tempo"] - 100 * unit_quarters) < 1e-6), None)
    check(restart is not None and t100 is not None and t100 < restart["mono"] and float(next(
              e["bpm"] for e in reversed(states(A)) if e["mono"] <= restart["mono"])) == 100,
          f"STARTSTOPSTATE-1: the peer's tempo change to 100 came while A's start waited "
          f"({(restart['mono'] - t100) if restart and t100 else None} s before it), and A started at 100")

    # TEMPO-4: the session at 20 and 999 quarter notes a minute.
    # From the peer's own changes (its clock), not A's t: A's start-up time is not the peer's.
    t20 = next((c["mono"] for c in C if abs(c["tempo"] - 20) < 1e-6), a0 + 20)
    t999 = next((c["mono"] for c in C if abs(c["tempo"] - 999) < 1e-6), a0 + 21)
    bpms = [float(e["bpm"]) for e in states(A) if e["mono"] > t20 - 0.1]
    notices = [e["notice"] for e in states(A) if e["mono"] > t999 - 0.1 and e["notice"]]
    if unit_quarters == 1:
        check(20.0 in bpms and bpms[-1] == 999.0, f"TEMPO-4: A follows the session to 20 and 999 ({bpms[:1]} ... {bpms[-1:]})")
    else:
        check(bpms and 40.0 in bpms and bpms[-1] == 40.0 and any("outside" in n for n in notices),
              f"TEMPO-4: counting eighths, A follows 20 (40 BPM) and stays local at 999 (1998) and says so: {notices[-1:]}")


def enabling_while_playing(work):
    """BEATTIME-1 and TEMPO-5 proper: a box playing on its own turns Link on (no session to
    join): not one click moves, the tempo stays."""
    print("BEATTIME-1: Link enabled while playing, alone")
    folder = tempfile.mkdtemp(prefix="beattime-1-", dir=work)
    a = box(NS[0], folder + "/a", "0 sync internal\n0.2 press start\n1.1 sync link\n3.5 end\n", 'bpm = 137\n')
    a.wait(timeout=60)
    A = lines(folder + "/a/out/events.jsonl")
    clicks = [e["sample"] for e in A if e["type"] == "onset"]
    ideal = [9600 + (k * 48000 * 60 * 2 + 137) // (2 * 137) for k in range(len(clicks))]
    check(len(clicks) >= 7 and clicks == ideal, f"BEATTIME-1: {len(clicks)} clicks at 137 on their exact samples before and after enabling Link")
    check({e["bpm"] for e in A if e["type"] == "state"} == {137}, "TEMPO-5: the box keeps 137 when Link finds no session")


def no_beat_twice(E, who, bpm):
    """Every beat of a box once: no bar:beat twice in a run of playing, no two beats closer
    than half a beat."""
    beats = [e for e in E if e["type"] == "onset" and e["kind"] in ("accent", "beat")]
    twice = [(a["bar"], a["beat"], a["t"]) for a, b in zip(beats, beats[1:])
             if (a["bar"], a["beat"]) == (b["bar"], b["beat"]) or b["sample"] - a["sample"] < 48000 * 30 / bpm]
    check(len(beats) > 10 and not twice, f"box {who}: {len(beats)} beats, none twice or less than half a beat apart {twice[:3]}")


def clock_on_bars(E, who):
    """Chained gear's view of a box's MIDI clock out: the count from each Start (0) or SPP
    (6 clocks a sixteenth) puts every downbeat the box plays on a clock 96 n (4/4), on the
    downbeat's own sample. Returns the SPPs sent while playing (mono, sixteenths)."""
    count, clock_at, spps = None, {}, []
    for e in (e for e in E if e["type"] == "midi" and e["dir"] == "out"):
        if e["bytes"] == "FA":
            count = 0
        elif e["bytes"].startswith("F2 "):
            lsb, msb = (int(x, 16) for x in e["bytes"].split()[1:])
            count = 6 * (lsb | msb << 7)
            spps.append((e["mono"], lsb | msb << 7))
        elif e["bytes"] == "FC":
            count = None
        elif e["bytes"] == "F8" and count is not None:
            clock_at[e["sample"]] = count
            count += 1
    downbeats = [e for e in E if e["type"] == "onset" and e["kind"] == "accent"]
    wrong = [(round(e["t"], 3), e["bar"], clock_at.get(e["sample"])) for e in downbeats if clock_at.get(e["sample"], 1) % 96 != 0]
    check(len(downbeats) >= 8 and not wrong, f"box {who}: its {len(downbeats)} downbeats all on MIDI clocks 96 n from Start or SPP {wrong[:3]}")
    return spps


def joining_and_rejoining(work):
    """B plays on its own, joins A's session while playing (Link moves its phase), then the
    network goes down, B restarts alone (a phase of its own), and the network comes back."""
    print("JOIN/REJOIN: a box joining while it plays, rejoining after an outage")
    folder = tempfile.mkdtemp(prefix="join-", dir=work)
    a = box(NS[0], folder + "/a", "0 sync link\n0.2 press start\n23 end\n", 'bpm = 120\n')
    time_zero(folder + "/a")
    # B's restart comes 5.5 s into the outage, once A has timed out of its session (Link
    # drops a peer it has not heard for about 5 s), so B starts alone on a phase of its own.
    # B's phase trails A's by the time between the two processes' starts (20-200 ms) plus
    # 0.37 s, so the join moves it onto A's grid by a phase that differs from run to run; one
    # that would put the next beat closer than half a beat after the last one played passes
    # that beat over (it once played 238 ms after the last).
    b = box(NS[1], folder + "/b", "0 sync internal\n0.37 press start\n3 sync link\n12 press start\n12.61 press start\n20 end\n",
            'bpm = 120\n')
    b_zero = time_zero(folder + "/b")
    time.sleep(max(0, b_zero + 6.5 - time.monotonic()))
    sh("ip", "-n", NS[1], "link", "set", "tlk-b", "down")
    time.sleep(max(0, b_zero + 14.5 - time.monotonic()))
    sh("ip", "-n", NS[1], "link", "set", "tlk-b", "up")
    sh("ip", "-n", NS[1], "route", "replace", "224.0.0.0/4", "dev", "tlk-b")
    for p in (a, b):
        p.wait(timeout=60)
    A, B = lines(folder + "/a/out/events.jsonl"), lines(folder + "/b/out/events.jsonl")
    no_beat_twice(A, "A", 120)
    no_beat_twice(B, "B", 120)
    beats = lambda E: [e for e in E if e["type"] == "onset" and e["kind"] in ("accent", "beat")]

    def on_each_other(first, last):
        """Each box's beats in B's [first, last) s on the other's, within (ms)."""
        pairs = [(e, beats(Y)) for X, Y in ((A, B), (B, A)) for e in beats(X) if first <= e["mono"] - b_zero < last]
        return len(pairs), max((min(abs(e["mono"] - f["mono"]) for f in other) * 1000 for e, other in pairs), default=99)
    count, worst = on_each_other(4.0, 6.4)
    check(count >= 6 and worst <= 1.0, f"joined while playing: {count} beats of A and B on each other's within {worst:.3f} ms")
    rejoined = next((e["mono"] - b_zero for e in B if e["type"] == "state" and e["mono"] - b_zero > 14.5
                     and "peer joined" in (e.get("notice") or "")), None)
    check(rejoined is not None, f"B rejoined A's session after the outage (at {rejoined} s)")
    count, worst = on_each_other((rejoined or 15) + 1.0, 19.9)
    check(count >= 6 and worst <= 1.0, f"rejoined after the outage: {count} beats of A and B on each other's within {worst:.3f} ms")
    spps = {"A": clock_on_bars(A, "A"), "B": clock_on_bars(B, "B")}
    check(any(3 <= m - b_zero < 6.5 for m, _ in spps["B"]), f"B sent SPP + Continue after Link moved its phase at its join {spps['B']}")
    moved = [w for w, sent in spps.items() if any((rejoined or 99) <= m - b_zero < (rejoined or 99) + 3 for m, _ in sent)]
    check(len(moved) >= 1, f"the box Link moved at the rejoin sent SPP + Continue ({' '.join(moved) or 'none'})")


def main():
    if os.geteuid() != 0 or sh("ip", "netns", "add", "tactus-link-probe", check=False).returncode != 0:
        print("SKIP Link tests: cannot make network namespaces here (needs root and a kernel with network namespaces)", file=sys.stderr)
        print("SKIP Link tests: cannot make network namespaces", flush=True)
        return 0
    sh("ip", "netns", "del", "tactus-link-probe", check=False)
    for tool in ("tactus", "tactus-link-peer"):
        if not os.access(f"{BIN}/{tool}", os.X_OK):
            print(f"Link tests: {BIN}/{tool} is missing (swift build first)", file=sys.stderr)
            return 1
    work = tempfile.mkdtemp(prefix="tactus-link-")
    try:
        make_namespaces()
        enabling_while_playing(work)
        joining_and_rejoining(work)
        remove_namespaces()
        make_namespaces()
        scenario("4/4", 'meter = "4/4"\nbeat-unit = "1/4"\n', 1, 4, 120, 137, work)
        remove_namespaces()
        make_namespaces()
        scenario("7/8", 'meter = "7/8"\nbeat-unit = "1/8"\n', 0.5, 3.5, 120, 137, work)
    finally:
        remove_namespaces()
    if failures:
        print(f"Link tests: {len(failures)} failed (files in {work})")
        return 1
    print("Link tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
