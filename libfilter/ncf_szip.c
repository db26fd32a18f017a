/* ncf_szip.c: HDF5's szip filter (id 4) on libaec's szlib interface.
 *
 * Four stored parameters [options mask, pixels per block, bits per pixel,
 * pixels per scanline] (HDF5's set_local fills the last two; see
 * ncf_szip_params).  Encoded chunk: the decoded length as 4 little-endian
 * bytes, then the szip stream, exactly as HDF5's H5Z szip writes it.
 */
#include <string.h>
#include <szlib.h>
#include "netcdf.h"
#include "ncf_codecs.h"
#include "ncfilter.h"

static int
set_param(size_t n, const unsigned *cd, SZ_com_t *p)
{
    if (n != 4)
        return 0;
    p->options_mask = (int)cd[0];
    p->pixels_per_block = (int)cd[1];
    p->bits_per_pixel = (int)cd[2];
    p->pixels_per_scanline = (int)cd[3];
    return 1;
}

NCF_INTO_PROTO(ncf_szip_into)
{
    SZ_com_t p;
    const unsigned char *s = src;
    unsigned char *d = dst;
    size_t out;
    if (!set_param(nparams, params, &p))
        return NC_EFILTER;
    if (flags & NCF_REVERSE) {
        size_t want;
        if (srclen < 4)
            return NC_EFILTER;
        want = nc_get_le32(s);
        if (want > cap)
            return NC_EFILTER;
        out = want;
        if (SZ_BufftoBuffDecompress(dst, &out, s + 4, srclen - 4, &p) != SZ_OK || out != want)
            return NC_EFILTER;
        *outlen = want;
    } else {
        if (srclen > 0xffffffffu || cap < 4)
            return NC_EFILTER;
        nc_put_le32(d, (uint32_t)srclen);
        /* As HDF5: the output may not exceed the input (optional filter). */
        out = srclen < cap - 4 ? srclen : cap - 4;
        if (SZ_BufftoBuffCompress(d + 4, &out, src, srclen, &p) != SZ_OK)
            return NC_EFILTER;
        *outlen = out + 4;
    }
    return NC_NOERR;
}

int
ncf_szip_decode(unsigned int options_mask, unsigned int ppb, unsigned int bpp, unsigned int pps,
                const void *src, size_t srclen, void *dst, size_t dstlen)
{
    SZ_com_t p;
    size_t out = dstlen;
    if (ppb == 0 || bpp == 0 || pps == 0 || options_mask > 0xffffu || ppb > 0xffffu
        || bpp > 0xffffu || pps > 0x7fffffffu)
        return NC_EFILTER;
    p.options_mask = (int)options_mask;
    p.pixels_per_block = (int)ppb;
    p.bits_per_pixel = (int)bpp;
    p.pixels_per_scanline = (int)pps;
    if (SZ_BufftoBuffDecompress(dst, &out, src, srclen, &p) != SZ_OK || out != dstlen)
        return NC_EFILTER;
    return NC_NOERR;
}

NCF_BOUND_PROTO(ncf_szip_bound)
{
    (void)nparams;
    (void)params;
    return srclen + 4;
}

NCF_FILTER_PROTO(ncf_szip_filter)
{
    SZ_com_t p;
    unsigned char *in = *buf;
    if (!set_param(cd_nelmts, cd_values, &p))
        return 0;
    if (flags & NCF_REVERSE) {
        size_t want, out;
        void *dst;
        if (nbytes < 4)
            return 0;
        want = nc_get_le32(in);
        if (want > ncf_decode_limit())
            return 0;
        if ((dst = ncf_malloc(want ? want : 1)) == NULL)
            return 0;
        out = want;
        if (SZ_BufftoBuffDecompress(dst, &out, in + 4, nbytes - 4, &p) != SZ_OK || out != want) {
            ncf_free(dst);
            return 0;
        }
        return ncf_replace(buf, buf_size, dst, want, want);
    } else {
        size_t out = nbytes;
        unsigned char *dst;
        if (nbytes > 0xffffffffu)
            return 0;
        if ((dst = ncf_malloc(nbytes + 4)) == NULL)
            return 0;
        nc_put_le32(dst, (uint32_t)nbytes);
        /* As HDF5: the output may not exceed the input (optional filter). */
        if (SZ_BufftoBuffCompress(dst + 4, &out, in, nbytes, &p) != SZ_OK) {
            ncf_free(dst);
            return 0;
        }
        return ncf_replace(buf, buf_size, dst, nbytes + 4, out + 4);
    }
}

int
ncf_szip_params(unsigned int mask, unsigned int ppb, size_t typesize, int bigendian, size_t ndims,
                const size_t *chunkdims, unsigned int out[4])
{
    size_t bpp, scan, npoints = 1, i;
    if (out == NULL || ndims == 0 || chunkdims == NULL || typesize == 0)
        return NC_EINVAL;
    /* H5Pset_szip: even ppb in 2..32, one coding method. */
    if (ppb < 2 || ppb > SZ_MAX_PIXELS_PER_BLOCK || (ppb & 1))
        return NC_EINVAL;
    for (i = 0; i < ndims; i++)
        npoints *= chunkdims[i];
    /* H5Pset_szip: CHIP off, K13 and RAW on. */
    mask &= ~(unsigned)SZ_CHIP_OPTION_MASK;
    mask |= SZ_ALLOW_K13_OPTION_MASK | SZ_RAW_OPTION_MASK;
    /* set_local: bits per pixel from the precision (full size here). */
    bpp = typesize * 8;
    if (bpp > 32 && bpp != 64)
        return NC_EINVAL;
    if (bpp > 24 && bpp < 32)
        bpp = 32;
    scan = chunkdims[ndims - 1];
    if (scan < ppb) {
        if (npoints < ppb)
            return NC_EINVAL;
        scan = (size_t)ppb * SZ_MAX_BLOCKS_PER_SCANLINE;
        if (scan > npoints)
            scan = npoints;
    } else if (scan <= SZ_MAX_PIXELS_PER_SCANLINE) {
        size_t cap = (size_t)ppb * SZ_MAX_BLOCKS_PER_SCANLINE;
        if (scan > cap)
            scan = cap;
    } else {
        scan = (size_t)ppb * SZ_MAX_BLOCKS_PER_SCANLINE;
    }
    mask &= ~(unsigned)(SZ_LSB_OPTION_MASK | SZ_MSB_OPTION_MASK);
    mask |= bigendian ? SZ_MSB_OPTION_MASK : SZ_LSB_OPTION_MASK;
    out[0] = mask;
    out[1] = ppb;
    out[2] = (unsigned)bpp;
    out[3] = (unsigned)scan;
    return NC_NOERR;
}
