/* ncf_pool.c: the thread pool that runs chunk codecs (see ncfilter.h).
 *
 * A batch is N independent tasks.  Batches queue in FIFO order; each worker
 * takes the next unclaimed index of the oldest batch.  The caller of
 * ncf_pool_run works on its own batch too, so a batch always progresses
 * even when the workers are busy with other callers; once its own tasks
 * are all taken it runs other callers' tasks while its last ones finish
 * elsewhere, and sleeps only when there are none.  The pool keeps no more
 * threads running tasks than its size: callers count, so two callers on a
 * pool of two run their batches alone and the worker waits, instead of
 * three threads sharing two cores (each caller then waits for its
 * batch's last task on a descheduled worker).  Claims are made under the
 * pool mutex (one per chunk: negligible next to a codec call); the mutex
 * is never held while a task runs.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "netcdf.h"
#include "ncrc.h"
#include "ncfilter.h"

#define NCF_MAX_THREADS 256
#define NCF_THREADS_ENV "NETCDF_FILTER_THREADS"
#define NCF_THREADS_RC "FILTER.THREADS"

typedef struct batch {
    ncf_task_fn fn;
    void *arg;
    size_t ntasks;
    size_t next;       /* next unclaimed index */
    size_t remaining;  /* tasks not yet finished */
    struct batch *link;
} batch;

struct ncf_pool {
    pthread_mutex_t lock;
    pthread_cond_t work;   /* a batch was queued, or shutdown */
    pthread_cond_t done;   /* some batch finished */
    batch *head, *tail;    /* batches with unclaimed tasks */
    int shutdown;
    int active;            /* threads running tasks: workers in a task, callers
                            * inside ncf_pool_run not asleep */
    int nthreads;          /* including the caller */
    int nworkers;
    pthread_t *workers;
};

/* Take batch b off the queue (it has no unclaimed task left).  Locked. */
static void
unqueue(ncf_pool *p, batch *b)
{
    batch **pp = &p->head, *prev = NULL;
    while (*pp && *pp != b) {
        prev = *pp;
        pp = &(*pp)->link;
    }
    if (*pp == NULL)
        return;
    *pp = b->link;
    if (p->tail == b)
        p->tail = prev;
    b->link = NULL;
}

/* Claim one index of b; returns 0 when none is left.  Locked. */
static int
claim(ncf_pool *p, batch *b, size_t *ip)
{
    if (b->next >= b->ntasks)
        return 0;
    *ip = b->next++;
    if (b->next == b->ntasks)
        unqueue(p, b);
    return 1;
}

/* This thread is counted in a pool's active threads (a worker in a task,
 * or a caller): a call it makes from a task is not counted again. */
static _Thread_local int counted;

/* Run index i of b and account for it.  Called unlocked, returns locked. */
static void
run_one(ncf_pool *p, batch *b, size_t i)
{
    b->fn(b->arg, i);
    pthread_mutex_lock(&p->lock);
    if (--b->remaining == 0)
        pthread_cond_broadcast(&p->done);
}

/* One fewer thread runs tasks: a waiting worker may take the place.
 * Locked. */
static void
leave(ncf_pool *p)
{
    if (--p->active < p->nthreads && p->head != NULL)
        pthread_cond_signal(&p->work);
}

