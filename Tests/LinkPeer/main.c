// SPDX-License-Identifier: GPL-3.0-or-later
// A Link peer written against Tactus's C API (Sources/CLink/include/tactus_link.h), for the
// Link tests (Tests/Link): it joins, acts at given times and reports what it sees.
//
//   tactus-link-peer SECONDS QUANTUM [TIME:ACTION ...]
//   ACTION: tempo=BPM | start | stop | sync-on (start/stop sync) | enable | disable
//
// Every 20 ms one JSON line on stdout: mono (CLOCK_MONOTONIC seconds), peers, tempo, beat and
// phase (at that moment, quantum QUANTUM), playing.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tactus_link.h>

static double mono_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: tactus-link-peer SECONDS QUANTUM [TIME:ACTION ...]\n");
        return 2;
    }
    double seconds = atof(argv[1]), quantum = atof(argv[2]);
    tactus_link *link = tactus_link_create(120);
    tactus_link_state *state = tactus_link_state_create();
    if (!link || !state) return 1;
    tactus_link_enable(link, true);
    int next = 3;
    double start = mono_seconds();
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (mono_seconds() - start < seconds) {
        double elapsed = mono_seconds() - start;
        while (next < argc && atof(argv[next]) <= elapsed) {
            const char *action = strchr(argv[next], ':');
            action = action ? action + 1 : "";
            tactus_link_capture_app_state(link, state);
            int64_t now = tactus_link_clock_micros(link);
            if (strncmp(action, "tempo=", 6) == 0) {
                tactus_link_state_set_tempo(state, atof(action + 6), now);
                tactus_link_commit_app_state(link, state);
            } else if (strcmp(action, "start") == 0 || strcmp(action, "stop") == 0) {
                tactus_link_state_set_playing(state, action[2] == 'a', now);
                tactus_link_commit_app_state(link, state);
            } else if (strcmp(action, "sync-on") == 0) {
                tactus_link_enable_start_stop_sync(link, true);
            } else if (strcmp(action, "enable") == 0 || strcmp(action, "disable") == 0) {
                tactus_link_enable(link, action[0] == 'e');
            } else {
                fprintf(stderr, "tactus-link-peer: unknown action '%s'\n", argv[next]);
                return 2;
            }
            next++;
        }
        double before = mono_seconds();
        int64_t micros = tactus_link_clock_micros(link);
        double after = mono_seconds();
        tactus_link_capture_app_state(link, state);
        printf("{\"mono\":%.6f,\"peers\":%llu,\"tempo\":%.9f,\"beat\":%.9f,\"phase\":%.9f,\"playing\":%s}\n",
               (before + after) / 2, (unsigned long long)tactus_link_peers(link), tactus_link_state_tempo(state),
               tactus_link_state_beat_at_time(state, micros, quantum), tactus_link_state_phase_at_time(state, micros, quantum),
               tactus_link_state_is_playing(state) ? "true" : "false");
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
    }
    tactus_link_enable(link, false);
    tactus_link_state_destroy(state);
    tactus_link_destroy(link);
    return 0;
}
