#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds the spoken-count sound sets (voice-LANG folders) from Debian's espeak-ng.

Usage: scripts/make-voices.py [--report] OUT_DIR [LANG ...]     (default: every language below)

Each word is synthesized by espeak-ng (no recorded files of others), trimmed to its sound,
level-matched, resampled once from espeak-ng's 22050 Hz to 48000 Hz (the box's rate, so
the box loads the words without resampling them; Kaiser-windowed sinc, numpy) and stored
as a 16-bit mono WAV. Its perceptual centre is measured once, at 22050 Hz, by the rise of
energy in the first formant's region (Scott 1993/1998: the P-centre follows the F1 energy
rise, not a consonant's noise; so the /s/ of "seven" does not pull the centre early):

  1. envelope: RMS over a 10 ms window, every sample (a running sum of squares);
  2. trim: the word starts 5 ms before the envelope first passes 2 % of its maximum
     (-34 dB) and ends 20 ms after it last does (subdivision syllables: see SYLLABLE_*);
  3. the F1 band: the word band-passed to 150-1000 Hz (a linear-phase FIR, applied centred
     so nothing shifts) and its RMS envelope over 20 ms;
  4. the first vowel peak is the first local maximum of the band envelope that reaches 80 %
     of the band envelope's maximum in the word;
  5. the perceptual centre is the first sample where the band envelope reaches half way from
     its value at the word's start to that peak.

scripts/check-pcentres.py checks the result against two estimators of its own.

The centre's distance from the word's first sample is the word's lead, converted to frames
of the 48 kHz WAV (rounded half up) and written to voice.toml; the engine starts the clip that many frames before the onset, so
the beat's sample is the word's centre. Words are scaled so the envelope's maximum is the
same in every word (level matching; 0.3 full scale, peaks stay below 0.9).

A voice folder is a sound folder like a user's: accent.wav, beat.wav and sub.wav (short
synthesized clicks, played where there is no word: beats past 16, subdivision words that
give way, layers other than 2, 3, 4) plus one WAV per word and voice.toml.
"""
import array
import math
import os
import struct
import subprocess
import sys
import tempfile
import wave

import numpy

RATE = 22050                  # espeak-ng's output rate: where words are measured
OUT_RATE = 48000              # the WAVs' rate
WINDOW = RATE // 100          # 10 ms
TRIM_LEVEL = 0.02
F1_BAND = (150, 1000)        # Hz: the first formant's region, where vowels carry their energy
BAND_WINDOW = RATE // 50     # 20 ms: the F1 band's envelope
PEAK_SHARE = 0.8
TARGET = 0.3
# Subdivision syllables are spoken faster and cut closer than numbers, so they end before the
# next word begins at quick tempos (a syllable that would not gives way to a click; see
# report()): espeak-ng at SYLLABLE_SPEED words a minute, the tail cut SYLLABLE_TAIL_MS after
# the envelope last passes SYLLABLE_TAIL_LEVEL of its maximum (-16 dB), then the 10 ms
# raised-cosine fade-out every clip gets, so the cut never clicks.
SYLLABLE_SPEED = 380
SYLLABLE_TAIL_LEVEL = 0.15
SYLLABLE_TAIL_MS = 5

# espeak-ng voice, speed (words a minute), numbers 1-16, the layer words, count-in.
# Words are (file name, text for espeak-ng); file names are ASCII, numbers are 1..16.
LANGUAGES = {
    "en": {
        "voice": "en-us", "speed": 190,
        "numbers": ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"],
        "layer2": [("and", "and")],
        "layer3": [("trip", "trip"), ("let", "let")],
        "layer4": [("e", "ee"), ("and", "and"), ("a", "uh")],
        "count_in": [("ready", "ready"), ("go", "go")],
    },
    "de": {
        "voice": "de", "speed": 190,
        "numbers": ["eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn",
                    "elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn"],
        "layer2": [("und", "und")],
        "layer3": [("la", "la"), ("li", "li")],
        "layer4": [("e", "e"), ("und", "und"), ("e", "e")],
        "count_in": [("fertig", "fertig"), ("los", "los")],
    },
    "es": {
        "voice": "es", "speed": 190,
        "numbers": ["uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
                    "once", "doce", "trece", "catorce", "quince", "dieciséis"],
        "layer2": [("y", "i")],
        "layer3": [("la", "la"), ("li", "li")],
        "layer4": [("e", "e"), ("y", "i"), ("a", "a")],
        "count_in": [("listos", "listos"), ("ya", "ya")],
    },
}


def speak(voice, speed, text):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "w.wav")
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", path, text], check=True)
        with wave.open(path) as w:
            assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2, path
            data = array.array("h", w.readframes(w.getnframes()))
    if sys.byteorder == "big":
        data.byteswap()
    return [x / 32768.0 for x in data]


def envelope(x, window=WINDOW):
    """RMS over the window samples centred on each sample."""
    x = numpy.asarray(x, dtype=numpy.float64)
    squares = numpy.concatenate(([0.0], numpy.cumsum(x * x)))
    half = window // 2
    n = len(x)
    i = numpy.arange(n)
    return numpy.sqrt(numpy.maximum(0.0, squares[numpy.minimum(n, i + half)] - squares[numpy.maximum(0, i - half)]) / window)


def vowel_band(x):
    """x band-passed to F1_BAND: a linear-phase windowed-sinc FIR (Blackman, 20 ms) applied
    centred, so the band's envelope is not shifted in time."""
    taps = RATE // 50 + 1
    t = numpy.arange(taps) - taps // 2
    low, high = (f / RATE for f in F1_BAND)
    h = (2 * high * numpy.sinc(2 * high * t) - 2 * low * numpy.sinc(2 * low * t)) * numpy.blackman(taps)
    return numpy.convolve(numpy.asarray(x, dtype=numpy.float64), h, mode="same")


