/* lockwait.so: time spent waiting for pthread locks, for benchmarks only
 * (LD_PRELOAD; nc_threads -L loads it).  Each pthread_mutex_lock,
 * pthread_rwlock_rdlock and pthread_rwlock_wrlock first tries the lock; only
 * when that fails is the blocking call timed.  pthread_cond_wait is always
 * timed (a wait for another thread's work).  Per thread: lockwait_thread_ns
 * (kind 0..3 = mutex, rdlock, wrlock, condwait; -1 = all).  Per call site
 * (return address): calls, contended calls and their wait, printed on
 * stderr at exit when LOCKWAIT is set (LOCKWAIT=all: uncontended sites
 * too); resolve with addr2line -f -e LIB OFFSET. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSITES 4096

typedef struct {
    _Atomic uintptr_t site;
    int kind;
    _Atomic unsigned long long calls, contended, ns;
} site_stat;

static site_stat sites[NSITES];
static _Thread_local unsigned long long thread_ns[4];
static const char *const kind_name[4] = {"mutex", "rdlock", "wrlock", "condwait"};

static unsigned long long
now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

/* Account one call at site (a wait of ns when contended). */
static void
note(uintptr_t site, int kind, int contended, unsigned long long ns)
{
    size_t h = (size_t)((site >> 4) * 2654435761u) % NSITES;
    if (contended)
        thread_ns[kind] += ns;
    for (size_t k = 0; k < NSITES; k++, h = (h + 1) % NSITES) {
        uintptr_t s = atomic_load(&sites[h].site);
        if (s == 0) {
            uintptr_t zero = 0;
            if (atomic_compare_exchange_strong(&sites[h].site, &zero, site)) {
                sites[h].kind = kind;
                s = site;
            } else {
                s = zero;
            }
        }
        if (s == site) {
            atomic_fetch_add(&sites[h].calls, 1);
            if (contended) {
                atomic_fetch_add(&sites[h].contended, 1);
                atomic_fetch_add(&sites[h].ns, ns);
            }
            return;
        }
    }
}

unsigned long long lockwait_thread_ns(int kind);
unsigned long long
lockwait_thread_ns(int kind)
{
    if (kind >= 0 && kind < 4)
        return thread_ns[kind];
    return thread_ns[0] + thread_ns[1] + thread_ns[2] + thread_ns[3];
}

static __attribute__((destructor)) void
dump(void)
{
    const char *e = getenv("LOCKWAIT");
    if (e == NULL)
        return;
    for (size_t i = 0; i < NSITES; i++) {
        uintptr_t s = atomic_load(&sites[i].site);
        Dl_info d;
        const char *file = "?";
        uintptr_t off = s;
        if (s == 0 || (atomic_load(&sites[i].contended) == 0 && strcmp(e, "all") != 0))
            continue;
        if (dladdr((void *)s, &d) && d.dli_fname) {
            file = d.dli_fname;
            off = s - (uintptr_t)d.dli_fbase;
        }
        fprintf(stderr, "lockwait: %s %s 0x%lx calls=%llu contended=%llu wait=%.4f s\n",
                kind_name[sites[i].kind], file, (unsigned long)off, atomic_load(&sites[i].calls),
                atomic_load(&sites[i].contended), 1e-9 * (double)atomic_load(&sites[i].ns));
    }
}

/* The wrapped function 'name' and its try form. */
#define WRAP_LOCK(name, tryname, type, kind)                                   \
    int name(type *l)                                                          \
    {                                                                          \
        static int (*real)(type *), (*try)(type *);                            \
        uintptr_t site = (uintptr_t)__builtin_return_address(0);               \
        unsigned long long t0;                                                 \
        int e;                                                                 \
        if (real == NULL) {                                                    \
            *(void **)&try = dlsym(RTLD_NEXT, #tryname);                       \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                         \
        }                                                                      \
        if (try(l) == 0) {                                                     \
            note(site, kind, 0, 0);                                            \
            return 0;                                                          \
        }                                                                      \
        t0 = now_ns();                                                         \
        e = real(l);                                                           \
        note(site, kind, 1, now_ns() - t0);                                    \
        return e;                                                              \
    }

WRAP_LOCK(pthread_mutex_lock, pthread_mutex_trylock, pthread_mutex_t, 0)
WRAP_LOCK(pthread_rwlock_rdlock, pthread_rwlock_tryrdlock, pthread_rwlock_t, 1)
WRAP_LOCK(pthread_rwlock_wrlock, pthread_rwlock_trywrlock, pthread_rwlock_t, 2)

int
pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    static int (*real)(pthread_cond_t *, pthread_mutex_t *);
    uintptr_t site = (uintptr_t)__builtin_return_address(0);
    unsigned long long t0;
    int e;
    if (real == NULL) {
        /* The current version, not the one kept for old binaries. */
        *(void **)&real = dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
        if (real == NULL)
            *(void **)&real = dlsym(RTLD_NEXT, "pthread_cond_wait");
    }
    t0 = now_ns();
    e = real(c, m);
    note(site, 3, 1, now_ns() - t0);
    return e;
}
