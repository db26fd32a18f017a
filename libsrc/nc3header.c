/* nc3header.c: the classic header: its length, its encoding and a decoder
 * that validates every count, length, offset and type before use.
 *
 * Layout (big-endian; "N" is 4 bytes in CDF-1/2 and 8 bytes in CDF-5):
 *   magic 'C' 'D' 'F' version(1|2|5), numrecs N,
 *   dim_list  = tag(4) N [name N-len+bytes+pad4, dimlen N]...
 *   gatt_list = tag(4) N [name, type(4), nelems N, values+pad4]...
 *   var_list  = tag(4) N [name, ndims N, dimids (4 bytes, 8 in CDF-5)...,
 *                         vatt_list, type(4), vsize N, begin (4 in CDF-1, else 8)]
 * An empty list is written as two zeros (tag 0, count 0).
 * The decoder never allocates more than the file's bytes can justify:
 * every element count is checked against the bytes left in the file.
 *
 * Error codes follow upstream's reader where they mean something to a
 * client: bytes past the end of the file read as zeros (a truncated header
 * can still open, or fail on a zero type with NC_EINVAL); a list tag that
 * does not match a non-zero count is the errno EINVAL; a type code outside
 * the atomic types is NC_EINVAL; a bad dimension id NC_EBADDIM; the
 * unlimited dimension not first NC_EUNLIMPOS; a variable too large for
 * the format NC_EVARSIZE (checked before data offsets, as upstream); data
 * offsets out of order or negative (a CDF-1 begin >= 2^31) NC_ENOTNC.
 * Where upstream crashes, hangs or reports an artefact of its buffering
 * (E2BIG, NC_ENOMEM on absurd counts), NC_ENOTNC is kept.
 */
#include <errno.h>
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>
#include "nc3internal.h"
#include "ncx.h"
#include "ncbyteorder.h"

#define TAG_DIMENSION 0x0A
#define TAG_VARIABLE  0x0B
#define TAG_ATTRIBUTE 0x0C

static size_t rnd4(size_t n) { return (n + 3) & ~(size_t)3; }

/* ---- length --------------------------------------------------------------- */

static size_t
len_name(size_t namelen, int v)
{
    return (v == 5 ? 8 : 4) + rnd4(namelen);
}

static size_t
len_atts(const NC3_attarray *a, int v)
{
    size_t n = 4 + (v == 5 ? 8 : 4), i;
    for (i = 0; i < a->n; i++)
        n += len_name(a->v[i]->namelen, v) + 4 + (v == 5 ? 8 : 4) + a->v[i]->xsz;
    return n;
}

size_t
nc3_header_len(const NC3_info *info)
{
    int v = info->version;
    size_t cnt = v == 5 ? 8 : 4, n, i;
    n = 4 + cnt;                                    /* magic, numrecs */
    n += 4 + cnt;                                   /* dim list */
    for (i = 0; i < info->ndims; i++)
        n += len_name(info->dims[i]->namelen, v) + cnt;
    n += len_atts(&info->gatts, v);
    n += 4 + cnt;                                   /* var list */
    for (i = 0; i < info->nvars; i++) {
        const NC3_var *var = info->vars[i];
        n += len_name(var->namelen, v) + cnt + var->ndims * (v == 5 ? 8 : 4);
        n += len_atts(&var->atts, v);
        n += 4 + cnt + (v == 1 ? 4 : 8);            /* type, vsize, begin */
    }
    return n;
}

/* ---- encoding ------------------------------------------------------------- */

static unsigned char *
put32(unsigned char *p, unsigned long long x)
{
    p[0] = (unsigned char)(x >> 24); p[1] = (unsigned char)(x >> 16);
    p[2] = (unsigned char)(x >> 8); p[3] = (unsigned char)x;
    return p + 4;
}

static unsigned char *
put64(unsigned char *p, unsigned long long x)
{
    p = put32(p, x >> 32);
    return put32(p, x & 0xffffffffULL);
}

static unsigned char *
putN(unsigned char *p, unsigned long long x, int v)
{
    return v == 5 ? put64(p, x) : put32(p, x);
}

