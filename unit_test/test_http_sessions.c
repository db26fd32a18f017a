/* test_http_sessions.c: the HTTP layer's idle-session sets (nchttp.h,
 * dhttp_sessions.c), without a server: opening a session makes no request.
 *
 * Checks that take hands out idle sessions before making new ones, that
 * give keeps at most cap, that a failed set-up leaves nothing open, and
 * that threads taking and giving at once never share a session.  Skipped
 * (77) when the HTTP layer is not built.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#if NC_HAVE_HTTP
#include "nchttp.h"

static int npass, nfail;

#define CHECK(cond) do { if (cond) npass++; else { nfail++; \
    fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define URL "http://127.0.0.1:1/sessions/test"

/* The set-up hook: counts its calls; fails while *fail is set. */
typedef struct Hook {
    pthread_mutex_t lock;
    int calls;
    int fail;
} Hook;

static int
setup(nch_session *s, void *arg)
{
    Hook *h = arg;
    int fail;
    pthread_mutex_lock(&h->lock);
    h->calls++;
    fail = h->fail;
    pthread_mutex_unlock(&h->lock);
    nch_session_raw_urls(s, 1);
    return fail ? NC_EINVAL : NC_NOERR;
}

static unsigned long
made(nch_sessions *set)
{
    unsigned long m = 0;
    nch_sessions_count(set, &m, NULL);
    return m;
}

static size_t
idle(nch_sessions *set)
{
    size_t n = 0;
    nch_sessions_count(set, NULL, &n);
    return n;
}

/* One thread: take, give back; reuse before making. */
static void
serial(void)
{
    Hook h = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
    nch_sessions *set = NULL;
    nch_session *a = NULL, *b = NULL, *c = NULL, *again = NULL;

    CHECK(nch_sessions_open(URL, 2, setup, &h, &set) == NC_NOERR);
    CHECK(made(set) == 0 && idle(set) == 0 && h.calls == 0); /* nothing opened yet */
    CHECK(nch_sessions_take(set, &a) == NC_NOERR && a != NULL);
    CHECK(made(set) == 1 && h.calls == 1);
    nch_sessions_give(set, a);
    CHECK(idle(set) == 1);
    CHECK(nch_sessions_take(set, &again) == NC_NOERR);
    CHECK(again == a);                        /* the idle one, not a new one */
    CHECK(made(set) == 1 && h.calls == 1 && idle(set) == 0);
    CHECK(nch_sessions_take(set, &b) == NC_NOERR);
    CHECK(nch_sessions_take(set, &c) == NC_NOERR);
    CHECK(b != again && c != again && b != c); /* three out at once: three sessions */
    CHECK(made(set) == 3 && h.calls == 3);
    nch_sessions_give(set, again);
    nch_sessions_give(set, b);
    nch_sessions_give(set, c); /* over the cap: closed */
    CHECK(idle(set) == 2);
    for (int i = 0; i < 10; i++) {
        nch_session *s = NULL;
        CHECK(nch_sessions_take(set, &s) == NC_NOERR && s == b); /* the last kept */
        nch_sessions_give(set, s);
    }
    CHECK(made(set) == 3 && idle(set) == 2);
    nch_sessions_give(set, NULL); /* nothing */
    CHECK(idle(set) == 2);
    nch_sessions_close(set);

    /* cap 0: every session is closed when given back */
    CHECK(nch_sessions_open(URL, 0, NULL, NULL, &set) == NC_NOERR);
    for (int i = 0; i < 3; i++) {
        nch_session *s = NULL;
        CHECK(nch_sessions_take(set, &s) == NC_NOERR);
        nch_sessions_give(set, s);
    }
    CHECK(made(set) == 3 && idle(set) == 0);
    nch_sessions_close(set);
}

