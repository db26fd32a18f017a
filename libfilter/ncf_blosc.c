/* ncf_blosc.c: the blosc filter (id 32001) as the HDF5 blosc plugin (and
 * netCDF's copy of it) defines it.  Seven parameters: [0] filter revision,
 * [1] blosc format version (both ignored), [2] type size, [3] chunk bytes
 * (ignored), [4] level, [5] shuffle (0 none, 1 byte, 2 bit), [6] compressor
 * code (0 blosclz, 1 lz4, 2 lz4hc, 3 snappy, 4 zlib, 5 zstd).  Uses the
 * context calls with one internal thread: the pool supplies parallelism.
 */
#include <string.h>
#include <blosc.h>
#include "netcdf.h"
#include "ncf_codecs.h"
#include "ncfilter.h"

/* Encode settings from the parameters; 0 if the compressor is missing. */
static int
enc_settings(size_t n, const unsigned *cd, size_t *typesize, int *level, int *shuffle, const char **cname)
{
    *typesize = n >= 3 && cd[2] ? cd[2] : 1;
    *level = n >= 5 ? (int)cd[4] : 5;
    *shuffle = n >= 6 ? (int)cd[5] : 1;
    *cname = "blosclz";
    if (n >= 7 && blosc_compcode_to_compname((int)cd[6], cname) < 0)
        return 0;
    if (*typesize > BLOSC_MAX_TYPESIZE)
        *typesize = 1;
    return 1;
}

NCF_INTO_PROTO(ncf_blosc_into)
{
    int r;
    if (flags & NCF_REVERSE) {
        size_t nb = 0;
        /* validate: the header's sizes agree with srclen. */
        if (srclen < BLOSC_MIN_HEADER_LENGTH || blosc_cbuffer_validate(src, srclen, &nb) != 0 || nb > cap)
            return NC_EFILTER;
        r = blosc_decompress_ctx(src, dst, nb, 1);
        if (r < 0 || (size_t)r != nb)
            return NC_EFILTER;
    } else {
        size_t typesize;
        int level, shuffle;
        const char *cname;
        if (!enc_settings(nparams, params, &typesize, &level, &shuffle, &cname) || srclen > (size_t)BLOSC_MAX_BUFFERSIZE)
            return NC_EFILTER;
        r = blosc_compress_ctx(level, shuffle, typesize, srclen, src, dst, cap, cname, 0, 1);
        if (r <= 0)
            return NC_EFILTER;
    }
    *outlen = (size_t)r;
    return NC_NOERR;
}

NCF_BOUND_PROTO(ncf_blosc_bound)
{
    (void)nparams;
    (void)params;
    return srclen + BLOSC_MAX_OVERHEAD;
}

NCF_FILTER_PROTO(ncf_blosc_filter)
{
    if (flags & NCF_REVERSE) {
        size_t nb = 0;
        void *out;
        int r;
        if (nbytes < BLOSC_MIN_HEADER_LENGTH)
            return 0;
        if (blosc_cbuffer_validate(*buf, nbytes, &nb) != 0 || nb > ncf_decode_limit())
            return 0;
        if ((out = ncf_malloc(nb ? nb : 1)) == NULL)
            return 0;
        r = blosc_decompress_ctx(*buf, out, nb, 1);
        if (r < 0 || (size_t)r != nb) {
            ncf_free(out);
            return 0;
        }
        return ncf_replace(buf, buf_size, out, nb, nb);
    } else {
        size_t typesize, cap = nbytes + BLOSC_MAX_OVERHEAD;
        int level, shuffle, r;
        const char *cname;
        void *out;
        if (!enc_settings(cd_nelmts, cd_values, &typesize, &level, &shuffle, &cname))
            return 0;
        if (nbytes > (size_t)BLOSC_MAX_BUFFERSIZE)
            return 0;
        if ((out = ncf_malloc(cap)) == NULL)
            return 0;
        r = blosc_compress_ctx(level, shuffle, typesize, nbytes, *buf, out, cap, cname, 0, 1);
        if (r <= 0) {
            ncf_free(out);
            return 0;
        }
        return ncf_replace(buf, buf_size, out, cap, (size_t)r);
    }
}

/* HDF5 blosc set_local's parameters 0..3 (see ncfilter.h). */
void
ncf_blosc_params(size_t typesize, size_t chunkbytes, unsigned int params[7])
{
    if (params == NULL)
        return;
    params[0] = 0;
    params[1] = 0;
    params[2] = typesize > 255 ? 1 : (unsigned)typesize;
    params[3] = chunkbytes > 0xffffffffu ? 0xffffffffu : (unsigned)chunkbytes;
}