static unsigned char *
put_name(unsigned char *p, const char *name, size_t len, int v)
{
    p = putN(p, len, v);
    memcpy(p, name, len);
    memset(p + len, 0, rnd4(len) - len);
    return p + rnd4(len);
}

static unsigned char *
put_atts(unsigned char *p, const NC3_attarray *a, int v)
{
    size_t i;
    if (a->n == 0) {
        p = put32(p, 0);
        return putN(p, 0, v);
    }
    p = put32(p, TAG_ATTRIBUTE);
    p = putN(p, a->n, v);
    for (i = 0; i < a->n; i++) {
        const NC3_att *att = a->v[i];
        p = put_name(p, att->name, att->namelen, v);
        p = put32(p, (unsigned)att->type);
        p = putN(p, att->nelems, v);
        if (att->xsz) {
            memcpy(p, att->xvalue, att->xsz);
            p += att->xsz;
        }
    }
    return p;
}

static void
encode(const NC3_info *info, unsigned char *p)
{
    int v = info->version;
    size_t i, j;
    p[0] = 'C'; p[1] = 'D'; p[2] = 'F'; p[3] = (unsigned char)v;
    p += 4;
    p = putN(p, info->numrecs, v);
    if (info->ndims == 0) {
        p = put32(p, 0);
        p = putN(p, 0, v);
    } else {
        p = put32(p, TAG_DIMENSION);
        p = putN(p, info->ndims, v);
        for (i = 0; i < info->ndims; i++) {
            p = put_name(p, info->dims[i]->name, info->dims[i]->namelen, v);
            p = putN(p, info->dims[i]->size, v);
        }
    }
    p = put_atts(p, &info->gatts, v);
    if (info->nvars == 0) {
        p = put32(p, 0);
        p = putN(p, 0, v);
        return;
    }
    p = put32(p, TAG_VARIABLE);
    p = putN(p, info->nvars, v);
    for (i = 0; i < info->nvars; i++) {
        const NC3_var *var = info->vars[i];
        unsigned long long vsize = var->len;
        p = put_name(p, var->name, var->namelen, v);
        p = putN(p, var->ndims, v);
        for (j = 0; j < var->ndims; j++)
            p = putN(p, (unsigned long long)var->dimids[j], v);
        p = put_atts(p, &var->atts, v);
        p = put32(p, (unsigned)var->type);
        /* vsize does not fit 32 bits for huge CDF-1/2 vars: 2^32-1 marks them. */
        if (v != 5 && vsize > 4294967292ULL)
            vsize = 4294967295ULL;
        p = putN(p, vsize, v);
        p = v == 1 ? put32(p, (unsigned long long)var->begin) : put64(p, (unsigned long long)var->begin);
    }
}

/* Write the whole header at offset 0.  A header with nothing defined is
 * written as a full block of min(chunk, 4096) bytes, as upstream does. */
int
nc3_header_write(NC3_info *info)
{
    int stat;
    size_t len = nc3_header_len(info), extent = len;
    size_t minx = info->version == 5 ? NC3_MIN_XSZ5 : NC3_MIN_XSZ;
    unsigned char *buf;
    if (len <= minx) {
        extent = info->chunk < 4096 ? info->chunk : 4096;
        if (extent < len)
            extent = len;
    }
    if ((buf = calloc(1, extent)) == NULL)
        return NC_ENOMEM;
    encode(info, buf);
    stat = info->io->write_at(info->io, 0, buf, extent);
    free(buf);
    if (stat == NC_NOERR)
        info->flags &= ~(NC3_HDIRTY | NC3_NDIRTY);
    return stat;
}

/* ---- decoding ------------------------------------------------------------- */

/* Bytes past the end of the file that may be read (as zeros): enough for
 * upstream's answers on truncated headers, bounded for hostile counts. */
#define PAST_EOF (1u << 20)

typedef struct hreader {
    ncio *io;
    unsigned long long fsize;   /* bytes in the file */
    unsigned char *buf;         /* file bytes [0, loaded) */
    size_t loaded;
    size_t pos;                 /* cursor */
    int v;                      /* version */
} hreader;

/* Make n more bytes available at the cursor; bytes past the end of the
 * file read as zeros (as upstream's), at most PAST_EOF of them. */
