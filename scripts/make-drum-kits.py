#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Drum takes like a player's, with exact truths, for the coach's tests and `make bench`.

Each instrument's note is rendered once per velocity and kit with fluidsynth (Debian's
soundfonts), trimmed to its first sample above -60 dB of its peak (that sample is the
stroke's start), and copies are placed into takes at exact integer samples: the truth is
exact by construction. Nothing here is committed audio: the takes are made at test time
into a cache folder, deterministic from their seeds.

  make-drum-kits.py --out DIR --set unit|bench [--seed N] [--tactus BIN]

writes DIR/NAME.wav (the take) and DIR/NAME.json (its truth: every stroke's first sample,
ghost and flam marks, and the `tactus coach` flags that judge it) for each take, and
DIR/index.json listing them. The click (the box's own, bleeding into the microphone) comes
from `tactus render` (--tactus); without it, takes with a click are left out, loudly.
Kits missing on this machine are left out, loudly; none at all is an error (exit 3).
"""
import argparse
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

SF2 = "/usr/share/sounds/sf2"
# (name, file, MIDI channel index the drums answer on)
KITS = [
    ("fluidr3", f"{SF2}/FluidR3_GM.sf2", 9),
    ("timgm6mb", f"{SF2}/TimGM6mb.sf2", 9),
    ("blackpearl", f"{SF2}/Black_Pearl_4_LV2.sf2", 0),
    ("redzeppelin", f"{SF2}/Red_Zeppelin_4_LV2.sf2", 0),
]
NOTES = {"kick": 36, "stick": 37, "snare": 38, "hihat": 42, "openhat": 46, "lowtom": 45, "hightom": 50,
         "crash": 49, "ride": 51, "cowbell": 56, "woodblock": 76}
VELOCITIES = [45, 70, 100, 127]
RATES = [44100, 48000]
SCRIPT_VERSION = 5  # bump when the takes change: the cache is keyed on it


# ---- WAV in and out (float32 / PCM 16, 24, 32) -----------------------------------------

def read_wav(path):
    data = open(path, "rb").read()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", path
    pos, fmt, body = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        chunk = data[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            fmt = struct.unpack("<HHIIHH", chunk[:16])
        elif cid == b"data":
            body = chunk
        pos += 8 + size + (size & 1)
    tag, channels, rate, _, _, bits = fmt
    if tag == 0xFFFE:
        tag = 3 if bits == 32 and b"\x03\x00\x00\x00\x00\x00\x10\x00" in data[:200] else 1
    if tag == 3:
        x = np.frombuffer(body, dtype="<f4").astype(np.float64)
    elif bits == 16:
        x = np.frombuffer(body, dtype="<i2") / 32768.0
    elif bits == 24:
        b = np.frombuffer(body[:len(body) // 3 * 3], dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        x = np.where(v >= 1 << 23, v - (1 << 24), v) / float(1 << 23)
    else:
        x = np.frombuffer(body, dtype="<i4") / 2147483648.0
    return x.reshape(-1, channels), rate


def write_wav(path, x, rate, fmt="f32"):
    x = np.asarray(x, dtype=np.float64)
    if fmt == "f32":
        body, tag, bits = x.astype("<f4").tobytes(), 3, 32
    else:
        bits = {"s16": 16, "s24": 24, "s32": 32}[fmt]
        full = float(1 << (bits - 1))
        v = np.clip(np.round(x * full), -full, full - 1).astype(np.int64)
        if bits == 16:
            body = v.astype("<i2").tobytes()
        elif bits == 32:
            body = v.astype("<i4").tobytes()
        else:
            u = (v & 0xFFFFFF).astype(np.uint32)
            body = np.stack([u & 0xFF, (u >> 8) & 0xFF, (u >> 16) & 0xFF], axis=1).astype(np.uint8).tobytes()
        tag = 1
    block = bits // 8
    head = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(body), b"WAVE", b"fmt ", 16, tag, 1, rate,
                       rate * block, block, bits, b"data", len(body))
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(head + body)
    os.replace(tmp, path)


# ---- one-shots ---------------------------------------------------------------------------

def midi_file(channel, note, velocity):
    def vlq(n):
        out = [n & 0x7F]
        n >>= 7
        while n:
            out.append((n & 0x7F) | 0x80)
            n >>= 7
        return bytes(reversed(out))
    c = channel
    events = (vlq(0) + bytes([0xC0 | c, 0]) + vlq(0) + bytes([0x90 | c, note, velocity])
              + vlq(96) + bytes([0x80 | c, note, 0]) + vlq(480 * 8) + bytes([0xB0 | c, 123, 0])
              + vlq(0) + b"\xff\x2f\x00")
    return b"MThd" + struct.pack(">IHHH", 6, 0, 1, 480) + b"MTrk" + struct.pack(">I", len(events)) + events


def render_shot(kit_file, channel, note, velocity, rate, work):
    mid = os.path.join(work, "note.mid")
    wav = os.path.join(work, "shot.wav")
    open(mid, "wb").write(midi_file(channel, note, velocity))
    # -R 0 -C 0: no reverb or chorus of fluidsynth's own (the room is added by sox, known).
    subprocess.run(["fluidsynth", "-ni", "-R", "0", "-C", "0", "-g", "0.5", "-r", str(rate), "-O", "float",
                    "-T", "wav", "-F", wav, kit_file, mid], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    x, _ = read_wav(wav)
    mono = x.mean(axis=1)
    peak = np.max(np.abs(mono)) if len(mono) else 0
    if peak < 1e-5:
        return None
    # The stroke starts at its first sample above -60 dB of its peak (fluidsynth starts notes
    # on 64-sample blocks, so the MIDI time is not the truth); it ends below -80 dB.
    above = np.nonzero(np.abs(mono) >= peak * 1e-3)[0]
    start = above[0]
    loud = np.nonzero(np.abs(mono) >= peak * 1e-4)[0]
    end = max(loud[-1] + 1, start + 64)
    shot = mono[start:end].copy()
    fade = min(len(shot) // 4, rate // 100)
    if fade > 0:
        shot[-fade:] *= np.linspace(1, 0, fade)
    return shot  # as loud as the kit plays this velocity


def shots(cache, rate):
    """{kit: {instrument: {velocity: (samples, level)}}} for the kits installed, cached."""
    folder = cache
    os.makedirs(folder, exist_ok=True)
    result = {}
    missing = [k[0] for k in KITS if not os.path.exists(k[1])]
    if missing:
        print(f"make-drum-kits: WARNING: kits not installed, left out: {', '.join(missing)} "
              f"(scripts/install-deps.sh test installs fluid-soundfont-gm, timgm6mb-soundfont, avldrums.lv2-soundfont)",
              file=sys.stderr)
    if shutil.which("fluidsynth") is None:
        print("make-drum-kits: fluidsynth is not installed (scripts/install-deps.sh test)", file=sys.stderr)
        sys.exit(3)
    work = tempfile.mkdtemp(prefix="drumkit-")
    try:
        for name, path, channel in KITS:
            if not os.path.exists(path):
                continue
            kit = {}
            for instrument, note in NOTES.items():
                per = {}
                for v in VELOCITIES:
                    cached = os.path.join(folder, f"{name}-{instrument}-{v}-{rate}.npy")
                    if os.path.exists(cached):
                        arr = np.load(cached)
                    else:
                        shot = render_shot(path, channel, note, v, rate, work)
                        arr = np.zeros(0) if shot is None else shot
                        np.save(cached + ".part.npy", arr)
                        os.replace(cached + ".part.npy", cached)
                    if len(arr):
                        per[v] = arr
                if per:
                    kit[instrument] = per
            if kit:
                result[name] = kit
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not result:
        print("make-drum-kits: no drum kit is installed (apt-get install fluid-soundfont-gm timgm6mb-soundfont "
              "avldrums.lv2-soundfont)", file=sys.stderr)
        sys.exit(3)
    return result


# ---- grooves -----------------------------------------------------------------------------
# A groove: for a position p of a bar of `per_bar` positions (`sub` per beat, 4 beats), the
# instruments struck together (one stroke: the player's limbs land on the same sample).

def groove_rock(p, sub, bar, rng):
    beat, part = divmod(p, sub)
    hat = ["ride"] if bar % 8 >= 4 else ["hihat"]
    if sub == 4 and part % 2 == 1 and rng.random() < 0.5:
        return []
    notes = list(hat)
    if part == 0 and beat in (0, 2):
        notes.append("kick")
    if part == 0 and beat in (1, 3):
        notes.append("snare")
    if p == 0 and bar % 4 == 0:
        notes = ["crash", "kick"]
    if p == 4 * sub - 1 and bar % 2 == 1 and sub == 2:
        notes = ["openhat"]
    if sub == 4 and beat == 3 and part == 2 and bar % 4 == 3:
        notes = ["lowtom"]
    if sub == 4 and beat == 3 and part == 3 and bar % 4 == 3:
        notes = ["hightom"]
    return notes


def groove_funk(p, sub, bar, rng):
    beat, part = divmod(p, 4)
    if part == 0:
        return ["hihat"] + (["kick"] if beat in (0, 2) else ["snare"])
    if part == 2:
        return ["hihat"] + (["kick"] if beat == 2 and bar % 2 == 1 else [])
    if p in (3, 10) and rng.random() < 0.6:
        return ["kick"]
    return ["ghost"] if rng.random() < 0.7 else []


def groove_swing(p, sub, bar, rng):
    beat, part = divmod(p, 3)
    if part == 0:
        return ["ride"] + (["hihat"] if beat in (1, 3) else []) + (["kick"] if rng.random() < 0.25 else [])
    if part == 2 and beat in (1, 3):
        return ["ride"]
    if part == 2 and rng.random() < 0.3:
        return ["snare"] if rng.random() < 0.5 else ["ghost"]
    return []


def groove_solo(instrument):
    def play(p, sub, bar, rng):
        return [instrument]
    return play


# ---- takes -------------------------------------------------------------------------------

def take_specs(which, seed):
    """The takes of a set, each a dict; deterministic from (which, seed)."""
    rng = np.random.default_rng([seed, 7 if which == "unit" else 11])
    specs = []
    solos = ["kick", "snare", "stick", "hihat", "openhat", "lowtom", "hightom", "ride", "crash", "cowbell", "woodblock"]

    def spec(**kw):
        base = dict(kit=len(specs), rate=int(rng.choice(RATES)), bpm=int(rng.integers(60, 201)), sub=int(rng.choice([2, 4])),
                    groove="rock", bars=4, humanize=float(rng.choice([2.0, 6.0, 10.0])), ghosts=False, flams=0.0,
                    reverb=False, snr=None, dc=0.0, click=None, format="f32", clip=False, late_on_clicks=None,
                    seed=int(rng.integers(0, 2**31)))
        base.update(kw)
        if base["groove"] == "funk":
            base["sub"] = 4
        if base["groove"] == "swing":
            base["sub"] = 3
        # about 60-160 strokes per take
        per_bar = 4 * base["sub"]
        base["bars"] = kw.get("bars", max(2, int(round((40 if which == "unit" else 120) / per_bar))))
        base["name"] = f"{which}-{len(specs):03d}"
        specs.append(base)

    click = lambda: dict(level_db=float(rng.choice([-12.0, -6.0])), delay_ms=float(rng.uniform(0, 100)))
    if which == "unit":
        # The reproducers first.
        spec(groove="solo:kick", sub=2, bpm=120, bars=1, humanize=0.0)          # eight kicks
        spec(groove="solo:cowbell", sub=2, bpm=100, click=dict(level_db=-12.0, delay_ms=20.0, sound="woodblock"),
             late_on_clicks=(8.0, 15.0), humanize=0.0)
        spec(groove="clickonly", format="s16", click=dict(level_db=-6.0, delay_ms=30.0))
        spec(groove="rock", dc=0.1, sub=2, bpm=110)
        spec(groove="rock", flams=0.5, sub=2, bpm=90)
        spec(groove="funk", bpm=120, ghosts=True)
        spec(groove="solo:stick", sub=2, bpm=100)
        spec(groove="clickonly", format="s24", click=dict(level_db=-12.0, delay_ms=80.0))
        spec(groove="clickonly", format="s32", click=dict(level_db=-6.0, delay_ms=5.0))
        spec(groove="clickonly", format="f32", click=dict(level_db=-12.0, delay_ms=55.0))
        spec(groove="rock", clip=True, sub=2)
        for s in solos:
            spec(groove=f"solo:{s}", sub=2, bpm=int(rng.integers(60, 161)))
        for g in ["rock", "funk", "swing"]:
            spec(groove=g, reverb=True)
            spec(groove=g, snr=30.0, click=click())
            spec(groove=g, snr=15.0)
            spec(groove=g, click=click(), format="s16", ghosts=True, flams=0.2)
        return specs
    for round_ in range(3):
        for s in solos:
            spec(groove=f"solo:{s}", sub=int(rng.choice([2, 4])), bpm=int(rng.integers(60, 161)),
                 click=click() if rng.random() < 0.5 else None)
        for g in ["rock", "funk", "swing"] * 8:
            spec(groove=g, reverb=bool(rng.random() < 0.3), snr=[None, 30.0, 15.0][int(rng.integers(0, 3))],
                 dc=float(rng.choice([0.0, 0.0, 0.02, 0.1])), click=click() if rng.random() < 0.6 else None,
                 format=str(rng.choice(["f32", "f32", "s16", "s24", "s32"])), ghosts=bool(rng.random() < 0.5),
                 flams=float(rng.choice([0.0, 0.0, 0.15])), clip=bool(rng.random() < 0.05))
        spec(groove="solo:cowbell", sub=2, click=dict(level_db=float(rng.choice([-12.0, -6.0])), delay_ms=float(rng.uniform(0, 100)),
             sound="woodblock"), late_on_clicks=(8.0, 15.0))
    for f in ["s16", "s24", "s32", "f32"]:
        spec(groove="clickonly", format=f, click=click())
    return specs


def render_click(tactus, bpm, sub, rate, seconds, sound, work):
    """The box's output (mono) from its sample 0 (bar 0's downbeat) and its clicks' first samples."""
    path, events = os.path.join(work, "click.wav"), os.path.join(work, "click.jsonl")
    args = [tactus, "render", "--bpm", str(bpm), "--rate", str(rate), "--format", "f32", "--channels", "1",
            "--seconds", f"{seconds:.3f}", "-o", path, "--events", events]
    if sound:
        args[2:2] = ["--sound", sound]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    x, _ = read_wav(path)
    starts = [e["sample"] for e in map(json.loads, open(events)) if e.get("type") == "onset"]
    return x[:, 0], starts


def build_take(s, kits, tactus, work):
    rng = np.random.default_rng(s["seed"])
    rate, bpm, sub = s["rate"], s["bpm"], s["sub"]
    names = sorted(kits)
    kit = kits[names[s["kit"] % len(names)]]
    beat = 60.0 / bpm * rate
    step = beat / sub
    per_bar = 4 * sub
    lead = int(rng.integers(int(0.3 * rate), int(0.8 * rate)))  # bar 0's downbeat, in samples
    length = int(lead + s["bars"] * 4 * beat + 2.5 * rate)
    drums = np.zeros(length)
    ref = max(np.max(np.abs(v)) for per in kit.values() for v in per.values())
    strokes = []
    solo = s["groove"].split(":")[1] if s["groove"].startswith("solo:") else None
    play = {"rock": groove_rock, "funk": groove_funk, "swing": groove_swing}.get(s["groove"]) or groove_solo(solo)
    limit = min(0.030 * rate, 0.2 * step)
    last = -10 ** 9
    if s["groove"] != "clickonly":
        for bar in range(s["bars"]):
            for p in range(per_bar):
                notes = [n for n in play(p, sub, bar, rng) if n == "ghost" or n in kit]
                if not notes:
                    continue
                grid = lead + (bar * per_bar + p) * step
                off = float(np.clip(rng.normal(0, s["humanize"] * rate / 1000), -limit, limit))
                if s["late_on_clicks"] and p % sub == 0:
                    off = rng.uniform(*s["late_on_clicks"]) * rate / 1000
                at = int(round(grid + off))
                ghost = notes == ["ghost"]
                if ghost and (not s["ghosts"] or "snare" not in kit):
                    continue
                velocity = int(rng.choice([100, 127])) if not ghost else 100
                accent = 1.0 if p % sub == 0 else float(rng.uniform(0.6, 0.9))
                flam = (not ghost and s["flams"] > 0 and rng.random() < s["flams"] and at - last > 0.065 * rate)
                grace = None
                for n in notes:
                    inst = "snare" if n == "ghost" else n
                    v = velocity if velocity in kit[inst] else max(kit[inst])
                    gain = accent * (10 ** (-24 / 20) if n == "ghost" else 1.0) / ref
                    shot = kit[inst][v]
                    end = min(length, at + len(shot))
                    drums[at:end] += gain * shot[:end - at]
                if flam:
                    grace = at - int(round(rng.uniform(0.015, 0.025) * rate))
                    inst = [n for n in notes if n != "ghost"][0]
                    v = min(kit[inst], key=lambda k: abs(k - 70))
                    shot = kit[inst][v]
                    end = min(length, grace + len(shot))
                    drums[grace:end] += accent * 10 ** (-12 / 20) / ref * shot[:end - grace] * (
                        np.max(np.abs(kit[inst][velocity if velocity in kit[inst] else max(kit[inst])])) / np.max(np.abs(shot)))
                strokes.append(dict(sample=at, bar=bar, position=p, instruments=notes, ghost=ghost, flam=bool(flam),
                                    grace=grace))
                last = at
    peak = np.max(np.abs(drums)) if strokes else 0.0
    if peak > 0:
        drums *= 0.5 / peak
        peak = 0.5
    if s["reverb"] and strokes:
        src, dst = os.path.join(work, "dry.wav"), os.path.join(work, "wet.wav")
        write_wav(src, drums, rate)
        subprocess.run(["sox", "-V1", src, "-e", "floating-point", "-b", "32", dst, "reverb", "40", "50", "60"], check=True)
        wet, _ = read_wav(dst)
        drums = wet[:length, 0]
    take = drums.copy()
    click_info = None
    if s["click"]:
        c = s["click"]
        clip, starts = render_click(tactus, bpm, sub, rate, length / rate + 1, c.get("sound"), work)
        cpeak = np.max(np.abs(clip))
        level = (peak if peak > 0 else 0.5) * 10 ** (c["level_db"] / 20)
        delay = int(round(c["delay_ms"] * rate / 1000))
        start = lead + delay
        n = min(len(clip), length - start)
        take[start:start + n] += clip[:n] * level / cpeak
        # The box's output as the take's clock sees it (bar 0 at `lead`), for BleedFit.
        output = np.zeros(length)
        n = min(len(clip), length - lead)
        output[lead:lead + n] = clip[:n]
        click_info = dict(level_db=c["level_db"], delay_samples=delay, sound=c.get("sound"), gain=float(level / cpeak),
                          starts=[lead + t for t in starts if lead + t < length], output=output)
    if s["snr"] is not None:
        rms = np.sqrt(np.mean(take ** 2))
        take += rng.normal(0, rms * 10 ** (-s["snr"] / 20), length)
    take += s["dc"]
    clipped = 0
    if s["clip"]:
        take *= 1.6 / np.max(np.abs(take))
        clipped = int(np.sum(np.abs(take) >= 1.0))
        take = np.clip(take, -1.0, 1.0)
    elif np.max(np.abs(take)) > 0.95:
        take *= 0.95 / np.max(np.abs(take))
    grid = {2: "1/8", 3: "1/12", 4: "1/16"}[sub]
    coach = ["--bpm", str(bpm), "--offset", f"{lead}/{rate}", "--grid", grid]
    if click_info and click_info["sound"]:
        coach[2:2] = ["--sound", click_info["sound"]]
    truth = dict(name=s["name"], rate=rate, bpm=bpm, sub=sub, groove=s["groove"], kit=names[s["kit"] % len(names)],
                 bar_zero=lead, format=s["format"], reverb=s["reverb"], snr_db=s["snr"], dc=s["dc"], click=click_info,
                 clipped_samples=clipped, coach_args=coach, strokes=strokes)
    return take, truth


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--set", choices=["unit", "bench"], default="unit")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tactus", help="the tactus binary, for the click (tactus render)")
    ap.add_argument("--shots", help="the one-shots' cache folder (default: shots beside --out)")
    ap.add_argument("--only", help="comma-separated take names")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    specs = take_specs(a.set, a.seed)
    if a.only:
        keep = set(a.only.split(","))
        specs = [s for s in specs if s["name"] in keep]
    if not a.tactus and any(s["click"] for s in specs):
        print("make-drum-kits: WARNING: no --tactus binary: the takes with the click are left out", file=sys.stderr)
        specs = [s for s in specs if not s["click"]]
    kits_by_rate = {}
    work = tempfile.mkdtemp(prefix="drumtake-")
    index = []
    try:
        for s in specs:
            key = hashlib.sha256(json.dumps([SCRIPT_VERSION, s], sort_keys=True).encode()).hexdigest()[:16]
            wav, meta = os.path.join(a.out, s["name"] + ".wav"), os.path.join(a.out, s["name"] + ".json")
            if os.path.exists(meta) and json.load(open(meta)).get("key") == key and os.path.exists(wav):
                index.append(s["name"])
                continue
            if s["rate"] not in kits_by_rate:
                kits_by_rate[s["rate"]] = shots(a.shots or os.path.join(os.path.dirname(os.path.abspath(a.out)), "shots"), s["rate"])
            take, truth = build_take(s, kits_by_rate[s["rate"]], a.tactus, work)
            truth["key"] = key
            write_wav(wav, take, s["rate"], s["format"])
            if truth["click"]:
                write_wav(os.path.join(a.out, s["name"] + ".click.wav"), truth["click"].pop("output"), s["rate"])
            with open(meta + ".part", "w") as f:
                json.dump(truth, f, indent=1)
            os.replace(meta + ".part", meta)
            index.append(s["name"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(index, f)
    print(f"make-drum-kits: {len(index)} takes in {a.out}")


if __name__ == "__main__":
    main()
