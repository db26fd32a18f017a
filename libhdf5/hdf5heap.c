/* hdf5heap.c: variable-length data checked before HDF5 reads it.
 *
 * In the file a string or vlen value is 16 bytes: the element count, the
 * address of a global heap collection and the object's index in it.  HDF5
 * (1.10) copies the object into a buffer sized from the count without
 * checking the index or the object's size against it, so one damaged byte
 * in the data or in the collection crashes H5Dread/H5Aread.  Here the raw
 * 16-byte elements of what a read will touch are read from the file and
 * each is checked by the native reader (h5n_vlen_check: collection parsed
 * and checked once per file, then one table look-up per element), objects
 * holding nested variable-length values recursively.
 *
 * Where the raw elements are out of our reach the read is left to HDF5:
 * filtered chunks, compact datasets, attributes in dense storage of a
 * version-1 header, files open for writing after their open.
 *
 * Chunk indexes stored as version-1 B-trees (no checksums) are walked the
 * same way once per dataset before its first read: HDF5 follows a child
 * pointer back to an ancestor until the stack runs out.  The attribute
 * messages of version-1 headers (no checksums either) are checked before
 * HDF5 first looks at an object's attributes (H5Aexists, H5Aiterate). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "hdf5int.h"
#include "h5n.h"

#define MAX_FIELDS 4096   /* variable-length fields of one element checked */
#define MAX_NEST 8        /* vlens inside vlens */
#define ROWBUF 4096       /* elements read at once */

/* ---- the checking reader of a file ------------------------------------------------ */

void
nc4h5_guard_open(NC4_file *f)
{
    NC4H5_file *hf = f->fmt;
    if (hf == NULL || hf->guard_tried)
        return;
    hf->guard_tried = 1;
    if (hf->mem == NC_INMEMORY) {
        if (hf->memio.memory != NULL)
            h5n_open_guard(NULL, -1, hf->memio.memory, hf->memio.size, &hf->guard);
    } else if (hf->remote != NULL) {
        hf->guard = nc4h5_remote_guard(hf->remote);
    } else if (hf->path != NULL) {
        /* HDF5's own descriptor when it reads the file with its POSIX
         * driver: no second descriptor per open file. */
        int fd = -1;
        hid_t fapl = hf->fid >= 0 ? H5Fget_access_plist(hf->fid) : -1;
        if (fapl >= 0) {
            void *h = NULL;
            if (H5Pget_driver(fapl) == H5FD_SEC2 && H5Fget_vfd_handle(hf->fid, fapl, &h) >= 0 &&
                h != NULL)
                fd = *(int *)h;
            H5Pclose(fapl);
        }
        h5n_open_guard(fd >= 0 ? NULL : hf->path, fd, NULL, 0, &hf->guard);
    }
}

h5n_file *
nc4h5_guard(NC4_file *f)
{
    NC4H5_file *hf = f->fmt;
    if (hf == NULL)
        return NULL;
    if (!hf->guard_tried && f->readonly)
        nc4h5_guard_open(f);
    return hf->guard;
}

void
nc4h5_guard_drop(NC4H5_file *hf)
{
    if (hf == NULL)
        return;
    if (hf->guard_obj != NULL) {
        h5n_obj_free(hf->guard_obj);
        free(hf->guard_obj);
        hf->guard_obj = NULL;
    }
    h5n_close(hf->guard);
    hf->guard = NULL;
    hf->guard_tried = 1;
}

/* ---- where the variable-length values of a type lie in the file --------------------
 * HDF5 hands out types laid out for memory (H5Dget_type, H5Aget_type): a
 * variable-length string is a pointer there (8 bytes) and 16 bytes in the
 * file, and compound members after it move.  The file layout is found as
 * HDF5 finds one from the other: members in offset order, each shifted by
 * what the members before it grew. */
typedef struct vmap vmap;
typedef struct {
    size_t off;         /* of the 16-byte element within the value */
    uint64_t base;      /* file size of one value of the sequence (1: string) */
    vmap *sub;          /* where the sequence's values hold more of them, or NULL */
} vfield;

struct vmap {
    size_t size;        /* file size of one value */
    vfield *fields;
    size_t n, cap;
    int unchecked;      /* too many fields, or a class not understood */
};

