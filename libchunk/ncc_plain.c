/* ncc_plain.c: reads of a variable stored as it is in memory (no codec) in
 * a byte source read at offsets -- a netCDF-4 dataset without filters read
 * straight from its file -- through the engine's read (ncc_read): the
 * selection over the chunk grid, a pool task per chunk that reads the
 * chunk's bytes (straight into the caller's buffer when the chunk is one
 * run of it, else into this thread's scratch chunk, then gathers its part),
 * chunks not stored read as fill.  Reading is the table's decode: the
 * engine's fetch step has nothing to do, so the bytes are read once, by the
 * task, where they are wanted.  Stored bytes may be in the other byte order
 * (swapped in place) and of another type than the caller's (converted from
 * this thread's raw scratch), both in the task. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "ncchunk.h"
#include "ncx.h"

typedef struct plain_fmt {
    ncc_plain *p;
    const ncc_grid *g;
} plain_fmt;

/* Where chunk idx's bytes are: r->start, and r->count bytes of it stored. */
static int
pl_locate(void *fmt, const uint64_t *idx, ncc_raw *r)
{
    plain_fmt *pf = fmt;
    uint64_t off = 0;
    size_t n = 0;
    int stat = pf->p->where(pf->p->src, idx, &off, &n);
    if (stat)
        return stat;
    if (n > pf->g->chunkelems)
        return NC_EINVAL;
    r->start = off;
    r->count = (uint64_t)n * pf->p->fsize;
    return NC_NOERR;
}

/* Nothing to fetch: the task's decode reads the bytes. */
static int
pl_fetch(void *fmt, ncc_raw *r)
{
    (void)fmt;
    r->data = NULL;
    r->owned = 0;
    r->len = (size_t)r->count;
    r->status = NC_NOERR;
    return NC_NOERR;
}

/* The chunk's stored bytes read into dst (a chunk in the caller's type);
 * elements past what is stored (an edge piece) are zero bytes: they lie
 * outside the variable and are never copied out. */
static int
pl_decode(void *fmt, const ncc_raw *r, void *dst, size_t dstlen, ncf_pool *inner)
{
    plain_fmt *pf = fmt;
    ncc_plain *p = pf->p;
    size_t n = (size_t)r->count / p->fsize, esize = pf->g->esize;
    int convert = p->mtype != p->ftype;
    unsigned char *raw = dst;
    int stat;
    (void)inner;
    if (convert && (raw = ncc_scratch(NCC_SCRATCH_RAW, (size_t)r->count ? (size_t)r->count : 1)) == NULL)
        return NC_ENOMEM;
    if (r->count > 0 && (stat = p->read(p->src, r->start, raw, (size_t)r->count)))
        return stat;
    if (p->swap)
        ncx_swapcopy(raw, raw, p->fsize, n);
    if (convert) {
        stat = ncc_convert(p->ftype, raw, p->mtype, dst, n, p->classic);
        if (stat == NC_ERANGE)
            __atomic_store_n(&p->range, 1, __ATOMIC_RELAXED); /* reported once every value is in */
        else if (stat)
            return stat;
    }
    if (n * esize < dstlen)
        memset((unsigned char *)dst + n * esize, 0, dstlen - n * esize);
    return NC_NOERR;
}

static const ncc_ops plain_ops = {.locate = pl_locate, .fetch_one = pl_fetch, .decode = pl_decode};

int
ncc_plain_read(ncc_plain *p, const ncc_grid *g, const ncc_sel *s, unsigned char *out)
{
    plain_fmt pf = {p, g};
    unsigned char zero[16] = {0};
    const void *fill = p->fill;
    ncc_var v;
    int stat;

    if (p->fsize == 0 || (p->mtype == p->ftype && p->fsize != g->esize) || (fill == NULL && g->esize > sizeof(zero)))
        return NC_EINVAL;
    p->range = 0;
    if ((stat = ncc_var_init(&v, g, 0, fill ? fill : zero, 1, 0, &plain_ops, &pf)))
        return stat;
    v.fill_never = fill == NULL;
    v.fetch_in_task = 1;
    v.read_serial = p->serial;
    stat = ncc_read(&v, s, out);
    ncc_var_fini(&v);
    if (stat == NC_NOERR && __atomic_load_n(&p->range, __ATOMIC_RELAXED))
        stat = NC_ERANGE;
    return stat;
}
