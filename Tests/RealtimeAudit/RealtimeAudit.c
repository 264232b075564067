// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>
#include "RealtimeAudit.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static __thread int auditing;
static __thread realtime_audit_counts counts;

void realtime_audit_begin(void) {
    counts = (realtime_audit_counts){0, 0, 0, 0};
    auditing = 1;
}

realtime_audit_counts realtime_audit_end(void) {
    auditing = 0;
    return counts;
}

#define COUNT(field) do { if (auditing) counts.field++; } while (0)

void *malloc(size_t size) { COUNT(allocations); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { COUNT(allocations); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { COUNT(allocations); return __libc_realloc(p, size); }
void free(void *p) { if (p) COUNT(frees); __libc_free(p); }
void *memalign(size_t alignment, size_t size) { COUNT(allocations); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { COUNT(allocations); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    COUNT(allocations);
    void *p = __libc_memalign(alignment, size);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}

/* The next definitions are looked up lazily; dlsym may allocate, which goes through the
   hooks above, unaudited unless the caller is auditing. */
int pthread_mutex_lock(pthread_mutex_t *m) {
    static int (*next)(pthread_mutex_t *);
    if (!next) next = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    COUNT(locks);
    return next(m);
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
    static int (*next)(pthread_rwlock_t *);
    if (!next) next = (int (*)(pthread_rwlock_t *))dlsym(RTLD_NEXT, "pthread_rwlock_rdlock");
    COUNT(locks);
    return next(l);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
    static int (*next)(pthread_rwlock_t *);
    if (!next) next = (int (*)(pthread_rwlock_t *))dlsym(RTLD_NEXT, "pthread_rwlock_wrlock");
    COUNT(locks);
    return next(l);
}

ssize_t write(int fd, const void *buffer, size_t count) {
    static ssize_t (*next)(int, const void *, size_t);
    if (!next) next = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    COUNT(writes);
    return next(fd, buffer, count);
}