static void
vmap_free(vmap *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n; i++)
        vmap_free(m->fields[i].sub);
    free(m->fields);
    free(m);
}

static int
vmap_add(vmap *m, size_t off, uint64_t base, vmap *sub)
{
    if (m->n >= MAX_FIELDS) {
        m->unchecked = 1;
        vmap_free(sub);
        return NC_NOERR;
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 4;
        vfield *p = realloc(m->fields, cap * sizeof(*p));
        if (p == NULL) {
            vmap_free(sub);
            return NC_ENOMEM;
        }
        m->fields = p;
        m->cap = cap;
    }
    m->fields[m->n].off = off;
    m->fields[m->n].base = base;
    m->fields[m->n++].sub = sub;
    return NC_NOERR;
}

static int build(hid_t t, vmap *m, size_t off, size_t *dsizep, int depth);

/* A new map of type t alone (NULL when t holds no variable-length value). */
static int
build_map(hid_t t, int depth, vmap **mp)
{
    vmap *m = calloc(1, sizeof(*m));
    int stat;
    *mp = NULL;
    if (m == NULL)
        return NC_ENOMEM;
    if ((stat = build(t, m, 0, &m->size, depth))) {
        vmap_free(m);
        return stat;
    }
    if (m->n == 0 && !m->unchecked) {
        vmap_free(m);
        return NC_NOERR;
    }
    *mp = m;
    return NC_NOERR;
}

typedef struct {
    size_t off;
    hid_t t;
} memb;

static int
cmp_memb(const void *a, const void *b)
{
    size_t x = ((const memb *)a)->off, y = ((const memb *)b)->off;
    return x < y ? -1 : x > y;
}

/* Append the fields of type t placed at file offset off into m; *dsizep:
 * t's file size. */
static int
build(hid_t t, vmap *m, size_t off, size_t *dsizep, int depth)
{
    H5T_class_t cls = H5Tget_class(t);
    size_t msize = H5Tget_size(t);
    int stat = NC_NOERR;

    *dsizep = msize;
    if (depth > MAX_NEST || msize == 0) {
        m->unchecked = 1;
        return NC_NOERR;
    }
    switch (cls) {
    case H5T_STRING:
        if (H5Tis_variable_str(t) > 0) {
            *dsizep = 16;
            return vmap_add(m, off, 1, NULL);
        }
        return NC_NOERR;
    case H5T_VLEN: {
        hid_t super = H5Tget_super(t);
        vmap *sub = NULL;
        size_t bsize = 0;
        *dsizep = 16;
        if (super < 0) {
            m->unchecked = 1;
            return NC_NOERR;
        }
        if ((sub = calloc(1, sizeof(*sub))) == NULL)
            stat = NC_ENOMEM;
        else
            stat = build(super, sub, 0, &bsize, depth + 1);
        H5Tclose(super);
        if (stat) {
            vmap_free(sub);
            return stat;
        }
        sub->size = bsize;
        if (sub->unchecked)
            m->unchecked = 1;
        if (sub->n == 0 || sub->unchecked) {
            vmap_free(sub);
            sub = NULL;
        }
        return vmap_add(m, off, bsize, sub);
    }
    case H5T_ARRAY: {
        hsize_t dims[H5S_MAX_RANK];
        int nd = H5Tget_array_ndims(t);
        hid_t super;
        vmap *one;
        size_t nelem = 1;
        if (nd < 0 || nd > H5S_MAX_RANK || H5Tget_array_dims2(t, dims) != nd) {
            m->unchecked = 1;
            return NC_NOERR;
        }
        for (int d = 0; d < nd; d++)
            nelem *= (size_t)dims[d];
        if ((super = H5Tget_super(t)) < 0) {
            m->unchecked = 1;
            return NC_NOERR;
        }
        stat = build_map(super, depth + 1, &one);
        H5Tclose(super);
        if (stat || one == NULL)
            return stat;
        *dsizep = nelem * one->size;
        if (one->unchecked || nelem * one->n > MAX_FIELDS)
            m->unchecked = 1;
        for (size_t i = 0; i < nelem && !stat && !m->unchecked; i++)
            for (size_t k = 0; k < one->n && !stat; k++)
                stat = vmap_add(m, off + i * one->size + one->fields[k].off, one->fields[k].base,
                                NULL);
        /* Arrays of values holding nested sequences: check the outer
         * elements only (rare in netCDF files). */
        vmap_free(one);
        return stat;
    }
    case H5T_COMPOUND: {
        int nm = H5Tget_nmembers(t);
        memb *ms;
        size_t grow = 0;
        if (nm <= 0) {
            if (nm < 0)
                m->unchecked = 1;
            return NC_NOERR;
        }
        if ((ms = calloc((size_t)nm, sizeof(*ms))) == NULL)
            return NC_ENOMEM;
        for (int i = 0; i < nm; i++) {
            ms[i].off = H5Tget_member_offset(t, (unsigned)i);
            ms[i].t = H5Tget_member_type(t, (unsigned)i);
        }
        qsort(ms, (size_t)nm, sizeof(*ms), cmp_memb);
        for (int i = 0; i < nm; i++) {
            size_t ds = 0;
            if (ms[i].t < 0) {
                m->unchecked = 1;
                continue;
            }
            if (!stat)
                stat = build(ms[i].t, m, off + ms[i].off + grow, &ds, depth + 1);
            if (!stat)
                grow += ds - H5Tget_size(ms[i].t);
        }
        for (int i = 0; i < nm; i++)
            if (ms[i].t >= 0)
                H5Tclose(ms[i].t);
        free(ms);
        *dsizep = msize + grow;
        return stat;
    }
    default:
        return NC_NOERR;
    }
}

