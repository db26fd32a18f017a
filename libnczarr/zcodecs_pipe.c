/* zcodecs_pipe.c: run a Zarr codec list on one chunk.
 *
 * A chunk's bytes pass, on write: transpose (v3 transpose, or v2 order F)
 * -> byte order (v2 '>' dtypes, v3 bytes endian big) -> the bytes->bytes
 * codecs in order.  The leading run of codecs that are HDF5 filters
 * (shuffle, zlib, zstd, bz2, blosc, fletcher32, szip) is one libfilter
 * chain, so the common cases decode straight into the destination with
 * libfilter's per-thread scratch; gzip and crc32c (no HDF5 filter) and any
 * filter after them are run step by step.  A codec this process cannot run
 * is NC_ENOFILTER at create time: never raw bytes.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include "zdata.h"
#include "zcrc32c.h"
#include "ncf_codecs.h"

enum { STEP_NCF, STEP_GZIP, STEP_CRC32C };

typedef struct step {
    int kind;
    int level;          /* gzip */
    ncf_chain *chain;   /* STEP_NCF: a one-filter chain (encode) */
    unsigned id;        /* STEP_NCF: the filter and its completed parameters */
    size_t nparams;
    unsigned *params;
} step;

struct ncz_pipe {
    size_t typesize;
    int swap;
    int rank;
    size_t *shape;      /* rank entries (chunk shape, C order) */
    int *perm;          /* transpose order, or NULL */
    int vlen;           /* vlen-utf8: the chunk holds a char * per element */
    ncf_chain *head;    /* the leading HDF5-filter run, or NULL */
    size_t nsteps;      /* steps after the head */
    step *steps;
};

/* ---- gzip through libdeflate, one (de)compressor per thread ----------------- */

typedef struct gz_tls {
    struct libdeflate_decompressor *d;
    struct libdeflate_compressor *c;
    int clevel;
} gz_tls;

static pthread_key_t gz_key;
static pthread_once_t gz_once = PTHREAD_ONCE_INIT;

static void
gz_free(void *p)
{
    gz_tls *t = p;
    if (t == NULL)
        return;
    if (t->d)
        libdeflate_free_decompressor(t->d);
    if (t->c)
        libdeflate_free_compressor(t->c);
    free(t);
}

static void
gz_init(void)
{
    (void)pthread_key_create(&gz_key, gz_free);
}

static gz_tls *
gz_get(void)
{
    gz_tls *t;
    pthread_once(&gz_once, gz_init);
    if ((t = pthread_getspecific(gz_key)) == NULL) {
        if ((t = calloc(1, sizeof(*t))) == NULL)
            return NULL;
        if (pthread_setspecific(gz_key, t) != 0) {
            free(t);
            return NULL;
        }
    }
    return t;
}

/* Decode a gzip member into dst (cap bytes); *outlen the size. */
static int
gz_decode(const void *src, size_t srclen, void *dst, size_t cap, size_t *outlen)
{
    gz_tls *t = gz_get();
    if (t == NULL)
        return NC_ENOMEM;
    if (t->d == NULL && (t->d = libdeflate_alloc_decompressor()) == NULL)
        return NC_ENOMEM;
    if (libdeflate_gzip_decompress(t->d, src, srclen, dst, cap, outlen) != LIBDEFLATE_SUCCESS)
        return NC_EFILTER;
    return NC_NOERR;
}

static int
gz_encode(int level, const void *src, size_t srclen, void **outp, size_t *outlenp)
{
    gz_tls *t = gz_get();
    size_t cap, n;
    void *out;
    if (t == NULL)
        return NC_ENOMEM;
    if (t->c == NULL || t->clevel != level) {
        if (t->c)
            libdeflate_free_compressor(t->c);
        if ((t->c = libdeflate_alloc_compressor(level)) == NULL)
            return NC_ENOMEM;
        t->clevel = level;
    }
    cap = libdeflate_gzip_compress_bound(t->c, srclen);
    if ((out = malloc(cap)) == NULL)
        return NC_ENOMEM;
    if ((n = libdeflate_gzip_compress(t->c, src, srclen, out, cap)) == 0) {
        free(out);
        return NC_EFILTER;
    }
    *outp = out;
    *outlenp = n;
    return NC_NOERR;
}

/* ---- create / free ------------------------------------------------------------ */

void
ncz_pipe_free(ncz_pipe *p)
{
    if (p == NULL)
        return;
    ncf_chain_free(p->head);
    for (size_t i = 0; i < p->nsteps; i++) {
        ncf_chain_free(p->steps[i].chain);
        free(p->steps[i].params);
    }
    free(p->steps);
    free(p->shape);
    free(p->perm);
    free(p);
}

static int
is_gzip(const NCZ_codec_spec *s)
{
    return s->name != NULL && strcmp(s->name, "gzip") == 0;
}

static int
is_crc(const NCZ_codec_spec *s)
{
    return s->name != NULL && strcmp(s->name, "crc32c") == 0;
}

