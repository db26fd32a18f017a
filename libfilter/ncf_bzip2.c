/* ncf_bzip2.c: the bzip2 filter (id 307) as the HDF5/netCDF plugins define
 * it: one parameter, the block size 1..9 (default 9); the chunk is one
 * bzip2 stream (BZ2_bzBuffToBuffCompress).
 */
#include <limits.h>
#include <string.h>
#include <bzlib.h>
#include "netcdf.h"
#include "ncf_codecs.h"

/* Decompress into out (cap bytes); *got the bytes produced.  Returns 1 at
 * stream end, 0 when out is full first, -1 on bad data. */
static int
bz_decode(const void *src, size_t srclen, void *out, size_t cap, size_t *got)
{
    bz_stream s;
    int r, ret = -1;
    size_t total = 0;
    const char *in = src;
    char *o = out;
    memset(&s, 0, sizeof(s));
    if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK)
        return -1;
    /* avail_in/avail_out are unsigned int: feed in slices. */
    for (;;) {
        size_t inleft = srclen - (size_t)(s.next_in ? (const char *)s.next_in - in : 0);
        if (s.next_in == NULL)
            s.next_in = (char *)in;
        s.avail_in = inleft > UINT_MAX ? UINT_MAX : (unsigned)inleft;
        s.next_out = o + total;
        s.avail_out = (cap - total) > UINT_MAX ? UINT_MAX : (unsigned)(cap - total);
        {
            unsigned before = s.avail_out;
            r = BZ2_bzDecompress(&s);
            total += before - s.avail_out;
        }
        if (r == BZ_STREAM_END) {
            ret = 1;
            break;
        }
        if (r != BZ_OK)
            break;
        if (total == cap) {
            ret = 0;
            break;
        }
        if (s.avail_in == 0 && (size_t)((const char *)s.next_in - in) >= srclen)
            break; /* truncated */
    }
    BZ2_bzDecompressEnd(&s);
    *got = total;
    return ret;
}

NCF_INTO_PROTO(ncf_bzip2_into)
{
    if (flags & NCF_REVERSE) {
        size_t got = 0;
        (void)nparams;
        (void)params;
        if (bz_decode(src, srclen, dst, cap, &got) != 1)
            return NC_EFILTER;
        *outlen = got;
    } else {
        unsigned level = nparams >= 1 ? params[0] : 9;
        unsigned int n = cap > UINT_MAX ? UINT_MAX : (unsigned)cap;
        if (level < 1 || level > 9 || srclen > UINT_MAX)
            return NC_EFILTER;
        if (BZ2_bzBuffToBuffCompress(dst, &n, (char *)src, (unsigned)srclen, (int)level, 0, 0) != BZ_OK)
            return NC_EFILTER;
        *outlen = n;
    }
    return NC_NOERR;
}

NCF_BOUND_PROTO(ncf_bzip2_bound)
{
    (void)nparams;
    (void)params;
    return srclen + srclen / 100 + 600;
}

NCF_FILTER_PROTO(ncf_bzip2_filter)
{
    if (flags & NCF_REVERSE) {
        size_t cap = (*buf_size > nbytes ? *buf_size : nbytes * 4) + 1024;
        for (;;) {
            size_t got = 0;
            int r;
            void *out = ncf_malloc(cap);
            if (out == NULL)
                return 0;
            r = bz_decode(*buf, nbytes, out, cap, &got);
            if (r == 1)
                return ncf_replace(buf, buf_size, out, cap, got);
            ncf_free(out);
            if (r < 0 || cap > ncf_decode_limit())
                return 0;
            cap *= 2;
        }
    } else {
        unsigned level = cd_nelmts >= 1 ? cd_values[0] : 9;
        size_t cap = nbytes + nbytes / 100 + 600;
        unsigned int outlen;
        void *out;
        if (level < 1 || level > 9 || nbytes > UINT_MAX || cap > UINT_MAX)
            return 0;
        if ((out = ncf_malloc(cap)) == NULL)
            return 0;
        outlen = (unsigned)cap;
        if (BZ2_bzBuffToBuffCompress(out, &outlen, *buf, (unsigned)nbytes, (int)level, 0, 0) != BZ_OK) {
            ncf_free(out);
            return 0;
        }
        return ncf_replace(buf, buf_size, out, cap, outlen);
    }
}