/* ---- checking values ------------------------------------------------------------------ */

/* n values of map m at p (file layout). */
static int
check_values(h5n_file *nf, const vmap *m, const unsigned char *p, size_t n, int depth)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < m->n; k++) {
            const vfield *fl = &m->fields[k];
            const unsigned char *e = p + i * m->size + fl->off, *data;
            int stat = h5n_vlen_check(nf, e, fl->base, &data);
            if (stat)
                return stat == NC_ENOMEM ? stat : NC_EHDFERR;
            if (data != NULL && fl->sub != NULL && depth < MAX_NEST) {
                uint32_t count = (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 |
                                 (uint32_t)e[3] << 24;
                if ((stat = check_values(nf, fl->sub, data, count, depth + 1)))
                    return stat;
            }
        }
    return NC_NOERR;
}

/* The version-2 header at addr as the native reader parses it, *op NULL
 * when it does not (a version-1 header...).  The header parsed last is
 * kept, parsed or not: attributes are read object by object. */
static int
cached_obj(NC4H5_file *hf, h5n_file *nf, uint64_t addr, h5n_obj **op)
{
    int stat;
    *op = NULL;
    if (hf->guard_obj == NULL && (hf->guard_obj = calloc(1, sizeof(h5n_obj))) == NULL)
        return NC_ENOMEM;
    /* (0 is the superblock's address, never a header's: a fresh entry) */
    if (hf->guard_obj->addr != addr) {
        h5n_obj_free(hf->guard_obj);
        memset(hf->guard_obj, 0, sizeof(h5n_obj));
        if ((stat = h5n_read_obj(nf, addr, hf->guard_obj))) {
            h5n_obj_free(hf->guard_obj);
            memset(hf->guard_obj, 0, sizeof(h5n_obj));
            hf->guard_obj->addr = addr;
            return stat == NC_ENOMEM ? stat : NC_NOERR;
        }
    }
    if (hf->guard_obj->nbufs > 0)
        *op = hf->guard_obj;
    return NC_NOERR;
}

