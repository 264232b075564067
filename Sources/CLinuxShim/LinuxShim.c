#define _GNU_SOURCE
#include <pthread.h>
#include <sys/prctl.h>
#include "LinuxShim.h"

int tactus_name_current_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int tactus_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}
