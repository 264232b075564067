#!/usr/bin/env python3
"""Checks on audio captured from the snd-aloop loopback in the test VM (pure Python, no numpy).

The capture starts at an arbitrary moment before the sound, so everything is aligned on
the first non-silent frame (the onset), never on frame 0. The engine's clicks end in exact
digital silence, so "silent" means all-zero samples.

  audio.py match REF CAP [--min-onsets N] [--allow-truncated]
      From its first onset on, CAP must hold REF's samples bit for bit over REF's span
      (up to REF's last non-zero frame, so aloop's replay of stale ring-buffer content
      after a drain is ignored). --allow-truncated: the capture may stop before REF ends
      (the service kept playing); then at least --min-onsets clicks must be in the overlap.
  audio.py spacing CAP --bpm BPM [--rate R] [--min-onsets N] [--after-s S]
      Onset k (from the first one after S seconds) must lie exactly at round(k * R * 60 / BPM).
  audio.py tone CAP --hz F --ms D
      One tone in the capture: its sound lasts D ms (+-2 ms) at F Hz (+-2 %, by zero crossings).
  audio.py onsets CAP
      Prints the onsets (frame, interval) for a log.

Exit status 0 when the check holds; one summary line on stdout either way.
"""
import argparse
import sys
import wave
from fractions import Fraction


def load(path):
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2:
            sys.exit(f"{path}: expected 16-bit samples, got {8 * w.getsampwidth()}-bit")
        frames = w.readframes(w.getnframes())
        return w.getnchannels(), w.getframerate(), frames


def frames_of(data, channels):
    size = 2 * channels
    return [data[i:i + size] for i in range(0, len(data) - size + 1, size)]


def onsets(frames, min_gap):
    """Frames that are non-silent after at least min_gap silent frames (or at the start)."""
    out, silent = [], min_gap
    zero = b"\0" * len(frames[0]) if frames else b""
    for i, f in enumerate(frames):
        if f == zero:
            silent += 1
        else:
            if silent >= min_gap:
                out.append(i)
            silent = 0
    return out


def last_sound(frames):
    zero = b"\0" * len(frames[0]) if frames else b""
    for i in range(len(frames) - 1, -1, -1):
        if frames[i] != zero:
            return i
    return -1


def describe(ons, rate):
    iv = [b - a for a, b in zip(ons, ons[1:])]
    return f"onsets={len(ons)} first_at={ons[0] / rate:.3f}s intervals={iv[:12]}{'...' if len(iv) > 12 else ''}" if ons else "onsets=0"


def cmd_match(a):
    rch, rrate, rdata = load(a.ref)
    cch, crate, cdata = load(a.cap)
    if (rch, rrate) != (cch, crate):
        print(f"FAIL format differs: ref {rch}ch {rrate}Hz, capture {cch}ch {crate}Hz")
        return 1
    ref, cap = frames_of(rdata, rch), frames_of(cdata, cch)
    gap = rrate // 100  # 10 ms of silence separates clicks
    ro, co = onsets(ref, gap), onsets(cap, gap)
    if not co:
        print(f"FAIL no sound captured ({len(cap)} frames, {len(cap) / crate:.2f}s)")
        return 1
    r0, c0, rend = ro[0], co[0], last_sound(ref)
    span = rend - r0 + 1
    have = len(cap) - c0
    if have < span and not a.allow_truncated:
        print(f"FAIL capture too short: {have} frames after the first onset, reference needs {span}")
        return 1
    n = min(span, have)
    mismatch = next((i for i in range(n) if ref[r0 + i] != cap[c0 + i]), None)
    ref_on = [o - r0 for o in ro if o - r0 < n]
    cap_on = [o - c0 for o in co if o - c0 < n]
    enough = len(ref_on) >= a.min_onsets
    ok = mismatch is None and enough and ref_on == cap_on
    detail = (f"compared={n} frames ({n / rrate:.2f}s) clicks={len(cap_on)}/{len(ref_on)} "
              f"lead_in={c0 / crate:.3f}s")
    if mismatch is not None:
        detail += f" first_mismatch_at_frame={mismatch} ({mismatch / rrate:.4f}s after the first onset)"
    if not enough:
        detail += f" (need at least {a.min_onsets} clicks)"
    print(("PASS " if ok else "FAIL ") + detail + f" capture: {describe([o - c0 for o in co], crate)}")
    return 0 if ok else 1


def cmd_spacing(a):
    ch, rate, data = load(a.cap)
    rate = a.rate or rate
    cap = frames_of(data, ch)
    ons = [o for o in onsets(cap, rate // 100) if o >= a.after_s * rate]
    if len(ons) < a.min_onsets:
        print(f"FAIL {len(ons)} onsets, need {a.min_onsets}: {describe(ons, rate)}")
        return 1
    per_beat = Fraction(rate * 60) / Fraction(a.bpm)
    want = [int(k * per_beat + Fraction(1, 2)) for k in range(len(ons))]  # exact, halves up
    got = [o - ons[0] for o in ons]
    bad = [(k, g, w) for k, (g, w) in enumerate(zip(got, want)) if g != w]
    ok = not bad
    print(("PASS " if ok else "FAIL ") + f"bpm={a.bpm} {describe(ons, rate)}"
          + (f" off_grid(k,got,want)={bad[:5]}" if bad else ""))
    return 0 if ok else 1


def cmd_tone(a):
    ch, rate, data = load(a.cap)
    frames = frames_of(data, ch)
    zero = b"\0" * 2 * ch
    sound = [i for i, f in enumerate(frames) if f != zero]
    if not sound:
        print(f"FAIL silence ({len(frames) / rate:.2f}s captured)")
        return 1
    first, last = sound[0], sound[-1]
    left = [int.from_bytes(f[0:2], "little", signed=True) for f in frames[first:last + 1]]
    crossings = sum(1 for x, y in zip(left, left[1:]) if (x < 0) != (y < 0))
    ms = (last - first + 1) * 1000 / rate
    hz = crossings / 2 / ((last - first + 1) / rate)
    ok = abs(ms - a.ms) <= 2 and abs(hz - a.hz) <= 0.02 * a.hz
    print(("PASS " if ok else "FAIL ") + f"tone of {ms:.1f} ms at {hz:.0f} Hz, peak {max(map(abs, left))} "
          f"(want {a.ms:g} ms at {a.hz:g} Hz) starting {first / rate:.3f}s into the capture")
    return 0 if ok else 1


def cmd_onsets(a):
    ch, rate, data = load(a.cap)
    ons = onsets(frames_of(data, ch), rate // 100)
    print(describe(ons, rate))
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("match")
    m.add_argument("ref")
    m.add_argument("cap")
    m.add_argument("--min-onsets", type=int, default=1)
    m.add_argument("--allow-truncated", action="store_true")
    s = sub.add_parser("spacing")
    s.add_argument("cap")
    s.add_argument("--bpm", type=Fraction, required=True)
    s.add_argument("--rate", type=int, default=0)
    s.add_argument("--min-onsets", type=int, default=4)
    s.add_argument("--after-s", type=float, default=0.0)
    t = sub.add_parser("tone")
    t.add_argument("cap")
    t.add_argument("--hz", type=float, required=True)
    t.add_argument("--ms", type=float, required=True)
    o = sub.add_parser("onsets")
    o.add_argument("cap")
    a = p.parse_args()
    try:
        return {"match": cmd_match, "spacing": cmd_spacing, "tone": cmd_tone, "onsets": cmd_onsets}[a.cmd](a)
    except (OSError, wave.Error, EOFError) as e:
        print(f"FAIL cannot read: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
