/* ncf_chain.c: filter pipelines on whole chunks (see ncfilter.h).
 *
 * Encode applies the filters in order; an optional filter that fails is
 * skipped and its bit set in the chunk's mask, a mandatory one fails the
 * chunk.  Decode applies the unmasked filters in reverse; its last step
 * writes straight into the caller's buffer when the codec can
 * (decode_into), so a deflate-only chunk is inflated in place with no copy.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "ncfilter.h"
#include "ncf_codecs.h"

#define NCF_MAX_FILTERS 32 /* HDF5's H5Z_MAX_NFILTERS; the mask has 32 bits */

typedef struct link {
    const ncf_codec *codec;
    unsigned int flags;
    size_t nparams;
    unsigned int *params;
} link_t;

_Thread_local size_t ncf_decode_limit_tl = 0; /* see ncf_codecs.h */

struct ncf_chain {
    size_t n;
    link_t *f;
};

int
ncf_chain_create(size_t n, const ncf_filter_spec *specs, size_t typesize, ncf_chain **chainp)
{
    ncf_chain *c;
    size_t i;
    int stat = NC_NOERR;
    if (chainp == NULL || (n > 0 && specs == NULL) || n > NCF_MAX_FILTERS)
        return NC_EINVAL;
    *chainp = NULL;
    if ((c = calloc(1, sizeof(*c))) == NULL)
        return NC_ENOMEM;
    if (n > 0 && (c->f = calloc(n, sizeof(link_t))) == NULL) {
        free(c);
        return NC_ENOMEM;
    }
    c->n = n;
    for (i = 0; i < n; i++) {
        link_t *l = &c->f[i];
        size_t np = specs[i].nparams;
        if (np > 0 && specs[i].params == NULL) {
            stat = NC_EINVAL;
            break;
        }
        if ((stat = ncf_codec_find(specs[i].id, &l->codec)))
            break;
        /* Blosc needs the type size; give it when the stored one is 0. */
        if (specs[i].id == NCF_ID_BLOSC && np < 3)
            np = 3;
        if ((l->params = calloc(np + 1, sizeof(unsigned int))) == NULL) {
            stat = NC_ENOMEM;
            break;
        }
        if (specs[i].nparams)
            memcpy(l->params, specs[i].params, specs[i].nparams * sizeof(unsigned int));
        l->nparams = np;
        l->flags = specs[i].flags;
        if (specs[i].id == NCF_ID_BLOSC && l->params[2] == 0)
            l->params[2] = typesize > 255 ? 1 : (unsigned)(typesize ? typesize : 1);
        if (specs[i].id == NCF_ID_SHUFFLE && (np == 0 || l->params[0] == 0)) {
            /* Shuffle's one parameter is the element size (set_local). */
            l->nparams = 1;
            l->params[0] = (unsigned)(typesize ? typesize : 1);
        }
    }
    if (stat) {
        ncf_chain_free(c);
        return stat;
    }
    *chainp = c;
    return NC_NOERR;
}

void
ncf_chain_free(ncf_chain *c)
{
    size_t i;
    if (c == NULL)
        return;
    for (i = 0; i < c->n; i++)
        free(c->f[i].params);
    free(c->f);
    free(c);
}

size_t
ncf_chain_nfilters(const ncf_chain *c)
{
    return c ? c->n : 0;
}

