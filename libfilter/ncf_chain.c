/* ncf_chain.c: filter pipelines on whole chunks (see ncfilter.h).
 *
 * Encode applies the filters in order; an optional filter that fails is
 * skipped and its bit set in the chunk's mask, a mandatory one fails the
 * chunk.  Decode applies the unmasked filters in reverse; its last step
 * writes straight into the caller's buffer when the codec can
 * (decode_into), so a deflate-only chunk is inflated in place with no copy,
 * and checksums (fletcher32, crc32c) are checked where the bytes lie.
 * Intermediate results live in the per-thread scratch (ncf_scratch_get).
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
        if ((stat = ncf_codec_lookup(specs[i].id, &l->codec)))
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

/* Buffer k (0 or 1) of this thread's chain scratch with at least n bytes. */
static unsigned char *
scratch_get(int k, size_t n)
{
    return ncf_scratch_get(NCF_SCRATCH_CHAIN + k, n, 0);
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

/* Make the result the caller's own buffer: *heapp when the data are in
 * it, else a malloc'ed copy of cur (*heapp then freed and replaced). */
static int
own_result(const void *cur, size_t len, void **heapp)
{
    void *out;
    if (*heapp != NULL && cur == *heapp)
        return NC_NOERR;
    if ((out = malloc(len ? len : 1)) == NULL)
        return NC_ENOMEM;
    if (len)
        memcpy(out, cur, len);
    free(*heapp);
    *heapp = out;
    return NC_NOERR;
}

/* What every decode step starts with: NC_ENOFILTER when the codec cannot
 * decode; a checksum is checked where the data lie (*lenp loses the
 * trailer, *checked set: the step is done). */
static int
step_start(const link_t *l, unsigned flags, const void *cur, size_t *lenp, int *checked)
{
    size_t got = 0;
    int stat;
    if (!l->codec->can_decode)
        return NC_ENOFILTER;
    if (l->codec->verify == NULL)
        return NC_NOERR;
    if ((stat = l->codec->verify(flags, l->nparams, l->params, cur, *lenp, &got)))
        return stat;
    *lenp = got;
    *checked = 1;
    return NC_NOERR;
}

/* The decode limit of a chunk of dstlen bytes: twice it plus 1 MiB (no
 * step of a real pipeline needs more). */
static size_t
chunk_limit(size_t dstlen)
{
    return (dstlen > ((size_t)1 << 38) ? dstlen : 2 * dstlen) + ((size_t)1 << 20);
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
    ncf_decode_limit_tl = chunk_limit(dstlen);
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
        int checked = 0;
        if (mask & (1u << i))
            continue;
        if ((stat = step_start(l, flags, cur, &len, &checked)))
            goto done;
        if (checked)
            continue;
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
    /* No filter decoded into dst (none applied, a checksum or a plugin was
     * last). */
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
ncf_chain_decode_alloc(const ncf_chain *c, unsigned int mask, const void *src, size_t srclen, size_t limit,
                       void **outp, size_t *outlenp)
{
    void *heap = NULL;
    const void *cur = src;
    size_t len = srclen, i;
    int stat = NC_NOERR;
    size_t saved_limit = ncf_decode_limit_tl;

    if (c == NULL || outp == NULL || outlenp == NULL || (srclen > 0 && src == NULL))
        return NC_EINVAL;
    *outp = NULL;
    *outlenp = 0;
    ncf_decode_limit_tl = limit;
    for (i = c->n; i-- > 0;) {
        const link_t *l = &c->f[i];
        unsigned flags = l->flags | NCF_REVERSE;
        size_t got = 0;
        int checked = 0;
        if (mask & (1u << i))
            continue;
        if ((stat = step_start(l, flags, cur, &len, &checked)))
            goto done;
        if (checked)
            continue;
        /* The size is unknown: every codec's allocating form, bounded by
         * the limit. */
        if ((got = generic_step(l, flags, cur, len, 0, &heap)) == 0) {
            stat = NC_EFILTER;
            goto done;
        }
        cur = heap;
        len = got;
    }
    if ((stat = own_result(cur, len, &heap)))
        goto done;
    *outp = heap;
    *outlenp = len;
    heap = NULL;
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
    if ((stat = own_result(cur, len, &heap)))
        goto done;
    *outp = heap;
    heap = NULL;
    *outlenp = len;
    if (maskp)
        *maskp = mask;
done:
    free(heap);
    return stat;
}
