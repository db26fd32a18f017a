/* ncf_fletcher32.c: HDF5's fletcher32 checksum filter (id 3).
 *
 * Encode appends HDF5's Fletcher-32 of the data (16-bit words read
 * big-endian, an odd last byte as the high half of a word, sums folded
 * every 360 words) as 4 little-endian bytes.  Decode checks and strips it;
 * like HDF5 it also accepts the byte-swapped form written before 1.6.3,
 * and skips the check under H5Z_FLAG_SKIP_EDC.
 */
#include <string.h>
#include "netcdf.h"
#include "ncf_codecs.h"
#include "ncfilter.h"

unsigned int
ncf_fletcher32(const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t words = len / 2;
    uint32_t a = 0, b = 0;
    while (words) {
        size_t block = words > 360 ? 360 : words;
        words -= block;
        do {
            a += ((uint32_t)p[0] << 8) | p[1];
            b += a;
            p += 2;
        } while (--block);
        a = (a & 0xffff) + (a >> 16);
        b = (b & 0xffff) + (b >> 16);
    }
    if (len % 2) {
        a += (uint32_t)p[0] << 8;
        b += a;
        a = (a & 0xffff) + (a >> 16);
        b = (b & 0xffff) + (b >> 16);
    }
    a = (a & 0xffff) + (a >> 16);
    b = (b & 0xffff) + (b >> 16);
    return (unsigned int)((b << 16) | a);
}

/* Is stored the checksum of p[0..n), in the current or the pre-1.6.3 form
 * (bytes swapped within each 16-bit half)? */
static int
sum_ok(const unsigned char *p, size_t n, uint32_t stored)
{
    uint32_t sum = ncf_fletcher32(p, n);
    uint32_t rev = ((sum & 0x00ff00ffu) << 8) | ((sum >> 8) & 0x00ff00ffu);
    return stored == sum || stored == rev;
}

NCF_VERIFY_PROTO(ncf_fletcher32_verify)
{
    const unsigned char *p = src;
    (void)nparams;
    (void)params;
    if (srclen < 4)
        return NC_EFILTER;
    if (!(flags & NCF_SKIP_EDC) && !sum_ok(p, srclen - 4, nc_get_le32(p + srclen - 4)))
        return NC_EFILTER;
    *outlen = srclen - 4;
    return NC_NOERR;
}

NCF_INTO_PROTO(ncf_fletcher32_into)
{
    const unsigned char *p = src;
    if (flags & NCF_REVERSE) {
        int stat = ncf_fletcher32_verify(flags, nparams, params, src, srclen, outlen);
        if (stat == NC_NOERR && *outlen > cap)
            stat = NC_EFILTER;
        if (stat == NC_NOERR)
            memcpy(dst, p, *outlen);
        return stat;
    }
    if (srclen + 4 > cap)
        return NC_EFILTER;
    memcpy(dst, p, srclen);
    nc_put_le32((unsigned char *)dst + srclen, ncf_fletcher32(p, srclen));
    *outlen = srclen + 4;
    return NC_NOERR;
}

NCF_BOUND_PROTO(ncf_fletcher32_bound)
{
    (void)nparams;
    (void)params;
    return srclen + 4;
}

NCF_FILTER_PROTO(ncf_fletcher32_filter)
{
    unsigned char *p = *buf;
    if (flags & NCF_REVERSE) {
        size_t n;
        return ncf_fletcher32_verify(flags, cd_nelmts, cd_values, p, nbytes, &n) == NC_NOERR ? n : 0;
    } else {
        unsigned char *out = ncf_malloc(nbytes + 4);
        if (out == NULL)
            return 0;
        memcpy(out, p, nbytes);
        nc_put_le32(out + nbytes, ncf_fletcher32(p, nbytes));
        return ncf_replace(buf, buf_size, out, nbytes + 4, nbytes + 4);
    }
}
