#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks on audio captured from the snd-aloop loopback in the test VM (pure Python, no numpy).

The capture starts at an arbitrary moment before the sound, so everything is aligned on
the first non-silent frame (the onset), never on frame 0. The engine's clicks end in exact
digital silence, so "silent" means all-zero samples. WAVs may be 16-bit PCM or 32-bit float
(the loopback runs in the format tactus opened it with: FLOAT_LE).

  audio.py match REF CAP [--min-onsets N] [--allow-truncated]
      From its first onset on, CAP must hold REF's samples bit for bit over REF's span
      (up to REF's last non-zero frame, so aloop's replay of stale ring-buffer content
      after a drain is ignored). --allow-truncated: the capture may stop before REF ends
      (the service kept playing); then at least --min-onsets clicks must be in the overlap.
  audio.py spacing CAP --bpm BPM [--rate R] [--min-onsets N] [--after-s S]
      The onsets (after S seconds) must be an exact beat grid rounded to samples: there is
      one phase x with every onset k within half a sample of x + k * R * 60 / BPM (so the
      residuals onset_k - k * R * 60 / BPM spread over at most one sample). The capture may
      start anywhere in the bar, so the phase is found, not assumed.
  audio.py tone CAP --hz F --ms D
      One tone in the capture: its sound lasts D ms (+-2 ms) at F Hz (+-2 %, by zero crossings).
  audio.py onsets CAP
      Prints the onsets (frame, interval) for a log.

Exit status 0 when the check holds; one summary line on stdout either way.
"""
import argparse
import struct
import sys
from array import array
from fractions import Fraction


class Capture:
    """A WAV file as frames (tuples of samples scaled to -1...1): 16-bit PCM or 32-bit float
    (format tag 3, or WAVE_FORMAT_EXTENSIBLE), which Python's wave module cannot read."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
            raise OSError(f"{path}: not a WAV file")
        pos, fmt, body = 12, None, None
        while pos + 8 <= len(data):
            cid, size = data[pos:pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
            chunk = data[pos + 8:pos + 8 + size]
            if cid == b"fmt ":
                fmt = chunk
            elif cid == b"data":
                body = chunk  # arecord leaves the size of an interrupted capture at its maximum
            pos += 8 + size + (size & 1)
        if fmt is None or body is None:
            raise OSError(f"{path}: no fmt or data chunk")
        tag, self.channels, self.rate, _, _, bits = struct.unpack_from("<HHIIHH", fmt)
        if tag == 0xFFFE:
            tag = struct.unpack_from("<H", fmt, 24)[0]
        if tag == 3 and bits == 32:
            samples, scale = array("f"), 1.0
        elif tag == 1 and bits == 16:
            samples, scale = array("h"), 1 / 32768
        else:
            raise OSError(f"{path}: format tag {tag} with {bits}-bit samples is not handled")
        width = samples.itemsize * self.channels
        samples.frombytes(body[:len(body) - len(body) % width])
        if sys.byteorder != "little":
            samples.byteswap()
        n = self.channels
        self.frames = [tuple(x * scale for x in samples[i:i + n]) for i in range(0, len(samples), n)]


def load(path):
    c = Capture(path)
    return c.channels, c.rate, c.frames


def silent(frame):
    return not any(frame)


def onsets(frames, min_gap, sound_at_start_is_onset=False):
    """Frames that are non-silent after at least min_gap silent frames. Sound at the very
    start of a capture is not an onset (the click began before the capture did); in a
    rendered reference it is (the render starts on a click)."""
    out, quiet = [], min_gap if sound_at_start_is_onset else 0
    for i, f in enumerate(frames):
        if silent(f):
            quiet += 1
        else:
            if quiet >= min_gap:
                out.append(i)
            quiet = 0
    return out


def last_sound(frames):
    for i in range(len(frames) - 1, -1, -1):
        if not silent(frames[i]):
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
    # Float against float is bit for bit (the loopback copies bytes); give both sides the
    # same sample format.
    ref, cap = rdata, cdata
    gap = rrate // 100  # 10 ms of silence separates clicks
    ro, co = onsets(ref, gap, sound_at_start_is_onset=True), onsets(cap, gap)
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
    cap = data
    ons = [o for o in onsets(cap, rate // 100) if o >= a.after_s * rate]
    if len(ons) < a.min_onsets:
        print(f"FAIL {len(ons)} onsets, need {a.min_onsets}: {describe(ons, rate)}")
        return 1
    per_beat = Fraction(rate * 60) / Fraction(a.bpm)
    residuals = [o - k * per_beat for k, o in enumerate(ons)]
    spread = max(residuals) - min(residuals)
    ok = spread <= 1
    detail = f"bpm={a.bpm} grid residual spread {float(spread):.3f} samples (max 1) {describe(ons, rate)}"
    if not ok:
        worst = max(range(len(ons)), key=lambda k: abs(residuals[k] - residuals[0]))
        detail += f" worst: onset {worst} is {float(residuals[worst] - residuals[0]):+.1f} samples off the grid of onset 0"
    print(("PASS " if ok else "FAIL ") + detail)
    return 0 if ok else 1


def cmd_tone(a):
    ch, rate, frames = load(a.cap)
    sound = [i for i, f in enumerate(frames) if not silent(f)]
    if not sound:
        print(f"FAIL silence ({len(frames) / rate:.2f}s captured)")
        return 1
    # The tone is the longest stretch of sound (gaps under 20 ms belong to it). snd-aloop
    # can hand the capture a stray 64-frame fragment of its ring some 70 ms after the
    # playback stream closed (seen after tactus check's beep); it is reported, not measured.
    gap = rate // 50
    runs, start = [], sound[0]
    for x, y in zip(sound, sound[1:]):
        if y - x > gap:
            runs.append((start, x))
            start = y
    runs.append((start, sound[-1]))
    first, last = max(runs, key=lambda r: r[1] - r[0])
    stray = [r for r in runs if r != (first, last)]
    left = [f[0] for f in frames[first:last + 1]]
    crossings = sum(1 for x, y in zip(left, left[1:]) if (x < 0) != (y < 0))
    ms = (last - first + 1) * 1000 / rate
    hz = crossings / 2 / ((last - first + 1) / rate)
    ok = abs(ms - a.ms) <= 2 and abs(hz - a.hz) <= 0.02 * a.hz
    print(("PASS " if ok else "FAIL ") + f"tone of {ms:.1f} ms at {hz:.0f} Hz, peak {max(map(abs, left))} "
          f"(want {a.ms:g} ms at {a.hz:g} Hz) starting {first / rate:.3f}s into the capture"
          + "".join(f"; stray sound of {(e - b + 1) * 1000 / rate:.1f} ms at {b / rate:.3f}s" for b, e in stray))
    return 0 if ok else 1


def cmd_onsets(a):
    ch, rate, data = load(a.cap)
    ons = onsets(data, rate // 100)
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
    except (OSError, struct.error) as e:
        print(f"FAIL cannot read: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
