/* zcodecs_pipe.c: run a Zarr codec list on one chunk.
 *
 * A chunk's bytes pass, on write: transpose (v3 transpose, or v2 order F)
 * -> byte order (v2 '>' dtypes, v3 bytes endian big) -> the bytes->bytes
 * codecs in order.  The bytes->bytes codecs are one libfilter chain: every
 * Zarr codec runs as a libfilter codec (zlib, shuffle, zstd, bz2, blosc,
 * fletcher32, szip by their HDF5 filter ids; gzip and crc32c, which have
 * none, as NCF_ID_GZIP and NCF_ID_CRC32C), so chunks decode straight into
 * the destination through libfilter's per-thread scratch.  A codec this
 * process cannot run is NC_ENOFILTER at create time: never raw bytes.
 */
#include <stdlib.h>
#include <string.h>
#include "zdata.h"
#include "ncx.h"
#include "ncbyteorder.h"

struct ncz_pipe {
    size_t typesize;
    int swap;
    int rank;
    size_t *shape;      /* rank entries (chunk shape, C order) */
    int *perm;          /* transpose order, or NULL */
    int vlen;           /* vlen-utf8: the chunk holds a char * per element */
    ncf_chain *chain;   /* the bytes->bytes codecs, or NULL for none */
};

/* ---- create / free ------------------------------------------------------------ */

void
ncz_pipe_free(ncz_pipe *p)
{
    if (p == NULL)
        return;
    ncf_chain_free(p->chain);
    free(p->shape);
    free(p->perm);
    free(p);
}

/* The libfilter codec that runs a Zarr codec: gzip and crc32c by name (the
 * model shows gzip as deflate, crc32c not at all), the others by the HDF5
 * filter id they map to; 0: none. */
static unsigned
codec_id(const NCZ_codec_spec *s)
{
    if (s->name != NULL && strcmp(s->name, "gzip") == 0)
        return NCF_ID_GZIP;
    if (s->name != NULL && strcmp(s->name, "crc32c") == 0)
        return NCF_ID_CRC32C;
    return s->hdf5id;
}

int
ncz_pipe_create(const NCZ_codec_spec *codecs, size_t n, size_t typesize, int swap, int vlen, int rank,
                const size_t *shape, const int *perm, ncz_pipe **pp)
{
    ncz_pipe *p;
    ncf_filter_spec *sp = NULL;
    int stat = NC_NOERR, identity = 1;
    *pp = NULL;
    if ((p = calloc(1, sizeof(*p))) == NULL)
        return NC_ENOMEM;
    p->typesize = vlen ? sizeof(char *) : typesize;
    p->vlen = vlen;
    p->swap = !vlen && swap && (typesize == 2 || typesize == 4 || typesize == 8);
    p->rank = rank;
    if (perm != NULL)
        for (int d = 0; d < rank; d++)
            if (perm[d] != d)
                identity = 0;
    if (perm != NULL && !identity && rank > 1) {
        if ((p->shape = calloc((size_t)rank, sizeof(size_t))) == NULL ||
            (p->perm = calloc((size_t)rank, sizeof(int))) == NULL) {
            ncz_pipe_free(p);
            return NC_ENOMEM;
        }
        memcpy(p->shape, shape, (size_t)rank * sizeof(size_t));
        memcpy(p->perm, perm, (size_t)rank * sizeof(int));
    }
    /* Every codec must be runnable here. */
    for (size_t i = 0; i < n; i++)
        if (codec_id(&codecs[i]) == 0) {
            ncz_pipe_free(p);
            return NC_ENOFILTER;
        }
    if (n > 0) {
        if ((sp = calloc(n, sizeof(*sp))) == NULL) {
            ncz_pipe_free(p);
            return NC_ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
            sp[i].id = codec_id(&codecs[i]);
            sp[i].flags = 0;
            sp[i].nparams = codecs[i].nparams;
            sp[i].params = codecs[i].params;
        }
        stat = ncf_chain_create(n, sp, typesize, &p->chain);
        free(sp);
        if (stat) {
            ncz_pipe_free(p);
            return stat;
        }
    }
    *pp = p;
    return NC_NOERR;
}

int
ncz_pipe_is_vlen(const ncz_pipe *p)
{
    return p->vlen;
}

int
ncz_pipe_is_raw(const ncz_pipe *p)
{
    return p->chain == NULL && !p->swap && p->perm == NULL && !p->vlen;
}

/* ---- byte order and transpose -------------------------------------------------- */

/* Copy between the C-order chunk (shape) and its transposed form (encoded
 * axis i = chunk axis perm[i]).  decode: enc -> chunk; else chunk -> enc. */
static void
transpose(const ncz_pipe *p, int decode, const unsigned char *src, unsigned char *dst)
{
    int r = p->rank;
    size_t es = p->typesize, cst[NC_MAX_VAR_DIMS], est[NC_MAX_VAR_DIMS], idx[NC_MAX_VAR_DIMS];
    size_t eshape[NC_MAX_VAR_DIMS], total = 1, off = 0;
    /* C strides of the chunk; per encoded axis, the chunk stride it walks. */
    cst[r - 1] = 1;
    for (int d = r - 2; d >= 0; d--)
        cst[d] = cst[d + 1] * p->shape[d + 1];
    for (int i = 0; i < r; i++) {
        eshape[i] = p->shape[p->perm[i]];
        est[i] = cst[p->perm[i]];
        idx[i] = 0;
        total *= eshape[i];
    }
    for (size_t k = 0; k < total; k++) {
        /* k walks the encoded array in C order; off is the chunk offset. */
        if (decode)
            memcpy(dst + off * es, src + k * es, es);
        else
            memcpy(dst + k * es, src + off * es, es);
        for (int i = r - 1; i >= 0; i--) {
            off += est[i];
            if (++idx[i] < eshape[i])
                break;
            off -= est[i] * eshape[i];
            idx[i] = 0;
        }
    }
}

