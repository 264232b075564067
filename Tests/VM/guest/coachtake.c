/* SPDX-License-Identifier: GPL-3.0-or-later
   coachtake: the drummer of scenario 24. Plays a take with known offsets from the box's
   own clicks into snd-aloop, for the coach (listening on the loopback's other side).

     coachtake DEVICE BPM HITS CLICKS.raw TRUTH.txt

   DEVICE (hw:Loopback,1,0) is opened twice, linked so both start on the same tick: its
   capture gets the box's clicks (FLOAT_LE, 2 channels), its playback goes to the box's coach
   input (FLOAT_LE, mono, or as many channels as the coach side already has). snd-aloop moves
   both cables on the same timer, so capture frame n and playback frame n pass through the
   loopback at the same moment: a hit written at playback frame c + d sounds d frames after
   the click captured at frame c, whatever the guest's scheduling. The first click (first
   sample over 0.01) at frame c0 anchors the take two beats later: hit j sounds at
   c0 + (2 + j) * beat + offset_j (offsets -30..+30 ms in 4 ms steps, shuffled), a noise
   burst with an instant attack and a 40 ms decay. TRUTH gets "j beat_from_first_click
   offset_ms" per hit. Runs until every hit has sounded plus one beat.

     coachtake DEVICE echo DELAY_MS SECONDS

   The speaker and microphone of scenario 25 (Menu > Coach > Calibrate): every captured frame
   of the box's output (its first channel) is played back at half its level exactly DELAY_MS
   later (capture frame c sounds again at playback frame c + d; snd-aloop's one timer makes
   that the round trip to the frame), for SECONDS. DELAY_MS must exceed the playback buffer
   the tool keeps filled (16 periods, 85 ms).

     coachtake DEVICE bleed BPM HITS DELAY_MS GAIN_DB CLICKS.raw TRUTH.txt [SEED [PLAYED.raw]]

   Scenario 27: the drummer of the take mode playing with the box's click bleeding into the
   microphone. Every captured frame of the box's output (first channel) is played back
   exactly DELAY_MS later (the round trip, as the echo), scaled by one gain fixed on the
   first click: the gain makes that click's peak (the accent, the loudest of the bar) GAIN_DB
   against the peak of the take's hits, which is computed from the noise bursts themselves
   (all made before the take starts, so the gain is known 10 ms into the first click, before
   its bleed is due). On top of that bleed, hit j sounds at (its click's captured frame +
   DELAY + offset_j): the truth is the offset from the bleed of its own click, which is what
   the box judges once it takes a round trip of DELAY_MS off. The offsets (ms) are the twelve
   of bleed_offsets[] (cycled past 12 hits), shuffled by SEED (a run number: every run
   another order): spread over -30..+30, three exactly 0 (a stroke right on top of its
   click's bleed) and three late under the click (+8, +11, +15). The take starts two beats
   after the first click. A click's frame is its first sample that is not silence (0.0).
   TRUTH gets "j beat offset_ms" per hit, as the take mode. Once the bleed of the second
   click after the last hit's has been heard (50 ms of it), the tool says "take done" on
   stderr and goes on echoing (the bleed lasts as long as the box clicks) until the capture
   has been silent for max(600 ms, 1.5 beats) (the box stopped), then exits 0. Exit 4: no
   click within 15 s; 3: the box still clicks 10 s after the take. CLICKS.raw (2 channels)
   and PLAYED.raw (mono, from playback frame 0, the prefill included) keep what passed the
   loopback, frame n of one beside frame n of the other; "-" keeps nothing. */
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RATE 48000
#define PERIOD 256

