/* hdf5data.c: reading and writing variable data (vara and vars slots).
 *
 * One path for both: the selection is an HDF5 hyperslab with the caller's
 * stride (HDF5 gathers strided elements itself: no per-element calls), the
 * memory side is the caller's buffer when the memory type is the variable's
 * type (or NC_NAT / a user type id, which upstream treats as "the variable's
 * type"), else a temporary buffer converted with ncx_convert so values and
 * NC_ERANGE are those of the rest of the library.  Unfiltered datasets of
 * read-only files are read straight from the file by the chunk engine
 * instead (strided reads of chunked ones, large reads of contiguous ones:
 * see "reads straight from the file").
 *
 * Rules as upstream 4.10.1 (hdf5var.c NC4_get_vars/NC4_put_vars):
 *   - NC_ECHAR when exactly one of memory/variable type is NC_CHAR;
 *   - define mode: classic model NC_EINDEFINE, else the implicit enddef;
 *   - stride <= 0: NC_ESTRIDE; start > len, or start == len with count > 0:
 *     NC_EINVALCOORDS; last index >= len with no zero count: NC_EEDGE
 *     (reads check unlimited dims against the dim's length, the longest
 *     variable; writes do not check them and extend the dataset);
 *   - a read past a variable's own extent along an unlimited dim returns its
 *     fill value there (upstream fills only the trailing part correctly; we
 *     fill every element outside the extent);
 *   - the classic model ignores NC_ERANGE between NC_BYTE and NC_UBYTE.
 * Fixed-size HDF5 strings (read as NC_STRING) come back as malloc'd strings. */
#include "config.h"
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "hdf5int.h"
#include "h5n.h"
#include "ncx.h"
#include "ncfilter.h"
#include "hdf5chunk.h"
#include "ncchunk.h"

/* Native memory type for the values of var as they are in memory when
 * no conversion is asked (strings and chars: the dataset's own string type,
 * so HDF5 never pads or recodes them). */
static int
mem_type(NC4_file *f, NC4_var *var, hid_t did, hid_t *tidp)
{
    if (var->xtype == NC_CHAR || var->xtype == NC_STRING) {
        hid_t t = H5Dget_type(did);
        if (t < 0)
            return NC_EHDFERR;
        *tidp = t;
        return NC_NOERR;
    }
    return nc4h5_hdf5_type(f, var->xtype, NC_ENDIAN_NATIVE, 0, tidp);
}

/* The fill value used for reads beyond a variable's extent. */
static int
fill_for(NC4_file *f, NC4_var *var, size_t size, void *fill)
{
    memset(fill, 0, size);
    if (var->fill_value != NULL)
        return nc4_copy_values(f, var->xtype, var->fill_value, fill, 1);
    if (var->xtype <= NC_STRING) {
        if (var->xtype == NC_STRING) {
            char *s = strdup("");
            if (s == NULL)
                return NC_ENOMEM;
            *(char **)fill = s;
            return NC_NOERR;
        }
        return ncx_default_fill(var->xtype, fill);
    }
    return NC_NOERR;   /* user types: zeros (vlens empty) */
}

typedef struct {
    NC4_file *f;
    NC4_grp *g;
    NC4_var *var;
    NC4H5_var *hv;
    nc_type memtype;     /* resolved */
    int convert;         /* memtype differs from var->xtype */
    hsize_t start[H5S_MAX_RANK], count[H5S_MAX_RANK], stride[H5S_MAX_RANK];
    size_t n;            /* values requested */
    int zero;            /* some count is 0 */
} access_t;

/* Checks common to reads and writes, up to the implicit enddef. */
static int
prepare(int ncid, int varid, const size_t *startp, const size_t *countp,
        const ptrdiff_t *stridep, nc_type memtype, int write, access_t *a)
{
    NC4_var *var;
    int stat;

    memset(a, 0, sizeof(*a));
    if ((stat = nc4_find_var(ncid, varid, &a->f, &a->g, &var)))
        return stat;
    a->var = var;
    if (memtype >= NC_FIRSTUSERTYPEID || memtype == NC_NAT)
        memtype = var->xtype;
    if (memtype != var->xtype && (memtype == NC_CHAR || var->xtype == NC_CHAR))
        return NC_ECHAR;
    a->memtype = memtype;
    a->convert = memtype != var->xtype;
    /* A read-only file is left to HDF5, whose refusal is NC_EHDFERR as
     * upstream returns (it has no NC_EPERM check here). */
    (void)write;
    if ((stat = nc4_data_define(a->f, var)))
        return stat;
    /* The dataset may not be open yet (datasets open lazily). */
    if (!var->created)
        return NC_EHDFERR;
    if ((stat = nc4h5_var_open_dataset(var)))
        return stat;
    a->hv = (NC4H5_var *)var->fmt;
    if (a->hv == NULL || a->hv->did < 0)
        return NC_EHDFERR;
    if (var->ndims > H5S_MAX_RANK)
        return NC_EMAXDIMS;
    a->n = 1;
    for (int d = 0; d < var->ndims; d++) {
        if (stridep && stridep[d] <= 0)
            return NC_ESTRIDE;
        a->start[d] = startp ? startp[d] : 0;
        a->count[d] = countp ? countp[d] : var->dims[d]->len;
        a->stride[d] = stridep ? (hsize_t)stridep[d] : 1;
        if (a->count[d] == 0)
            a->zero = 1;
        a->n *= (size_t)a->count[d];
    }
    if (a->zero)
        a->n = 0;
    return NC_NOERR;
}