static void *
worker_main(void *arg)
{
    ncf_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->shutdown) {
        batch *b = p->head;
        size_t i;
        if (b == NULL || p->active >= p->nthreads) {
            pthread_cond_wait(&p->work, &p->lock);
            continue;
        }
        if (!claim(p, b, &i))
            continue;
        p->active++;
        counted = 1;
        pthread_mutex_unlock(&p->lock);
        run_one(p, b, i);
        counted = 0;
        leave(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int
ncf_pool_create(int nthreads, ncf_pool **poolp)
{
    ncf_pool *p;
    int i;

    if (poolp == NULL)
        return NC_EINVAL;
    *poolp = NULL;
    if (nthreads <= 0)
        nthreads = ncf_default_threads();
    if (nthreads > NCF_MAX_THREADS)
        nthreads = NCF_MAX_THREADS;
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return NC_ENOMEM;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->nthreads = nthreads;
    if (nthreads > 1) {
        if ((p->workers = calloc((size_t)nthreads - 1, sizeof(pthread_t))) == NULL) {
            ncf_pool_free(p);
            return NC_ENOMEM;
        }
        for (i = 0; i < nthreads - 1; i++) {
            if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0)
                break;
            p->nworkers++;
        }
        if (p->nworkers == 0) {
            ncf_pool_free(p);
            return NC_ENOMEM;
        }
        p->nthreads = p->nworkers + 1;
    }
    *poolp = p;
    return NC_NOERR;
}

void
ncf_pool_free(ncf_pool *p)
{
    int i;
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->shutdown = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (i = 0; i < p->nworkers; i++)
        pthread_join(p->workers[i], NULL);
    free(p->workers);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

int
ncf_pool_nthreads(const ncf_pool *p)
{
    return p ? p->nthreads : 1;
}

int
ncf_pool_run(ncf_pool *p, size_t ntasks, ncf_task_fn fn, void *arg)
{
    batch b;
    size_t i;
    int me;

    if (fn == NULL)
        return NC_EINVAL;
    if (ntasks == 0)
        return NC_NOERR;
    /* Nothing to share: no workers, or a single task. */
    if (p == NULL || p->nworkers == 0 || ntasks == 1) {
        for (i = 0; i < ntasks; i++)
            fn(arg, i);
        return NC_NOERR;
    }
    memset(&b, 0, sizeof(b));
    b.fn = fn;
    b.arg = arg;
    b.ntasks = ntasks;
    b.remaining = ntasks;
    pthread_mutex_lock(&p->lock);
    if (p->tail)
        p->tail->link = &b;
    else
        p->head = &b;
    p->tail = &b;
    /* This thread runs tasks from now on (unless a task of this pool
     * already counts it). */
    me = !counted;
    if (me) {
        p->active++;
        counted = 1;
    }
    if (p->active < p->nthreads)
        pthread_cond_broadcast(&p->work);
    for (;;) {
        batch *o = &b;
        if (!claim(p, &b, &i)) {
            if (b.remaining == 0)
                break;
            /* Its own tasks all taken, the last ones still running on
             * other threads: help the oldest other batch meanwhile, or
             * sleep (not counted as running) when there is none. */
            o = p->head;
            if (o == NULL || !claim(p, o, &i)) {
                if (me)
                    leave(p);
                pthread_cond_wait(&p->done, &p->lock);
                if (me)
                    p->active++;
                continue;
            }
        }
        pthread_mutex_unlock(&p->lock);
        run_one(p, o, i);
    }
    if (me) {
        leave(p);
        counted = 0;
    }
    pthread_mutex_unlock(&p->lock);
    return NC_NOERR;
}

/* ---- sizing and the shared pool ------------------------------------------------ */

/* A thread count from text, or 0 if it is not a number in range. */
static int
parse_threads(const char *s)
{
    char *end;
    long v;
    if (s == NULL || *s == '\0')
        return 0;
    errno = 0;
    v = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (errno || *end != '\0' || v <= 0)
        return 0;
    return v > NCF_MAX_THREADS ? NCF_MAX_THREADS : (int)v;
}

int
ncf_default_threads(void)
{
    int n;
    char *rc;
    if ((n = parse_threads(getenv(NCF_THREADS_ENV))) > 0)
        return n;
    rc = NC_rc_lookup(NCF_THREADS_RC, NULL);
    n = parse_threads(rc);
    free(rc);
    if (n > 0)
        return n;
#ifdef CPU_COUNT
    {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof(set), &set) == 0 && (n = CPU_COUNT(&set)) > 0)
            return n > NCF_MAX_THREADS ? NCF_MAX_THREADS : n;
    }
#endif
    {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        if (c <= 0)
            return 1;
        return c > NCF_MAX_THREADS ? NCF_MAX_THREADS : (int)c;
    }
}

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static ncf_pool *shared_pool = NULL;

ncf_pool *
ncf_pool_default(void)
{
    ncf_pool *p;
    pthread_mutex_lock(&shared_lock);
    if (shared_pool == NULL && ncf_pool_create(0, &shared_pool) != NC_NOERR)
        shared_pool = NULL;
    p = shared_pool;
    pthread_mutex_unlock(&shared_lock);
    return p;
}

/* Called from ncf_finalize: no batch may be running. */
void ncf_pool_shutdown_default(void);
void
ncf_pool_shutdown_default(void)
{
    ncf_pool *p;
    pthread_mutex_lock(&shared_lock);
    p = shared_pool;
    shared_pool = NULL;
    pthread_mutex_unlock(&shared_lock);
    ncf_pool_free(p);
}
