/* h5n_fmt.c: the HDF5 file-format structures h5n.h reads (superblock, object
 * headers and their messages, fractal heaps, v2 B-trees, global heaps).
 *
 * Layouts follow the HDF5 File Format Specification (version 3).  Only 8-byte
 * offsets and lengths are accepted (what HDF5 writes by default); every
 * checksum is verified; every size read from the file is bounded by the file
 * size before anything is allocated or read. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "netcdf.h"
#include "h5n.h"

#define GIVEUP H5N_GIVEUP
#define MAX_CHUNKS 4096          /* continuation chunks of one object header */
#define MAX_DEPTH 16             /* B-tree / heap nesting */

typedef struct gcol {
    uint64_t addr;
    unsigned char *buf;
    size_t size;
    uint32_t *index;             /* object number -> offset of its header, 0 = none */
    size_t nindex;
} gcol;

struct h5n_file {
    int fd;
    uint64_t size;               /* file size */
    uint64_t base;               /* absolute address of relative 0 */
    int sbver;
    uint64_t root;
    gcol *gcols;
    size_t ngcols, gcap;
};

/* ---- low-level reading ------------------------------------------------------- */

uint32_t
h5n_lookup3(const unsigned char *k, size_t length)
{
#define ROT(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)length;
    while (length > 12) {
        a += k[0] + ((uint32_t)k[1] << 8) + ((uint32_t)k[2] << 16) + ((uint32_t)k[3] << 24);
        b += k[4] + ((uint32_t)k[5] << 8) + ((uint32_t)k[6] << 16) + ((uint32_t)k[7] << 24);
        c += k[8] + ((uint32_t)k[9] << 8) + ((uint32_t)k[10] << 16) + ((uint32_t)k[11] << 24);
        a -= c; a ^= ROT(c, 4);  c += b;
        b -= a; b ^= ROT(a, 6);  a += c;
        c -= b; c ^= ROT(b, 8);  b += a;
        a -= c; a ^= ROT(c, 16); c += b;
        b -= a; b ^= ROT(a, 19); a += c;
        c -= b; c ^= ROT(b, 4);  b += a;
        length -= 12;
        k += 12;
    }
    if (length == 0)
        return c;
    {
        unsigned char t[12] = {0};
        memcpy(t, k, length);
        c += t[8] + ((uint32_t)t[9] << 8) + ((uint32_t)t[10] << 16) + ((uint32_t)t[11] << 24);
        b += t[4] + ((uint32_t)t[5] << 8) + ((uint32_t)t[6] << 16) + ((uint32_t)t[7] << 24);
        a += t[0] + ((uint32_t)t[1] << 8) + ((uint32_t)t[2] << 16) + ((uint32_t)t[3] << 24);
    }
    c ^= b; c -= ROT(b, 14);
    a ^= c; a -= ROT(c, 11);
    b ^= a; b -= ROT(a, 25);
    c ^= b; c -= ROT(b, 16);
    a ^= c; a -= ROT(c, 4);
    b ^= a; b -= ROT(a, 14);
    c ^= b; c -= ROT(b, 24);
    return c;
#undef ROT
}

static uint64_t
le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* A bounded cursor: reading past end sets bad and yields zeros. */
typedef struct {
    const unsigned char *p, *end;
    int bad;
} rd;

static uint64_t
u(rd *r, int n)
{
    uint64_t v;
    if (r->bad || r->end - r->p < n) {
        r->bad = 1;
        return 0;
    }
    v = le(r->p, n);
    r->p += n;
    return v;
}