static int
need(hreader *r, size_t n)
{
    size_t want, ncap, limit = (size_t)r->fsize + PAST_EOF, got = 0;
    unsigned char *nb;
    int stat;
    if (n > limit || r->pos > limit - n)
        return NC_ENOTNC;
    if (r->pos + n <= r->loaded)
        return NC_NOERR;
    want = r->pos + n;
    ncap = r->loaded ? r->loaded * 2 : 65536;
    if (ncap < want)
        ncap = want;
    if (ncap > limit)
        ncap = limit;
    if ((nb = realloc(r->buf, ncap)) == NULL)
        return NC_ENOMEM;
    r->buf = nb;
    if (r->loaded < r->fsize) {
        got = ncap < r->fsize ? ncap - r->loaded : (size_t)r->fsize - r->loaded;
        if ((stat = r->io->read_at(r->io, (long long)r->loaded, nb + r->loaded, got)))
            return stat;
    }
    memset(nb + r->loaded + got, 0, ncap - r->loaded - got);
    r->loaded = ncap;
    return NC_NOERR;
}

static int
get32(hreader *r, unsigned long long *x)
{
    int stat;
    if ((stat = need(r, 4)))
        return stat;
    *x = nc_get_be(r->buf + r->pos, 4);
    r->pos += 4;
    return NC_NOERR;
}

static int
get64(hreader *r, unsigned long long *x)
{
    int stat;
    if ((stat = need(r, 8)))
        return stat;
    *x = nc_get_be(r->buf + r->pos, 8);
    r->pos += 8;
    return NC_NOERR;
}

static int
getN(hreader *r, unsigned long long *x)
{
    int stat = r->v == 5 ? get64(r, x) : get32(r, x);
    if (stat == NC_NOERR && *x > (unsigned long long)INT64_MAX)
        return NC_ENOTNC;
    return stat;
}

/* A dimension length: CDF-5 lengths use all 64 bits (nc_def_dim takes up
 * to NC_MAX_UINT64 - 3, and the reference reads any value).  Nothing is
 * allocated or addressed from it: nc3_var_shape checks every product of
 * lengths against 63-bit offsets before it is used. */
static int
get_dimlen(hreader *r, unsigned long long *x)
{
    return r->v == 5 ? get64(r, x) : get32(r, x);
}

/* Bytes the rest of the header may use (file bytes and zeros past EOF). */
static size_t
remaining(const hreader *r)
{
    return (size_t)(r->fsize + PAST_EOF - r->pos);
}

static int
get_name(hreader *r, char **namep, size_t *lenp)
{
    unsigned long long n;
    int stat;
    char *s;
    if ((stat = getN(r, &n)))
        return stat;
    /* Longer names would overrun clients' NC_MAX_NAME+1 buffers. */
    if (n > NC_MAX_NAME)
        return NC_ENOTNC;
    if ((stat = need(r, rnd4((size_t)n))))
        return stat;
    /* Any bytes are accepted, as upstream does (name rules apply to names
     * being created: legacy files hold Latin-1 names; a name renamed
     * shorter in data mode keeps its length, NUL padded).  The name is the
     * C string up to the first NUL; namelen keeps the stored length so the
     * header is written back unchanged. */
    if ((s = calloc(1, (size_t)n + 1)) == NULL)
        return NC_ENOMEM;
    memcpy(s, r->buf + r->pos, (size_t)n);
    r->pos += rnd4((size_t)n);
    *namep = s;
    *lenp = (size_t)n;
    return NC_NOERR;
}

/* Types readable from any classic file (upstream accepts CDF-5 types in
 * CDF-1/2 headers as well); NC_STRING has no external form (upstream
 * accepts it and crashes later). */
static int
get_type(hreader *r, nc_type *tp)
{
    unsigned long long t;
    int stat;
    if ((stat = get32(r, &t)))
        return stat;
    if (t < NC_BYTE || t > NC_UINT64)
        return NC_EINVAL;
    *tp = (nc_type)t;
    return NC_NOERR;
}