/* Walk every element of the count box; fill those outside the in-extent
 * box `in` with copies of fill (element size size). */
static int
fill_outside(NC4_file *f, NC4_var *var, unsigned char *buf, size_t size,
             const hsize_t *count, const hsize_t *in, const void *fill)
{
    int nd = var->ndims;
    hsize_t idx[H5S_MAX_RANK] = {0};
    size_t n = 1;
    int stat;

    for (int d = 0; d < nd; d++)
        n *= (size_t)count[d];
    for (size_t i = 0; i < n; i++) {
        int out = 0;
        for (int d = 0; d < nd; d++)
            if (idx[d] >= in[d])
                out = 1;
        if (out && (stat = nc4_copy_values(f, var->xtype, fill, buf + i * size, 1)))
            return stat;
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < count[d])
                break;
            idx[d] = 0;
        }
    }
    return NC_NOERR;
}

/* Fixed-size string dataset read into malloc'd strings at out. */
static int
read_fixed_strings(hid_t did, hid_t ftid, hid_t msid, hid_t fsid, size_t n, char **out)
{
    size_t fsize = H5Tget_size(ftid);
    char *raw;

    if (fsize == 0)
        return NC_EHDFERR;
    if (n > SIZE_MAX / fsize || (raw = malloc(n > 0 ? n * fsize : 1)) == NULL)
        return NC_ENOMEM;
    if (H5Dread(did, ftid, msid, fsid, H5P_DEFAULT, raw) < 0) {
        free(raw);
        return NC_EHDFERR;
    }
    for (size_t i = 0; i < n; i++) {
        char *s = malloc(fsize + 1);
        if (s == NULL) {
            for (size_t k = 0; k < i; k++)
                free(out[k]);
            free(raw);
            return NC_ENOMEM;
        }
        memcpy(s, raw + i * fsize, fsize);
        s[fsize] = '\0';
        out[i] = s;
    }
    free(raw);
    return NC_NOERR;
}

/* ---- strided reads by box and gather ----------------------------------------
 * HDF5 walks a strided selection one element span at a time, which costs
 * several times a plain read of the whole enclosing box.  So a strided read
 * of fixed-size values reads the box (stride 1) in slabs of about
 * GATHER_SLAB bytes and picks the wanted elements in a tight loop, as long
 * as the box is at most GATHER_WASTE times the data wanted.  The slab is
 * small on purpose: every fresh 4 KiB page of a big buffer costs a fault,
 * which on a virtual machine outweighs the extra H5Dread calls. */
#define GATHER_SLAB ((size_t)256 << 10)
#define GATHER_WASTE 64

/* Copy n elements of size bytes, src every `step` elements, to dst. */
static void
gather_row(unsigned char *dst, const unsigned char *src, size_t n, size_t step, size_t size)
{
    switch (size) {
    case 1:
        for (size_t i = 0; i < n; i++) dst[i] = src[i * step];
        break;
    case 2: {
        uint16_t *d = (uint16_t *)(void *)dst;
        for (size_t i = 0; i < n; i++) memcpy(&d[i], src + i * step * 2, 2);
        break;
    }
    case 4: {
        uint32_t *d = (uint32_t *)(void *)dst;
        for (size_t i = 0; i < n; i++) memcpy(&d[i], src + i * step * 4, 4);
        break;
    }
    case 8: {
        uint64_t *d = (uint64_t *)(void *)dst;
        for (size_t i = 0; i < n; i++) memcpy(&d[i], src + i * step * 8, 8);
        break;
    }
    default:
        for (size_t i = 0; i < n; i++) memcpy(dst + i * size, src + i * step * size, size);
    }
}

/* Every stride of a's request is 1. */
static int
unit_strides(const access_t *a, int nd)
{
    for (int d = 0; d < nd; d++)
        if (a->stride[d] != 1)
            return 0;
    return 1;
}

/* Whether a strided read of a's request is worth doing by box and gather. */
static int
gather_worth(const access_t *a, int nd, size_t size)
{
    double box = 1, want = 1;
    int strided = 0;
    for (int d = 0; d < nd; d++) {
        if (a->stride[d] > 1 && a->count[d] > 1)
            strided = 1;
        box *= (double)((a->count[d] - 1) * a->stride[d] + 1);
        want *= (double)a->count[d];
    }
    (void)size;
    return strided && box <= want * GATHER_WASTE;
}

/* Read a's strided request into out (memory type mtid, element size size)
 * by boxes along dimension 0. */
