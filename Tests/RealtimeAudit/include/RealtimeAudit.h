// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef TACTUS_REALTIME_AUDIT_H
#define TACTUS_REALTIME_AUDIT_H

/* Counts, on the calling thread only, every call to the allocator (malloc, calloc,
   realloc, free, posix_memalign, aligned_alloc, memalign), to mutex and rwlock locking,
   and to write(2), between realtime_audit_begin() and realtime_audit_end(). Linked into
   the test binary, these definitions interpose glibc's for the whole process. */

typedef struct {
    long allocations;
    long frees;
    long locks;
    long writes;
} realtime_audit_counts;

void realtime_audit_begin(void);
realtime_audit_counts realtime_audit_end(void);

#endif