/* List header: tag and count.  A zero count means absent whatever the
 * tag (as upstream).  The count is not trusted for allocation: arrays grow
 * as elements are parsed, and each element consumes bytes of the (bounded)
 * header, so a huge count fails when the bytes run out. */
static int
get_list(hreader *r, unsigned long long tag, unsigned long long *np)
{
    unsigned long long t, n;
    int stat;
    if ((stat = get32(r, &t)) || (stat = getN(r, &n)))
        return stat;
    if (n != 0 && t != tag)
        return EINVAL;          /* upstream's code: the errno, not NC_EINVAL */
    *np = n;
    return NC_NOERR;
}

/* Make room for one more pointer in *arr (of *cap). */
static int
grow(void *arrp, size_t *cap, size_t used)
{
    void ***arr = arrp;
    size_t ncap;
    void **na;
    if (used < *cap)
        return NC_NOERR;
    ncap = *cap ? 2 * *cap : 16;
    if ((na = realloc(*arr, ncap * sizeof **arr)) == NULL)
        return NC_ENOMEM;
    memset(na + *cap, 0, (ncap - *cap) * sizeof *na);
    *arr = na;
    *cap = ncap;
    return NC_NOERR;
}

/* Duplicate attribute names are kept (upstream reads them): look-ups find
 * the first, as upstream's linear search does. */
static int
get_atts(hreader *r, NC3_attarray *a)
{
    unsigned long long n, i;
    int stat;
    if ((stat = get_list(r, TAG_ATTRIBUTE, &n)))
        return stat;
    for (i = 0; i < n; i++) {
        NC3_att *att;
        unsigned long long ne;
        size_t xl;
        if ((stat = grow(&a->v, &a->cap, a->n)))
            return stat;
        if ((att = calloc(1, sizeof *att)) == NULL)
            return NC_ENOMEM;
        a->v[a->n++] = att;
        if ((stat = get_name(r, &att->name, &att->namelen)) || (stat = get_type(r, &att->type))
            || (stat = getN(r, &ne)))
            return stat;
        xl = ncx_len(att->type);
        if (ne > remaining(r) / xl)
            return NC_ENOTNC;
        att->nelems = (size_t)ne;
        att->xsz = rnd4(att->nelems * xl);
        if ((stat = need(r, att->xsz)))
            return stat;
        if (att->xsz) {
            if ((att->xvalue = malloc(att->xsz)) == NULL)
                return NC_ENOMEM;
            memcpy(att->xvalue, r->buf + r->pos, att->xsz);
            r->pos += att->xsz;
        }
    }
    return NC_NOERR;
}

/* Shape, dsizes and padded length of a variable from its dimension ids.
 * NC_EBADDIM for an unknown dimension, NC_EUNLIMPOS for the unlimited
 * dimension not first, NC_EVARSIZE if the size overflows 63 bits. */
int
nc3_var_shape(NC3_info *info, NC3_var *var)
{
    unsigned long long product = 1;
    size_t i;
    var->xsz = ncx_len(var->type);
    var->isrec = 0;
    for (i = 0; i < var->ndims; i++) {
        int id = var->dimids[i];
        if (id < 0 || (size_t)id >= info->ndims)
            return NC_EBADDIM;
        var->shape[i] = info->dims[id]->size;
        if (var->shape[i] == 0) {
            if (i != 0)
                return NC_EUNLIMPOS;
            var->isrec = 1;
        }
    }
    for (i = var->ndims; i-- > 0;) {
        if (!(i == 0 && var->isrec)) {
            if (var->shape[i] != 0 && product > (unsigned long long)(INT64_MAX / 8) / var->shape[i])
                return NC_EVARSIZE;
            product *= var->shape[i] ? var->shape[i] : 1;
        }
        var->dsizes[i] = product;
    }
    var->len = product * var->xsz;
    if (var->len % 4)
        var->len += 4 - var->len % 4;
    return NC_NOERR;
}

