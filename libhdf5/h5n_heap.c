/* h5n_heap.c: v2 B-trees and fractal heaps of the native HDF5 reader
 * (dense link and attribute storage, huge objects). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "h5n_priv.h"

/* ---- v2 B-trees ------------------------------------------------------------------ */

static unsigned
enc_size(uint64_t v)
{
    unsigned bits = 0;
    while (v >> bits && bits < 64)
        bits++;
    /* log2 of v (floor) / 8 + 1, as HDF5 sizes its record counts */
    return (bits ? bits - 1 : 0) / 8 + 1;
}

typedef struct {
    h5n_file *f;
    h5n_obj *o;
    unsigned type, nodesize, recsize, depth;
    unsigned maxnrec_size;
    unsigned cum_size[MAX_DEPTH + 1];
    /* records, copied */
    unsigned char *recs;
    size_t nrecs, cap, limit;
} bt2;

static int
bt2_add(bt2 *b, const unsigned char *rec)
{
    if (b->nrecs >= b->limit)
        return GIVEUP;
    if (b->nrecs == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        unsigned char *p = realloc(b->recs, cap * b->recsize);
        if (p == NULL)
            return NC_ENOMEM;
        b->recs = p;
        b->cap = cap;
    }
    memcpy(b->recs + b->nrecs * b->recsize, rec, b->recsize);
    b->nrecs++;
    return NC_NOERR;
}

static int
bt2_node(bt2 *b, uint64_t addr, uint64_t nrec, unsigned depth)
{
    unsigned char *buf;
    size_t need;
    rd r;
    int stat;

    if (nrec == 0 && depth == 0)
        return NC_NOERR;
    if (nrec > b->nodesize / b->recsize)
        return GIVEUP;
    need = 6 + (size_t)nrec * b->recsize;
    if (depth > 0)
        need += (size_t)(nrec + 1) * (8 + b->maxnrec_size + (depth > 1 ? b->cum_size[depth - 1] : 0));
    if (need + 4 > b->nodesize)
        return GIVEUP;
    if ((buf = malloc(need + 4)) == NULL)
        return NC_ENOMEM;
    if ((stat = h5n_read_at(b->f, addr, buf, need + 4)))
        goto done;
    if (memcmp(buf, depth ? "BTIN" : "BTLF", 4) != 0 || buf[4] != 0 || buf[5] != b->type ||
        !h5n_check_sum(buf, need)) {
        stat = GIVEUP;
        goto done;
    }
    for (uint64_t i = 0; i < nrec; i++)
        if ((stat = bt2_add(b, buf + 6 + i * b->recsize)))
            goto done;
    stat = NC_NOERR;
    if (depth > 0) {
        r.p = buf + 6 + (size_t)nrec * b->recsize;
        r.end = buf + need;
        r.bad = 0;
        for (uint64_t i = 0; i <= nrec && !stat; i++) {
            uint64_t caddr = u(&r, 8), cn = u(&r, (int)b->maxnrec_size);
            if (depth > 1)
                u(&r, (int)b->cum_size[depth - 1]);
            if (r.bad) {
                stat = GIVEUP;
                break;
            }
            stat = bt2_node(b, caddr, cn, depth - 1);
        }
    }
done:
    free(buf);
    return stat;
}

/* Every record of the v2 B-tree at addr (of the given type), copied into
 * *recsp (freed by the caller), *nrecp records of *recsizep bytes. */
