/* ncf_chain.c: filter pipelines on whole chunks (see ncfilter.h).
 *
 * Encode applies the filters in order; an optional filter that fails is
 * skipped and its bit set in the chunk's mask, a mandatory one fails the
 * chunk.  Decode applies the unmasked filters in reverse; its last step
 * writes straight into the caller's buffer when the codec can
 * (decode_into), so a deflate-only chunk is inflated in place with no copy.
 */
#include "config.h"
#include <pthread.h>
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

/* ---- per-thread scratch ---------------------------------------------------------- */

/* Two grow-only buffers per thread for the intermediate steps of a chain,
 * so that steady-state decoding allocates nothing (fresh allocations of
 * chunk-sized buffers cost a page fault per 4 KiB). */
typedef struct scratch {
    unsigned char *b[2];
    size_t cap[2];
} scratch;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void
scratch_free(void *v)
{
    scratch *s = v;
    if (s) {
        free(s->b[0]);
        free(s->b[1]);
        free(s);
    }
}

static void
scratch_init(void)
{
    (void)pthread_key_create(&scratch_key, scratch_free);
}

/* Buffer k of this thread's scratch with at least n bytes, or NULL. */
static unsigned char *
scratch_get(int k, size_t n)
{
    scratch *s;
    pthread_once(&scratch_once, scratch_init);
    if ((s = pthread_getspecific(scratch_key)) == NULL) {
        if ((s = calloc(1, sizeof(*s))) == NULL)
            return NULL;
        if (pthread_setspecific(scratch_key, s) != 0) {
            free(s);
            return NULL;
        }
    }
    if (s->cap[k] < n) {
        unsigned char *b = malloc(n);
        if (b == NULL)
            return NULL;
        free(s->b[k]);
        s->b[k] = b;
        s->cap[k] = n;
    }
    return s->b[k];
}

/* One step through the generic (H5Z) filter function: *heapp is the
 * current malloc'ed buffer or NULL when the data are at cur.  Returns the
 * new length, 0 on failure (an empty result is a failure here too). */
static size_t
generic_step(const link_t *l, unsigned flags, const void *cur, size_t len, size_t hint, void **heapp)
{
    void *buf = *heapp;
    size_t size = len > hint ? len : hint, got;
    if (buf == NULL) {
        if ((buf = malloc(size ? size : 1)) == NULL)
            return 0;
        if (len)
            memcpy(buf, cur, len);
    } else {
        size = len;
    }
    got = l->codec->filter(flags, l->nparams, l->params, len, &size, &buf);
    *heapp = buf; /* the filter may have replaced it (or freed it: NULL) */
    return got;
}

int
ncf_chain_decode(const ncf_chain *c, unsigned int mask, const void *src, size_t srclen, void *dst,
                 size_t dstlen)
{
    void *heap = NULL;
    size_t len = srclen, i, first = (size_t)-1;
    const void *cur = src;
    int stat = NC_NOERR, k = 0;
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
        unsigned flags = l->flags | NCF_REVERSE;
        size_t got = 0;
        if (mask & (1u << i))
            continue;
        if (!l->codec->can_decode) {
            stat = NC_ENOFILTER;
            goto done;
        }
        if (l->codec->into != NULL) {
            /* Last step straight into the caller's buffer; earlier ones into
             * scratch with room for any real filter's overhead. */
            size_t cap = i == first ? dstlen : (len > dstlen ? len : dstlen) + 65536;
            unsigned char *target = i == first ? dst : scratch_get(k, cap);
            if (target == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            if (l->codec->into(flags, l->nparams, l->params, cur, len, target, cap, &got) == NC_NOERR) {
                if (i == first) {
                    stat = got == dstlen ? NC_NOERR : NC_EFILTER;
                    goto done;
                }
                free(heap);
                heap = NULL;
                cur = target;
                len = got;
                k ^= 1;
                continue;
            }
            if (i == first) {
                stat = NC_EFILTER;
                goto done;
            }
            /* An intermediate result larger than guessed: the generic path. */
        }
        if ((got = generic_step(l, flags, cur, len, dstlen, &heap)) == 0 && !(len == 0 && dstlen == 0)) {
            stat = NC_EFILTER;
            goto done;
        }
        cur = heap;
        len = got;
    }
    /* No filter decoded into dst (none applied, or a plugin was last). */
    if (len != dstlen) {
        stat = NC_EFILTER;
        goto done;
    }
    if (len)
        memcpy(dst, cur, len);
done:
    ncf_decode_limit_tl = saved_limit;
    free(heap);
    return stat;
}

int
ncf_chain_encode(const ncf_chain *c, const void *src, size_t srclen, void **outp, size_t *outlenp,
                 unsigned int *maskp)
{
    void *heap = NULL;   /* malloc'ed buffer holding cur, if any */
    const void *cur = src;
    size_t len = srclen, i, last = 0;
    unsigned int mask = 0;
    int k = 0, stat = NC_NOERR;

    if (c == NULL || outp == NULL || outlenp == NULL || (srclen > 0 && src == NULL))
        return NC_EINVAL;
    *outp = NULL;
    *outlenp = 0;
    for (i = 0; i < c->n; i++)
        if (c->f[i].codec->can_encode)
            last = i;
    for (i = 0; i < c->n; i++) {
        const link_t *l = &c->f[i];
        size_t got = 0;
        int ok = 0;
        if (!l->codec->can_encode) {
            ok = 0;
        } else if (l->codec->into != NULL && l->codec->encode_bound != NULL) {
            /* The last step writes the caller's (malloc'ed) output; earlier
             * ones go through scratch. */
            size_t cap = l->codec->encode_bound(l->nparams, l->params, len);
            unsigned char *target = i == last ? malloc(cap ? cap : 1) : scratch_get(k, cap);
            if (target == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            if (l->codec->into(l->flags & ~NCF_REVERSE, l->nparams, l->params, cur, len, target, cap, &got)
                == NC_NOERR) {
                ok = 1;
                free(heap);
                heap = i == last ? target : NULL;
                cur = target;
                len = got;
                if (i != last)
                    k ^= 1;
            } else if (i == last) {
                free(target);
            }
        } else {
            size_t n = generic_step(l, l->flags & ~NCF_REVERSE, cur, len, 0, &heap);
            if (n > 0) {
                ok = 1;
                cur = heap;
                len = n;
            } else if (heap == NULL && len > 0 && cur != src) {
                /* The filter freed our copy: the data are gone. */
                stat = NC_EFILTER;
                goto done;
            }
        }
        if (!ok) {
            if (!(l->flags & NCF_FLAG_OPTIONAL)) {
                stat = l->codec->can_encode ? NC_EFILTER : NC_ENOFILTER;
                goto done;
            }
            mask |= 1u << i; /* optional: the chunk is stored without it */
        }
    }
    /* The result must be the caller's own buffer. */
    if (heap == NULL || cur != heap) {
        void *out = malloc(len ? len : 1);
        if (out == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        if (len)
            memcpy(out, cur, len);
        free(heap);
        heap = out;
    }
    *outp = heap;
    heap = NULL;
    *outlenp = len;
    if (maskp)
        *maskp = mask;
done:
    free(heap);
    return stat;
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