static int
get_vars(hreader *r, NC3_info *info)
{
    unsigned long long n, i, j, nd, x;
    int stat;
    size_t cnt = r->v == 5 ? 8 : 4;
    if ((stat = get_list(r, TAG_VARIABLE, &n)))
        return stat;
    for (i = 0; i < n; i++) {
        NC3_var *var;
        if ((stat = grow(&info->vars, &info->varcap, info->nvars)))
            return stat;
        if ((var = calloc(1, sizeof *var)) == NULL)
            return NC_ENOMEM;
        info->vars[info->nvars++] = var;
        if ((stat = get_name(r, &var->name, &var->namelen)) || (stat = getN(r, &nd)))
            return stat;
        if (nd > remaining(r) / cnt)
            return NC_ENOTNC;
        var->ndims = (size_t)nd;
        var->dimids = calloc(nd ? nd : 1, sizeof *var->dimids);
        var->shape = calloc(nd ? nd : 1, sizeof *var->shape);
        var->dsizes = calloc(nd ? nd : 1, sizeof *var->dsizes);
        if (!var->dimids || !var->shape || !var->dsizes)
            return NC_ENOMEM;
        for (j = 0; j < nd; j++) {
            if ((stat = getN(r, &x)))
                return stat;
            /* 32-bit ids are signed; anything out of range is NC_EBADDIM
             * when the shapes are computed, after all variables are read. */
            var->dimids[j] = x > (unsigned long long)NC3_XINT_MAX ? -1 : (int)x;
        }
        if ((stat = get_atts(r, &var->atts)) || (stat = get_type(r, &var->type))
            || (stat = getN(r, &x)))                /* vsize: recomputed below */
            return stat;
        /* begin is signed: a CDF-1 begin >= 2^31 is negative (upstream);
         * the layout checks reject it. */
        if (r->v == 1) {
            if ((stat = get32(r, &x)))
                return stat;
            var->begin = x > (unsigned long long)NC3_XINT_MAX ? (long long)x - (1LL << 32) : (long long)x;
        } else {
            if ((stat = get64(r, &x)))
                return stat;
            var->begin = x > (unsigned long long)INT64_MAX ? -1 : (long long)x;
        }
    }
    /* Shapes after the whole list, as upstream (its NC_computeshapes). */
    for (i = 0; i < info->nvars; i++) {
        if ((stat = nc3_var_shape(info, info->vars[i])))
            return stat;
        if (info->vars[i]->ndims > NC_MAX_VAR_DIMS)
            return NC_ENOTNC;
    }
    return NC_NOERR;
}

/* CDF-1/2: at most one variable may exceed the per-format size limit and it
 * must be the last fixed one (with no record vars) or the last record var. */
static unsigned long long
var_bytes(const NC3_var *var)
{
    return (var->ndims ? var->dsizes[0] : 1) * var->xsz;
}

static int
check_vlens(const NC3_info *info)
{
    unsigned long long vmax;
    size_t i, big = 0, nrec = 0;
    int last = 0;
    if (info->nvars == 0 || info->version == 5)
        return NC_NOERR;
    vmax = info->version == 2 ? NC3_XUINT_MAX - 3 : (unsigned long long)NC3_XINT_MAX - 3;
    for (i = 0; i < info->nvars; i++) {
        const NC3_var *var = info->vars[i];
        if (var->isrec) {
            nrec++;
            continue;
        }
        last = 0;
        if (var_bytes(var) > vmax) {
            big++;
            last = 1;
        }
    }
    if (big > 1 || (big == 1 && !last))
        return NC_EVARSIZE;
    if (nrec > 0) {
        if (big == 1)
            return NC_EVARSIZE;
        for (i = 0; i < info->nvars; i++) {
            const NC3_var *var = info->vars[i];
            if (!var->isrec)
                continue;
            last = 0;
            if (var_bytes(var) > vmax) {
                big++;
                last = 1;
            }
        }
        if (big > 1 || (big == 1 && !last))
            return NC_EVARSIZE;
    }
    return NC_NOERR;
}

int
nc3_check_vlens(const NC3_info *info)
{
    return check_vlens(info);
}

/* Layout after reading: begin_var, begin_rec, recsize, then the checks that
 * data regions are ordered and do not overlap the header or each other. */