int
h5n_bt2_records(h5n_file *f, uint64_t addr, unsigned type, unsigned char **recsp, size_t *nrecp,
            unsigned *recsizep)
{
    unsigned char h[48];
    bt2 b;
    uint64_t root, rootn, total;
    uint64_t maxn, cum;
    int stat;

    *recsp = NULL;
    *nrecp = 0;
    if ((stat = h5n_read_at(f, addr, h, 38)))
        return stat;
    if (memcmp(h, "BTHD", 4) != 0 || h[4] != 0 || h[5] != type || !h5n_check_sum(h, 34))
        return GIVEUP;
    memset(&b, 0, sizeof(b));
    b.f = f;
    b.type = type;
    b.nodesize = (unsigned)le(h + 6, 4);
    b.recsize = (unsigned)le(h + 10, 2);
    b.depth = (unsigned)le(h + 12, 2);
    root = le(h + 16, 8);
    rootn = le(h + 24, 2);
    total = le(h + 26, 8);
    if (b.recsize == 0 || b.nodesize < 16 + b.recsize || b.nodesize > (1u << 24) ||
        b.depth > MAX_DEPTH || total > f->size)
        return GIVEUP;
    /* Sizes of the record counts in internal nodes, as HDF5 derives them. */
    maxn = (b.nodesize - 10) / b.recsize;
    cum = maxn;
    b.maxnrec_size = enc_size(maxn);
    b.cum_size[0] = 0;
    for (unsigned d = 1; d <= b.depth; d++) {
        uint64_t ptr = 8 + b.maxnrec_size + (d > 1 ? b.cum_size[d - 1] : 0);
        uint64_t nd;
        if (b.nodesize < 10 + ptr)
            return GIVEUP;
        nd = (b.nodesize - 10 - ptr) / (b.recsize + ptr);
        if (cum > UINT64_MAX / (nd + 2))
            return GIVEUP;
        cum = (nd + 1) * cum + nd;
        b.cum_size[d] = enc_size(cum);
        if (b.cum_size[d] > 8)
            return GIVEUP;
    }
    b.limit = (size_t)total;
    if (root == H5N_UNDEF)
        return total == 0 ? NC_NOERR : GIVEUP;
    stat = bt2_node(&b, root, rootn, b.depth);
    if (!stat && b.nrecs != total)
        stat = GIVEUP;
    if (stat) {
        free(b.recs);
        return stat;
    }
    *recsp = b.recs;
    *nrecp = b.nrecs;
    *recsizep = b.recsize;
    return NC_NOERR;
}

/* ---- fractal heaps (managed and tiny objects) --------------------------------- */

static unsigned
log2u(uint64_t v)
{
    unsigned r = 0;
    while (v > 1) {
        v >>= 1;
        r++;
    }
    return r;
}

static uint64_t
row_size(const fheap *h, unsigned row)
{
    return row == 0 ? h->start : h->start << (row - 1);
}

static int
fh_direct(fheap *h, uint64_t addr, uint64_t off, uint64_t size)
{
    unsigned char *buf;
    size_t hdr = 5 + 8 + h->offsize;
    dblock *p;
    int stat;

    if (size < hdr + (h->csum ? 4 : 0) || size > h5n_avail(h->f, addr) ||
        h->nblocks > h->f->size / h->start)
        return GIVEUP;
    if ((stat = h5n_read_owned(h->f, h->o, addr, (size_t)size, &buf)))
        return stat;
    if (memcmp(buf, "FHDB", 4) != 0 || buf[4] != 0 || le(buf + 5, 8) != h->addr ||
        le(buf + 13, (int)h->offsize) != off)
        return GIVEUP;
    if (h->csum) {
        /* The checksum covers the whole block with its own field zeroed. */
        uint32_t want = (uint32_t)le(buf + hdr, 4), got;
        unsigned char save[4];
        memcpy(save, buf + hdr, 4);
        memset(buf + hdr, 0, 4);
        got = h5n_lookup3(buf, (size_t)size);
        memcpy(buf + hdr, save, 4);
        if (got != want)
            return GIVEUP;
    }
    if ((p = h5n_grow(h->blocks, &h->cap, h->nblocks, sizeof(*p), 8)) == NULL)
        return NC_ENOMEM;
    h->blocks = p;
    h->blocks[h->nblocks].off = off;
    h->blocks[h->nblocks].size = size;
    h->blocks[h->nblocks].buf = buf;
    h->nblocks++;
    return NC_NOERR;
}