static const unsigned char *
take(rd *r, uint64_t n)
{
    const unsigned char *q = r->p;
    if (r->bad || (uint64_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    r->p += n;
    return q;
}

/* Whether [addr, addr+len) lies in the file (relative addresses). */
static int
in_file(const h5n_file *f, uint64_t addr, uint64_t len)
{
    uint64_t abs;
    if (addr == H5N_UNDEF || addr > f->size || f->base > f->size - addr)
        return 0;
    abs = f->base + addr;
    return len <= f->size - abs;
}

static int
read_at(const h5n_file *f, uint64_t addr, void *buf, size_t len)
{
    unsigned char *p = buf;
    off_t at;
    if (!in_file(f, addr, len))
        return GIVEUP;
    at = (off_t)(f->base + addr);
    while (len > 0) {
        ssize_t n = pread(f->fd, p, len, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return GIVEUP;
        p += n;
        at += n;
        len -= (size_t)n;
    }
    return NC_NOERR;
}

/* Bytes available from addr to the end of the file (0 if outside). */
static uint64_t
avail(const h5n_file *f, uint64_t addr)
{
    if (!in_file(f, addr, 0))
        return 0;
    return f->size - (f->base + addr);
}

static int
keep_buf(h5n_obj *o, unsigned char *b)
{
    if (o->nbufs == o->bufcap) {
        size_t cap = o->bufcap ? 2 * o->bufcap : 8;
        unsigned char **p = realloc(o->bufs, cap * sizeof(*p));
        if (p == NULL) {
            free(b);
            return NC_ENOMEM;
        }
        o->bufs = p;
        o->bufcap = cap;
    }
    o->bufs[o->nbufs++] = b;
    return NC_NOERR;
}

/* Read len bytes at addr into a buffer owned by o. */
static int
read_owned(h5n_file *f, h5n_obj *o, uint64_t addr, size_t len, unsigned char **bp)
{
    unsigned char *b;
    int stat;
    if (!in_file(f, addr, len))
        return GIVEUP;
    if ((b = malloc(len ? len : 1)) == NULL)
        return NC_ENOMEM;
    if ((stat = read_at(f, addr, b, len))) {
        free(b);
        return stat;
    }
    if ((stat = keep_buf(o, b)))
        return stat;
    *bp = b;
    return NC_NOERR;
}

static int
check_sum(const unsigned char *p, size_t n)
{
    return h5n_lookup3(p, n) == (uint32_t)le(p + n, 4);
}

/* ---- the superblock ------------------------------------------------------------ */

int
h5n_open(const char *path, h5n_file **fp)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char sb[48];
    struct stat st;
    h5n_file *f;
    uint64_t at;

    *fp = NULL;
    if ((f = calloc(1, sizeof(*f))) == NULL)
        return NC_ENOMEM;
    if ((f->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        free(f);
        return GIVEUP;
    }
    if (fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 48)
        goto giveup;
    f->size = (uint64_t)st.st_size;
    /* At 0 or after a user block of 512 * 2^k bytes. */
    for (at = 0; at + 48 <= f->size; at = at ? 2 * at : 512) {
        if (read_at(f, at, sb, 8))
            goto giveup;
        if (memcmp(sb, sig, 8) == 0)
            break;
    }
    if (at + 48 > f->size || read_at(f, at, sb, 48))
        goto giveup;
    /* Version 2/3 with 8-byte offsets and lengths, no extension, not marked
     * open for writing (HDF5 decides what to do with such a file). */
    if ((sb[8] != 2 && sb[8] != 3) || sb[9] != 8 || sb[10] != 8 || sb[11] != 0 ||
        !check_sum(sb, 44))
        goto giveup;
    f->sbver = sb[8];
    f->base = le(sb + 12, 8);
    if (le(sb + 20, 8) != H5N_UNDEF)
        goto giveup;
    f->root = le(sb + 36, 8);
    /* A file shorter than its end-of-file address is HDF5's to refuse. */
    if (f->base != at || !in_file(f, f->root, 16) || !in_file(f, le(sb + 28, 8), 0))
        goto giveup;
    *fp = f;
    return NC_NOERR;
giveup:
    close(f->fd);
    free(f);
    return GIVEUP;
}

void
h5n_close(h5n_file *f)
{
    if (f == NULL)
        return;
    for (size_t i = 0; i < f->ngcols; i++) {
        free(f->gcols[i].buf);
        free(f->gcols[i].index);
    }
    free(f->gcols);
    close(f->fd);
    free(f);
}

int
h5n_superblock_version(const h5n_file *f)
{
    return f->sbver;
}

uint64_t
h5n_root_addr(const h5n_file *f)
{
    return f->root;
}

/* ---- datatype and dataspace messages ------------------------------------------ */

static int
parse_type(rd *r, h5n_type *t, int depth)
{
    unsigned b0, bits;
    memset(t, 0, sizeof(*t));
    if (depth > 4)
        return GIVEUP;
    b0 = (unsigned)u(r, 1);
    bits = (unsigned)u(r, 3);
    t->size = (size_t)u(r, 4);
    t->cls = (int)(b0 & 0x0f);
    if ((b0 >> 4) < 1 || (b0 >> 4) > 3)
        return GIVEUP;
    switch (t->cls) {
    case H5N_FIXED: {
        unsigned off = (unsigned)u(r, 2), prec = (unsigned)u(r, 2);
        t->big_endian = bits & 1;
        t->is_signed = (bits >> 3) & 1;
        t->plain = off == 0 && prec == 8 * t->size &&
                   (t->size == 1 || t->size == 2 || t->size == 4 || t->size == 8);
        break;
    }
    case H5N_FLOAT: {
        unsigned off = (unsigned)u(r, 2), prec = (unsigned)u(r, 2);
        unsigned epos = (unsigned)u(r, 1), esize = (unsigned)u(r, 1);
        unsigned mpos = (unsigned)u(r, 1), msize = (unsigned)u(r, 1);
        uint64_t bias = u(r, 4);
        unsigned spos = (bits >> 8) & 0xff, norm = (bits >> 4) & 3;
        t->big_endian = bits & 1;
        if (bits & 0x40)
            return GIVEUP;   /* VAX order */
        t->plain = off == 0 && prec == 8 * t->size && norm == 2 && mpos == 0 &&
                   ((t->size == 4 && spos == 31 && epos == 23 && esize == 8 && msize == 23 &&
                     bias == 127) ||
                    (t->size == 8 && spos == 63 && epos == 52 && esize == 11 &&
                     msize == 52 && bias == 1023));
        break;
    }
    case H5N_STRING:
        t->strpad = (int)(bits & 0x0f);
        t->cset = (int)((bits >> 4) & 0x0f);
        break;
    case H5N_REFERENCE:
        t->ref_obj = (bits & 0x0f) == 0 && t->size == 8;
        break;
    case H5N_VLEN: {
        h5n_type base;
        int stat;
        t->strpad = (int)((bits >> 4) & 0x0f);
        t->cset = (int)((bits >> 8) & 0x0f);
        if ((stat = parse_type(r, &base, depth + 1)))
            return stat;
        t->vlen_string = (bits & 0x0f) == 1;
        t->vlen_objref = (bits & 0x0f) == 0 && base.cls == H5N_REFERENCE && base.ref_obj;
        break;
    }
    default:
        /* Compound, enum, opaque, array, time, bitfield: the caller decides
         * (the class is enough to know netCDF's reader would not take it). */
        break;
    }
    return r->bad ? GIVEUP : NC_NOERR;
}

static int
parse_space(rd *r, h5n_space *s)
{
    unsigned ver = (unsigned)u(r, 1), nd = (unsigned)u(r, 1), flags = (unsigned)u(r, 1);
    memset(s, 0, sizeof(*s));
    if (ver == 1) {
        u(r, 1);
        u(r, 4);
        s->kind = nd ? H5N_SIMPLE : H5N_SCALAR;
        if (flags & 2)
            return GIVEUP;
    } else if (ver == 2) {
        s->kind = (int)u(r, 1);
        if (s->kind > H5N_NULL)
            return GIVEUP;
    } else {
        return GIVEUP;
    }
    if (nd > H5N_MAX_RANK || (s->kind != H5N_SIMPLE && nd != 0))
        return GIVEUP;
    s->ndims = (int)nd;
    for (unsigned i = 0; i < nd; i++)
        s->dims[i] = u(r, 8);
    for (unsigned i = 0; i < nd; i++)
        s->maxdims[i] = (flags & 1) ? u(r, 8) : s->dims[i];
    if (r->bad)
        return GIVEUP;
    s->npoints = s->kind == H5N_NULL ? 0 : 1;
    for (unsigned i = 0; i < nd; i++) {
        if (s->dims[i] != 0 && s->npoints > UINT64_MAX / s->dims[i])
            return GIVEUP;
        s->npoints *= s->dims[i];
    }
    return NC_NOERR;
}

/* Bytes of one value in the file (vlen: count + heap id). */
static size_t
file_elem_size(const h5n_type *t)
{
    return t->cls == H5N_VLEN ? 16 : t->size;
}

/* An attribute message (compact, or a dense heap object). */
static int
parse_att(const unsigned char *p, size_t len, uint64_t crt, h5n_att *a)
{
    rd r = {p, p + len, 0};
    unsigned ver = (unsigned)u(&r, 1), flags = (unsigned)u(&r, 1);
    size_t nsz = (size_t)u(&r, 2), tsz = (size_t)u(&r, 2), ssz = (size_t)u(&r, 2);
    size_t pad = ver == 1 ? 8 : 1;
    const unsigned char *np, *tp, *spp;
    h5n_space sp;
    rd tr, sr;
    uint64_t need;
    int stat;

    memset(a, 0, sizeof(*a));
    if (ver < 1 || ver > 3 || (ver >= 2 && (flags & 3)) || (ver == 1 && flags != 0))
        return GIVEUP;
    if (ver == 3 && u(&r, 1) > 1)
        return GIVEUP;   /* name encoding: ASCII or UTF-8 */
#define PADDED(n) (((n) + pad - 1) / pad * pad)
    np = take(&r, PADDED(nsz));
    tp = take(&r, PADDED(tsz));
    spp = take(&r, PADDED(ssz));
#undef PADDED
    if (r.bad || nsz == 0 || np[nsz - 1] != 0 || memchr(np, 0, nsz) != np + nsz - 1)
        return GIVEUP;
    tr.p = tp; tr.end = tp + tsz; tr.bad = 0;
    sr.p = spp; sr.end = spp + ssz; sr.bad = 0;
    if ((stat = parse_type(&tr, &a->type, 0)) || (stat = parse_space(&sr, &sp)))
        return stat;
    a->space.kind = sp.kind;
    a->space.ndims = sp.ndims;
    a->space.npoints = sp.npoints;
    if (file_elem_size(&a->type) == 0 && a->space.npoints > 0)
        return GIVEUP;
    if (a->space.npoints > (uint64_t)len || file_elem_size(&a->type) > len)
        return GIVEUP;
    need = a->space.npoints * file_elem_size(&a->type);
    if (need > (uint64_t)(r.end - r.p))
        return GIVEUP;
    a->data = r.p;
    a->datalen = (size_t)need;
    a->crt = crt;
    if ((a->name = malloc(nsz)) == NULL)
        return NC_ENOMEM;
    memcpy(a->name, np, nsz);
    return NC_NOERR;
}

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
    if ((stat = read_at(b->f, addr, buf, need + 4)))
        goto done;
    if (memcmp(buf, depth ? "BTIN" : "BTLF", 4) != 0 || buf[4] != 0 || buf[5] != b->type ||
        !check_sum(buf, need)) {
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
static int
bt2_records(h5n_file *f, uint64_t addr, unsigned type, unsigned char **recsp, size_t *nrecp,
            unsigned *recsizep)
{
    unsigned char h[48];
    bt2 b;
    uint64_t root, rootn, total;
    uint64_t maxn, cum;
    int stat;

    *recsp = NULL;
    *nrecp = 0;
    if ((stat = read_at(f, addr, h, 38)))
        return stat;
    if (memcmp(h, "BTHD", 4) != 0 || h[4] != 0 || h[5] != type || !check_sum(h, 34))
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

typedef struct {
    uint64_t off, size;
    unsigned char *buf;          /* owned by the object (keep_buf) */
} dblock;

typedef struct {
    h5n_file *f;
    h5n_obj *o;
    uint64_t addr;
    unsigned idlen, offsize, lensize;
    unsigned width, maxbits, maxdirrows;
    uint64_t start, maxdirect;
    int csum;
    dblock *blocks;
    size_t nblocks, cap, nindirect;
    uint64_t huge_bt;            /* v2 B-tree of 'huge' objects, H5N_UNDEF if none */
    unsigned char *huge;         /* its records (address, length, id), read on demand */
    size_t nhuge;
} fheap;

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
    int stat;

    if (size < hdr + (h->csum ? 4 : 0) || size > avail(h->f, addr) ||
        h->nblocks > h->f->size / h->start)
        return GIVEUP;
    if ((stat = read_owned(h->f, h->o, addr, (size_t)size, &buf)))
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
    if (h->nblocks == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 8;
        dblock *p = realloc(h->blocks, cap * sizeof(*p));
        if (p == NULL)
            return NC_ENOMEM;
        h->blocks = p;
        h->cap = cap;
    }
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
    if ((stat = read_at(h->f, addr, buf, need + 4)))
        goto done;
    if (memcmp(buf, "FHIB", 4) != 0 || buf[4] != 0 || le(buf + 5, 8) != h->addr ||
        le(buf + 13, (int)h->offsize) != off || !check_sum(buf, need)) {
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

static int
fh_open(h5n_file *f, h5n_obj *o, uint64_t addr, fheap *h)
{
    unsigned char b[146];
    rd r;
    uint64_t maxman, nhuge, root;
    unsigned filterlen, flags, currows;

    memset(h, 0, sizeof(*h));
    h->f = f;
    h->o = o;
    h->addr = addr;
    if (read_at(f, addr, b, 146))
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
    if (r.bad || filterlen != 0 || !check_sum(b, (size_t)(r.p - b)) ||
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

static void
fh_close(fheap *h)
{
    free(h->blocks);   /* the block buffers belong to the object */
    free(h->huge);
}

static int bt2_records(h5n_file *f, uint64_t addr, unsigned type, unsigned char **recsp,
                       size_t *nrecp, unsigned *recsizep);

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
            (stat = bt2_records(h->f, h->huge_bt, 1, &h->huge, &h->nhuge, &rs)))
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
    if (addr == H5N_UNDEF || len == 0 || len > avail(h->f, addr))
        return GIVEUP;
    if ((stat = read_owned(h->f, h->o, addr, (size_t)len, &buf)))
        return stat;
    *pp = buf;
    *lenp = (size_t)len;
    return NC_NOERR;
}

/* The bytes of heap object id. */
static int
fh_get(fheap *h, const unsigned char *id, const unsigned char **pp, size_t *lenp)
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

/* ---- links ------------------------------------------------------------------------ */

static int
add_link(h5n_obj *o, const char *name, size_t nlen, uint64_t addr, uint64_t crt)
{
    h5n_link *l;
    if (o->nlinks % 64 == 0) {
        h5n_link *p = realloc(o->links, (o->nlinks + 64) * sizeof(*p));
        if (p == NULL)
            return NC_ENOMEM;
        o->links = p;
    }
    l = &o->links[o->nlinks];
    if ((l->name = malloc(nlen + 1)) == NULL)
        return NC_ENOMEM;
    memcpy(l->name, name, nlen);
    l->name[nlen] = '\0';
    l->addr = addr;
    l->crt = crt;
    o->nlinks++;
    return NC_NOERR;
}

/* A link message: hard links are noted, anything else gives up. */
static int
parse_link(h5n_obj *o, const unsigned char *p, size_t len)
{
    rd r = {p, p + len, 0};
    unsigned ver = (unsigned)u(&r, 1), flags = (unsigned)u(&r, 1);
    unsigned type = 0;
    uint64_t crt = 0, nlen, addr;
    const unsigned char *name;

    if (ver != 1 || (flags & 0xe0))
        return GIVEUP;
    if (flags & 0x08)
        type = (unsigned)u(&r, 1);
    if (flags & 0x04)
        crt = u(&r, 8);
    if (flags & 0x10)
        u(&r, 1);
    nlen = u(&r, 1 << (flags & 3));
    name = take(&r, nlen);
    if (r.bad || type != 0 || nlen == 0 || memchr(name, 0, (size_t)nlen) != NULL)
        return GIVEUP;
    addr = u(&r, 8);
    if (r.bad)
        return GIVEUP;
    return add_link(o, (const char *)name, (size_t)nlen, addr, crt);
}

static int
cmp_link_crt(const void *a, const void *b)
{
    const h5n_link *x = a, *y = b;
    return x->crt < y->crt ? -1 : x->crt > y->crt;
}

static int
cmp_link_name(const void *a, const void *b)
{
    const h5n_link *x = a, *y = b;
    return strcmp(x->name, y->name);
}

static int
cmp_att_crt(const void *a, const void *b)
{
    const h5n_att *x = a, *y = b;
    return x->crt < y->crt ? -1 : x->crt > y->crt;
}

static int
cmp_attp_crt(const void *a, const void *b)
{
    const h5n_att *x = *(const h5n_att *const *)a, *y = *(const h5n_att *const *)b;
    return x->crt < y->crt ? -1 : x->crt > y->crt;
}

/* The attributes in the order qsort gives a table of pointers to them. */
static int
sort_like_hdf5(h5n_obj *o)
{
    h5n_att **tab = malloc(o->natts * sizeof(*tab)), *copy = malloc(o->natts * sizeof(*copy));
    if (tab == NULL || copy == NULL) {
        free(tab);
        free(copy);
        return NC_ENOMEM;
    }
    for (size_t i = 0; i < o->natts; i++)
        tab[i] = &o->atts[i];
    qsort(tab, o->natts, sizeof(*tab), cmp_attp_crt);
    for (size_t i = 0; i < o->natts; i++)
        copy[i] = *tab[i];
    memcpy(o->atts, copy, o->natts * sizeof(*copy));
    free(tab);
    free(copy);
    return NC_NOERR;
}

static int
dense_links(h5n_file *f, h5n_obj *o, uint64_t heap, uint64_t btree)
{
    fheap h;
    unsigned char *recs = NULL;
    size_t n = 0;
    unsigned rs = 0;
    int stat;

    if ((stat = fh_open(f, o, heap, &h)))
        goto done;
    if ((stat = bt2_records(f, btree, 5, &recs, &n, &rs)))
        goto done;
    if (rs < 4 + 1 || rs - 4 != h.idlen) {
        stat = GIVEUP;
        goto done;
    }
    for (size_t i = 0; i < n && !stat; i++) {
        const unsigned char *p;
        size_t len;
        if (!(stat = fh_get(&h, recs + i * rs + 4, &p, &len)))
            stat = parse_link(o, p, len);
    }
done:
    free(recs);
    fh_close(&h);
    return stat;
}

static int
add_att(h5n_obj *o, const unsigned char *p, size_t len, uint64_t crt)
{
    int stat;
    if (o->natts % 16 == 0) {
        h5n_att *q = realloc(o->atts, (o->natts + 16) * sizeof(*q));
        if (q == NULL)
            return NC_ENOMEM;
        o->atts = q;
    }
    if ((stat = parse_att(p, len, crt, &o->atts[o->natts])))
        return stat;
    o->natts++;
    return NC_NOERR;
}

static int
dense_atts(h5n_file *f, h5n_obj *o, uint64_t heap, uint64_t btree)
{
    fheap h;
    unsigned char *recs = NULL;
    size_t n = 0;
    unsigned rs = 0;
    int stat;

    if ((stat = fh_open(f, o, heap, &h)))
        goto done;
    if ((stat = bt2_records(f, btree, 8, &recs, &n, &rs)))
        goto done;
    /* heap id, message flags, creation order (4), name hash (4) */
    if (rs != h.idlen + 9) {
        stat = GIVEUP;
        goto done;
    }
    for (size_t i = 0; i < n && !stat; i++) {
        const unsigned char *rec = recs + i * rs, *p;
        size_t len;
        if (rec[h.idlen] != 0) {   /* shared attribute */
            stat = GIVEUP;
            break;
        }
        if ((stat = fh_get(&h, rec, &p, &len)))
            break;
        if (p >= rec && p < rec + rs) {
            /* A tiny object lives in the record: keep a copy. */
            unsigned char *c = malloc(len);
            if (c == NULL || (stat = keep_buf(o, c))) {
                stat = NC_ENOMEM;
                break;
            }
            memcpy(c, p, len);
            p = c;
        }
        stat = add_att(o, p, len, le(rec + h.idlen + 1, 4));
    }
done:
    free(recs);
    fh_close(&h);
    return stat;
}

/* ---- object headers ------------------------------------------------------------- */

typedef struct {
    unsigned type, flags;
    uint64_t crt;
    const unsigned char *p;
    size_t len;
} msg;

typedef struct {
    msg *m;
    size_t n, cap;
    size_t ncont;        /* continuation messages met */
} msglist;

static int
collect_msgs(msglist *ml, const unsigned char *p, size_t len, int crt_tracked)
{
    size_t hs = crt_tracked ? 6 : 4, at = 0;
    while (len - at >= hs) {
        msg *m;
        const unsigned char *q = p + at;
        size_t ml_len = (size_t)le(q + 1, 2);
        if (ml_len > len - at - hs)
            return GIVEUP;
        if (ml->n == ml->cap) {
            size_t cap = ml->cap ? 2 * ml->cap : 32;
            msg *x = realloc(ml->m, cap * sizeof(*x));
            if (x == NULL)
                return NC_ENOMEM;
            ml->m = x;
            ml->cap = cap;
        }
        m = &ml->m[ml->n++];
        m->type = q[0];
        m->flags = q[3];
        m->crt = crt_tracked ? le(q + 4, 2) : 0;
        m->p = q + hs;
        m->len = ml_len;
        if (m->type == 0x10 && (ml_len < 16 || ++ml->ncont > MAX_CHUNKS))
            return GIVEUP;
        at += hs + ml_len;
    }
    return NC_NOERR;
}

static int
parse_layout(h5n_obj *o, const unsigned char *p, size_t len)
{
    rd r = {p, p + len, 0};
    unsigned ver = (unsigned)u(&r, 1), cls = (unsigned)u(&r, 1);
    if (ver != 3 && ver != 4)
        return GIVEUP;
    if (cls == 0 || cls == 1) {
        o->layout = cls == 0 ? H5N_COMPACT : H5N_CONTIGUOUS;
        return NC_NOERR;
    }
    if (cls != 2)
        return GIVEUP;
    o->layout = H5N_CHUNKED;
    if (ver == 3) {
        unsigned nd = (unsigned)u(&r, 1);
        u(&r, 8);
        if (nd < 1 || nd > H5N_MAX_RANK + 1)
            return GIVEUP;
        o->chunk_ndims = (int)nd - 1;
        for (unsigned i = 0; i < nd; i++) {
            uint64_t v = u(&r, 4);
            if (i < nd - 1)
                o->chunk[i] = v;
        }
    } else {
        unsigned nd, enc;
        u(&r, 1);
        nd = (unsigned)u(&r, 1);
        enc = (unsigned)u(&r, 1);
        if (nd < 1 || nd > H5N_MAX_RANK + 1 || enc < 1 || enc > 8)
            return GIVEUP;
        o->chunk_ndims = (int)nd - 1;
        for (unsigned i = 0; i < nd; i++) {
            uint64_t v = u(&r, (int)enc);
            if (i < nd - 1)
                o->chunk[i] = v;
        }
    }
    return r.bad ? GIVEUP : NC_NOERR;
}

static int
parse_pipeline(h5n_obj *o, const unsigned char *p, size_t len)
{
    rd r = {p, p + len, 0};
    unsigned ver = (unsigned)u(&r, 1), n = (unsigned)u(&r, 1);
    if ((ver != 1 && ver != 2) || n > 32)
        return GIVEUP;
    if (ver == 1)
        take(&r, 6);
    if ((o->filters = calloc(n ? n : 1, sizeof(h5n_filter))) == NULL)
        return NC_ENOMEM;
    for (unsigned i = 0; i < n; i++) {
        h5n_filter *fl = &o->filters[i];
        unsigned id = (unsigned)u(&r, 2), nlen = 0;
        size_t np;
        if (ver == 1 || id >= 256)
            nlen = (unsigned)u(&r, 2);
        fl->id = id;
        fl->flags = (unsigned)u(&r, 2);
        np = (size_t)u(&r, 2);
        if (ver == 1)
            take(&r, (nlen + 7) / 8 * 8);
        else
            take(&r, nlen);
        if (r.bad || np > 4096)
            return GIVEUP;
        o->nfilters++;
        if (np > 0) {
            if ((fl->params = malloc(np * sizeof(unsigned))) == NULL)
                return NC_ENOMEM;
            for (size_t k = 0; k < np; k++)
                fl->params[k] = (unsigned)u(&r, 4);
            fl->nparams = np;
        }
        if (ver == 1 && (np & 1))
            take(&r, 4);
        if (r.bad)
            return GIVEUP;
    }
    return NC_NOERR;
}

static int
parse_fill(h5n_obj *o, const unsigned char *p, size_t len)
{
    rd r = {p, p + len, 0};
    unsigned ver = (unsigned)u(&r, 1);
    if (ver == 2) {
        u(&r, 1);
        o->fill_time = (int)u(&r, 1);
        if (u(&r, 1) != 1)
            return GIVEUP;       /* (states HDF5 derives otherwise: leave to it) */
        o->fill_size = (size_t)u(&r, 4);
        o->fill = take(&r, o->fill_size);
        if (r.bad || o->fill_size == 0)
            return GIVEUP;
        o->fill_state = H5N_FILL_USER;
    } else if (ver == 3) {
        unsigned fl = (unsigned)u(&r, 1);
        o->fill_time = (int)((fl >> 2) & 3);
        if (fl & 0xc0)
            return GIVEUP;
        if (fl & 0x10) {
            o->fill_state = H5N_FILL_UNDEFINED;
        } else if (fl & 0x20) {
            o->fill_size = (size_t)u(&r, 4);
            o->fill = take(&r, o->fill_size);
            if (r.bad)
                return GIVEUP;
            o->fill_state = o->fill_size ? H5N_FILL_USER : H5N_FILL_DEFAULT;
        } else {
            o->fill_state = H5N_FILL_DEFAULT;
        }
    } else {
        return GIVEUP;
    }
    return r.bad || o->fill_time > 2 ? GIVEUP : NC_NOERR;
}

int
h5n_read_obj(h5n_file *f, uint64_t addr, h5n_obj *o)
{
    unsigned char *buf;
    uint64_t av = avail(f, addr);
    size_t first = av < 512 ? (size_t)av : 512, start, size0, total;
    unsigned flags;
    msglist ml;
    int stat, has_type = 0, has_space = 0, has_layout = 0, has_fill = 0, is_group = 0;
    int att_crt;
    uint64_t lheap = H5N_UNDEF, lbt = H5N_UNDEF, aheap = H5N_UNDEF, abt = H5N_UNDEF;
    size_t ncompact_atts = 0;

    memset(o, 0, sizeof(*o));
    memset(&ml, 0, sizeof(ml));
    o->addr = addr;
    if (first < 16)
        return GIVEUP;
    if ((stat = read_owned(f, o, addr, first, &buf)))
        return stat;
    if (memcmp(buf, "OHDR", 4) != 0 || buf[4] != 2)
        return GIVEUP;
    flags = buf[5];
    if (flags & 0xc0)
        return GIVEUP;
    start = 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
    if (start + ((size_t)1 << (flags & 3)) > first)
        return GIVEUP;
    size0 = (size_t)le(buf + start, 1 << (flags & 3));
    start += (size_t)1 << (flags & 3);
    if (size0 > av || start + size0 + 4 > av)
        return GIVEUP;
    total = start + size0 + 4;
    if (total > first && (stat = read_owned(f, o, addr, total, &buf)))
        return stat;
    if (!check_sum(buf, start + size0))
        return GIVEUP;
    att_crt = (flags & 0x04) != 0;
    if ((stat = collect_msgs(&ml, buf + start, size0, att_crt)))
        goto done;
    /* Continuation chunks append their messages: the loop meets them too. */
    for (size_t i = 0; i < ml.n; i++) {
        uint64_t caddr, clen;
        unsigned char *cb;
        if (ml.m[i].type != 0x10)
            continue;
        caddr = le(ml.m[i].p, 8);
        clen = le(ml.m[i].p + 8, 8);
        if (clen < 8 || clen > avail(f, caddr)) {
            stat = GIVEUP;
            goto done;
        }
        if ((stat = read_owned(f, o, caddr, (size_t)clen, &cb)))
            goto done;
        if (memcmp(cb, "OCHK", 4) != 0 || !check_sum(cb, (size_t)clen - 4)) {
            stat = GIVEUP;
            goto done;
        }
        if ((stat = collect_msgs(&ml, cb + 4, (size_t)clen - 8, att_crt)))
            goto done;
    }

    for (size_t i = 0; i < ml.n && !stat; i++) {
        msg *m = &ml.m[i];
        rd r = {m->p, m->p + m->len, 0};
        if (m->flags & 0x02) {   /* shared message */
            stat = GIVEUP;
            break;
        }
        switch (m->type) {
        case 0x00: case 0x04: case 0x0d: case 0x0e: case 0x10: case 0x12: case 0x13:
        case 0x16:
            break;   /* nil, old fill value, comment, times, B-tree K, ref count */
        case 0x01:
            has_space = 1;
            stat = parse_space(&r, &o->space);
            break;
        case 0x02: {
            unsigned ver = (unsigned)u(&r, 1), fl = (unsigned)u(&r, 1);
            if (ver != 0 || (fl & ~3u)) {
                stat = GIVEUP;
                break;
            }
            o->links_crt_tracked = fl & 1;
            if (fl & 1)
                u(&r, 8);
            lheap = u(&r, 8);
            lbt = u(&r, 8);
            is_group = 1;
            if (r.bad)
                stat = GIVEUP;
            break;
        }
        case 0x03:
            has_type = 1;
            stat = parse_type(&r, &o->type, 0);
            break;
        case 0x05:
            has_fill = 1;
            stat = parse_fill(o, m->p, m->len);
            break;
        case 0x06:
            is_group = 1;
            stat = parse_link(o, m->p, m->len);
            break;
        case 0x08:
            has_layout = 1;
            stat = parse_layout(o, m->p, m->len);
            break;
        case 0x0a:
            is_group = 1;
            break;
        case 0x0b:
            if (o->filters != NULL)
                stat = GIVEUP;
            else
                stat = parse_pipeline(o, m->p, m->len);
            break;
        case 0x0c:
            ncompact_atts++;
            stat = add_att(o, m->p, m->len, m->crt);
            break;
        case 0x15: {
            unsigned ver = (unsigned)u(&r, 1), fl = (unsigned)u(&r, 1);
            if (ver != 0 || (fl & ~3u)) {
                stat = GIVEUP;
                break;
            }
            if (fl & 1)
                u(&r, 2);
            aheap = u(&r, 8);
            abt = u(&r, 8);
            if (r.bad)
                stat = GIVEUP;
            break;
        }
        default:
            stat = GIVEUP;   /* symbol tables, external files, anything else */
            break;
        }
    }
    if (stat)
        goto done;
    if (lheap != H5N_UNDEF && (stat = dense_links(f, o, lheap, lbt)))
        goto done;
    if (aheap != H5N_UNDEF && (stat = dense_atts(f, o, aheap, abt)))
        goto done;
    /* Attribute order: creation order.  An object that does not track it
     * has every index 0: HDF5 then sorts its table of attribute pointers
     * (messages in header order) by that index with the C library's qsort,
     * and the same qsort on the same pointer table gives the same order.
     * (Dense storage without the index: HDF5's own business.) */
    if (o->natts > 1) {
        if (att_crt) {
            qsort(o->atts, o->natts, sizeof(h5n_att), cmp_att_crt);
        } else if (aheap != H5N_UNDEF) {
            stat = GIVEUP;
            goto done;
        } else if ((stat = sort_like_hdf5(o)))
            goto done;
    }
    if (is_group) {
        if (has_layout || has_type) {
            stat = GIVEUP;
            goto done;
        }
        o->kind = H5N_OBJ_GROUP;
        if (o->nlinks > 1)
            qsort(o->links, o->nlinks, sizeof(h5n_link),
                  o->links_crt_tracked ? cmp_link_crt : cmp_link_name);
    } else if (has_layout && has_type && has_space) {
        if (!has_fill) {
            stat = GIVEUP;   /* old-style fill value only */
            goto done;
        }
        o->kind = H5N_OBJ_DATASET;
    } else if (has_type && !has_layout && !has_space) {
        o->kind = H5N_OBJ_DATATYPE;
    } else {
        stat = GIVEUP;
    }
    (void)ncompact_atts;
done:
    free(ml.m);
    return stat;
}

void
h5n_obj_free(h5n_obj *o)
{
    for (size_t i = 0; i < o->natts; i++)
        free(o->atts[i].name);
    free(o->atts);
    for (size_t i = 0; i < o->nlinks; i++)
        free(o->links[i].name);
    free(o->links);
    for (size_t i = 0; i < o->nfilters; i++)
        free(o->filters[i].params);
    free(o->filters);
    for (size_t i = 0; i < o->nbufs; i++)
        free(o->bufs[i]);
    free(o->bufs);
    memset(o, 0, sizeof(*o));
}

/* ---- global heap ---------------------------------------------------------------- */

static int
load_gcol(h5n_file *f, uint64_t addr, gcol **gp)
{
    unsigned char h[16];
    gcol *g;
    uint64_t size;
    size_t pos, maxidx = 0;

    for (size_t i = 0; i < f->ngcols; i++)
        if (f->gcols[i].addr == addr) {
            *gp = &f->gcols[i];
            return NC_NOERR;
        }
    if (read_at(f, addr, h, 16) || memcmp(h, "GCOL", 4) != 0 || h[4] != 1)
        return GIVEUP;
    size = le(h + 8, 8);
    if (size < 16 || size > avail(f, addr))
        return GIVEUP;
    if (f->ngcols == f->gcap) {
        size_t cap = f->gcap ? 2 * f->gcap : 4;
        gcol *p = realloc(f->gcols, cap * sizeof(*p));
        if (p == NULL)
            return NC_ENOMEM;
        f->gcols = p;
        f->gcap = cap;
    }
    g = &f->gcols[f->ngcols];
    memset(g, 0, sizeof(*g));
    g->addr = addr;
    g->size = (size_t)size;
    if ((g->buf = malloc(g->size)) == NULL)
        return NC_ENOMEM;
    if (read_at(f, addr, g->buf, g->size)) {
        free(g->buf);
        return GIVEUP;
    }
    /* Index the objects by number (0 ends the list: free space). */
    for (pos = 16; pos + 16 <= g->size;) {
        unsigned idx = (unsigned)le(g->buf + pos, 2);
        uint64_t osz = le(g->buf + pos + 8, 8);
        if (idx == 0)
            break;
        if (osz > g->size - pos - 16)
            break;
        if (idx > maxidx)
            maxidx = idx;
        pos += 16 + (size_t)((osz + 7) / 8 * 8);
    }
    if ((g->index = calloc(maxidx + 1, sizeof(uint32_t))) == NULL) {
        free(g->buf);
        return NC_ENOMEM;
    }
    g->nindex = maxidx + 1;
    for (pos = 16; pos + 16 <= g->size;) {
        unsigned idx = (unsigned)le(g->buf + pos, 2);
        uint64_t osz = le(g->buf + pos + 8, 8);
        if (idx == 0 || osz > g->size - pos - 16)
            break;
        if (g->index[idx] == 0)
            g->index[idx] = (uint32_t)pos;
        pos += 16 + (size_t)((osz + 7) / 8 * 8);
    }
    f->ngcols++;
    *gp = g;
    return NC_NOERR;
}

int
h5n_vlen(h5n_file *f, const unsigned char *elem, const unsigned char **datap, size_t *lenp,
         uint32_t *countp)
{
    uint64_t addr = le(elem + 4, 8);
    uint32_t idx = (uint32_t)le(elem + 12, 4);
    gcol *g;
    size_t pos;
    int stat;

    *countp = (uint32_t)le(elem, 4);
    *datap = NULL;
    *lenp = 0;
    if (addr == 0)
        return NC_NOERR;
    if ((stat = load_gcol(f, addr, &g)))
        return stat;
    if (idx == 0 || idx >= g->nindex || (pos = g->index[idx]) == 0)
        return GIVEUP;
    *lenp = (size_t)le(g->buf + pos + 8, 8);
    *datap = g->buf + pos + 16;
    return NC_NOERR;
}