int
nc4h5_guard_att(NC4_file *f, hid_t loc, const char *name, hid_t ftid, hsize_t npoints)
{
    h5n_file *nf = nc4h5_guard(f);
    vmap *m = NULL;
    haddr_t addr;
    h5n_obj *o;
    const unsigned char *data = NULL;
    unsigned char *v1 = NULL;
    size_t len = 0;
    int stat;

    if (nf == NULL || npoints == 0)
        return NC_NOERR;
    if ((stat = build_map(ftid, 0, &m)) || m == NULL || m->unchecked)
        goto done;
    if (nc4h5_obj_addr(loc, &addr))
        goto done;
    if ((stat = cached_obj(f->fmt, nf, (uint64_t)addr, &o)))
        goto done;
    for (size_t i = 0; o != NULL && i < o->natts; i++)
        if (strcmp(o->atts[i].name, name) == 0) {
            data = o->atts[i].data;
            len = o->atts[i].datalen;
            break;
        }
    if (data == NULL) {
        /* not a version-2 header: a version-1 one (dense storage: unchecked) */
        if ((stat = h5n_v1_msg(nf, (uint64_t)addr, 0x0C, name, &v1, &len)) || v1 == NULL)
            goto done;
        data = v1;
    }
    if (npoints > len / m->size)
        stat = NC_EHDFERR;
    else
        stat = check_values(nf, m, data, (size_t)npoints, 0);
done:
    free(v1);
    vmap_free(m);
    return stat;
}

/* The value of a fill-value message body (versions 1-3), NULL if none. */
static const unsigned char *
fill_of(const unsigned char *b, size_t len, size_t *sizep)
{
    size_t at;
    if (len < 1)
        return NULL;
    if (b[0] == 1 || b[0] == 2) {
        if (len < 3 || (b[0] == 2 && b[3 - 1] == 0))
            return NULL;   /* version 2: no value unless defined */
        at = 3;
    } else if (b[0] == 3) {
        if (len < 2 || !(b[1] & 0x20))
            return NULL;
        at = 2;
    } else {
        return NULL;
    }
    if (len < at + 4)
        return NULL;
    *sizep = (size_t)b[at] | (size_t)b[at + 1] << 8 | (size_t)b[at + 2] << 16 |
             (size_t)b[at + 3] << 24;
    if (*sizep == 0 || *sizep > len - at - 4)
        return NULL;
    return b + at + 4;
}

int
nc4h5_guard_fill(NC4_file *f, hid_t did, hid_t ftid)
{
    h5n_file *nf = nc4h5_guard(f);
    vmap *m = NULL;
    haddr_t addr;
    h5n_obj *o;
    const unsigned char *fill = NULL;
    unsigned char *v1 = NULL;
    size_t size = 0, len = 0;
    int stat;

    if (nf == NULL)
        return NC_NOERR;
    if ((stat = build_map(ftid, 0, &m)) || m == NULL || m->unchecked)
        goto done;
    if (nc4h5_obj_addr(did, &addr))
        goto done;
    if ((stat = cached_obj(f->fmt, nf, (uint64_t)addr, &o)))
        goto done;
    if (o != NULL) {
        if (o->fill_state == H5N_FILL_USER) {
            fill = o->fill;
            size = o->fill_size;
        }
    } else {
        if ((stat = h5n_v1_msg(nf, (uint64_t)addr, 0x05, NULL, &v1, &len)) || v1 == NULL)
            goto done;
        fill = fill_of(v1, len, &size);
    }
    if (fill != NULL)
        stat = size < m->size ? NC_EHDFERR : check_values(nf, m, fill, 1, 0);
done:
    free(v1);
    vmap_free(m);
    return stat;
}

/* ---- dataset reads -------------------------------------------------------------------- */

/* Check the values [first, first+n) of a contiguous dataset at addr. */
static int
check_run(h5n_file *nf, const vmap *m, uint64_t addr, uint64_t first, uint64_t n,
          unsigned char *buf)
{
    while (n > 0) {
        size_t k = n < ROWBUF ? (size_t)n : ROWBUF;
        int stat;
        if (h5n_read_at(nf, addr + first * m->size, buf, k * m->size))
            return NC_EHDFERR;
        if ((stat = check_values(nf, m, buf, k, 0)))
            return stat;
        first += k;
        n -= k;
    }
    return NC_NOERR;
}

