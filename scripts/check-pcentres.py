#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks each word's lead in voice folders against two P-centre estimators of its own.

Usage: scripts/check-pcentres.py VOICES_DIR [LANG ...]     (e.g. voices; default en de es)

Reads voice-LANG/voice.toml and the 48 kHz WAVs as the engine does (nothing from
make-voices.py), estimates each word's perceptual centre twice and prints
estimate - lead in ms per word, the worst word per language, and exits 1 when a word is
more than TOLERANCE ms from either estimate. The estimators share no code with the
rule in make-voices.py and differ from it on purpose:

  lowband  the 50 % rise of a low-band envelope (Scott 1993/1998: the P-centre follows the
           rise of energy in the F1 region): the signal band-limited to 150-900 Hz with an
           FFT mask (no recursive filter), its Hilbert magnitude smoothed by a 20 ms Hann
           window; the centre is the first sample where that envelope reaches 50 % of its
           maximum over the word's first syllable (from the first 30 % crossing of the
           envelope's maximum up to its first dip below half of the peak so far).
  vowel    vowel-onset detection (Marcus 1981, Pompino-Marschall 1989: the P-centre sits
           near the onset of the syllable's vowel): 20 ms frames every 2 ms; a frame is
           vocalic when it is periodic (normalised autocorrelation above 0.5 at a lag of
           2.5-12.5 ms, f0 80-400 Hz), most of its energy lies below 1.5 kHz (not a
           fricative) and its level is within 8 dB of the loudest vocalic frame (not a
           nasal or voiced-consonant murmur); the onset is the first of 4 consecutive
           vocalic frames (8 ms), at the frame's centre.
"""
import os
import re
import sys
import wave

import numpy

TOLERANCE = 10.0   # ms


def read_wav(path):
    with wave.open(path) as w:
        rate = w.getframerate()
        assert w.getnchannels() == 1 and w.getsampwidth() == 2, path
        x = numpy.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(numpy.float64) / 32768.0
    return x, rate


def read_leads(path):
    leads, words, section = {}, {}, None
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            section = line.strip("[]").strip()
            continue
        key, _, value = line.partition("=")
        key, value = key.strip().strip('"'), value.strip()
        if section == "lead":
            leads[key] = int(value)
        elif value.startswith("["):
            words[key] = re.findall(r'"([^"]*)"', value)
    return leads, words


def bandlimit(x, rate, low, high):
    n = 1 << int(numpy.ceil(numpy.log2(len(x) + rate // 10)))
    spectrum = numpy.fft.rfft(x, n)
    f = numpy.fft.rfftfreq(n, 1.0 / rate)
    # a raised-cosine edge of 50 Hz each side, so the mask rings little
    mask = numpy.clip((f - (low - 25)) / 50, 0, 1) * numpy.clip(((high + 25) - f) / 50, 0, 1)
    mask = 0.5 - 0.5 * numpy.cos(numpy.pi * mask)
    return numpy.fft.irfft(spectrum * mask, n)[:len(x)]


def hilbert_magnitude(x):
    n = len(x)
    spectrum = numpy.fft.fft(x)
    h = numpy.zeros(n)
    h[0] = 1
    if n % 2 == 0:
        h[n // 2] = 1
        h[1:n // 2] = 2
    else:
        h[1:(n + 1) // 2] = 2
    return numpy.abs(numpy.fft.ifft(spectrum * h))


def lowband(x, rate):
    """Sample of the 50 % rise of the first syllable's 150-900 Hz envelope."""
    e = hilbert_magnitude(bandlimit(x, rate, 150, 900))
    w = numpy.hanning(rate // 50)
    e = numpy.convolve(e, w / w.sum(), mode="same")
    top = e.max()
    first = int(numpy.argmax(e >= 0.3 * top))
    end = first
    peak = e[first]
    while end < len(e) and e[end] >= 0.5 * peak:
        peak = max(peak, e[end])
        end += 1
    return int(numpy.argmax(e >= 0.5 * peak))


def vowel(x, rate):
    """Sample of the vowel onset: the first of 4 consecutive vocalic frames."""
    # silence around the clip, so frames straddle its ends (a word that starts on its vowel
    # gets an onset near 0, a short word frames enough)
    pad = rate // 50
    x = numpy.concatenate((numpy.zeros(pad), x, numpy.zeros(rate // 20)))
    low_share = bandlimit(x, rate, 0, 1500)
    # periodicity on a 12 kHz copy (band-limited to 3 kHz first): normalised
    # cross-correlation of the frame with itself one lag later
    step = max(1, rate // 12000)
    y = bandlimit(x, rate, 0, 3000)[::step]
    r12 = rate / step
    size, hop = int(r12 / 50), int(r12 / 500)
    lo, hi = int(r12 / 400), int(r12 / 80)
    frames = []
    for s in range(0, len(y) - size - hi, hop):
        a = y[s:s + size]
        ea = float(a @ a)
        best = 0.0
        if ea > 1e-12:
            segs = numpy.lib.stride_tricks.sliding_window_view(y[s + lo:s + hi + size], size)
            eb = (segs * segs).sum(axis=1)
            r = (segs @ a) / numpy.sqrt(ea * numpy.maximum(eb, 1e-12))
            best = float(r.max())
        t = s * step
        g = low_share[t:t + size * step]
        whole = x[t:t + size * step]
        ew = float(whole @ whole)
        share = float(g @ g) / ew if ew > 1e-12 else 0.0
        frames.append((t + size * step // 2, best, share, ew))
    vocalic = [e for _, r, share, e in frames if r > 0.5 and share > 0.5]
    if not vocalic:
        return None
    loudest = max(vocalic)
    ok = [r > 0.5 and share > 0.5 and e >= loudest * 10 ** (-8 / 10) for _, r, share, e in frames]
    for i in range(len(ok) - 3):
        if all(ok[i:i + 4]):
            return frames[i][0] - pad
    return None


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: scripts/check-pcentres.py VOICES_DIR [LANG ...]\n")
        sys.exit(2)
    root = sys.argv[1]
    langs = sys.argv[2:] or ["en", "de", "es"]
    bad = 0
    for lang in langs:
        folder = os.path.join(root, "voice-" + lang)
        leads, words = read_leads(os.path.join(folder, "voice.toml"))
        names = []
        for key in ("numbers", "layer2", "layer3", "layer4", "count_in"):
            for name in words.get(key, []):
                if name not in names:
                    names.append(name)
        worst = {"lowband": (0.0, ""), "vowel": (0.0, "")}
        print("voice-%s: estimate - lead, ms (lead in ms)" % lang)
        for name in names:
            x, rate = read_wav(os.path.join(folder, name + ".wav"))
            lead = leads[name]
            cells = []
            for est, fn in (("lowband", lowband), ("vowel", vowel)):
                p = fn(x, rate)
                if p is None:
                    cells.append("%s    n/a" % est)
                    bad += 1
                    continue
                d = 1000.0 * (p - lead) / rate
                if abs(d) > abs(worst[est][0]):
                    worst[est] = (d, name)
                if abs(d) > TOLERANCE:
                    bad += 1
                cells.append("%s %+6.1f%s" % (est, d, " !" if abs(d) > TOLERANCE else "  "))
            print("  %-7s lead %6.1f   %s" % (name, 1000.0 * lead / rate, "   ".join(cells)))
        print("  worst: lowband %+.1f ms (%s), vowel %+.1f ms (%s)"
              % (worst["lowband"][0], worst["lowband"][1], worst["vowel"][0], worst["vowel"][1]))
    print("%d estimate(s) more than %.0f ms from the lead" % (bad, TOLERANCE))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