static snd_pcm_t *open_pcm(const char *dev, snd_pcm_stream_t dir, unsigned *channels) {
    snd_pcm_t *pcm;
    int e = snd_pcm_open(&pcm, dev, dir, 0);
    if (e < 0) { fprintf(stderr, "coachtake: open %s: %s\n", dev, snd_strerror(e)); exit(1); }
    snd_pcm_hw_params_t *hw;
    snd_pcm_hw_params_alloca(&hw);
    snd_pcm_hw_params_any(pcm, hw);
    snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED);
    if ((e = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE)) < 0) { fprintf(stderr, "coachtake: format: %s\n", snd_strerror(e)); exit(1); }
    unsigned rate = RATE;
    snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, 0);
    if (snd_pcm_hw_params_set_channels(pcm, hw, *channels) < 0) snd_pcm_hw_params_set_channels_first(pcm, hw, channels);
    snd_pcm_uframes_t period = PERIOD, buffer = 16 * PERIOD;
    snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, 0);
    snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer);
    if ((e = snd_pcm_hw_params(pcm, hw)) < 0) { fprintf(stderr, "coachtake: hw_params %s: %s\n", dev, snd_strerror(e)); exit(1); }
    snd_pcm_hw_params_get_channels(hw, channels);
    snd_pcm_hw_params_get_period_size(hw, &period, 0);
    snd_pcm_hw_params_get_buffer_size(hw, &buffer);
    fprintf(stderr, "coachtake: %s %s rate %u channels %u period %lu buffer %lu\n", dev,
            dir == SND_PCM_STREAM_CAPTURE ? "capture" : "playback", rate, *channels, period, buffer);
    if (rate != RATE) { fprintf(stderr, "coachtake: rate %u, want %d\n", rate, RATE); exit(1); }
    snd_pcm_sw_params_t *sw;
    snd_pcm_sw_params_alloca(&sw);
    snd_pcm_sw_params_current(pcm, sw);
    /* Started only by the linked start below. */
    snd_pcm_sw_params_set_start_threshold(pcm, sw, dir == SND_PCM_STREAM_PLAYBACK ? buffer * 4 : buffer * 4);
    snd_pcm_sw_params(pcm, sw);
    return pcm;
}

/* DEVICE both ways, linked; the playback prefilled with silence, then both started. A
   playback frame that repeats capture frame c (the echo) must be at least the prefill later:
   `delay` frames (0: none) is checked against it. Returns the frames written. */
static long open_linked(const char *dev, long delay, snd_pcm_t **cap, snd_pcm_t **play, unsigned *cch, unsigned *pch) {
    *cap = open_pcm(dev, SND_PCM_STREAM_CAPTURE, cch);
    *play = open_pcm(dev, SND_PCM_STREAM_PLAYBACK, pch);
    int e = snd_pcm_link(*cap, *play);
    if (e < 0) { fprintf(stderr, "coachtake: link: %s\n", snd_strerror(e)); exit(1); }
    snd_pcm_uframes_t pbuf, pper;
    snd_pcm_get_params(*play, &pbuf, &pper);
    if (delay && delay <= (long)pbuf + PERIOD) { fprintf(stderr, "coachtake: delay %ld frames, must exceed %lu\n", delay, pbuf + PERIOD); exit(2); }
    float *silence = calloc(PERIOD * *pch, sizeof(float));
    long written = 0;
    while (written + PERIOD <= (long)pbuf) {
        if (snd_pcm_writei(*play, silence, PERIOD) != PERIOD) { fprintf(stderr, "coachtake: prefill failed\n"); exit(1); }
        written += PERIOD;
    }
    free(silence);
    if ((e = snd_pcm_start(*cap)) < 0) { fprintf(stderr, "coachtake: start: %s\n", snd_strerror(e)); exit(1); }
    return written;
}

/* The echo: a ring of the captured first channel, replayed d frames later. */
static int echo(const char *dev, double delay_ms, double seconds) {
    long d = lround(delay_ms * RATE / 1000.0), total = lround(seconds * RATE);
    unsigned cch = 2, pch = 1;
    snd_pcm_t *cap, *play;
    long written = open_linked(dev, d, &cap, &play, &cch, &pch), captured = 0;
    enum { RING = 1 << 18 };
    static float ring[RING];
    float *out = calloc(PERIOD * pch, sizeof(float)), *in = calloc(PERIOD * cch, sizeof(float));
    fprintf(stderr, "coachtake: echo %ld frames later for %ld frames\n", d, total);
    while (captured < total) {
        snd_pcm_sframes_t n = snd_pcm_readi(cap, in, PERIOD);
        if (n < 0) { fprintf(stderr, "coachtake: capture: %s\n", snd_strerror((int)n)); return 1; }
        for (long i = 0; i < n; i++) ring[(captured + i) % RING] = in[i * cch];
        captured += n;
        for (long i = 0; i < n; i++) {
            long c = written + i - d; /* the capture frame this playback frame repeats */
            float v = c >= 0 && c < captured ? 0.5f * ring[c % RING] : 0;
            for (unsigned k = 0; k < pch; k++) out[i * pch + k] = v;
        }
        snd_pcm_sframes_t w = snd_pcm_writei(play, out, (snd_pcm_uframes_t)n);
        if (w != n) { fprintf(stderr, "coachtake: playback: %s\n", w < 0 ? snd_strerror((int)w) : "short write"); return 1; }
        written += n;
    }
    fprintf(stderr, "coachtake: echo done, %ld frames\n", captured);
    return 0;
}

