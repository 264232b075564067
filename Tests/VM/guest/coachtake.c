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
   the tool keeps filled (16 periods, 85 ms). */
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

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[2], "echo") == 0) {
        struct sched_param sp = {.sched_priority = 99};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) perror("coachtake: SCHED_FIFO");
        mlockall(MCL_CURRENT | MCL_FUTURE);
        return echo(argv[1], atof(argv[3]), atof(argv[4]));
    }
    if (argc != 6) { fprintf(stderr, "usage: coachtake DEVICE BPM HITS CLICKS.raw TRUTH.txt\n"); return 2; }
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