static int
fh_indirect(fheap *h, uint64_t addr, uint64_t off, unsigned nrows, unsigned depth)
{
    size_t hdr = 5 + 8 + h->offsize, n, need;
    unsigned char *buf;
    uint64_t at = off;
    int stat = NC_NOERR;

    /* (blocks met twice, or more than the file could hold: not HDF5's) */
    if (depth > MAX_DEPTH || nrows == 0 || nrows > 64 || ++h->nindirect > 4096 ||
        h->nblocks > h->f->size / h->start)
        return GIVEUP;
    n = (size_t)nrows * h->width;
    need = hdr + n * 8;
    if ((buf = malloc(need + 4)) == NULL)
        return NC_ENOMEM;
    if ((stat = h5n_read_at(h->f, addr, buf, need + 4)))
        goto done;
    if (memcmp(buf, "FHIB", 4) != 0 || buf[4] != 0 || le(buf + 5, 8) != h->addr ||
        le(buf + 13, (int)h->offsize) != off || !h5n_check_sum(buf, need)) {
        stat = GIVEUP;
        goto done;
    }
    for (unsigned r = 0; r < nrows && !stat; r++) {
        uint64_t bs = row_size(h, r);
        for (unsigned c = 0; c < h->width && !stat; c++) {
            uint64_t child = le(buf + hdr + ((size_t)r * h->width + c) * 8, 8);
            if (child != H5N_UNDEF) {
                if (r < h->maxdirrows) {
                    stat = fh_direct(h, child, at, bs);
                } else {
                    unsigned rows = log2u(bs) - log2u(h->start * h->width) + 1;
                    stat = fh_indirect(h, child, at, rows, depth + 1);
                }
            }
            at += bs;
        }
    }
done:
    free(buf);
    return stat;
}

