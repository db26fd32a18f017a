/* ncf_deflate.c: HDF5's deflate filter (id 1) and Zarr's gzip codec
 * (NCF_ID_GZIP) on libdeflate.
 *
 * Deflate streams are zlib-wrapped (RFC 1950), as HDF5's H5Z deflate writes
 * with compress2() and reads with inflate(); libdeflate produces and
 * accepts the same format (its bytes differ from zlib's, both decode
 * either).  gzip is the same deflate stream in a gzip member (RFC 1952).
 * One parameter: the level 0..9.  Compressor and decompressor objects are
 * cached per thread (allocating a compressor costs more than a small
 * chunk), in the library's per-thread scratch; both codecs share them.
 *
 * Level 1 asks for speed above all; when built with ISA-L (NCF_HAVE_ISAL)
 * it is encoded by igzip (its level 2, 16 Ki-token blocks: the best ratio
 * of its fast settings, within half a percent of libdeflate's level 1 at
 * five times the speed; docs/filters.md).  The output is the same zlib
 * format; a chunk igzip cannot fit in the bound falls back to libdeflate.
 * gzip is always encoded by libdeflate.
 */
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

/* Frees the objects of a thread's state (ncf_scratch frees the struct). */
static void
tl_release(void *v)
{
    tl_state *s = v;
    int i;
    if (s->d)
        libdeflate_free_decompressor(s->d);
    for (i = 0; i < NLEVELS; i++)
        if (s->c[i])
            libdeflate_free_compressor(s->c[i]);
#ifdef NCF_HAVE_ISAL
    free(s->zs);
    free(s->lvlbuf);
#endif
}

static tl_state *
tl_get(void)
{
    return ncf_scratch_state(NCF_STATE_DEFLATE, sizeof(tl_state), tl_release);
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

/* The zlib (or gzip) stream of src at level into dst[0..cap): its
 * length, 0 when it does not fit. */
static size_t
compress_into(struct libdeflate_compressor *c, int gzip, unsigned level, const void *src, size_t srclen,
              void *dst, size_t cap)
{
    if (gzip)
        return libdeflate_gzip_compress(c, src, srclen, dst, cap);
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

static size_t
bound(struct libdeflate_compressor *c, int gzip, size_t n)
{
    return gzip ? libdeflate_gzip_compress_bound(c, n) : libdeflate_zlib_compress_bound(c, n);
}

static int
into(int gzip, unsigned flags, size_t nparams, const unsigned *params, const void *src, size_t srclen,
     void *dst, size_t cap, size_t *outlen)
{
    size_t used = 0, got = 0;
    if (flags & NCF_REVERSE) {
        struct libdeflate_decompressor *d;
        enum libdeflate_result r;
        if ((d = get_decompressor()) == NULL)
            return NC_ENOMEM;
        if (gzip)
            r = libdeflate_gzip_decompress(d, src, srclen, dst, cap, &got);
        else
            r = libdeflate_zlib_decompress_ex(d, src, srclen, dst, cap, &used, &got);
        if (r != LIBDEFLATE_SUCCESS)
            return NC_EFILTER;
    } else {
        unsigned level = nparams >= 1 ? params[0] : 6;
        struct libdeflate_compressor *c = get_compressor(level);
        if (c == NULL)
            return NC_EFILTER;
        if ((got = compress_into(c, gzip, level, src, srclen, dst, cap)) == 0)
            return NC_EFILTER;
    }
    *outlen = got;
    return NC_NOERR;
}

static size_t
bound_of(int gzip, size_t nparams, const unsigned *params, size_t srclen)
{
    struct libdeflate_compressor *c = get_compressor(nparams >= 1 ? params[0] : 6);
    /* zlib's own bound (plus gzip's larger wrapper) is a safe stand-in when
     * the level is bad. */
    return c ? bound(c, gzip, srclen) : srclen + srclen / 1000 + 64;
}

/* The H5Z form: decode into a buffer grown as needed, encode into a new
 * buffer of the bound. */
static size_t
filter(int gzip, unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[], size_t nbytes,
       size_t *buf_size, void **buf)
{
    if (flags & NCF_REVERSE) {
        struct libdeflate_decompressor *d = get_decompressor();
        size_t cap;
        if (d == NULL)
            return 0;
        if (gzip) {
            /* The gzip trailer holds the size mod 2^32: decode into exactly
             * that (libdeflate checks it against the stream). */
            size_t got = 0;
            void *out;
            if (nbytes < 18 || (cap = nc_get_le32((unsigned char *)*buf + nbytes - 4)) > ncf_decode_limit())
                return 0;
            if ((out = ncf_malloc(cap ? cap : 1)) == NULL)
                return 0;
            if (libdeflate_gzip_decompress(d, *buf, nbytes, out, cap, &got) != LIBDEFLATE_SUCCESS) {
                ncf_free(out);
                return 0;
            }
            return ncf_replace(buf, buf_size, out, cap, got);
        }
        /* Output size unknown: start from the buffer HDF5 gave (its guess
         * is the chunk size) and double, as HDF5's inflate loop does.  The
         * slack lets a chunk that grew a little after deflate (a fletcher32
         * checksum) fit the first try. */
        cap = (*buf_size > nbytes ? *buf_size : nbytes * 4) + 64;
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
        size_t cap, n;
        void *out;
        if (c == NULL)
            return 0;
        cap = bound(c, gzip, nbytes);
        if ((out = ncf_malloc(cap)) == NULL)
            return 0;
        n = compress_into(c, gzip, level, *buf, nbytes, out, cap);
        if (n == 0) {
            ncf_free(out);
            return 0;
        }
        return ncf_replace(buf, buf_size, out, cap, n);
    }
}

NCF_INTO_PROTO(ncf_deflate_into)
{
    return into(0, flags, nparams, params, src, srclen, dst, cap, outlen);
}

NCF_BOUND_PROTO(ncf_deflate_bound)
{
    return bound_of(0, nparams, params, srclen);
}

NCF_FILTER_PROTO(ncf_deflate_filter)
{
    return filter(0, flags, cd_nelmts, cd_values, nbytes, buf_size, buf);
}

NCF_INTO_PROTO(ncf_gzip_into)
{
    return into(1, flags, nparams, params, src, srclen, dst, cap, outlen);
}

NCF_BOUND_PROTO(ncf_gzip_bound)
{
    return bound_of(1, nparams, params, srclen);
}

NCF_FILTER_PROTO(ncf_gzip_filter)
{
    return filter(1, flags, cd_nelmts, cd_values, nbytes, buf_size, buf);
}
