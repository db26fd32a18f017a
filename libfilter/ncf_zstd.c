/* ncf_zstd.c: the zstd filter (id 32015) as netCDF's and HDF Group's
 * plugins define it: one parameter, the level (a signed int's bits); the
 * chunk is one zstd frame.  Contexts are cached per thread, in the
 * library's per-thread scratch.
 */
#include <string.h>
#include <zstd.h>
#include "netcdf.h"
#include "ncf_codecs.h"

typedef struct tl_state {
    ZSTD_CCtx *c;
    ZSTD_DCtx *d;
} tl_state;

/* Frees the contexts of a thread's state (ncf_scratch frees the struct). */
static void
tl_release(void *v)
{
    tl_state *s = v;
    ZSTD_freeCCtx(s->c);
    ZSTD_freeDCtx(s->d);
}

static tl_state *
tl_get(void)
{
    return ncf_scratch_state(NCF_STATE_ZSTD, sizeof(tl_state), tl_release);
}

static ZSTD_DCtx *
dctx(void)
{
    tl_state *s = tl_get();
    if (s == NULL)
        return NULL;
    if (s->d == NULL)
        s->d = ZSTD_createDCtx();
    return s->d;
}

NCF_INTO_PROTO(ncf_zstd_into)
{
    size_t r;
    if (flags & NCF_REVERSE) {
        ZSTD_DCtx *d = dctx();
        (void)nparams;
        (void)params;
        if (d == NULL)
            return NC_ENOMEM;
        r = ZSTD_decompressDCtx(d, dst, cap, src, srclen);
    } else {
        tl_state *s = tl_get();
        int level = nparams >= 1 ? (int)params[0] : ZSTD_CLEVEL_DEFAULT;
        if (s == NULL || (s->c == NULL && (s->c = ZSTD_createCCtx()) == NULL))
            return NC_ENOMEM;
        r = ZSTD_compressCCtx(s->c, dst, cap, src, srclen, level);
    }
    if (ZSTD_isError(r))
        return NC_EFILTER;
    *outlen = r;
    return NC_NOERR;
}

NCF_BOUND_PROTO(ncf_zstd_bound)
{
    (void)nparams;
    (void)params;
    return ZSTD_compressBound(srclen);
}

/* Decode a frame whose size the header does not give: stream, growing. */
static size_t
decode_stream(ZSTD_DCtx *d, void **buf, size_t *buf_size, size_t nbytes)
{
    size_t cap = nbytes * 4 + 1024, got = 0;
    unsigned char *out = ncf_malloc(cap);
    ZSTD_inBuffer in = {*buf, nbytes, 0};
    if (out == NULL)
        return 0;
    ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
    for (;;) {
        ZSTD_outBuffer o = {out, cap, got};
        size_t r = ZSTD_decompressStream(d, &o, &in);
        got = o.pos;
        if (ZSTD_isError(r))
            break;
        if (r == 0)
            return ncf_replace(buf, buf_size, out, cap, got);
        if (in.pos == in.size && o.pos < o.size)
            break; /* truncated */
        if (o.pos == o.size) {
            unsigned char *bigger;
            if (cap > ncf_decode_limit() || (bigger = ncf_malloc(cap * 2)) == NULL)
                break;
            memcpy(bigger, out, got);
            ncf_free(out);
            out = bigger;
            cap *= 2;
        }
    }
    ncf_free(out);
    return 0;
}

NCF_FILTER_PROTO(ncf_zstd_filter)
{
    tl_state *s = tl_get();
    if (s == NULL)
        return 0;
    if (flags & NCF_REVERSE) {
        unsigned long long size;
        void *out;
        size_t r;
        ZSTD_DCtx *d = dctx();
        if (d == NULL)
            return 0;
        size = ZSTD_getFrameContentSize(*buf, nbytes);
        if (size == ZSTD_CONTENTSIZE_ERROR)
            return 0;
        if (size == ZSTD_CONTENTSIZE_UNKNOWN)
            return decode_stream(d, buf, buf_size, nbytes);
        if (size > ncf_decode_limit() || (out = ncf_malloc(size ? (size_t)size : 1)) == NULL)
            return 0;
        r = ZSTD_decompressDCtx(d, out, (size_t)size, *buf, nbytes);
        if (ZSTD_isError(r) || r != size) {
            ncf_free(out);
            return 0;
        }
        return ncf_replace(buf, buf_size, out, (size_t)size, r);
    } else {
        int level = cd_nelmts >= 1 ? (int)cd_values[0] : ZSTD_CLEVEL_DEFAULT;
        size_t bound = ZSTD_compressBound(nbytes), r;
        void *out;
        if (s->c == NULL && (s->c = ZSTD_createCCtx()) == NULL)
            return 0;
        if ((out = ncf_malloc(bound)) == NULL)
            return 0;
        r = ZSTD_compressCCtx(s->c, out, bound, *buf, nbytes, level);
        if (ZSTD_isError(r)) {
            ncf_free(out);
            return 0;
        }
        return ncf_replace(buf, buf_size, out, bound, r);
    }
}
