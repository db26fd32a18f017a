/* ncf_shuffle.c: HDF5's byte shuffle filter (id 2).
 *
 * One parameter, the element size.  Byte j of element i moves to
 * j*nelems + i; the n % esize trailing bytes stay at the end as they are.
 * Like HDF5, 1-byte elements and buffers of fewer than two elements pass
 * through unchanged.  The common sizes get unrolled loops.
 */
#include <string.h>
#include "netcdf.h"
#include "ncf_codecs.h"
#include "ncfilter.h"

#define SHUF_LOOP(E)                                                         \
    for (i = 0; i < ne; i++)                                                 \
        for (j = 0; j < (E); j++)                                            \
            d[j * ne + i] = s[i * (E) + j];
#define UNSHUF_LOOP(E)                                                       \
    for (i = 0; i < ne; i++)                                                 \
        for (j = 0; j < (E); j++)                                            \
            d[i * (E) + j] = s[j * ne + i];

void
ncf_shuffle(size_t esize, size_t n, const void *src, void *dst)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    size_t ne, i, j;
    if (esize <= 1 || n / esize <= 1) {
        memcpy(dst, src, n);
        return;
    }
    ne = n / esize;
    switch (esize) {
    case 2: SHUF_LOOP(2) break;
    case 4: SHUF_LOOP(4) break;
    case 8: SHUF_LOOP(8) break;
    default: SHUF_LOOP(esize) break;
    }
    memcpy(d + ne * esize, s + ne * esize, n - ne * esize);
}

void
ncf_unshuffle(size_t esize, size_t n, const void *src, void *dst)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    size_t ne, i, j;
    if (esize <= 1 || n / esize <= 1) {
        memcpy(dst, src, n);
        return;
    }
    ne = n / esize;
    switch (esize) {
    case 2: UNSHUF_LOOP(2) break;
    case 4: UNSHUF_LOOP(4) break;
    case 8: UNSHUF_LOOP(8) break;
    default: UNSHUF_LOOP(esize) break;
    }
    memcpy(d + ne * esize, s + ne * esize, n - ne * esize);
}

NCF_INTO_PROTO(ncf_shuffle_into)
{
    if (nparams != 1 || params[0] == 0 || srclen > cap)
        return NC_EFILTER;
    if (flags & NCF_REVERSE)
        ncf_unshuffle(params[0], srclen, src, dst);
    else
        ncf_shuffle(params[0], srclen, src, dst);
    *outlen = srclen;
    return NC_NOERR;
}

NCF_BOUND_PROTO(ncf_shuffle_bound)
{
    (void)nparams;
    (void)params;
    return srclen;
}

NCF_FILTER_PROTO(ncf_shuffle_filter)
{
    size_t esize;
    void *out;
    if (cd_nelmts != 1 || cd_values[0] == 0)
        return 0;
    esize = cd_values[0];
    if (esize <= 1 || nbytes / esize <= 1)
        return nbytes;
    if ((out = ncf_malloc(nbytes)) == NULL)
        return 0;
    if (flags & NCF_REVERSE)
        ncf_unshuffle(esize, nbytes, *buf, out);
    else
        ncf_shuffle(esize, nbytes, *buf, out);
    return ncf_replace(buf, buf_size, out, nbytes, nbytes);
}