static int
cmp_block(const void *a, const void *b)
{
    const dblock *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

int
h5n_fh_open(h5n_file *f, h5n_obj *o, uint64_t addr, fheap *h)
{
    unsigned char b[146];
    rd r;
    uint64_t maxman, nhuge, root;
    unsigned filterlen, flags, currows;

    memset(h, 0, sizeof(*h));
    h->f = f;
    h->o = o;
    h->addr = addr;
    if (h5n_read_at(f, addr, b, 146))
        return GIVEUP;
    r.p = b; r.end = b + 146; r.bad = 0;
    if (memcmp(b, "FRHP", 4) != 0 || b[4] != 0)
        return GIVEUP;
    take(&r, 5);
    h->idlen = (unsigned)u(&r, 2);
    filterlen = (unsigned)u(&r, 2);
    flags = (unsigned)u(&r, 1);
    maxman = u(&r, 4);
    u(&r, 8);                    /* next huge id */
    h->huge_bt = u(&r, 8);
    u(&r, 8);                    /* free space */
    u(&r, 8);                    /* free-space manager */
    u(&r, 8);                    /* managed space */
    u(&r, 8);                    /* allocated managed space */
    u(&r, 8);                    /* iterator offset */
    u(&r, 8);                    /* managed objects */
    u(&r, 8);                    /* huge size */
    nhuge = u(&r, 8);
    u(&r, 8);                    /* tiny size */
    u(&r, 8);                    /* tiny count */
    h->width = (unsigned)u(&r, 2);
    h->start = u(&r, 8);
    h->maxdirect = u(&r, 8);
    h->maxbits = (unsigned)u(&r, 2);
    u(&r, 2);                    /* starting rows */
    root = u(&r, 8);
    currows = (unsigned)u(&r, 2);
    if (r.bad || filterlen != 0 || !h5n_check_sum(b, (size_t)(r.p - b)) ||
        (nhuge != 0) != (h->huge_bt != H5N_UNDEF))
        return GIVEUP;
    h->csum = (flags & 2) != 0;
    if (h->width == 0 || (h->width & (h->width - 1)) || h->width > 4096 || h->start == 0 ||
        (h->start & (h->start - 1)) || h->maxdirect < h->start ||
        (h->maxdirect & (h->maxdirect - 1)) || h->maxdirect > ((uint64_t)1 << 32) ||
        h->maxbits == 0 || h->maxbits > 64 || h->idlen < 2 || h->idlen > 64)
        return GIVEUP;
    h->offsize = (h->maxbits + 7) / 8;
    h->lensize = (log2u(h->maxdirect) + 7) / 8;
    if (enc_size(maxman) < h->lensize)
        h->lensize = enc_size(maxman);
    h->maxdirrows = log2u(h->maxdirect) - log2u(h->start) + 2;
    if (root == H5N_UNDEF)
        return NC_NOERR;
    if (currows == 0) {
        if (fh_direct(h, root, 0, h->start))
            return GIVEUP;
    } else {
        int stat = fh_indirect(h, root, 0, currows, 0);
        if (stat)
            return stat;
    }
    if (h->nblocks > 1)
        qsort(h->blocks, h->nblocks, sizeof(dblock), cmp_block);
    return NC_NOERR;
}

void
h5n_fh_close(fheap *h)
{
    free(h->blocks);   /* the block buffers belong to the object */
    free(h->huge);
}

/* A 'huge' object (stored on its own, found through the heap's B-tree of
 * them unless the id holds its address and length). */
static int
fh_huge(fheap *h, const unsigned char *id, const unsigned char **pp, size_t *lenp)
{
    uint64_t addr = H5N_UNDEF, len = 0;
    unsigned char *buf;
    int stat;

    if (h->huge_bt == H5N_UNDEF)
        return GIVEUP;
    if (h->idlen >= 17) {
        addr = le(id + 1, 8);
        len = le(id + 9, 8);
    } else {
        uint64_t key = le(id + 1, (int)(h->idlen - 1 < 8 ? h->idlen - 1 : 8));
        unsigned rs = 0;
        if (h->huge == NULL &&
            (stat = h5n_bt2_records(h->f, h->huge_bt, 1, &h->huge, &h->nhuge, &rs)))
            return stat;
        if (h->huge != NULL && rs != 24)
            return GIVEUP;
        for (size_t i = 0; i < h->nhuge; i++)
            if (le(h->huge + i * 24 + 16, 8) == key) {
                addr = le(h->huge + i * 24, 8);
                len = le(h->huge + i * 24 + 8, 8);
                break;
            }
    }
    if (addr == H5N_UNDEF || len == 0 || len > h5n_avail(h->f, addr))
        return GIVEUP;
    if ((stat = h5n_read_owned(h->f, h->o, addr, (size_t)len, &buf)))
        return stat;
    *pp = buf;
    *lenp = (size_t)len;
    return NC_NOERR;
}

/* The bytes of heap object id. */
int
h5n_fh_get(fheap *h, const unsigned char *id, const unsigned char **pp, size_t *lenp)
{
    unsigned type;
    if ((id[0] >> 6) != 0)
        return GIVEUP;
    type = (id[0] >> 4) & 3;
    if (type == 2) {             /* tiny: in the id itself */
        size_t len = (size_t)(id[0] & 0x0f) + 1;
        if (h->idlen > 18 || len > h->idlen - 1)
            return GIVEUP;
        *pp = id + 1;
        *lenp = len;
        return NC_NOERR;
    }
    if (type == 1)
        return fh_huge(h, id, pp, lenp);
    if (type != 0 || 1 + h->offsize + h->lensize > h->idlen)
        return GIVEUP;
    {
        uint64_t off = le(id + 1, (int)h->offsize);
        uint64_t len = le(id + 1 + h->offsize, (int)h->lensize);
        size_t lo = 0, hi = h->nblocks;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (h->blocks[mid].off + h->blocks[mid].size <= off)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo >= h->nblocks || off < h->blocks[lo].off ||
            len > h->blocks[lo].size - (off - h->blocks[lo].off))
            return GIVEUP;
        *pp = h->blocks[lo].buf + (off - h->blocks[lo].off);
        *lenp = (size_t)len;
    }
    return NC_NOERR;
}

