/* ncf_deflate.c: HDF5's deflate filter (id 1) on libdeflate.
 *
 * Streams are zlib-wrapped (RFC 1950), as HDF5's H5Z deflate writes with
 * compress2() and reads with inflate(); libdeflate produces and accepts the
 * same format (its bytes differ from zlib's, both decode either).  One
 * parameter: the level 0..9.  Compressor and decompressor objects are cached
 * per thread (allocating a compressor costs more than a small chunk).
 *
 * Level 1 asks for speed above all; when built with ISA-L (NCF_HAVE_ISAL)
 * it is encoded by igzip (its level 2, 16 Ki-token blocks: the best ratio
 * of its fast settings, within half a percent of libdeflate's level 1 at
 * five times the speed; docs/filters.md).  The output is the same zlib
 * format; a chunk igzip cannot fit in the bound falls back to libdeflate.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <libdeflate.h>
#ifdef NCF_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include "netcdf.h"
#include "ncf_codecs.h"

#define NLEVELS 10

typedef struct tl_state {
    struct libdeflate_decompressor *d;
    struct libdeflate_compressor *c[NLEVELS];
#ifdef NCF_HAVE_ISAL
    struct isal_zstream *zs; /* 80 KiB: not on the stack */
    unsigned char *lvlbuf;   /* igzip's hash tables and token buffer */
#endif
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
#ifdef NCF_HAVE_ISAL
    free(s->zs);
    free(s->lvlbuf);
#endif
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

#ifdef NCF_HAVE_ISAL
#define ISAL_LEVEL 2
#define ISAL_LEVEL_BUF ISAL_DEF_LVL2_SMALL

/* Level 1 through igzip into dst[0..cap); 0 when it did not fit or failed
 * (the caller then uses libdeflate). */
static size_t
isal_level1(const void *src, size_t srclen, void *dst, size_t cap)
{
    tl_state *s = tl_get();
    struct isal_zstream *z;
    if (s == NULL || srclen > UINT32_MAX || cap > UINT32_MAX)
        return 0;
    if (s->zs == NULL && (s->zs = calloc(1, sizeof(*s->zs))) == NULL)
        return 0;
    /* Zeroed: igzip tests hash entries it has not yet written (harmless,
     * but memcheck reports it on uninitialised memory). */
    if (s->lvlbuf == NULL && (s->lvlbuf = calloc(1, ISAL_LEVEL_BUF)) == NULL)
        return 0;
    z = s->zs;
    isal_deflate_stateless_init(z);
    z->level = ISAL_LEVEL;
    z->level_buf = s->lvlbuf;
    z->level_buf_size = ISAL_LEVEL_BUF;
    z->gzip_flag = IGZIP_ZLIB;
    z->next_in = (uint8_t *)(uintptr_t)src; /* igzip does not write it */
    z->avail_in = (uint32_t)srclen;
    z->next_out = dst;
    z->avail_out = (uint32_t)cap;
    z->end_of_stream = 1;
    z->flush = NO_FLUSH;
    if (isal_deflate_stateless(z) != COMP_OK)
        return 0;
    return z->total_out;
}
#endif

/* The zlib stream of src at level into dst[0..cap): its length, 0 when it
 * does not fit. */
static size_t
compress_into(struct libdeflate_compressor *c, unsigned level, const void *src, size_t srclen, void *dst,
              size_t cap)
{
#ifdef NCF_HAVE_ISAL
    if (level == 1) {
        size_t n = isal_level1(src, srclen, dst, cap);
        if (n > 0)
            return n;
    }
#else
    (void)level;
#endif
    return libdeflate_zlib_compress(c, src, srclen, dst, cap);
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
        unsigned level = nparams >= 1 ? params[0] : 6;
        struct libdeflate_compressor *c = get_compressor(level);
        if (c == NULL)
            return NC_EFILTER;
        if ((got = compress_into(c, level, src, srclen, dst, cap)) == 0)
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
        n = compress_into(c, level, *buf, nbytes, out, bound);
        if (n == 0) {
            ncf_free(out);
            return 0;
        }
        return ncf_replace(buf, buf_size, out, bound, n);
    }
}
