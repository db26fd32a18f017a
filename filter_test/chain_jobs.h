/* chain_jobs.h: chunks encoded or decoded in parallel on a pool, for the
 * filter tests and bench_filters, the way the formats drive libfilter: one
 * ncf_pool_run task per chunk calling ncf_chain_encode / ncf_chain_decode.
 * Header only (static functions). */
#ifndef CHAIN_JOBS_H
#define CHAIN_JOBS_H

#include <stddef.h>
#include "netcdf.h"
#include "ncfilter.h"

/* One chunk. */
typedef struct tjob {
    const void *src;          /* decode and encode: in */
    size_t srclen;
    unsigned int mask;        /* decode: the chunk's filter mask */
    void *dst;                /* decode: a buffer of dstlen bytes */
    size_t dstlen;
    void *out;                /* encode: out (caller frees) */
    size_t outlen;
    unsigned int outmask;
    int status;               /* NC_* of this chunk */
} tjob;

typedef struct tjobs {
    const ncf_chain *chain;
    tjob *jobs;
} tjobs;

static void
tjobs_decode_task(void *arg, size_t i)
{
    tjobs *a = arg;
    tjob *j = &a->jobs[i];
    j->status = ncf_chain_decode(a->chain, j->mask, j->src, j->srclen, j->dst, j->dstlen);
}

static void
tjobs_encode_task(void *arg, size_t i)
{
    tjobs *a = arg;
    tjob *j = &a->jobs[i];
    j->status = ncf_chain_encode(a->chain, j->src, j->srclen, &j->out, &j->outlen, &j->outmask);
}

/* Every job runs (pool NULL: serially); the first failing job's status. */
static int
tjobs_run(const ncf_chain *c, ncf_pool *pool, size_t n, tjob *jobs, ncf_task_fn fn)
{
    tjobs a = {c, jobs};
    int stat = ncf_pool_run(pool, n, fn, &a);
    for (size_t i = 0; i < n && !stat; i++)
        stat = jobs[i].status;
    return stat;
}

static int
tjobs_decode(const ncf_chain *c, ncf_pool *pool, size_t n, tjob *jobs)
{
    return tjobs_run(c, pool, n, jobs, tjobs_decode_task);
}

static int
tjobs_encode(const ncf_chain *c, ncf_pool *pool, size_t n, tjob *jobs)
{
    return tjobs_run(c, pool, n, jobs, tjobs_encode_task);
}

#endif
