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