/* Scenario 27's offsets (ms): -30..+30, three on top of the click's bleed, three late under it. */
static const double bleed_offsets[12] = {-30, -22, -14, -7, 0, 0, 0, 8, 11, 15, 22, 30};
#define BURST (RATE / 5)
static float bursts[64][BURST];

static FILE *open_out(const char *path) {
    if (strcmp(path, "-") == 0) return NULL;
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    return f;
}

/* The bleed take (see the top): the echo of the box's clicks, GAIN_DB against the hits. */
static int bleed(const char *dev, double bpm, int hits, double delay_ms, double gain_db,
                 const char *clicks_path, const char *truth_path, unsigned seed, const char *played_path) {
    const double spb = 60.0 * RATE / bpm; /* frames a beat; the box's grid rounds its clicks to frames */
    const long d = lround(delay_ms * RATE / 1000.0), window = RATE / 100;
    const long silence_end = lround(fmax(0.6 * RATE, 1.5 * spb));
    /* The offsets in a run's order, and each hit's noise burst made now: their peak is known
       before the first click, so the bleed's level is fixed the moment that click is heard. */
    double offset_ms[64];
    long offset[64];
    unsigned lcg = seed * 2654435761u + 1;
    int order[64];
    for (int j = 0; j < hits; j++) order[j] = j;
    for (int j = hits - 1; j > 0; j--) {
        lcg = lcg * 1664525u + 1013904223u;
        int k = (int)((lcg >> 8) % (unsigned)(j + 1)), t = order[j];
        order[j] = order[k], order[k] = t;
    }
    float hits_peak = 0;
    for (int j = 0; j < hits; j++) {
        offset_ms[j] = bleed_offsets[order[j] % 12];
        offset[j] = lround(offset_ms[j] * RATE / 1000.0);
        unsigned noise = 12345u + 7919u * (seed * 64u + (unsigned)j);
        for (long x = 0; x < BURST; x++) {
            noise = noise * 1664525u + 1013904223u;
            float r = (float)((noise >> 8) & 0xffff) / 32768.0f - 1.0f;
            bursts[j][x] = 0.5f * r * expf(-(float)x / (0.040f * RATE));
            if (fabsf(bursts[j][x]) > hits_peak) hits_peak = fabsf(bursts[j][x]);
        }
    }
    FILE *clicks = open_out(clicks_path), *played = open_out(played_path), *truth = fopen(truth_path, "w");
    if (!truth) { perror(truth_path); return 1; }
    unsigned cch = 2, pch = 1;
    snd_pcm_t *cap, *play;
    long written = open_linked(dev, d, &cap, &play, &cch, &pch), captured = 0;
    enum { RING = 1 << 18 };
    static float ring[RING];
    float *out = calloc(PERIOD * pch, sizeof(float)), *in = calloc(PERIOD * cch, sizeof(float));
    if (played) { float z = 0; for (long i = 0; i < written; i++) fwrite(&z, sizeof z, 1, played); }
    fprintf(stderr, "coachtake: bleed %ld frames later at %+.1f dB against the hits' peak %.4f; listening\n", d, gain_db, hits_peak);
    long c0 = -1, quiet_since = 0, heard_clicks = 0, worst_grid = 0, last_loud = -RATE;
    long done_at = -1, limit = 15 * RATE; /* no click in 15 s: the box never started */
    double gain = -1;
    float first_peak = 0, loudest = 0;
    int done = 0;
    for (;;) {
        snd_pcm_sframes_t n = snd_pcm_readi(cap, in, PERIOD);
        if (n < 0) { fprintf(stderr, "coachtake: capture: %s\n", snd_strerror((int)n)); return 1; }
        if (clicks) fwrite(in, sizeof(float) * cch, (size_t)n, clicks);
        for (long i = 0; i < n; i++) {
            long c = captured + i;
            float x = in[i * cch], a = fabsf(x);
            ring[c % RING] = x;
            if (a > 0.001f) quiet_since = c + 1;
            if (a > loudest) loudest = a;
            if (a <= 0.01f) continue;
            if (c - last_loud > RATE / 20) { /* a click's onset: on the grid of the first? */
                /* Its first sample is the first that is not silence (the box's silence is 0.0):
                   the click rises to 0.01 in a frame or two. */
                long s0 = c;
                while (s0 > c - RATE / 1000 && s0 > captured + i - RING + 1 && s0 > 0 && ring[(s0 - 1) % RING] != 0.0f) s0--;
                c = s0;
                if (c0 < 0) {
                    c0 = c;
                    /* Two click-only beats after the last hit: done once the second one's bleed is heard. */
                    done_at = c0 + lround((hits + 3) * spb) + d + RATE / 20;
                    limit = done_at + 10 * RATE;
                    fprintf(stderr, "coachtake: first click at capture frame %ld, take from %ld\n", c0, c0 + lround(2 * spb));
                    for (int j = 0; j < hits; j++) fprintf(truth, "%d %d %.4f\n", j, 2 + j, offset_ms[j]);
                    fclose(truth);
                }
                long k = lround((double)(c - c0) / spb), off = labs(c - c0 - lround(k * spb));
                if (off > worst_grid) worst_grid = off;
                heard_clicks++;
            }
            last_loud = captured + i;
        }
        captured += n;
        /* The gain, from the first click's first 10 ms (its peak comes within 1 ms). */
        if (c0 >= 0 && gain < 0 && captured >= c0 + window) {
            for (long c = c0; c < c0 + window; c++) if (fabsf(ring[c % RING]) > first_peak) first_peak = fabsf(ring[c % RING]);
            gain = hits_peak * pow(10.0, gain_db / 20.0) / first_peak;
            fprintf(stderr, "coachtake: first click's peak %.4f: bleed gain %.5f, its peak %.4f\n", first_peak, gain, gain * first_peak);
        }
        for (long i = 0; i < n; i++) {
            long f = written + i, c = f - d; /* the capture frame this playback frame repeats */
            float v = 0;
            if (c0 >= 0 && c >= c0) {
                /* Always known by now when DELAY_MS leaves 10 ms past the prefill (100 ms: 14.7). */
                if (gain < 0) { fprintf(stderr, "coachtake: DELAY_MS too short to measure the click before its bleed\n"); return 2; }
                v = (float)gain * ring[c % RING];
            } /* before the first click: silence */
            for (int j = 0; c0 >= 0 && j < hits; j++) {
                long x = f - (c0 + lround((2 + j) * spb) + d + offset[j]);
                if (x >= 0 && x < BURST) v += bursts[j][x];
            }
            for (unsigned k = 0; k < pch; k++) out[i * pch + k] = v;
        }
        snd_pcm_sframes_t w = snd_pcm_writei(play, out, (snd_pcm_uframes_t)n);
        if (w != n) { fprintf(stderr, "coachtake: playback: %s\n", w < 0 ? snd_strerror((int)w) : "short write"); return 1; }
        if (played) fwrite(out, sizeof(float) * pch, (size_t)n, played);
        written += n;
        if (!done && done_at >= 0 && captured >= done_at) {
            done = 1;
            fprintf(stderr, "coachtake: take done at capture frame %ld\n", captured);
        }
        if (done && captured - quiet_since >= silence_end) break;
        if (captured >= limit) {
            fprintf(stderr, "coachtake: %s\n", c0 < 0 ? "no click heard in 15 s" : "the box still clicks 10 s after the take");
            return c0 < 0 ? 4 : 3;
        }
    }
    if (clicks) fclose(clicks);
    if (played) fclose(played);
    fprintf(stderr, "coachtake: box stopped; %ld clicks heard, at most %ld frames off the first one's grid; "
                    "loudest sample %.4f (first click %.4f); %ld frames captured\n",
            heard_clicks, worst_grid, loudest, first_peak, captured);
    if (loudest > first_peak * 1.001f) fprintf(stderr, "coachtake: WARNING: a click louder than the first: its bleed is above %+.1f dB\n", gain_db);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[2], "echo") == 0) {
        struct sched_param sp = {.sched_priority = 99};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) perror("coachtake: SCHED_FIFO");
        mlockall(MCL_CURRENT | MCL_FUTURE);
        return echo(argv[1], atof(argv[3]), atof(argv[4]));
    }
    if ((argc >= 9 && argc <= 11) && strcmp(argv[2], "bleed") == 0) {
        double bpm = atof(argv[3]), delay = atof(argv[5]), gain = atof(argv[6]);
        int hits = atoi(argv[4]);
        if (bpm <= 0 || hits < 1 || hits > 64 || delay <= 0 || gain >= 0) {
            fprintf(stderr, "coachtake: bleed: bad BPM '%s', HITS '%s' (1..64), DELAY_MS '%s' (> 0) or GAIN_DB '%s' (< 0)\n", argv[3], argv[4], argv[5], argv[6]);
            return 2;
        }
        struct sched_param sp = {.sched_priority = 99};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) perror("coachtake: SCHED_FIFO");
        mlockall(MCL_CURRENT | MCL_FUTURE);
        return bleed(argv[1], bpm, hits, delay, gain, argv[7], argv[8], argc > 9 ? (unsigned)atoi(argv[9]) : 1, argc > 10 ? argv[10] : "-");
    }
    if (argc != 6) {
        fprintf(stderr, "usage: coachtake DEVICE BPM HITS CLICKS.raw TRUTH.txt\n"
                        "       coachtake DEVICE echo DELAY_MS SECONDS\n"
                        "       coachtake DEVICE bleed BPM HITS DELAY_MS GAIN_DB CLICKS.raw TRUTH.txt [SEED [PLAYED.raw]]\n");
        return 2;
    }
    const char *dev = argv[1];
    double bpm = atof(argv[2]);
    int hits = atoi(argv[3]);
    if (bpm <= 0 || hits < 1 || hits > 64) { fprintf(stderr, "coachtake: bad BPM or HITS\n"); return 2; }
    struct sched_param sp = {.sched_priority = 99};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) perror("coachtake: SCHED_FIFO");
    mlockall(MCL_CURRENT | MCL_FUTURE);

    long beat = lround(60.0 * RATE / bpm);
    long offset[64];
    double offset_ms[64];
    for (int j = 0; j < hits; j++) {
        int k = (j * 7) % 16; /* 7 is prime to 16: every step once per 16 hits */
        offset_ms[j] = -30.0 + 4.0 * k;
        offset[j] = lround(offset_ms[j] * RATE / 1000.0);
    }
    FILE *clicks = fopen(argv[4], "wb"), *truth = fopen(argv[5], "w");
    if (!clicks || !truth) { perror("coachtake"); return 1; }
    unsigned cch = 2, pch = 1;
    snd_pcm_t *cap, *play;
    long written = open_linked(dev, 0, &cap, &play, &cch, &pch);
    float *out = calloc(PERIOD * pch, sizeof(float)), *in = calloc(PERIOD * cch, sizeof(float));
    long captured = 0, c0 = -1, anchor = 0, end = -1;
    unsigned noise = 12345;
    while (end < 0 || written < end) {
        snd_pcm_sframes_t n = snd_pcm_readi(cap, in, PERIOD);
        if (n < 0) { fprintf(stderr, "coachtake: capture: %s\n", snd_strerror((int)n)); return 1; }
        fwrite(in, sizeof(float) * cch, (size_t)n, clicks);
        for (long i = 0; i < n && c0 < 0; i++)
            if (fabsf(in[i * cch]) > 0.01f) {
                c0 = captured + i;
                anchor = c0 + 2 * beat;
                end = anchor + (hits + 1) * beat;
                fprintf(stderr, "coachtake: first click at capture frame %ld, take from %ld\n", c0, anchor);
                for (int j = 0; j < hits; j++) fprintf(truth, "%d %d %.4f\n", j, 2 + j, offset_ms[j]);
                fclose(truth);
            }
        captured += n;
        for (long i = 0; i < n; i++) {
            float v = 0;
            long f = written + i;
            for (int j = 0; c0 >= 0 && j < hits; j++) {
                long x = f - (anchor + j * beat + offset[j]);
                if (x < 0 || x >= RATE / 5) continue;
                noise = noise * 1664525u + 1013904223u;
                float r = (float)((noise >> 8) & 0xffff) / 32768.0f - 1.0f;
                v += 0.5f * r * expf(-(float)x / (0.040f * RATE));
            }
            for (unsigned c = 0; c < pch; c++) out[i * pch + c] = v;
        }
        snd_pcm_sframes_t w = snd_pcm_writei(play, out, (snd_pcm_uframes_t)n);
        if (w != n) { fprintf(stderr, "coachtake: playback: %s\n", w < 0 ? snd_strerror((int)w) : "short write"); return 1; }
        written += n;
    }
    fclose(clicks);
    fprintf(stderr, "coachtake: done, %ld frames captured\n", captured);
    return 0;
}