/* ---- vlen-utf8 ------------------------------------------------------------------------ */

/* Strings (one char * per element, NULL: "") -> vlen-utf8 bytes. */
static int
vlen_encode(char *const *src, size_t n, unsigned char **outp, size_t *outlenp)
{
    size_t total = 4, pos = 4;
    unsigned char *out;
    if (n > 0xffffffffu)
        return NC_EINVAL;
    for (size_t i = 0; i < n; i++) {
        size_t l = src[i] ? strlen(src[i]) : 0;
        if (l > 0xffffffffu || total > SIZE_MAX - 4 - l)
            return NC_EINVAL;
        total += 4 + l;
    }
    if ((out = malloc(total)) == NULL)
        return NC_ENOMEM;
    nc_put_le32(out, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        size_t l = src[i] ? strlen(src[i]) : 0;
        nc_put_le32(out + pos, (uint32_t)l);
        if (l)
            memcpy(out + pos + 4, src[i], l);
        pos += 4 + l;
    }
    *outp = out;
    *outlenp = total;
    return NC_NOERR;
}

/* vlen-utf8 bytes -> n fresh strings (empty ones NULL).  Every length is
 * checked against the bytes left, so no allocation exceeds the stored
 * object; on error nothing is left allocated (dst all NULL). */
static int
vlen_decode(const unsigned char *src, size_t len, size_t n, char **dst)
{
    size_t pos = 4, i;
    memset(dst, 0, n * sizeof(char *));
    if (len < 4 || nc_get_le32(src) != n)
        return NC_EFILTER;
    for (i = 0; i < n; i++) {
        size_t l;
        if (len - pos < 4)
            goto bad;
        l = nc_get_le32(src + pos);
        pos += 4;
        if (l > len - pos)
            goto bad;
        if (l > 0) {
            if ((dst[i] = malloc(l + 1)) == NULL) {
                ncz_strings_free(dst, i);
                return NC_ENOMEM;
            }
            memcpy(dst[i], src + pos, l);
            dst[i][l] = '\0';
        }
        pos += l;
    }
    return NC_NOERR;
bad:
    ncz_strings_free(dst, i);
    return NC_EFILTER;
}

/* ---- decode / encode --------------------------------------------------------------- */

int
ncz_pipe_decode(const ncz_pipe *p, const void *src, size_t srclen, void *dst, size_t dstlen)
{
    unsigned char *tmp = NULL, *target;
    int stat = NC_NOERR;
    /* With a transpose the codecs produce the transposed chunk: decode into
     * a scratch buffer, then permute into dst. */
    if (p->perm != NULL) {
        if ((tmp = malloc(dstlen ? dstlen : 1)) == NULL)
            return NC_ENOMEM;
        target = tmp;
    } else {
        target = dst;
    }
    if (p->vlen) {
        /* Strings have no width: the codecs may expand to at most 1 GiB,
         * and the lengths inside are checked. */
        void *bytes = NULL;
        size_t len = srclen;
        if (p->chain != NULL &&
            (stat = ncf_chain_decode_alloc(p->chain, 0, src, srclen, (size_t)1 << 30, &bytes, &len)))
            goto done;
        stat = vlen_decode(bytes ? bytes : src, len, dstlen / sizeof(char *), (char **)(void *)target);
        free(bytes);
        if (stat)
            goto done;
    } else if (p->chain != NULL) {
        if ((stat = ncf_chain_decode(p->chain, 0, src, srclen, target, dstlen)))
            goto done;
    } else {
        if (srclen != dstlen) {
            stat = NC_EFILTER;
            goto done;
        }
        if (src != target)
            memmove(target, src, srclen);
    }
    if (p->swap)
        ncx_swapcopy(target, target, p->typesize, dstlen / p->typesize);
    if (p->perm != NULL)
        transpose(p, 1, tmp, dst);
done:
    free(tmp);
    return stat;
}

int
ncz_pipe_encode(const ncz_pipe *p, const void *src, size_t srclen, void **outp, size_t *outlenp)
{
    unsigned char *pre = NULL, *bytes = NULL;
    size_t len = srclen;
    int stat = NC_NOERR;
    *outp = NULL;
    *outlenp = 0;
    if (p->perm != NULL || p->swap) {
        if ((pre = malloc(srclen ? srclen : 1)) == NULL)
            return NC_ENOMEM;
        if (p->perm != NULL)
            transpose(p, 0, src, pre);
        else
            memcpy(pre, src, srclen);
        if (p->swap)
            ncx_swapcopy(pre, pre, p->typesize, srclen / p->typesize);
        src = pre;
    }
    if (p->vlen) {
        if ((stat = vlen_encode((char *const *)src, srclen / sizeof(char *), &bytes, &len)))
            goto done;
        src = bytes;
    }
    if (p->chain != NULL) {
        unsigned mask = 0;
        if ((stat = ncf_chain_encode(p->chain, src, len, outp, outlenp, &mask)))
            goto done;
        if (mask != 0) {
            stat = NC_EFILTER; /* Zarr cannot record a skipped filter */
            free(*outp);
            *outp = NULL;
            *outlenp = 0;
        }
    } else if (bytes != NULL) {
        *outp = bytes;
        *outlenp = len;
        bytes = NULL;
    } else {
        if ((*outp = malloc(len ? len : 1)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        memcpy(*outp, src, len);
        *outlenp = len;
    }
done:
    free(pre);
    free(bytes);
    return stat;
}