/* Failures: a failed set-up or open hands out nothing and counts nothing. */
static void
failures(void)
{
    Hook h = {PTHREAD_MUTEX_INITIALIZER, 0, 1};
    nch_sessions *set = NULL, *bad = NULL;
    nch_session *s = NULL;

    CHECK(nch_sessions_open(URL, 4, setup, &h, &set) == NC_NOERR);
    CHECK(nch_sessions_take(set, &s) == NC_EINVAL && s == NULL);
    CHECK(h.calls == 1 && made(set) == 0 && idle(set) == 0);
    h.fail = 0;
    CHECK(nch_sessions_take(set, &s) == NC_NOERR && s != NULL);
    CHECK(h.calls == 2 && made(set) == 1);
    nch_sessions_give(set, s);
    nch_sessions_close(set);

    CHECK(nch_sessions_open("no-scheme-here", 4, setup, &h, &bad) == NC_NOERR);
    CHECK(nch_sessions_take(bad, &s) == NC_EURL);
    CHECK(h.calls == 2 && made(bad) == 0); /* no hook without a session */
    nch_sessions_close(bad);

    CHECK(nch_sessions_open(NULL, 4, NULL, NULL, &bad) == NC_EINVAL);
    CHECK(nch_sessions_open(URL, 4, NULL, NULL, NULL) == NC_EINVAL);
    CHECK(nch_sessions_take(NULL, &s) == NC_EINVAL);
    nch_sessions_close(NULL);
}

/* ---- threads ---- */

#define NTHREADS 8
#define CAP 4
#define ROUNDS 300

static nch_sessions *tset;
static pthread_barrier_t barrier;
static pthread_mutex_t owners_lock = PTHREAD_MUTEX_INITIALIZER;
static nch_session *owners[NTHREADS]; /* the session each thread holds, or NULL */
static int shared;                    /* a session held by two threads at once */

/* Record that thread t holds s (NULL: holds none); a session another
 * thread holds is a failure. */
static void
hold(int t, nch_session *s)
{
    pthread_mutex_lock(&owners_lock);
    for (int i = 0; s != NULL && i < NTHREADS; i++)
        if (i != t && owners[i] == s)
            shared = 1;
    owners[t] = s;
    pthread_mutex_unlock(&owners_lock);
}

static void *
worker(void *arg)
{
    int t = (int)(size_t)arg;
    nch_session *s = NULL;
    long bad = 0;

    /* all threads hold a session at once: each a new one */
    if (nch_sessions_take(tset, &s) != NC_NOERR)
        bad++;
    hold(t, s);
    pthread_barrier_wait(&barrier); /* main counts them */
    pthread_barrier_wait(&barrier);
    hold(t, NULL);
    nch_sessions_give(tset, s);
    pthread_barrier_wait(&barrier); /* main counts the idle ones */
    pthread_barrier_wait(&barrier);
    /* then take and give as fast as they can */
    for (int r = 0; r < ROUNDS; r++) {
        s = NULL;
        if (nch_sessions_take(tset, &s) != NC_NOERR || s == NULL) {
            bad++;
            continue;
        }
        hold(t, s);
        hold(t, NULL);
        nch_sessions_give(tset, s);
    }
    return (void *)bad;
}

static void
threads(void)
{
    Hook h = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
    pthread_t th[NTHREADS];
    long bad = 0;

    CHECK(nch_sessions_open(URL, CAP, setup, &h, &tset) == NC_NOERR);
    pthread_barrier_init(&barrier, NULL, NTHREADS + 1);
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(size_t)t);
    pthread_barrier_wait(&barrier); /* every thread holds one */
    CHECK(made(tset) == NTHREADS && idle(tset) == 0);
    pthread_barrier_wait(&barrier);
    pthread_barrier_wait(&barrier); /* every thread gave its one back */
    CHECK(idle(tset) == CAP);       /* the others were closed */
    pthread_barrier_wait(&barrier);
    for (int t = 0; t < NTHREADS; t++) {
        void *r = NULL;
        pthread_join(th[t], &r);
        bad += (long)r;
    }
    CHECK(bad == 0);
    CHECK(shared == 0);
    CHECK(idle(tset) >= 1 && idle(tset) <= CAP);
    /* at most NTHREADS out at once: never more made than one a take */
    CHECK(made(tset) >= NTHREADS && made(tset) <= NTHREADS + (unsigned long)NTHREADS * ROUNDS);
    CHECK(h.calls == (int)made(tset));
    pthread_barrier_destroy(&barrier);
    nch_sessions_close(tset);
}

int
main(void)
{
    serial();
    failures();
    threads();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}

#else
int
main(void)
{
    printf("the HTTP layer is not built\n");
    return 77;
}
#endif