int
ncf_chain_decode(const ncf_chain *c, unsigned int mask, const void *src, size_t srclen, void *dst,
                 size_t dstlen)
{
    void *buf = NULL;
    size_t size = 0, len = srclen, i, first = (size_t)-1;
    const void *cur = src;
    int stat = NC_NOERR;
    size_t saved_limit = ncf_decode_limit_tl;

    if (c == NULL || (srclen > 0 && src == NULL) || (dstlen > 0 && dst == NULL))
        return NC_EINVAL;
    ncf_decode_limit_tl = (dstlen > ((size_t)1 << 38) ? dstlen : 2 * dstlen) + ((size_t)1 << 20);
    /* The first filter (in write order) that was applied: decoded last. */
    for (i = 0; i < c->n; i++)
        if (!(mask & (1u << i))) {
            first = i;
            break;
        }
    for (i = c->n; i-- > 0;) {
        const link_t *l = &c->f[i];
        size_t got;
        if (mask & (1u << i))
            continue;
        if (!l->codec->can_decode) {
            stat = NC_ENOFILTER;
            goto done;
        }
        if (i == first && l->codec->decode_into != NULL) {
            stat = l->codec->decode_into(l->nparams, l->params, cur, len, dst, dstlen);
            goto done;
        }
        if (buf == NULL) {
            /* Filters work in place on a malloc'ed buffer they may replace;
             * the caller's src is never handed to them.  The size hint is
             * the chunk size, as HDF5 gives. */
            size = len > dstlen ? len : dstlen;
            if ((buf = malloc(size ? size : 1)) == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            if (len)
                memcpy(buf, cur, len);
        }
        got = l->codec->filter(l->flags | NCF_REVERSE, l->nparams, l->params, len, &size, &buf);
        if (got == 0 && !(len == 0 && dstlen == 0)) {
            stat = NC_EFILTER;
            goto done;
        }
        len = got;
        cur = buf;
    }
    if (len != dstlen) {
        stat = NC_EFILTER;
        goto done;
    }
    if (len)
        memcpy(dst, cur, len);
done:
    ncf_decode_limit_tl = saved_limit;
    free(buf);
    return stat;
}

int
ncf_chain_encode(const ncf_chain *c, const void *src, size_t srclen, void **outp, size_t *outlenp,
                 unsigned int *maskp)
{
    void *buf;
    size_t size = srclen, len = srclen, i;
    unsigned int mask = 0;

    if (c == NULL || outp == NULL || outlenp == NULL || (srclen > 0 && src == NULL))
        return NC_EINVAL;
    *outp = NULL;
    *outlenp = 0;
    if ((buf = malloc(srclen ? srclen : 1)) == NULL)
        return NC_ENOMEM;
    if (srclen)
        memcpy(buf, src, srclen);
    for (i = 0; i < c->n; i++) {
        const link_t *l = &c->f[i];
        size_t got = 0;
        if (l->codec->can_encode)
            got = l->codec->filter(l->flags & ~NCF_REVERSE, l->nparams, l->params, len, &size, &buf);
        if (got == 0) {
            if (buf == NULL || !(l->flags & NCF_FLAG_OPTIONAL)) {
                free(buf);
                return l->codec->can_encode ? NC_EFILTER : NC_ENOFILTER;
            }
            mask |= 1u << i; /* optional: chunk stored without it */
            continue;
        }
        len = got;
    }
    *outp = buf;
    *outlenp = len;
    if (maskp)
        *maskp = mask;
    return NC_NOERR;
}

/* ---- batches ---------------------------------------------------------------------- */

typedef struct batch_arg {
    const ncf_chain *chain;
    ncf_job *jobs;
} batch_arg;

static void
decode_task(void *arg, size_t i)
{
    batch_arg *a = arg;
    ncf_job *j = &a->jobs[i];
    j->status = ncf_chain_decode(a->chain, j->mask, j->src, j->srclen, j->dst, j->dstlen);
}

static void
encode_task(void *arg, size_t i)
{
    batch_arg *a = arg;
    ncf_job *j = &a->jobs[i];
    j->status = ncf_chain_encode(a->chain, j->src, j->srclen, &j->out, &j->outlen, &j->outmask);
}

static int
run_batch(const ncf_chain *c, ncf_pool *pool, size_t n, ncf_job *jobs, ncf_task_fn fn)
{
    batch_arg a;
    size_t i;
    int stat;
    if (c == NULL || (n > 0 && jobs == NULL))
        return NC_EINVAL;
    a.chain = c;
    a.jobs = jobs;
    if ((stat = ncf_pool_run(pool, n, fn, &a)))
        return stat;
    for (i = 0; i < n; i++)
        if (jobs[i].status)
            return jobs[i].status;
    return NC_NOERR;
}

int
ncf_chain_decode_batch(const ncf_chain *c, ncf_pool *pool, size_t n, ncf_job *jobs)
{
    return run_batch(c, pool, n, jobs, decode_task);
}

int
ncf_chain_encode_batch(const ncf_chain *c, ncf_pool *pool, size_t n, ncf_job *jobs)
{
    return run_batch(c, pool, n, jobs, encode_task);
}
