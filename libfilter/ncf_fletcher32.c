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

NCF_INTO_PROTO(ncf_fletcher32_into)
{
    const unsigned char *p = src;
    (void)nparams;
    (void)params;
    if (flags & NCF_REVERSE) {
        size_t n;
        if (srclen < 4 || srclen - 4 > cap)
            return NC_EFILTER;
        n = srclen - 4;
        if (!(flags & NCF_SKIP_EDC)) {
            uint32_t stored = ncf_le32(p + n), sum = ncf_fletcher32(p, n);
            uint32_t rev = ((sum & 0x00ff00ffu) << 8) | ((sum >> 8) & 0x00ff00ffu);
            if (stored != sum && stored != rev)
                return NC_EFILTER;
        }
        memcpy(dst, p, n);
        *outlen = n;
    } else {
        if (srclen + 4 > cap)
            return NC_EFILTER;
        memcpy(dst, p, srclen);
        ncf_put_le32((unsigned char *)dst + srclen, ncf_fletcher32(p, srclen));
        *outlen = srclen + 4;
    }
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
    (void)cd_nelmts;
    (void)cd_values;
    if (flags & NCF_REVERSE) {
        size_t n;
        if (nbytes < 4)
            return 0;
        n = nbytes - 4;
        if (!(flags & NCF_SKIP_EDC)) {
            uint32_t stored = ncf_le32(p + n);
            uint32_t sum = ncf_fletcher32(p, n);
            /* The pre-1.6.3 form: bytes swapped within each 16-bit half. */
            uint32_t rev = ((sum & 0x00ff00ffu) << 8) | ((sum >> 8) & 0x00ff00ffu);
            if (stored != sum && stored != rev)
                return 0;
        }
        return n;
    } else {
        unsigned char *out = ncf_malloc(nbytes + 4);
        if (out == NULL)
            return 0;
        memcpy(out, p, nbytes);
        ncf_put_le32(out + nbytes, ncf_fletcher32(p, nbytes));
        return ncf_replace(buf, buf_size, out, nbytes + 4, nbytes + 4);
    }
}
