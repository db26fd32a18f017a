/* ncf_deflate.c: HDF5's deflate filter (id 1) on libdeflate.
 *
 * Streams are zlib-wrapped (RFC 1950), as HDF5's H5Z deflate writes with
 * compress2() and reads with inflate(); libdeflate produces and accepts the
 * same format (its bytes differ from zlib's, both decode either).  One
 * parameter: the level 0..9.  Compressor and decompressor objects are cached
 * per thread (allocating a compressor costs more than a small chunk).
 */
#include <pthread.h>
#include <string.h>
#include <libdeflate.h>
#include "netcdf.h"
#include "ncf_codecs.h"

#define NLEVELS 10

typedef struct tl_state {
    struct libdeflate_decompressor *d;
    struct libdeflate_compressor *c[NLEVELS];
} tl_state;

static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;

static void
tl_free(void *v)
{
    tl_state *s = v;
    int i;
    if (s == NULL)
        return;
    if (s->d)
        libdeflate_free_decompressor(s->d);
    for (i = 0; i < NLEVELS; i++)
        if (s->c[i])
            libdeflate_free_compressor(s->c[i]);
    free(s);
}

static void
tl_init(void)
{
    (void)pthread_key_create(&tl_key, tl_free);
}

static tl_state *
tl_get(void)
{
    tl_state *s;
    pthread_once(&tl_once, tl_init);
    if ((s = pthread_getspecific(tl_key)) == NULL) {
        if ((s = calloc(1, sizeof(*s))) == NULL)
            return NULL;
        if (pthread_setspecific(tl_key, s) != 0) {
            free(s);
            return NULL;
        }
    }
    return s;
}

static struct libdeflate_decompressor *
get_decompressor(void)
{
    tl_state *s = tl_get();
    if (s == NULL)
        return NULL;
    if (s->d == NULL)
        s->d = libdeflate_alloc_decompressor();
    return s->d;
}

static struct libdeflate_compressor *
get_compressor(unsigned level)
{
    tl_state *s = tl_get();
    if (s == NULL || level >= NLEVELS)
        return NULL;
    if (s->c[level] == NULL)
        s->c[level] = libdeflate_alloc_compressor((int)level);
    return s->c[level];
}

NCF_INTO_PROTO(ncf_deflate_into)
{
    size_t used = 0, got = 0;
    if (flags & NCF_REVERSE) {
        struct libdeflate_decompressor *d;
        enum libdeflate_result r;
        if ((d = get_decompressor()) == NULL)
            return NC_ENOMEM;
        r = libdeflate_zlib_decompress_ex(d, src, srclen, dst, cap, &used, &got);
        if (r != LIBDEFLATE_SUCCESS)
            return NC_EFILTER;
    } else {
        struct libdeflate_compressor *c = get_compressor(nparams >= 1 ? params[0] : 6);
        if (c == NULL)
            return NC_EFILTER;
        if ((got = libdeflate_zlib_compress(c, src, srclen, dst, cap)) == 0)
            return NC_EFILTER;
    }
    *outlen = got;
    return NC_NOERR;
}

NCF_BOUND_PROTO(ncf_deflate_bound)
{
    struct libdeflate_compressor *c = get_compressor(nparams >= 1 ? params[0] : 6);
    /* zlib's own bound is a safe stand-in when the level is bad. */
    return c ? libdeflate_zlib_compress_bound(c, srclen) : srclen + srclen / 1000 + 64;
}

NCF_FILTER_PROTO(ncf_deflate_filter)
{
    if (flags & NCF_REVERSE) {
        struct libdeflate_decompressor *d = get_decompressor();
        /* Output size unknown: start from the buffer HDF5 gave (its guess
         * is the chunk size) and double, as HDF5's inflate loop does. */
        size_t cap = (*buf_size > nbytes ? *buf_size : nbytes * 4) + 64;
        if (d == NULL)
            return 0;
        /* The slack lets a chunk that grew a little after deflate (a
         * fletcher32 checksum) fit the first try. */
        for (;;) {
            size_t used = 0, got = 0;
            enum libdeflate_result r;
            void *out = ncf_malloc(cap);
            if (out == NULL)
                return 0;
            r = libdeflate_zlib_decompress_ex(d, *buf, nbytes, out, cap, &used, &got);
            if (r == LIBDEFLATE_SUCCESS)
                return ncf_replace(buf, buf_size, out, cap, got);
            ncf_free(out);
            if (r != LIBDEFLATE_INSUFFICIENT_SPACE || cap > ncf_decode_limit())
                return 0;
            cap *= 2;
        }
    } else {
        unsigned level = cd_nelmts >= 1 ? cd_values[0] : 6;
        struct libdeflate_compressor *c = get_compressor(level);
        size_t bound, n;
        void *out;
        if (c == NULL)
            return 0;
        bound = libdeflate_zlib_compress_bound(c, nbytes);
        if ((out = ncf_malloc(bound)) == NULL)
            return 0;
        n = libdeflate_zlib_compress(c, *buf, nbytes, out, bound);
        if (n == 0) {
            ncf_free(out);
            return 0;
        }
        return ncf_replace(buf, buf_size, out, bound, n);
    }
}