static int
compute_layout(NC3_info *info)
{
    NC3_var *first_var = NULL, *first_rec = NULL;
    size_t i, nrec = 0;
    info->begin_var = info->begin_rec = (long long)info->xsz;
    info->recsize = 0;
    if (info->nvars == 0)
        return NC_NOERR;
    for (i = 0; i < info->nvars; i++) {
        NC3_var *var = info->vars[i];
        if (var->begin > INT64_MAX - (long long)var->len - 8)
            return NC_ENOTNC;
        if (var->isrec) {
            if (first_rec == NULL)
                first_rec = var;
            if (info->recsize > (unsigned long long)INT64_MAX - var->len)
                return NC_ENOTNC;
            info->recsize += var->len;
            nrec++;
        } else {
            if (first_var == NULL)
                first_var = var;
            info->begin_rec = var->begin + (long long)var->len;
        }
    }
    if (first_rec != NULL) {
        if (info->begin_rec > first_rec->begin)
            return NC_ENOTNC;
        info->begin_rec = first_rec->begin;
        if (nrec == 1)      /* one record variable: records are not padded */
            info->recsize = first_rec->dsizes[0] * first_rec->xsz;
    }
    info->begin_var = first_var ? first_var->begin : info->begin_rec;
    if (info->begin_var <= 0 || (long long)info->xsz > info->begin_var
        || info->begin_rec <= 0 || info->begin_var > info->begin_rec)
        return NC_ENOTNC;
    return NC_NOERR;
}

/* After the size checks (upstream's order): fixed vars in order, then
 * record vars in order, without overlap; records addressable. */
static int
check_offsets(const NC3_info *info)
{
    int stat = nc3_check_voffs(info);
    if (stat)
        return stat;
    /* numrecs * recsize must stay addressable. */
    if (info->recsize && info->numrecs > (unsigned long long)(INT64_MAX - info->begin_rec) / info->recsize)
        return NC_ENOTNC;
    return NC_NOERR;
}

/* Read and validate the header of info->io into info (which is empty). */
int
nc3_header_read(NC3_info *info)
{
    hreader r;
    long long fsize;
    unsigned long long n, i, x;
    int stat;
    memset(&r, 0, sizeof r);
    r.io = info->io;
    if ((stat = info->io->get_size(info->io, &fsize)))
        return stat;
    r.fsize = (unsigned long long)fsize;
    if (fsize < 8) {                /* magic and a 4-byte numrecs at least */
        stat = NC_ENOTNC;
        goto done;
    }
    if ((stat = need(&r, 4)))
        goto done;
    if (memcmp(r.buf, "CDF", 3) != 0 || (r.buf[3] != 1 && r.buf[3] != 2 && r.buf[3] != 5)) {
        stat = NC_ENOTNC;
        goto done;
    }
    r.v = info->version = r.buf[3];
    r.pos = 4;
    if ((stat = getN(&r, &x)))
        goto done;
    info->numrecs = x;
    /* dimensions */
    {
        if ((stat = get_list(&r, TAG_DIMENSION, &n)))
            goto done;
        /* Zero bytes past the end parse as valid dimensions: bound the
         * count by the file's bytes (a little slack for truncated files). */
        if (n > (r.fsize - r.pos) / 8 + 1024) {
            stat = NC_ENOTNC;
            goto done;
        }
        for (i = 0; i < n; i++) {
            NC3_dim *d;
            if ((stat = grow(&info->dims, &info->dimcap, info->ndims)))
                goto done;
            if ((d = calloc(1, sizeof *d)) == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            info->dims[info->ndims++] = d;
            if ((stat = get_name(&r, &d->name, &d->namelen)) || (stat = get_dimlen(&r, &d->size)))
                goto done;
        }
        /* Duplicate names are kept: look-ups find the last (as upstream). */
        if ((stat = nc3_dim_index_rebuild(info)))
            goto done;
    }
    if ((stat = get_atts(&r, &info->gatts)))
        goto done;
    if ((stat = get_vars(&r, info)))
        goto done;
    if ((stat = nc3_var_index_rebuild(info)))
        goto done;
    info->xsz = nc3_header_len(info);
    if ((stat = compute_layout(info)) || (stat = check_vlens(info)))
        goto done;
    stat = check_offsets(info);
done:
    free(r.buf);
    return stat;
}
