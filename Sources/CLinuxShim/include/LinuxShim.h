// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef TACTUS_LINUX_SHIM_H
#define TACTUS_LINUX_SHIM_H

/* What Swift cannot import from glibc: pthread_setname_np is declared only under
   _GNU_SOURCE, and prctl's header is not in the Glibc module. */

#include <pthread.h>
#include <poll.h>

/* Names the calling thread (at most 15 bytes shown); returns 0 or an errno. */
int tactus_name_current_thread(const char *name);

/* Sets the calling thread's timer slack in nanoseconds (prctl PR_SET_TIMERSLACK), so its
   timed sleeps are not rounded up by the default 50 us; returns 0 or -1 with errno. */
int tactus_set_timer_slack(unsigned long nanoseconds);

/* ppoll with a nanosecond timeout (negative: wait forever); ppoll is GNU-only in glibc. */
int tactus_poll_nanoseconds(struct pollfd *fds, unsigned long count, long long timeout_nanoseconds);

/* Files to remove if SIGINT, SIGTERM or SIGHUP ends the process (a render's partial
   output). The handler unlinks them (async-signal-safe), then dies of the same signal.
   register returns a slot (or -1 when all 4 are taken); unregister frees it. */
int tactus_partial_register(const char *path);
void tactus_partial_unregister(int slot);
void tactus_partial_install_handlers(void);

/// The user id of the process at the other end of a Unix socket (SO_PEERCRED); 0 on success.
int tactus_peer_uid(int fd, unsigned int *uid);

#endif
