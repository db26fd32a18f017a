/* h5n_obj.c: object headers of the native HDF5 reader and the messages
 * it reads in them: datatypes, dataspaces, attributes, links (compact and
 * dense), layout, filter pipeline, fill value. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "h5n_priv.h"

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

/* One record of a dense-storage B-tree, rs bytes, naming an object of
 * the fractal heap h. */
typedef int (*dense_rec_fn)(h5n_obj *o, fheap *h, const unsigned char *rec, unsigned rs);

/* Every record of the v2 B-tree btree (record type bt_type) over the
 * fractal heap heap, handed to fn; a record is a heap id plus extra bytes. */
static int
dense_walk(h5n_file *f, h5n_obj *o, uint64_t heap, uint64_t btree, unsigned bt_type,
           unsigned extra, dense_rec_fn fn)
{
    fheap h;
    unsigned char *recs = NULL;
    size_t n = 0;
    unsigned rs = 0;
    int stat;

    if ((stat = h5n_fh_open(f, o, heap, &h)))
        goto done;
    if ((stat = h5n_bt2_records(f, btree, bt_type, &recs, &n, &rs)))
        goto done;
    if (rs != h.idlen + extra) {
        stat = GIVEUP;
        goto done;
    }
    for (size_t i = 0; i < n && !stat; i++)
        stat = fn(o, &h, recs + i * rs, rs);
done:
    free(recs);
    h5n_fh_close(&h);
    return stat;
}

/* Link name index record: name hash (4), heap id. */
static int
dense_link(h5n_obj *o, fheap *h, const unsigned char *rec, unsigned rs)
{
    const unsigned char *p;
    size_t len;
    int stat;
    (void)rs;
    if ((stat = h5n_fh_get(h, rec + 4, &p, &len)))
        return stat;
    return parse_link(o, p, len);
}

