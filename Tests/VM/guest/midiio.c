// SPDX-License-Identifier: GPL-3.0-or-later
/* MIDI instruments for the VM's MIDI scenarios (static, no alsa-lib): raw bytes on a
   rawmidi device node (/dev/snd/midiCxDy of snd-virmidi, which the sequencer client of the
   same card turns into sequencer events and back), timed on CLOCK_MONOTONIC at SCHED_FIFO
   99 with locked memory, as simio does for GPIO: a shell under TCG is far too slow.

     midiio read DEV SECONDS      every byte received, one line each: "NS HH"
     midiio play DEV              stdin lines "MS HH [HH...]": written MS ms after the start
                                  (100 ms in), absolute deadlines; logs "W NS HH..." per write
     midiio stamp FILE TIMES      copies stdin (arecord's raw output) to FILE, and logs each
                                  chunk's arrival to TIMES as "NS TOTAL_BYTES" (the host puts
                                  the capture on CLOCK_MONOTONIC from their lower envelope)
     midiio now                   prints CLOCK_MONOTONIC in ns */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void realtime(void) {
    struct sched_param p = {.sched_priority = 99};
    if (sched_setscheduler(0, SCHED_FIFO, &p) != 0) perror("midiio: SCHED_FIFO");
    mlockall(MCL_CURRENT | MCL_FUTURE);
}

static int do_read(const char *dev, double seconds) {
    int fd = open(dev, O_RDONLY | O_NONBLOCK);
    if (fd < 0) { fprintf(stderr, "midiio: %s: %s\n", dev, strerror(errno)); return 1; }
    realtime();
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    long long end = now_ns() + (long long)(seconds * 1e9);
    unsigned char buf[256];
    for (;;) {
        long long left = end - now_ns();
        if (left <= 0) break;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)(left / 1000000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        long long t = now_ns();
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (n <= 0) { fprintf(stderr, "midiio: read %s: %s\n", dev, n < 0 ? strerror(errno) : "end"); break; }
        for (ssize_t i = 0; i < n; i++) printf("%lld %02X\n", t, buf[i]);
    }
    fflush(stdout);
    return 0;
}

static int do_play(const char *dev) {
    int fd = open(dev, O_WRONLY);
    if (fd < 0) { fprintf(stderr, "midiio: %s: %s\n", dev, strerror(errno)); return 1; }
    /* The script is read whole first: no stdin waits between deadlines. */
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    ssize_t n;
    while ((n = read(0, text + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (len + 1 >= cap) { cap *= 2; text = realloc(text, cap); }
    }
    text[len] = 0;
    realtime();
    long long start = now_ns() + 100000000LL;
    char *line = strtok(text, "\n");
    static char out[1 << 22];
    size_t used = 0;
    while (line) {
        char *p = line;
        double ms = strtod(p, &p);
        unsigned char bytes[16];
        int count = 0;
        while (count < 16) {
            char *q;
            long v = strtol(p, &q, 16);
            if (q == p) break;
            bytes[count++] = (unsigned char)v;
            p = q;
        }
        long long deadline = start + (long long)(ms * 1e6);
        struct timespec d = {.tv_sec = deadline / 1000000000LL, .tv_nsec = deadline % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &d, NULL) == EINTR) {}
        long long t = now_ns();
        if (count > 0 && write(fd, bytes, (size_t)count) != count) fprintf(stderr, "midiio: write: %s\n", strerror(errno));
        if (used + 128 < sizeof out) {
            used += (size_t)snprintf(out + used, sizeof out - used, "W %lld", t);
            for (int i = 0; i < count; i++) used += (size_t)snprintf(out + used, sizeof out - used, " %02X", bytes[i]);
            used += (size_t)snprintf(out + used, sizeof out - used, "\n");
        }
        line = strtok(NULL, "\n");
    }
    fwrite(out, 1, used, stdout);
    return 0;
}

static int do_stamp(const char *file, const char *times) {
    FILE *f = fopen(file, "wb"), *t = fopen(times, "w");
    if (!f || !t) { perror("midiio stamp"); return 1; }
    realtime();
    static char buf[1 << 16];
    long long total = 0;
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) != 0) {
        if (n < 0) { if (errno == EINTR) continue; break; }
        long long at = now_ns();
        total += n;
        fwrite(buf, 1, (size_t)n, f);
        fprintf(t, "%lld %lld\n", at, total);
    }
    fclose(f);
    fclose(t);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "read")) return do_read(argv[2], atof(argv[3]));
    if (argc >= 3 && !strcmp(argv[1], "play")) return do_play(argv[2]);
    if (argc >= 4 && !strcmp(argv[1], "stamp")) return do_stamp(argv[2], argv[3]);
    if (argc >= 2 && !strcmp(argv[1], "now")) { printf("%lld\n", now_ns()); return 0; }
    fprintf(stderr, "usage: midiio read DEV SECONDS | play DEV <script | stamp FILE TIMES <raw | now\n");
    return 2;
}