static int
gather_read(const access_t *a, int nd, hid_t did, hid_t mtid, size_t size, unsigned char *out)
{
    hsize_t bstart[H5S_MAX_RANK], bcount[H5S_MAX_RANK];
    size_t inner = 1, rows_per, outrow = 1;
    unsigned char *box = NULL;
    hid_t fsid = -1, msid = -1;
    int stat = NC_NOERR;

    for (int d = 1; d < nd; d++) {
        bcount[d] = (a->count[d] - 1) * a->stride[d] + 1;
        bstart[d] = a->start[d];
        inner *= (size_t)bcount[d];
        outrow *= (size_t)a->count[d];
    }
    /* Output rows (along dim 0) per slab. */
    rows_per = GATHER_SLAB / (inner * size * (size_t)a->stride[0]);
    if (rows_per == 0)
        rows_per = 1;
    if (rows_per > a->count[0])
        rows_per = (size_t)a->count[0];
    if ((box = malloc((((rows_per - 1) * (size_t)a->stride[0]) + 1) * inner * size)) == NULL)
        return NC_ENOMEM;
    if ((fsid = H5Dget_space(did)) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    for (size_t r0 = 0; r0 < a->count[0] && !stat; r0 += rows_per) {
        size_t nrows = a->count[0] - r0 < rows_per ? a->count[0] - r0 : rows_per;
        hsize_t idx[H5S_MAX_RANK] = {0};
        bstart[0] = a->start[0] + r0 * a->stride[0];
        bcount[0] = (nrows - 1) * a->stride[0] + 1;
        if (H5Sselect_hyperslab(fsid, H5S_SELECT_SET, bstart, NULL, bcount, NULL) < 0 ||
            (msid = H5Screate_simple(nd, bcount, NULL)) < 0 ||
            H5Dread(did, mtid, msid, fsid, H5P_DEFAULT, box) < 0) {
            stat = NC_EHDFERR;
            break;
        }
        H5Sclose(msid);
        msid = -1;
        if (nd == 1) {
            gather_row(out + r0 * size, box, nrows, (size_t)a->stride[0], size);
            continue;
        }
        /* One output row of the last dimension at a time (odometer over
         * the others). */
        for (size_t r = 0; r < nrows; r++) {
            size_t nlast = (size_t)a->count[nd - 1];
            size_t nouter = outrow / nlast;
            for (int d = 0; d < nd; d++)
                idx[d] = 0;
            for (size_t k = 0; k < nouter; k++) {
                size_t off = r * (size_t)a->stride[0];
                unsigned char *dst;
                for (int d = 1; d < nd - 1; d++)
                    off = off * (size_t)bcount[d] + (size_t)(idx[d] * a->stride[d]);
                off = off * (size_t)bcount[nd - 1];
                dst = out + ((r0 + r) * outrow + k * nlast) * size;
                gather_row(dst, box + off * size, nlast, (size_t)a->stride[nd - 1], size);
                for (int d = nd - 2; d >= 1; d--) {
                    if (++idx[d] < a->count[d])
                        break;
                    idx[d] = 0;
                }
            }
        }
    }
done:
    if (msid >= 0)
        H5Sclose(msid);
    if (fsid >= 0)
        H5Sclose(fsid);
    free(box);
    return stat;
}

/* ---- reads straight from the file -------------------------------------------
 * A read-only file's dataset without filters holds its values in the file
 * as they are in memory (perhaps in the other byte order).  Such reads go
 * to the chunk engine (ncc_plain_read): the selection over the chunk grid,
 * then pool tasks read each chunk straight into the caller's buffer when
 * it is one run of it (else into scratch, then gather), swapping and
 * converting there.  A chunk never written reads as the fill value, as
 * HDF5 returns it.  A chunked dataset's chunks are read raw where
 * hdf5chunk.c says they are (nc4h5_plain_begin: on disk by pread outside
 * the HDF5 lock, on the pool, at addresses kept in the variable's table;
 * else H5Dread_chunk on the calling thread under one hold of the lock);
 * HDF5's chunk cache is skipped, and chunks the stride steps over are
 * never read.  A
 * contiguous dataset is cut into pieces of about PLAIN_PIECE bytes, each
 * one run of the file, read without the lock with the file's checking
 * reader (pread on HDF5's own descriptor, or the memory image): only a
 * local file or memory with no user block (addresses are then file
 * offsets), data allocated and not external.  Read-only only: a writable
 * file could have newer data in HDF5's caches.  Whatever fails here is
 * settled by HDF5's own read. */
#define PLAIN_CHUNK_MAX ((size_t)64 << 20)  /* larger chunks: HDF5's */
#define PLAIN_PIECE ((size_t)1 << 20)       /* bytes of a contiguous piece */
#define PLAIN_ROW_MAX ((size_t)4 << 20)     /* an axis longer than this is cut */
#define PLAIN_CONTIG_MIN ((size_t)4 << 20)  /* smaller contiguous reads: HDF5's */

typedef struct plain_src {
    h5n_file *nf;
    int nd;
    hsize_t cd[H5S_MAX_RANK];   /* chunk (or piece) shape */
    hsize_t dims[H5S_MAX_RANK]; /* the dataset's extent */
    haddr_t addr;               /* contiguous: where the data starts */
    size_t fsize;               /* bytes of a stored element */
} plain_src;

static int
plain_pread(void *src, uint64_t off, void *buf, size_t len)
{
    const plain_src *ps = src;
    /* Bytes outside the file: HDF5's read would fail there too. */
    return h5n_read_at(ps->nf, off, buf, len) == NC_NOERR ? NC_NOERR : NC_EHDFERR;
}

/* Piece idx of a contiguous dataset: its in-extent elements are one run
 * of the file (only the cut axis can end early; those after it are whole). */
static int
piece_where(void *src, const uint64_t *idx, uint64_t *offp, size_t *nelemsp)
{
    const plain_src *ps = src;
    uint64_t lin = 0;
    size_t n = 1;
    for (int d = 0; d < ps->nd; d++) {
        hsize_t o = (hsize_t)idx[d] * ps->cd[d];
        hsize_t m = ps->dims[d] - o < ps->cd[d] ? ps->dims[d] - o : ps->cd[d];
        lin = lin * ps->dims[d] + o;
        n *= (size_t)m;
    }
    *offp = (uint64_t)ps->addr + lin * ps->fsize;
    *nelemsp = n;
    return NC_NOERR;
}

/* Pieces of a contiguous dataset: whole along the axes after the cut axis
 * k (the first whose inner rows are at most PLAIN_ROW_MAX bytes), about
 * PLAIN_PIECE bytes along it, single indices before it. */
static void
piece_shape(int nd, const hsize_t *dims, size_t fsize, hsize_t *cd)
{
    size_t inner = fsize;
    int k = nd - 1;
    while (k > 0 && inner <= PLAIN_ROW_MAX / dims[k]) {
        inner *= (size_t)dims[k];
        k--;
    }
    for (int d = 0; d < nd; d++)
        cd[d] = d < k ? 1 : dims[d];
    cd[k] = PLAIN_PIECE / inner;
    if (cd[k] < 1)
        cd[k] = 1;
    if (cd[k] > dims[k])
        cd[k] = dims[k];
}

/* Whether HDF5 stores var's values (type ftid) as they are in memory,
 * *swap when in the other byte order. */
static int
plain_type(NC4_file *f, NC4_var *var, hid_t ftid, int *swap)
{
    static const int orders[2] = {NC_ENDIAN_LITTLE, NC_ENDIAN_BIG};
    hid_t t;
    int eq;
    *swap = 0;
    if (var->xtype == NC_CHAR)
        return H5Tget_class(ftid) == H5T_STRING && H5Tis_variable_str(ftid) == 0 && H5Tget_size(ftid) == 1;
    if (var->xtype < NC_BYTE || var->xtype > NC_UINT64 || var->xtype == NC_STRING)
        return 0;
    if (nc4h5_hdf5_type(f, var->xtype, NC_ENDIAN_NATIVE, 0, &t))
        return 0;
    eq = H5Tequal(ftid, t) > 0;
    H5Tclose(t);
    if (eq)
        return 1;
    for (int i = 0; i < 2; i++) {
        if (nc4h5_hdf5_type(f, var->xtype, orders[i], 1, &t))
            return 0;
        eq = H5Tequal(ftid, t) > 0;
        H5Tclose(t);
        if (eq) {
            *swap = 1; /* not the native order, which matched above */
            return 1;
        }
    }
    return 0;
}

/* Read a's request (not past the extent fdims) straight from the file into
 * out: a chunked dataset in its own type (strided reads: the caller
 * converts the values gathered), a contiguous one converted in the tasks
 * to a's memory type.  *taken 0: the dataset is HDF5's (nothing read).
 * mtid: the variable's memory type (for nc4h5_plain_begin).  Called with
 * this call's hold of the lock, which the pool's work runs without. */
static int
plain_read(const access_t *a, hid_t ftid, hid_t mtid, int chunked, const hsize_t *fdims, void *out, int *taken)
{
    NC4_var *var = a->var;
    NC4H5_file *hf = a->f->fmt;
    int nd = var->ndims, layout, swap = 0, stat;
    size_t start[H5S_MAX_RANK], count[H5S_MAX_RANK], chunk[H5S_MAX_RANK], dimlen[H5S_MAX_RANK];
    ptrdiff_t stride[H5S_MAX_RANK];
    unsigned char fill[16];
    hsize_t ub = 1;
    hid_t did = a->hv->did, dcpl, fcpl;
    nc4h5_plain_chunks pc;
    plain_src ps;
    ncc_plain p;
    ncc_grid g;
    ncc_sel s;

    *taken = 0;
    if (!a->f->readonly || hf == NULL || hf->fid < 0 || nd < 1 || !plain_type(a->f, var, ftid, &swap))
        return NC_NOERR;
    memset(&ps, 0, sizeof(ps));
    memset(&p, 0, sizeof(p));
    if (!chunked) {
        /* Read with pread at file offsets. */
        if (hf->remote != NULL || (fcpl = H5Fget_create_plist(hf->fid)) < 0)
            return NC_NOERR;
        if (H5Pget_userblock(fcpl, &ub) < 0)
            ub = 1;
        H5Pclose(fcpl);
        if (ub != 0 || (ps.nf = nc4h5_guard(a->f)) == NULL)
            return NC_NOERR;
    }
    ps.nd = nd;
    ps.fsize = nc4_type_size(a->f, var->xtype);
    for (int d = 0; d < nd; d++)
        ps.dims[d] = fdims[d];
    if ((dcpl = H5Dget_create_plist(did)) < 0)
        return NC_NOERR;
    layout = H5Pget_layout(dcpl);
    if (chunked) {
        H5D_fill_time_t ft = H5D_FILL_TIME_IFSET;
        H5D_fill_value_t fs = H5D_FILL_VALUE_UNDEFINED;
        size_t cbytes = ps.fsize;
        int ok = layout == H5D_CHUNKED && H5Pget_nfilters(dcpl) == 0 && H5Pget_chunk(dcpl, nd, ps.cd) == nd &&
                 H5Pget_fill_time(dcpl, &ft) >= 0 && H5Pfill_value_defined(dcpl, &fs) >= 0 &&
                 fs != H5D_FILL_VALUE_UNDEFINED && ps.fsize <= sizeof(fill);
        for (int d = 0; d < nd && ok; d++) {
            ok = ps.cd[d] > 0 && cbytes <= PLAIN_CHUNK_MAX / ps.cd[d];
            cbytes *= ok ? (size_t)ps.cd[d] : 1;
        }
        if (ok && ft != H5D_FILL_TIME_NEVER) {
            /* The fill value in memory order, as HDF5 fills a chunk never written. */
            hid_t mt = -1;
            ok = var->xtype == NC_CHAR ? (mt = H5Tcopy(ftid)) >= 0
                                       : nc4h5_hdf5_type(a->f, var->xtype, NC_ENDIAN_NATIVE, 0, &mt) == NC_NOERR;
            if (ok && H5Pget_fill_value(dcpl, mt, fill) < 0)
                memset(fill, 0, sizeof(fill));
            if (mt >= 0)
                H5Tclose(mt);
            p.fill = fill;
        }
        H5Pclose(dcpl);
        if (!ok)
            return NC_NOERR;
        p.ftype = p.mtype = var->xtype;
    } else {
        int ok = layout == H5D_CONTIGUOUS && H5Pget_nfilters(dcpl) == 0 && H5Pget_external_count(dcpl) == 0;
        H5Pclose(dcpl);
        if (!ok || (ps.addr = H5Dget_offset(did)) == HADDR_UNDEF)
            return NC_NOERR;   /* never written: HDF5 gives the fill values */
        piece_shape(nd, fdims, ps.fsize, ps.cd);
        p.where = piece_where;
        p.read = plain_pread;
        p.ftype = var->xtype;
        p.mtype = a->memtype;
        p.classic = a->f->classic_model;
    }
    p.src = &ps;
    p.fsize = ps.fsize;
    p.swap = swap && ps.fsize > 1;
    for (int d = 0; d < nd; d++) {
        chunk[d] = (size_t)ps.cd[d];
        start[d] = (size_t)a->start[d];
        count[d] = (size_t)a->count[d];
        stride[d] = (ptrdiff_t)a->stride[d];
        dimlen[d] = (size_t)fdims[d];
    }
    if ((stat = ncc_grid_init(&g, nd, chunk, nc4_type_size(a->f, p.mtype), (size_t)UINT32_MAX)) ||
        (stat = ncc_sel_init(&s, &g, start, count, stride, dimlen, NULL)))
        return stat == NC_ENOMEM ? stat : NC_NOERR;
    nc4h5_unlock();
    if (chunked) {
        /* Where the chunks are and how they are read: hdf5chunk.c. */
        stat = nc4h5_plain_begin(var, did, mtid, ps.fsize, &g, &s, &pc, &p);
        if (stat == NC_NOERR)
            stat = ncc_plain_read(&p, &g, &s, out);
        nc4h5_plain_end(&pc);
    } else {
        stat = ncc_plain_read(&p, &g, &s, out);
    }
    nc4h5_lock();
    /* Any failure (bytes past the end of a file cut short, which HDF5 reads
     * as zeros; a chunk index HDF5 refuses) is settled by HDF5's own read
     * of the whole request, which overwrites what was read here. */
    *taken = stat == NC_NOERR || stat == NC_ERANGE;
    return *taken ? stat : NC_NOERR;
}

static int
get_vars(int ncid, int varid, const size_t *startp, const size_t *countp,
         const ptrdiff_t *stridep, void *value, nc_type memtype)
{
    access_t a;
    NC4_var *var;
    hid_t fsid = -1, msid = -1, mtid = -1, ftid = -1;
    hsize_t fdims[H5S_MAX_RANK], incount[H5S_MAX_RANK];
    size_t size, nin = 1;
    int partial = 0, range = 0, fixed_str = 0, piped = 0;
    void *buf = NULL, *fill = NULL;
    int stat;

#if NC_ENABLE_PARALLEL4
    /* parallel HDF5 (hdf5par.c); variable-length values are read below, as
     * in a serial file, each rank independently */
    if (nc4h5_par_file(ncid) && !nc4h5_par_vlen(ncid, varid))
        return nc4h5_par_get_vars(ncid, varid, startp, countp, stridep, value, memtype);
#endif
    nc4h5_lock();
    if ((stat = prepare(ncid, varid, startp, countp, stridep, memtype, 0, &a)))
        goto done;
    var = a.var;
    if ((stat = nc4h5_guard_index(a.f, a.hv)))
        goto done;
    /* Reads go to the file: chunks the write-back cache holds go there first
     * (encoded with this call's hold of the lock released). */
    nc4h5_unlock();
    stat = nc4h5_chunk_cache_flush(var, 0);
    nc4h5_lock();
    if (stat)
        goto done;
    if ((fsid = H5Dget_space(a.hv->did)) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    if (var->ndims > 0 && H5Sget_simple_extent_dims(fsid, fdims, NULL) != var->ndims) {
        stat = NC_EHDFERR;
        goto done;
    }
    for (int d = 0; d < var->ndims; d++) {
        hsize_t len = var->dims[d]->unlimited ? (hsize_t)var->dims[d]->len : fdims[d];
        if (var->dims[d]->unlimited && len < fdims[d])
            len = fdims[d];
        if ((stat = ncc_check_bound(a.start[d], a.count[d], a.stride[d], len, a.zero)))
            goto done;
        /* How much of the request lies inside this dataset's extent. */
        incount[d] = a.count[d];
        if (a.count[d] && a.start[d] + a.stride[d] * (a.count[d] - 1) >= fdims[d]) {
            incount[d] = a.start[d] >= fdims[d] ? 0
                         : (fdims[d] - a.start[d] + a.stride[d] - 1) / a.stride[d];
            partial = 1;
        }
        nin *= (size_t)incount[d];
    }
    if (a.n == 0)
        goto done;
    /* No buffer: NC_EHDFERR, HDF5's refusal of it in upstream's H5Dread. */
    if (value == NULL) {
        stat = NC_EHDFERR;
        goto done;
    }
    /* Only numbers convert (ncx_convert's NC_EBADTYPE), checked before any
     * string or vlen memory is allocated by the read. */
    if (a.convert && (var->xtype > NC_UINT64 || a.memtype > NC_UINT64)) {
        stat = NC_EBADTYPE;
        goto done;
    }
    size = nc4_type_size(a.f, var->xtype);
    if (size == 0) {
        stat = NC_EBADTYPE;
        goto done;
    }
    if ((ftid = H5Dget_type(a.hv->did)) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    fixed_str = var->xtype == NC_STRING && H5Tis_variable_str(ftid) <= 0;
    if ((stat = mem_type(a.f, var, a.hv->did, &mtid)))
        goto done;
    if (nin > 0 && !partial && !fixed_str && var->ndims > 0 && a.n >= PLAIN_CONTIG_MIN / size &&
        unit_strides(&a, var->ndims)) {
        /* A large read of a contiguous dataset: pieces read and converted
         * on the pool straight into the caller's buffer. */
        int taken = 0;
        stat = plain_read(&a, ftid, mtid, 0, fdims, value, &taken);
        if (stat == NC_ERANGE) {
            range = 1;
            stat = NC_NOERR;
        }
        if (stat || taken)
            goto done;
    }
    buf = value;
    if (a.convert) {
        if (a.n > SIZE_MAX / size || (buf = malloc(a.n * size)) == NULL) {
            stat = NC_ENOMEM;
            goto done;
        }
    }
    if (partial)
        memset(buf, 0, a.n * size);
    if (nin > 0 && !partial && !fixed_str && var->ndims > 0 &&
        !nc4_type_has_pointers(a.f, var->xtype)) {
        /* Filtered chunked data: the parallel pipeline, when it takes it,
         * with this call's hold of the lock released. */
        nc4h5_unlock();
        stat = nc4h5_chunk_read(var, a.hv->did, mtid, var->ndims, a.start, a.count, a.stride, fdims,
                                size, buf, &piped);
        nc4h5_lock();
        if (stat)
            goto done;
    }
    if (piped) {
        /* read */
    } else if (nin > 0 && !partial && !fixed_str && var->ndims > 0 &&
        !nc4_type_has_pointers(a.f, var->xtype) && gather_worth(&a, var->ndims, size)) {
        int taken = 0;
        if ((stat = plain_read(&a, ftid, mtid, 1, fdims, buf, &taken)))
            goto done;
        if (!taken && (stat = gather_read(&a, var->ndims, a.hv->did, mtid, size, buf)))
            goto done;
    } else if (nin > 0) {
        if (var->ndims == 0) {
            msid = H5Screate(H5S_SCALAR);
        } else {
            hsize_t zero[H5S_MAX_RANK] = {0};
            if (H5Sselect_hyperslab(fsid, H5S_SELECT_SET, a.start, a.stride, incount, NULL) < 0) {
                stat = NC_EHDFERR;
                goto done;
            }
            msid = H5Screate_simple(var->ndims, a.count, NULL);
            if (msid >= 0 && partial &&
                H5Sselect_hyperslab(msid, H5S_SELECT_SET, zero, NULL, incount, NULL) < 0) {
                stat = NC_EHDFERR;
                goto done;
            }
        }
        if (msid < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        if (fixed_str) {
            if (partial) {
                /* Rare: fixed strings past an unlimited extent.  Read the
                 * in-extent box, then place it. */
                char **tmp = calloc(nin, sizeof(char *));
                hid_t bsid = H5Screate_simple(var->ndims, incount, NULL);
                size_t k = 0;
                hsize_t idx[H5S_MAX_RANK] = {0};
                if (tmp == NULL || bsid < 0) {
                    free(tmp);
                    if (bsid >= 0)
                        H5Sclose(bsid);
                    stat = tmp ? NC_EHDFERR : NC_ENOMEM;
                    goto done;
                }
                stat = read_fixed_strings(a.hv->did, ftid, bsid, fsid, nin, tmp);
                H5Sclose(bsid);
                for (size_t i = 0; !stat && i < a.n; i++) {
                    int in = 1;
                    for (int d = 0; d < var->ndims; d++)
                        if (idx[d] >= incount[d])
                            in = 0;
                    if (in)
                        ((char **)buf)[i] = tmp[k++];
                    for (int d = var->ndims - 1; d >= 0; d--) {
                        if (++idx[d] < a.count[d])
                            break;
                        idx[d] = 0;
                    }
                }
                free(tmp);
            } else {
                stat = read_fixed_strings(a.hv->did, ftid, msid, fsid, a.n, (char **)buf);
            }
            if (stat)
                goto done;
        } else if ((nc4_type_has_pointers(a.f, var->xtype) &&
                    (stat = nc4h5_guard_read(a.f, a.hv->did, ftid, var->storage, var->ndims,
                                             a.start, a.stride, incount))) ||
                   H5Dread(a.hv->did, mtid, msid, fsid, H5P_DEFAULT, buf) < 0) {
            if (!stat)
                stat = NC_EHDFERR;
            goto done;
        }
    }
    nc4h5_unlock();
    if (partial) {
        if ((fill = malloc(size)) == NULL) {
            stat = NC_ENOMEM;
            goto out;
        }
        if ((stat = fill_for(a.f, var, size, fill)))
            goto out;
        if ((stat = fill_outside(a.f, var, buf, size, a.count, incount, fill)))
            goto out;
    }
    if (a.convert) {
        stat = ncx_convert(var->xtype, buf, a.memtype, value, a.n);
        if (stat == NC_ERANGE) {
            range = 1;
            stat = NC_NOERR;
            if (a.f->classic_model &&
                (var->xtype == NC_BYTE || var->xtype == NC_UBYTE) &&
                (a.memtype == NC_BYTE || a.memtype == NC_UBYTE))
                range = 0;
        }
    }
    goto out;
done:
    nc4h5_unlock();
out:
    if (fill != NULL) {
        nc4_reclaim_values(a.f, a.var->xtype, fill, 1);
        free(fill);
    }
    if (buf != NULL && buf != value)
        free(buf);
    nc4h5_lock();
    if (msid >= 0)
        H5Sclose(msid);
    if (fsid >= 0)
        H5Sclose(fsid);
    if (mtid >= 0)
        H5Tclose(mtid);
    if (ftid >= 0)
        H5Tclose(ftid);
    nc4h5_unlock();
    if (stat)
        return stat;
    return range ? NC_ERANGE : NC_NOERR;
}

static int
put_vars(int ncid, int varid, const size_t *startp, const size_t *countp,
         const ptrdiff_t *stridep, const void *value, nc_type memtype)
{
    access_t a;
    NC4_var *var;
    hid_t fsid = -1, msid = -1, mtid = -1;
    hsize_t fdims[H5S_MAX_RANK], ext[H5S_MAX_RANK];
    size_t size;
    int extend = 0, range = 0;
    void *buf = NULL;
    int stat;

#if NC_ENABLE_PARALLEL4
    if (nc4h5_par_file(ncid))   /* parallel HDF5 (hdf5par.c) */
        return nc4h5_par_put_vars(ncid, varid, startp, countp, stridep, value, memtype);
#endif
    nc4h5_lock();
    if ((stat = prepare(ncid, varid, startp, countp, stridep, memtype, 1, &a)))
        goto done;
    var = a.var;
    if ((fsid = H5Dget_space(a.hv->did)) < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    if (var->ndims > 0 && H5Sget_simple_extent_dims(fsid, fdims, NULL) != var->ndims) {
        stat = NC_EHDFERR;
        goto done;
    }
    for (int d = 0; d < var->ndims; d++) {
        hsize_t last = a.count[d] ? a.start[d] + a.stride[d] * (a.count[d] - 1) : a.start[d];
        ext[d] = fdims[d];
        if (!var->dims[d]->unlimited) {
            if ((stat = ncc_check_bound(a.start[d], a.count[d], a.stride[d], fdims[d], a.zero)))
                goto done;
        } else if (!a.zero && last >= fdims[d]) {
            ext[d] = last + 1;
            extend = 1;
        }
    }
    if (a.n == 0)
        goto done;
    /* No buffer: NC_EHDFERR, HDF5's refusal of it in upstream's H5Dwrite. */
    if (value == NULL) {
        stat = NC_EHDFERR;
        goto done;
    }
    size = nc4_type_size(a.f, var->xtype);
    if (size == 0) {
        stat = NC_EBADTYPE;
        goto done;
    }
    if (a.convert) {
        nc4h5_unlock();
        if (a.n > SIZE_MAX / size || (buf = malloc(a.n * size)) == NULL) {
            stat = NC_ENOMEM;
            goto out;
        }
        stat = ncx_convert(a.memtype, value, var->xtype, buf, a.n);
        if (stat == NC_ERANGE) {
            range = 1;
            stat = NC_NOERR;
            if (a.f->classic_model &&
                (var->xtype == NC_BYTE || var->xtype == NC_UBYTE) &&
                (a.memtype == NC_BYTE || a.memtype == NC_UBYTE))
                range = 0;
        }
        if (stat)
            goto out;
        nc4h5_lock();
    }
    if (var->quantize_mode && (var->xtype == NC_FLOAT || var->xtype == NC_DOUBLE)) {
        /* Quantize a copy in the file type (the caller's data stays as given),
         * leaving the variable's fill value alone, as upstream does. */
        if (buf == NULL) {
            if (a.n > SIZE_MAX / size || (buf = malloc(a.n * size)) == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            memcpy(buf, value, a.n * size);
        }
        stat = var->xtype == NC_FLOAT
                   ? ncf_quantize_float(var->quantize_mode, var->nsd, var->fill_value, buf, a.n)
                   : ncf_quantize_double(var->quantize_mode, var->nsd, var->fill_value, buf, a.n);
        if (stat)
            goto done;
    }
    if (extend) {
        if (H5Dset_extent(a.hv->did, ext) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        H5Sclose(fsid);
        if ((fsid = H5Dget_space(a.hv->did)) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        for (int d = 0; d < var->ndims; d++)
            if (var->dims[d]->unlimited && var->dims[d]->len < (size_t)ext[d])
                var->dims[d]->len = (size_t)ext[d];
    }
    if ((stat = mem_type(a.f, var, a.hv->did, &mtid)))
        goto done;
    if (var->ndims == 0) {
        msid = H5Screate(H5S_SCALAR);
    } else {
        if (H5Sselect_hyperslab(fsid, H5S_SELECT_SET, a.start, a.stride, a.count, NULL) < 0) {
            stat = NC_EHDFERR;
            goto done;
        }
        msid = H5Screate_simple(var->ndims, a.count, NULL);
    }
    if (msid < 0) {
        stat = NC_EHDFERR;
        goto done;
    }
    if (var->xtype == NC_STRING && H5Tis_variable_str(mtid) <= 0) {
        /* A fixed-size string dataset (pure HDF5 files): the caller's
         * strings are packed, cut or padded with NULs, into its size. */
        size_t fsize = H5Tget_size(mtid);
        char *packed;
        if (fsize == 0 || a.n > SIZE_MAX / fsize || (packed = calloc(a.n, fsize)) == NULL) {
            stat = fsize == 0 ? NC_EHDFERR : NC_ENOMEM;
            goto done;
        }
        for (size_t i = 0; i < a.n; i++) {
            const char *str = ((char *const *)value)[i];
            if (str != NULL)
                strncpy(packed + i * fsize, str, fsize);
        }
        if (H5Dwrite(a.hv->did, mtid, msid, fsid, H5P_DEFAULT, packed) < 0)
            stat = NC_EHDFERR;
        free(packed);
        goto done;
    }
    if (var->ndims > 0 && !nc4_type_has_pointers(a.f, var->xtype)) {
        int piped = 0;
        /* With this call's hold of the lock released. */
        nc4h5_unlock();
        stat = nc4h5_chunk_write(var, a.hv->did, mtid, var->ndims, a.start, a.count, a.stride, ext, size,
                                 buf ? buf : value, &piped);
        nc4h5_lock();
        if (stat || piped)
            goto done;
    }
    /* HDF5's pipeline writes this one: cached chunks go out first and are
     * forgotten (they would be stale after it). */
    nc4h5_unlock();
    stat = nc4h5_chunk_cache_flush(var, 1);
    nc4h5_lock();
    if (stat)
        goto done;
    if (H5Dwrite(a.hv->did, mtid, msid, fsid, H5P_DEFAULT, buf ? buf : value) < 0)
        stat = NC_EHDFERR;
done:
    nc4h5_unlock();
out:
    free(buf);
    nc4h5_lock();
    if (msid >= 0)
        H5Sclose(msid);
    if (fsid >= 0)
        H5Sclose(fsid);
    if (mtid >= 0)
        H5Tclose(mtid);
    nc4h5_unlock();
    if (stat)
        return stat;
    return range ? NC_ERANGE : NC_NOERR;
}

int
NC4_HDF5_get_vara(int ncid, int varid, const size_t *start, const size_t *count,
                  void *value, nc_type memtype)
{
    return get_vars(ncid, varid, start, count, NULL, value, memtype);
}

int
NC4_HDF5_get_vars(int ncid, int varid, const size_t *start, const size_t *count,
                  const ptrdiff_t *stride, void *value, nc_type memtype)
{
    return get_vars(ncid, varid, start, count, stride, value, memtype);
}

int
NC4_HDF5_put_vara(int ncid, int varid, const size_t *start, const size_t *count,
                  const void *value, nc_type memtype)
{
    return put_vars(ncid, varid, start, count, NULL, value, memtype);
}

int
NC4_HDF5_put_vars(int ncid, int varid, const size_t *start, const size_t *count,
                  const ptrdiff_t *stride, const void *value, nc_type memtype)
{
    return put_vars(ncid, varid, start, count, stride, value, memtype);
}