static int
dense_links(h5n_file *f, h5n_obj *o, uint64_t heap, uint64_t btree)
{
    return dense_walk(f, o, heap, btree, 5, 4, dense_link);
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

/* Attribute creation-order index record: heap id, message flags,
 * creation order (4), name hash (4). */
static int
dense_att(h5n_obj *o, fheap *h, const unsigned char *rec, unsigned rs)
{
    const unsigned char *p;
    size_t len;
    int stat;
    if (rec[h->idlen] != 0)   /* shared attribute */
        return GIVEUP;
    if ((stat = h5n_fh_get(h, rec, &p, &len)))
        return stat;
    if (p >= rec && p < rec + rs) {
        /* A tiny object lives in the record: keep a copy. */
        unsigned char *c = malloc(len);
        if (c == NULL || (stat = h5n_keep_buf(o, c)))
            return NC_ENOMEM;
        memcpy(c, p, len);
        p = c;
    }
    return add_att(o, p, len, le(rec + h->idlen + 1, 4));
}

static int
dense_atts(h5n_file *f, h5n_obj *o, uint64_t heap, uint64_t btree)
{
    return dense_walk(f, o, heap, btree, 8, 9, dense_att);
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
        if ((m = h5n_grow(ml->m, &ml->cap, ml->n, sizeof(*m), 32)) == NULL)
            return NC_ENOMEM;
        ml->m = m;
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
    o->chunk_btree = H5N_UNDEF;
    if (ver == 3) {
        unsigned nd = (unsigned)u(&r, 1);
        o->chunk_btree = u(&r, 8);
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
    uint64_t av = h5n_avail(f, addr);
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
    if ((stat = h5n_read_owned(f, o, addr, first, &buf)))
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
    if (total > first && (stat = h5n_read_owned(f, o, addr, total, &buf)))
        return stat;
    if (!h5n_check_sum(buf, start + size0))
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
        if (clen < 8 || clen > h5n_avail(f, caddr)) {
            stat = GIVEUP;
            goto done;
        }
        if ((stat = h5n_read_owned(f, o, caddr, (size_t)clen, &cb)))
            goto done;
        if (memcmp(cb, "OCHK", 4) != 0 || !h5n_check_sum(cb, (size_t)clen - 4)) {
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


/* ---- attributes of version-1 object headers ---------------------------------------- */

/* Walk the messages of the version-1 object header at addr (continuation
 * blocks followed): fn(ud, type, flags, body, size) returns NC_NOERR to go
 * on, anything else to stop with it (1: found).  A header that is not
 * version 1, or a block out of the file, ends the walk with NC_NOERR. */
typedef int (*v1_fn)(void *ud, unsigned type, unsigned flags, const unsigned char *m,
                     size_t msz);

static int
v1_walk(h5n_file *f, uint64_t addr, v1_fn fn, void *ud)
{
    unsigned char pre[16];
    uint64_t blk[64][2];
    size_t nblk = 0;

    /* Prefix: version 1, reserved, message count, reference count, size. */
    if (h5n_read_at(f, addr, pre, 16) || pre[0] != 1)
        return NC_NOERR;
    blk[nblk][0] = addr + 16;
    blk[nblk++][1] = le(pre + 8, 4);
    for (size_t bi = 0; bi < nblk; bi++) {
        uint64_t off = blk[bi][0], len = blk[bi][1];
        unsigned char *b;
        if (len > ((uint64_t)1 << 24) || !h5n_in_file(f, off, len))
            return NC_NOERR;
        if ((b = malloc(len ? (size_t)len : 1)) == NULL)
            return NC_ENOMEM;
        if (h5n_read_at(f, off, b, (size_t)len)) {
            free(b);
            return NC_NOERR;
        }
        /* Messages: type (2), size (2), flags (1), reserved (3), body. */
        for (size_t p = 0; p + 8 <= len;) {
            unsigned type = (unsigned)le(b + p, 2), msz = (unsigned)le(b + p + 2, 2);
            const unsigned char *m = b + p + 8;
            int stat;
            if (msz > len - p - 8)
                break;
            if (type == 0x10 && msz >= 16 && nblk < 64) {        /* continuation */
                blk[nblk][0] = le(m, 8);
                blk[nblk++][1] = le(m + 8, 8);
            } else if ((stat = fn(ud, type, b[p + 4], m, msz)) != NC_NOERR) {
                free(b);
                return stat;
            }
            p += 8 + msz;
        }
        free(b);
    }
    return NC_NOERR;
}

/* An attribute message (versions 1-3): the offsets of its parts. */
typedef struct {
    size_t name, nsz, type, tsz, space, ssz, data;
} att_parts;

static int
att_layout(const unsigned char *m, size_t msz, att_parts *a)
{
    size_t hdr;
    if (msz < 8 || m[0] < 1 || m[0] > 3)
        return 0;
    hdr = m[0] == 3 ? 9 : 8;
    a->nsz = (size_t)le(m + 2, 2);
    a->tsz = (size_t)le(m + 4, 2);
    a->ssz = (size_t)le(m + 6, 2);
    a->name = hdr;
    if (m[0] == 1) { /* version 1 pads each part to 8 bytes */
        a->type = a->name + ((a->nsz + 7) & ~(size_t)7);
        a->space = a->type + ((a->tsz + 7) & ~(size_t)7);
        a->data = a->space + ((a->ssz + 7) & ~(size_t)7);
    } else {
        a->type = a->name + a->nsz;
        a->space = a->type + a->tsz;
        a->data = a->space + a->ssz;
    }
    return a->data <= msz;
}

typedef struct {
    unsigned mtype;
    const char *name;
    unsigned char **datap;
    size_t *lenp;
} find_ud;

static int
v1_copy(const unsigned char *p, size_t len, unsigned char **datap, size_t *lenp)
{
    if ((*datap = malloc(len + 1)) == NULL)
        return NC_ENOMEM;
    memcpy(*datap, p, len);
    *lenp = len;
    return 1;
}

static int
find_cb(void *ud, unsigned type, unsigned flags, const unsigned char *m, size_t msz)
{
    find_ud *u = ud;
    att_parts a;
    size_t namelen;
    if (type != u->mtype || (flags & 2))   /* shared messages: elsewhere */
        return NC_NOERR;
    if (type != 0x0C)
        return v1_copy(m, msz, u->datap, u->lenp);
    namelen = strlen(u->name) + 1;
    if (att_layout(m, msz, &a) && a.name + namelen <= msz &&
        memcmp(m + a.name, u->name, namelen) == 0)
        return v1_copy(m + a.data, msz - a.data, u->datap, u->lenp);
    return NC_NOERR;
}

int
h5n_v1_msg(h5n_file *f, uint64_t addr, unsigned mtype, const char *name, unsigned char **datap,
           size_t *lenp)
{
    find_ud u = {mtype, name, datap, lenp};
    int stat;
    *datap = NULL;
    *lenp = 0;
    if (mtype == 0x0C && name == NULL)
        return NC_NOERR;
    stat = v1_walk(f, addr, find_cb, &u);
    return stat == 1 ? NC_NOERR : stat;
}

/* HDF5 (1.10) decodes an attribute message trusting its parts: the name
 * is copied up to its NUL, the value is copied for as many bytes as the
 * dataspace and datatype say. */
static int
att_check_cb(void *ud, unsigned type, unsigned flags, const unsigned char *m, size_t msz)
{
    att_parts a;
    uint64_t tsize, n = 1;
    const unsigned char *sp;
    unsigned rank, sflags, ver, at;
    (void)ud;
    if (type != 0x0C || (flags & 2))
        return NC_NOERR;
    if (!att_layout(m, msz, &a) || a.nsz == 0 || a.name + a.nsz > msz ||
        memchr(m + a.name, 0, a.nsz) == NULL)
        return GIVEUP;
    if (m[0] >= 2 && (m[1] & 3))
        return NC_NOERR;   /* shared datatype or dataspace: described elsewhere */
    if (a.tsz < 8 || a.ssz < 4)
        return GIVEUP;
    /* datatype: class and version, 3 bytes of bits, size (4) */
    tsize = (m[a.type] & 0x0f) == 9 ? 16 : le(m + a.type + 4, 4);
    /* dataspace: version, rank, flags, (v1: 5 reserved | v2: type), sizes */
    sp = m + a.space;
    ver = sp[0];
    rank = sp[1];
    sflags = sp[2];
    if (ver == 1) {
        at = 8;
    } else if (ver == 2) {
        at = 4;
        if (sp[3] == 2)
            n = 0;   /* null dataspace */
    } else {
        return GIVEUP;
    }
    if (rank > H5N_MAX_RANK || at + (size_t)rank * 8 * ((sflags & 1) ? 2 : 1) > a.ssz)
        return GIVEUP;
    for (unsigned d = 0; d < rank && n; d++) {
        uint64_t len = le(sp + at + 8 * (size_t)d, 8);
        if (len != 0 && n > (uint64_t)msz / len)
            return GIVEUP;
        n *= len;
    }
    if (n != 0 && (tsize == 0 || n > (msz - a.data) / tsize))
        return GIVEUP;
    return NC_NOERR;
}

int
h5n_v1_atts_check(h5n_file *f, uint64_t addr)
{
    return v1_walk(f, addr, att_check_cb, NULL);
}

/* ---- version-1 B-trees of chunks ----------------------------------------------------- */

typedef struct {
    h5n_file *f;
    unsigned nd;             /* chunk rank + 1 (the element-size dimension) */
    uint64_t budget;         /* nodes left to visit */
    h5n_chunk_fn fn;         /* called for every chunk (NULL: none) */
    void *ctx;
} bt1;

static int
bt1_node(bt1 *b, uint64_t addr, int level)
{
    size_t ks = 8 + 8 * (size_t)b->nd, need;
    unsigned char hdr[24], *buf;
    unsigned n;
    int stat = NC_NOERR;

    if (b->budget-- == 0 || h5n_read_at(b->f, addr, hdr, 24) || memcmp(hdr, "TREE", 4) != 0 ||
        hdr[4] != 1 || (level >= 0 && hdr[5] != level))
        return GIVEUP;
    level = hdr[5];
    n = (unsigned)le(hdr + 6, 2);
    need = (size_t)n * (ks + 8) + ks;
    if (!h5n_in_file(b->f, addr + 24, need))
        return GIVEUP;
    if ((buf = malloc(need)) == NULL)
        return NC_ENOMEM;
    if (h5n_read_at(b->f, addr + 24, buf, need)) {
        free(buf);
        return GIVEUP;
    }
    /* Chunks themselves (level 0) are bounded where they are read. */
    for (unsigned i = 0; i < n && !stat && level > 0; i++)
        stat = bt1_node(b, le(buf + (size_t)i * (ks + 8) + ks, 8), level - 1);
    /* A chunk's key: its stored size, filter mask and origin (the
     * element-size dimension last); its address follows. */
    for (unsigned i = 0; i < n && !stat && level == 0 && b->fn != NULL; i++) {
        const unsigned char *k = buf + (size_t)i * (ks + 8);
        uint64_t origin[H5N_MAX_RANK + 1];
        for (unsigned d = 0; d < b->nd && d <= H5N_MAX_RANK; d++)
            origin[d] = le(k + 8 + 8 * (size_t)d, 8);
        if (b->fn(b->ctx, origin, (uint32_t)le(k, 4), (uint32_t)le(k + 4, 4), le(k + ks, 8)))
            stat = GIVEUP;
    }
    free(buf);
    return stat;
}

/* Both below: the root and rank of the B-tree, then the walk. */
static int
chunk_index_walk(h5n_file *f, const h5n_obj *o, uint64_t addr, h5n_chunk_fn fn, void *ctx, int *walked)
{
    unsigned char *lay = NULL;
    size_t len = 0;
    uint64_t root = H5N_UNDEF;
    unsigned nd = 0;
    bt1 b;
    int stat;

    if (o != NULL) {
        if (o->layout != H5N_CHUNKED)
            return NC_NOERR;
        root = o->chunk_btree;
        nd = (unsigned)o->chunk_ndims + 1;
    } else {
        if ((stat = h5n_v1_msg(f, addr, 0x08, NULL, &lay, &len)))
            return stat;
        /* version 3, chunked: rank + 1, B-tree address */
        if (lay != NULL && len >= 11 && lay[0] == 3 && lay[1] == 2) {
            nd = lay[2];
            root = le(lay + 3, 8);
        }
        free(lay);
    }
    if (root == H5N_UNDEF || nd == 0)
        return NC_NOERR;   /* no B-tree of version 1 (or nothing written) */
    if (fn != NULL && nd > H5N_MAX_RANK + 1)
        return GIVEUP;
    b.f = f;
    b.nd = nd;
    b.budget = h5n_file_size(f) / 24 + 1;
    b.fn = fn;
    b.ctx = ctx;
    if (walked)
        *walked = 1;
    return bt1_node(&b, root, -1);
}

int
h5n_chunk_index_check(h5n_file *f, const h5n_obj *o, uint64_t addr)
{
    return chunk_index_walk(f, o, addr, NULL, NULL, NULL);
}

int
h5n_chunk_index_walk(h5n_file *f, const h5n_obj *o, uint64_t addr, h5n_chunk_fn fn, void *ctx, int *walked)
{
    *walked = 0;
    return chunk_index_walk(f, o, addr, fn, ctx, walked);
}
