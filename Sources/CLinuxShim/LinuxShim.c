// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include <pthread.h>
#include <poll.h>
#include <sys/prctl.h>
#include <time.h>
#include "LinuxShim.h"

int tactus_name_current_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int tactus_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

int tactus_poll_nanoseconds(struct pollfd *fds, unsigned long count, long long timeout_nanoseconds) {
    if (timeout_nanoseconds < 0) return ppoll(fds, count, NULL, NULL);
    struct timespec timeout = { timeout_nanoseconds / 1000000000LL, timeout_nanoseconds % 1000000000LL };
    return ppoll(fds, count, &timeout, NULL);
}

#include <signal.h>
#include <string.h>
#include <unistd.h>

#define TACTUS_PARTIAL_SLOTS 4
static char partial_paths[TACTUS_PARTIAL_SLOTS][4096];
static volatile sig_atomic_t partial_used[TACTUS_PARTIAL_SLOTS];

int tactus_partial_register(const char *path) {
    if (strlen(path) >= sizeof partial_paths[0]) return -1;
    for (int i = 0; i < TACTUS_PARTIAL_SLOTS; i++) {
        if (!partial_used[i]) {
            strcpy(partial_paths[i], path);
            __atomic_signal_fence(__ATOMIC_SEQ_CST);  /* the path is complete before the flag */
            partial_used[i] = 1;
            return i;
        }
    }
    return -1;
}

void tactus_partial_unregister(int slot) {
    if (slot >= 0 && slot < TACTUS_PARTIAL_SLOTS) partial_used[slot] = 0;
}

static void tactus_partial_handler(int sig) {
    for (int i = 0; i < TACTUS_PARTIAL_SLOTS; i++) {
        if (partial_used[i]) unlink(partial_paths[i]);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void tactus_partial_install_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = tactus_partial_handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
    /* A parent may have started us with these blocked (the mask is inherited across exec):
       unblock them on this thread so they reach the handler. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

#include <sys/socket.h>

int tactus_peer_uid(int fd, unsigned int *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}