static int
guard_contiguous(h5n_file *nf, const vmap *m, hid_t did, int nd, const hsize_t *dims,
                 const hsize_t *start, const hsize_t *stride, const hsize_t *count)
{
    haddr_t addr = H5Dget_offset(did);
    hsize_t idx[H5S_MAX_RANK] = {0};
    unsigned char *buf;
    int stat = NC_NOERR;

    if (addr == HADDR_UNDEF)
        return NC_NOERR;   /* nothing written: fill values */
    if ((buf = malloc((size_t)ROWBUF * m->size)) == NULL)
        return NC_ENOMEM;
    if (nd == 0) {
        stat = check_run(nf, m, addr, 0, 1, buf);
        free(buf);
        return stat;
    }
    for (;;) {
        uint64_t lin = 0;
        for (int d = 0; d < nd - 1; d++)
            lin = lin * dims[d] + start[d] + idx[d] * stride[d];
        lin = lin * dims[nd - 1] + start[nd - 1];
        if (stride[nd - 1] == 1) {
            stat = check_run(nf, m, addr, lin, count[nd - 1], buf);
        } else {
            for (hsize_t i = 0; i < count[nd - 1] && !stat; i++)
                stat = check_run(nf, m, addr, lin + i * stride[nd - 1], 1, buf);
        }
        if (stat)
            break;
        int d = nd - 2;
        for (; d >= 0; d--) {
            if (++idx[d] < count[d])
                break;
            idx[d] = 0;
        }
        if (d < 0)
            break;
    }
    free(buf);
    return stat;
}

static int
guard_chunked(h5n_file *nf, const vmap *m, hid_t did, hid_t dcpl, int nd, const hsize_t *dims,
              const hsize_t *start, const hsize_t *stride, const hsize_t *count)
{
    hsize_t cd[H5S_MAX_RANK], lo[H5S_MAX_RANK], hi[H5S_MAX_RANK], c[H5S_MAX_RANK],
        off[H5S_MAX_RANK];
    size_t nelem = 1;
    int nfilters = H5Pget_nfilters(dcpl);
    unsigned char *buf = NULL;
    int stat = NC_NOERR;

    if (nd == 0 || H5Pget_chunk(dcpl, nd, cd) != nd || nfilters < 0)
        return NC_NOERR;
    for (int d = 0; d < nd; d++) {
        if (cd[d] == 0)
            return NC_NOERR;
        nelem *= (size_t)cd[d];
        lo[d] = start[d] / cd[d];
        hi[d] = (start[d] + (count[d] - 1) * stride[d]) / cd[d];
        c[d] = lo[d];
    }
    if (nelem > ((size_t)1 << 32) / m->size)
        return NC_NOERR;
    if ((buf = malloc(nelem * m->size)) == NULL)
        return NC_ENOMEM;
    for (;;) {
        unsigned mask = 0;
        haddr_t addr = HADDR_UNDEF;
        hsize_t size = 0;
        for (int d = 0; d < nd; d++)
            off[d] = c[d] * cd[d];
        if (H5Dget_chunk_info_by_coord(did, off, &mask, &addr, &size) < 0) {
            stat = NC_EHDFERR;
            break;
        }
        /* Unwritten: fill values.  Filtered: the stored bytes are encoded. */
        if (addr != HADDR_UNDEF &&
            (nfilters == 0 || (mask & ((1u << nfilters) - 1)) == (1u << nfilters) - 1)) {
            hsize_t p[H5S_MAX_RANK] = {0}, ext[H5S_MAX_RANK];
            if (size < nelem * m->size || h5n_read_at(nf, addr, buf, nelem * m->size)) {
                stat = NC_EHDFERR;
                break;
            }
            /* The chunk's values inside the dataset's extent. */
            for (int d = 0; d < nd; d++)
                ext[d] = dims[d] - off[d] < cd[d] ? dims[d] - off[d] : cd[d];
            for (;;) {
                size_t lin = 0;
                for (int d = 0; d < nd; d++)
                    lin = lin * (size_t)cd[d] + (size_t)p[d];
                if ((stat = check_values(nf, m, buf + lin * m->size, (size_t)ext[nd - 1], 0)))
                    break;
                int d = nd - 2;
                for (; d >= 0; d--) {
                    if (++p[d] < ext[d])
                        break;
                    p[d] = 0;
                }
                if (d < 0)
                    break;
            }
            if (stat)
                break;
        }
        int d = nd - 1;
        for (; d >= 0; d--) {
            if (++c[d] <= hi[d])
                break;
            c[d] = lo[d];
        }
        if (d < 0)
            break;
    }
    free(buf);
    return stat;
}

