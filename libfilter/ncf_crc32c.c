/* ncf_crc32c.c: CRC-32C, and Zarr v3's crc32c codec (no HDF5 filter id:
 * NCF_ID_CRC32C).  Encode appends the CRC-32C of the data as 4
 * little-endian bytes; decode checks and strips it (not checked under
 * NCF_SKIP_EDC, as fletcher32).
 *
 * The CRC is computed by slice-by-8 tables (no Debian library ships a
 * Castagnoli CRC under a stable API; this is ~1.5 GB/s, far below the cost
 * of the codecs it guards). */
#include <pthread.h>
#include <string.h>
#include "netcdf.h"
#include "ncf_codecs.h"

static uint32_t table[8][256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
build_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xFF];
}

uint32_t
ncf_crc32c(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    pthread_once(&once, build_tables);
    while (len >= 8) {
        /* Little-endian loads byte by byte: no alignment or endianness assumption. */
        uint32_t lo = c ^ nc_get_le32(p);
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
            table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^ table[0][p[7]];
        p += 8;
        len -= 8;
    }
    while (len--)
        c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
    return c ^ 0xFFFFFFFFu;
}

NCF_VERIFY_PROTO(ncf_crc32c_verify)
{
    const unsigned char *p = src;
    (void)nparams;
    (void)params;
    if (srclen < 4)
        return NC_EFILTER;
    if (!(flags & NCF_SKIP_EDC) && ncf_crc32c(p, srclen - 4) != nc_get_le32(p + srclen - 4))
        return NC_EFILTER;
    *outlen = srclen - 4;
    return NC_NOERR;
}

NCF_INTO_PROTO(ncf_crc32c_into)
{
    if (flags & NCF_REVERSE) {
        int stat = ncf_crc32c_verify(flags, nparams, params, src, srclen, outlen);
        if (stat == NC_NOERR && *outlen > cap)
            stat = NC_EFILTER;
        if (stat == NC_NOERR)
            memcpy(dst, src, *outlen);
        return stat;
    }
    if (srclen > cap || cap - srclen < 4)
        return NC_EFILTER;
    memcpy(dst, src, srclen);
    nc_put_le32((unsigned char *)dst + srclen, ncf_crc32c(src, srclen));
    *outlen = srclen + 4;
    return NC_NOERR;
}

NCF_BOUND_PROTO(ncf_crc32c_bound)
{
    (void)nparams;
    (void)params;
    return srclen + 4;
}

NCF_FILTER_PROTO(ncf_crc32c_filter)
{
    size_t n;
    if (flags & NCF_REVERSE)
        return ncf_crc32c_verify(flags, cd_nelmts, cd_values, *buf, nbytes, &n) == NC_NOERR ? n : 0;
    if (*buf_size >= 4 && nbytes <= *buf_size - 4) {
        nc_put_le32((unsigned char *)*buf + nbytes, ncf_crc32c(*buf, nbytes));
        return nbytes + 4;
    } else {
        unsigned char *out = ncf_malloc(nbytes + 4);
        if (out == NULL)
            return 0;
        memcpy(out, *buf, nbytes);
        nc_put_le32(out + nbytes, ncf_crc32c(out, nbytes));
        return ncf_replace(buf, buf_size, out, nbytes + 4, nbytes + 4);
    }
}