int
ncz_pipe_create(const NCZ_codec_spec *codecs, size_t n, size_t typesize, int swap, int vlen, int rank,
                const size_t *shape, const int *perm, ncz_pipe **pp)
{
    ncz_pipe *p;
    size_t nhead = 0;
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
        if (!is_gzip(&codecs[i]) && !is_crc(&codecs[i]) && codecs[i].hdf5id == 0) {
            ncz_pipe_free(p);
            return NC_ENOFILTER;
        }
    /* With vlen-utf8 the decoded byte count is unknown: no head chain. */
    while (!vlen && nhead < n && !is_gzip(&codecs[nhead]) && !is_crc(&codecs[nhead]))
        nhead++;
    if (nhead > 0) {
        ncf_filter_spec sp[32];
        if (nhead > 32) {
            ncz_pipe_free(p);
            return NC_EINVAL;
        }
        for (size_t i = 0; i < nhead; i++) {
            sp[i].id = codecs[i].hdf5id;
            sp[i].flags = 0;
            sp[i].nparams = codecs[i].nparams;
            sp[i].params = codecs[i].params;
        }
        if ((stat = ncf_chain_create(nhead, sp, typesize, &p->head))) {
            ncz_pipe_free(p);
            return stat;
        }
    }
    if (n > nhead && (p->steps = calloc(n - nhead, sizeof(step))) == NULL) {
        ncz_pipe_free(p);
        return NC_ENOMEM;
    }
    for (size_t i = nhead; i < n && !stat; i++) {
        step *s = &p->steps[p->nsteps++];
        if (is_gzip(&codecs[i])) {
            s->kind = STEP_GZIP;
            s->level = codecs[i].nparams ? (int)codecs[i].params[0] : 6;
        } else if (is_crc(&codecs[i])) {
            s->kind = STEP_CRC32C;
        } else {
            ncf_filter_spec sp = {codecs[i].hdf5id, 0, codecs[i].nparams, codecs[i].params};
            size_t np = codecs[i].nparams < 3 ? 3 : codecs[i].nparams;
            s->kind = STEP_NCF;
            s->id = codecs[i].hdf5id;
            if ((s->params = calloc(np, sizeof(unsigned))) == NULL) {
                stat = NC_ENOMEM;
                break;
            }
            memcpy(s->params, codecs[i].params, codecs[i].nparams * sizeof(unsigned));
            s->nparams = codecs[i].nparams;
            /* The completions ncf_chain_create makes for shuffle and blosc. */
            if (s->id == NCF_ID_SHUFFLE && (s->nparams == 0 || s->params[0] == 0)) {
                s->nparams = 1;
                s->params[0] = (unsigned)typesize;
            }
            if (s->id == NCF_ID_BLOSC && s->nparams >= 3 && s->params[2] == 0)
                s->params[2] = typesize > 255 ? 1 : (unsigned)typesize;
            stat = ncf_chain_create(1, &sp, typesize, &s->chain);
        }
    }
    if (stat) {
        ncz_pipe_free(p);
        return stat;
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
    return p->head == NULL && p->nsteps == 0 && !p->swap && p->perm == NULL && !p->vlen;
}

/* ---- byte order and transpose -------------------------------------------------- */

static void
swap_bytes(void *buf, size_t n, size_t size)
{
    unsigned char *b = buf;
    size_t i;
    switch (size) {
    case 2:
        for (i = 0; i < n; i++) {
            uint16_t v;
            memcpy(&v, b + 2 * i, 2);
            v = __builtin_bswap16(v);
            memcpy(b + 2 * i, &v, 2);
        }
        break;
    case 4:
        for (i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, b + 4 * i, 4);
            v = __builtin_bswap32(v);
            memcpy(b + 4 * i, &v, 4);
        }
        break;
    case 8:
        for (i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, b + 8 * i, 8);
            v = __builtin_bswap64(v);
            memcpy(b + 8 * i, &v, 8);
        }
        break;
    default:
        break;
    }
}

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
    ncf_put_le32(out, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        size_t l = src[i] ? strlen(src[i]) : 0;
        ncf_put_le32(out + pos, (uint32_t)l);
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
    if (len < 4 || ncf_le32(src) != n)
        return NC_EFILTER;
    for (i = 0; i < n; i++) {
        size_t l;
        if (len - pos < 4)
            goto bad;
        l = ncf_le32(src + pos);
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

/* Undo one non-head step: src -> *outp (malloc'ed, or pointing into src for
 * crc32c: *owned 0).  want: the exact size expected when known, else 0. */
static int
step_decode(const step *s, const unsigned char *src, size_t len, size_t want, size_t limit,
            unsigned char **outp, size_t *outlen, int *owned)
{
    *owned = 0;
    switch (s->kind) {
    case STEP_CRC32C: {
        uint32_t stored;
        if (len < 4)
            return NC_EFILTER;
        stored = ncf_le32(src + len - 4);
        if (ncz_crc32c(src, len - 4) != stored)
            return NC_EFILTER;
        *outp = (unsigned char *)src;
        *outlen = len - 4;
        return NC_NOERR;
    }
    case STEP_GZIP: {
        size_t cap = want;
        unsigned char *out;
        int stat;
        if (cap == 0) {
            /* The gzip trailer holds the size mod 2^32. */
            if (len < 18)
                return NC_EFILTER;
            cap = ncf_le32(src + len - 4);
            if (cap > limit)
                return NC_EFILTER;
        }
        if ((out = malloc(cap ? cap : 1)) == NULL)
            return NC_ENOMEM;
        if ((stat = gz_decode(src, len, out, cap, outlen))) {
            free(out);
            return stat;
        }
        *outp = out;
        *owned = 1;
        return NC_NOERR;
    }
    default: {
        /* An HDF5 filter after gzip/crc32c: its output size is unknown, so
         * use the codec's allocating (H5Z) form under the chain's limit. */
        const ncf_codec *c;
        void *buf;
        size_t size = len, got, saved = ncf_decode_limit_tl;
        (void)want;
        if (ncf_codec_find(s->id, &c) || c->filter == NULL)
            return NC_ENOFILTER;
        if ((buf = malloc(len ? len : 1)) == NULL)
            return NC_ENOMEM;
        memcpy(buf, src, len);
        ncf_decode_limit_tl = limit;
        got = c->filter(NCF_REVERSE, s->nparams, s->params, len, &size, &buf);
        ncf_decode_limit_tl = saved;
        if (got == 0) {
            free(buf);
            return NC_EFILTER;
        }
        *outp = buf;
        *outlen = got;
        *owned = 1;
        return NC_NOERR;
    }
    }
}

int
ncz_pipe_decode(const ncz_pipe *p, const void *src, size_t srclen, void *dst, size_t dstlen)
{
    const unsigned char *cur = src;
    unsigned char *own = NULL, *tmp = NULL, *target;
    size_t len = srclen;
    /* Cap on what a codec may expand to: strings have no width, so a
     * vlen-utf8 chunk gets a fixed 1 GiB; the lengths inside are checked. */
    size_t limit = p->vlen ? ((size_t)1 << 30) : dstlen * 2 + ((size_t)1 << 20);
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
    for (size_t i = p->nsteps; i-- > 0;) {
        unsigned char *out;
        size_t outlen;
        int owned;
        size_t want = (i == 0 && p->head == NULL && !p->vlen) ? dstlen : 0;
        if ((stat = step_decode(&p->steps[i], cur, len, want, limit, &out, &outlen, &owned)))
            goto done;
        if (owned) {
            free(own);
            own = out;
        }
        cur = out;
        len = outlen;
    }
    if (p->head != NULL) {
        if ((stat = ncf_chain_decode(p->head, 0, cur, len, target, dstlen)))
            goto done;
    } else if (p->vlen) {
        if ((stat = vlen_decode(cur, len, dstlen / sizeof(char *), (char **)(void *)target)))
            goto done;
    } else {
        if (len != dstlen) {
            stat = NC_EFILTER;
            goto done;
        }
        if (cur != target)
            memmove(target, cur, len);
    }
    if (p->swap)
        swap_bytes(target, dstlen / p->typesize, p->typesize);
    if (p->perm != NULL)
        transpose(p, 1, tmp, dst);
done:
    free(own);
    free(tmp);
    return stat;
}

int
ncz_pipe_encode(const ncz_pipe *p, const void *src, size_t srclen, void **outp, size_t *outlenp)
{
    unsigned char *cur = NULL, *pre = NULL;
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
            swap_bytes(pre, srclen / p->typesize, p->typesize);
        src = pre;
    }
    if (p->vlen) {
        if ((stat = vlen_encode((char *const *)src, srclen / sizeof(char *), &cur, &len)))
            goto done;
    } else if (p->head != NULL) {
        unsigned mask = 0;
        void *out = NULL;
        if ((stat = ncf_chain_encode(p->head, src, srclen, &out, &len, &mask)))
            goto done;
        cur = out;
        if (mask != 0) {
            stat = NC_EFILTER; /* Zarr cannot record a skipped filter */
            goto done;
        }
    } else {
        if ((cur = malloc(srclen ? srclen : 1)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
        memcpy(cur, src, srclen);
    }
    for (size_t i = 0; i < p->nsteps && !stat; i++) {
        const step *s = &p->steps[i];
        if (s->kind == STEP_CRC32C) {
            unsigned char *n2 = realloc(cur, len + 4);
            if (n2 == NULL) {
                stat = NC_ENOMEM;
                break;
            }
            cur = n2;
            ncf_put_le32(cur + len, ncz_crc32c(cur, len));
            len += 4;
        } else if (s->kind == STEP_GZIP) {
            void *out;
            size_t olen;
            if ((stat = gz_encode(s->level, cur, len, &out, &olen)))
                break;
            free(cur);
            cur = out;
            len = olen;
        } else {
            void *out = NULL;
            unsigned mask = 0;
            size_t olen;
            if ((stat = ncf_chain_encode(s->chain, cur, len, &out, &olen, &mask)))
                break;
            free(cur);
            cur = out;
            len = olen;
        }
    }
done:
    free(pre);
    if (stat) {
        free(cur);
        return stat;
    }
    *outp = cur;
    *outlenp = len;
    return NC_NOERR;
}