int
nc4h5_guard_read(NC4_file *f, hid_t did, hid_t ftid, int storage, int ndims,
                 const hsize_t *start, const hsize_t *stride, const hsize_t *count)
{
    h5n_file *nf = nc4h5_guard(f);
    hsize_t dims[H5S_MAX_RANK];
    hid_t sid = -1, dcpl = -1;
    vmap *m = NULL;
    int stat;

    /* Compact data sits in the header (unchecked); the fill value was
     * checked by nc4h5_guard_index before the first read. */
    if (nf == NULL || storage == NC_COMPACT)
        return NC_NOERR;
    for (int d = 0; d < ndims; d++)
        if (count[d] == 0)
            return NC_NOERR;
    if ((stat = build_map(ftid, 0, &m)) || m == NULL || m->unchecked)
        goto done;
    if ((sid = H5Dget_space(did)) < 0 || H5Sget_simple_extent_ndims(sid) != ndims ||
        (ndims > 0 && H5Sget_simple_extent_dims(sid, dims, NULL) != ndims)) {
        stat = NC_EHDFERR;
        goto done;
    }
    if (storage == NC_CHUNKED) {
        if ((dcpl = H5Dget_create_plist(did)) < 0)
            stat = NC_EHDFERR;
        else if (H5Pget_layout(dcpl) == H5D_CHUNKED)
            stat = guard_chunked(nf, m, did, dcpl, ndims, dims, start, stride, count);
    } else {
        stat = guard_contiguous(nf, m, did, ndims, dims, start, stride, count);
    }
done:
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (sid >= 0)
        H5Sclose(sid);
    vmap_free(m);
    return stat;
}

/* ---- chunk indexes ---------------------------------------------------------------------- */

/* A compact dataset holds its values in its header: HDF5 copies as many
 * bytes as the extent needs out of what the header stores, unchecked. */
static int
guard_compact(NC4_file *f, hid_t did)
{
    hid_t ftid = -1, dcpl = -1, sid = -1;
    hssize_t npoints;
    vmap *m = NULL;
    size_t esize;
    int stat = NC_NOERR;

    if ((ftid = H5Dget_type(did)) < 0 || (stat = build_map(ftid, 0, &m)))
        goto done;
    /* H5Dget_create_plist converts the fill value: checked first. */
    if (m != NULL && (stat = nc4h5_guard_fill(f, did, ftid)))
        goto done;
    if ((dcpl = H5Dget_create_plist(did)) < 0 || (sid = H5Dget_space(did)) < 0 ||
        (npoints = H5Sget_simple_extent_npoints(sid)) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    esize = m != NULL ? m->size : H5Tget_size(ftid);
    if (H5Pget_layout(dcpl) == H5D_COMPACT &&
        (esize == 0 || (hsize_t)npoints > H5Dget_storage_size(did) / esize))
        stat = NC_EHDFERR;
done:
    if (sid >= 0)
        H5Sclose(sid);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (ftid >= 0)
        H5Tclose(ftid);
    else
        stat = NC_EHDFERR;
    vmap_free(m);
    return stat;
}

int
nc4h5_guard_index(NC4_file *f, NC4H5_var *hv)
{
    h5n_file *nf;
    haddr_t addr;
    h5n_obj *o;
    int stat;

    if (hv->index_checked)
        return NC_NOERR;
    if ((stat = guard_compact(f, hv->did)))
        return stat;
    if ((nf = nc4h5_guard(f)) != NULL && nc4h5_obj_addr(hv->did, &addr) == NC_NOERR) {
        if ((stat = cached_obj(f->fmt, nf, (uint64_t)addr, &o)))
            return stat;
        if ((stat = h5n_chunk_index_check(nf, o, (uint64_t)addr)))
            return stat == NC_ENOMEM ? stat : NC_EHDFERR;
    }
    hv->index_checked = 1;
    return NC_NOERR;
}

/* ---- attribute messages of version-1 headers --------------------------------------------- */

int
nc4h5_guard_header(NC4_file *f, hid_t obj)
{
    h5n_file *nf = nc4h5_guard(f);
    haddr_t addr;
    int stat;

    if (nf == NULL || nc4h5_obj_addr(obj, &addr))
        return NC_NOERR;
    if ((stat = h5n_v1_atts_check(nf, (uint64_t)addr)))
        return stat == NC_ENOMEM ? stat : NC_EHDFERR;
    return NC_NOERR;
}