def measure(x, tail_level=TRIM_LEVEL, tail_ms=20):
    """(start, end, centre, top) in samples of x: the trimmed word and its perceptual centre.
    The trim follows the whole signal; the centre follows the F1 band only."""
    env = envelope(x)
    top = float(env.max())
    above = numpy.nonzero(env >= TRIM_LEVEL * top)[0]
    start = max(0, int(above[0]) - RATE * 5 // 1000)
    tail = numpy.nonzero(env >= tail_level * top)[0]
    end = min(len(x), int(tail[-1]) + RATE * tail_ms // 1000)
    band = envelope(vowel_band(x), BAND_WINDOW)
    btop = float(band[start:end].max())
    peak = next(i for i in range(start + 1, end - 1)
                if band[i] >= PEAK_SHARE * btop and band[i] >= band[i - 1] and band[i] >= band[i + 1])
    level = band[start] + 0.5 * (band[peak] - band[start])
    centre = next(i for i in range(start, peak + 1) if band[i] >= level)
    return start, end, centre, top


def fade(x, rate=OUT_RATE, start_ms=2, end_ms=10):
    """Raised-cosine edges, so every clip starts from and ends in silence."""
    n = len(x)
    a = max(2, rate * start_ms // 1000)
    b = max(2, rate * end_ms // 1000)
    for i in range(min(a, n)):
        x[i] *= 0.5 - 0.5 * math.cos(math.pi * i / a)
    for j in range(min(b, n)):
        x[n - b + j] *= 0.5 + 0.5 * math.cos(math.pi * (j + 1) / b)
    x[0] = 0.0
    x[-1] = 0.0
    return x


def resample(x):
    """RATE -> OUT_RATE: output n sits exactly at input n * RATE / OUT_RATE; windowed sinc
    (Kaiser, beta 9, 32 input periods each side, cutoff 0.475 of the input rate)."""
    x = numpy.asarray(x, dtype=numpy.float64)
    half = 32
    count = (len(x) * OUT_RATE + RATE - 1) // RATE
    t = numpy.arange(count) * (RATE / OUT_RATE)
    base = numpy.floor(t).astype(numpy.int64)
    taps = numpy.arange(-half + 1, half + 1)
    index = base[:, None] + taps[None, :]
    d = t[:, None] - index
    window = numpy.kaiser(2 * half + 1, 9.0)
    w = numpy.interp(d, numpy.arange(-half, half + 1), window, left=0, right=0)
    h = 0.95 * numpy.sinc(0.95 * d) * w
    valid = (index >= 0) & (index < len(x))
    samples = numpy.where(valid, x[numpy.clip(index, 0, len(x) - 1)], 0.0)
    return list((samples * h).sum(axis=1))


def write_wav(path, x, rate=OUT_RATE):
    data = array.array("h", (max(-32767, min(32767, int(round(v * 32767)))) for v in x))
    if sys.byteorder == "big":
        data.byteswap()
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(data.tobytes())


def click(frequency, seconds=0.03, level=0.8):
    """A short decaying sine: the set's sound where no word is spoken."""
    n = int(OUT_RATE * seconds)
    return fade([level * math.exp(-i / (OUT_RATE * 0.006)) * math.sin(2 * math.pi * frequency * i / OUT_RATE) for i in range(n)],
                rate=OUT_RATE, start_ms=1, end_ms=3)


def word(voice, speed, text, syllable=False):
    """(samples at OUT_RATE, lead in frames of OUT_RATE): trimmed, level-matched, faded."""
    if syllable:
        x = speak(voice, SYLLABLE_SPEED, text)
        start, end, centre, top = measure(x, SYLLABLE_TAIL_LEVEL, SYLLABLE_TAIL_MS)
    else:
        x = speak(voice, speed, text)
        start, end, centre, top = measure(x)
    gain = TARGET / top
    clip = resample([v * gain for v in x[start:end]])
    peak = max(abs(v) for v in clip)
    if peak > 0.9:
        clip = [v * 0.9 / peak for v in clip]
    lead = (2 * (centre - start) * OUT_RATE + RATE) // (2 * RATE)
    return fade(clip), lead


def build(out, lang):
    spec = LANGUAGES[lang]
    folder = os.path.join(out, "voice-" + lang)
    partial = folder + ".partial"
    os.makedirs(partial, exist_ok=True)
    leads = {}
    seconds = {}

    def make(name, text, syllable=False):
        if name in leads:
            return
        samples, lead = word(spec["voice"], spec["speed"], text, syllable)
        write_wav(os.path.join(partial, name + ".wav"), samples)
        leads[name] = lead
        seconds[name] = len(samples) / OUT_RATE

    for i, text in enumerate(spec["numbers"]):
        make(str(i + 1), text)
    for key in ("layer2", "layer3", "layer4"):
        for name, text in spec[key]:
            make(name, text, syllable=True)
    for name, text in spec["count_in"]:
        make(name, text)
    write_wav(os.path.join(partial, "accent.wav"), click(1760))
    write_wav(os.path.join(partial, "beat.wav"), click(1320))
    write_wav(os.path.join(partial, "sub.wav"), click(990, level=0.6))

    def words(key):
        return "[" + ", ".join('"%s"' % name for name, _ in spec[key]) + "]"

    lines = [
        "# SPDX-License-Identifier: GPL-3.0-or-later",
        "# Tactus voice set, made by scripts/make-voices.py from espeak-ng (voice %s, %d words/min;"
        % (spec["voice"], spec["speed"]),
        "# subdivision syllables %d words/min, cut close)." % SYLLABLE_SPEED,
        "# Each word is WORD.wav in this folder; numbers are 1.wav ... 16.wav.",
        'language = "%s"' % lang,
        "numbers = [" + ", ".join('"%d"' % (i + 1) for i in range(16)) + "]",
        "layer2 = " + words("layer2"),
        "layer3 = " + words("layer3"),
        "layer4 = " + words("layer4"),
        "count_in = " + words("count_in") + "   # the count-in's last two beats",
        "",
        "# Frames of each word's WAV (48000 Hz) from its first sample to its perceptual centre (F1-band energy rise).",
        "[lead]",
    ]
    for name in leads:
        lines.append('%s = %d   # %.1f ms of %.0f ms' % (name, leads[name], 1000 * leads[name] / OUT_RATE, 1000 * seconds[name]))
    with open(os.path.join(partial, "voice.toml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # Replace the folder whole: a half-built set is never left under the real name.
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
        os.rmdir(folder)
    os.rename(partial, folder)
    print("voices: %s (%d words)" % (folder, len(leads)))


def wav_frames(path):
    with wave.open(path) as w:
        assert w.getframerate() == OUT_RATE, path
        return w.getnframes()


def read_leads(path):
    leads, section = {}, None
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
        elif section == "lead" and "=" in line:
            key, _, value = line.partition("=")
            leads[key.strip().strip('"')] = int(value)
    return leads


def kept_up_to(folder, spec, layer, numbers):
    """The highest whole BPM at which every syllable of the layer is kept (does not give way,
    Sources/ClickEngine/Sounds/VoiceSet.swift givesWay: onset - lead + frames > next onset -
    next lead), with the syllables at k/layer of a beat (4/4: a quarter-note beat) and the
    next beat's number any of `numbers`; one frame spare for onsets rounded to whole frames.
    Returns (bpm, the syllable that limits it, what follows it)."""
    leads = read_leads(os.path.join(folder, "voice.toml"))
    names = [name for name, _ in spec["layer%d" % layer]]
    best = None
    for k, name in enumerate(names):
        tail = wav_frames(os.path.join(folder, name + ".wav")) - leads[name]
        if k + 1 < len(names):
            following = [names[k + 1]]
        else:
            following = [str(n) for n in numbers]
        for nxt in following:
            need = tail + leads[nxt] + 1          # frames from onset to onset the syllable needs
            bpm = (60 * OUT_RATE) // (layer * need)
            if best is None or bpm < best[0]:
                best = (bpm, name, nxt)
    return best


def report(out, langs):
    """Prints, per language and layer, the tempo up to which the syllables are kept."""
    print("Subdivision syllables kept (not replaced by the click), quarter-note beats at %d Hz:" % OUT_RATE)
    print("%-9s %-6s %-10s %-26s %-26s" % ("voice", "layer", "syllables", "any meter (next 1-16)", "4/4 (next 1-4)"))
    for lang in langs:
        spec = LANGUAGES[lang]
        folder = os.path.join(out, "voice-" + lang)
        for layer in (2, 3, 4):
            words = "-".join(name for name, _ in spec["layer%d" % layer])
            cells = []
            for numbers in (range(1, 17), range(1, 5)):
                bpm, name, nxt = kept_up_to(folder, spec, layer, numbers)
                cells.append("%3d BPM (%s before %s)" % (bpm, name, nxt))
            print("%-9s %-6d %-10s %-26s %-26s" % ("voice-" + lang, layer, words, cells[0], cells[1]))
    print()
    print("Words (lead = first sample to perceptual centre; ms):")
    for lang in langs:
        folder = os.path.join(out, "voice-" + lang)
        leads = read_leads(os.path.join(folder, "voice.toml"))
        cells = ["%s %.0f/%.0f" % (name, 1000.0 * lead / OUT_RATE,
                                   1000.0 * wav_frames(os.path.join(folder, name + ".wav")) / OUT_RATE)
                 for name, lead in leads.items()]
        print("voice-%s (lead/length): %s" % (lang, ", ".join(cells)))


def main():
    args = sys.argv[1:]
    only_report = "--report" in args
    if args and args[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[0])
        print("usage: scripts/make-voices.py [--report] OUT_DIR [LANG ...]\n"
              "  builds OUT_DIR/voice-LANG for each language (default: %s);\n"
              "  --report builds nothing and prints, for the folders already in OUT_DIR, the tempo\n"
              "  up to which each layer's syllables are kept, and every word's lead and length."
              % " ".join(sorted(LANGUAGES)))
        return
    args = [a for a in args if a != "--report"]
    if not args:
        sys.stderr.write("usage: scripts/make-voices.py [--report] OUT_DIR [LANG ...]\n")
        sys.exit(2)
    out = args[0]
    langs = args[1:] or sorted(LANGUAGES)
    for lang in langs:
        if lang not in LANGUAGES:
            sys.stderr.write("make-voices.py: unknown language '%s' (have %s)\n" % (lang, ", ".join(sorted(LANGUAGES))))
            sys.exit(2)
    if only_report:
        report(out, langs)
        return
    os.makedirs(out, exist_ok=True)
    for lang in langs:
        build(out, lang)


if __name__ == "__main__":
    main()
