/* hdf4file.c: a native reader of the HDF4 file structures used by the SD
 * (Scientific Data) interface, and the netCDF view built from them.
 *
 * The file: a 4-byte magic number, then a chain of DD blocks (data
 * descriptors: tag, ref, offset, length; big-endian).  The SD interface
 * writes a Vgroup of class "CDF0.0" whose members are the dimensions
 * (Vgroups "Dim0.0"/"UDim0.0"), the data sets (Vgroups "Var0.0") and the
 * global attributes (Vdata "Attr0.0").  A data set's Vgroup holds its
 * dimensions, attributes, number type (NT), dimension record (SDD) and
 * values (SD: plain, or a special element: linked blocks, deflate, chunks).
 *
 * Every offset, length and count read from the file is checked against the
 * file's size before use; the DD chain and linked-block chains are walked
 * a bounded number of times, so a loop ends with NC_EHDFERR.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ncdispatch.h"
#include "ncx.h"
#include "hdf4int.h"

/* tags (HDF4 file format) */
#define T_NULL 1
#define T_LINKED 20
#define T_COMPRESSED 40
#define T_CHUNK 61
#define T_NT 106
#define T_SDD 701
#define T_SD 702
#define T_VH 1962
#define T_VS 1963
#define T_VG 1965
#define T_SPECIAL 0x4000
/* special element kinds */
#define SP_LINKED 1
#define SP_COMP 3
#define SP_CHUNKED 5
/* number types (DFNT_*) */
#define NT_UCHAR8 3
#define NT_CHAR8 4
#define NT_FLOAT32 5
#define NT_FLOAT64 6
#define NT_INT8 20
#define NT_UINT8 21
#define NT_INT16 22
#define NT_UINT16 23
#define NT_INT32 24
#define NT_UINT32 25
#define NT_LITEND 0x4000
#define NT_PC 4            /* number class: little-endian */

#define MAX_ELEM ((size_t)1 << 31)   /* largest element read into memory */

static uint16_t be16(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int
pread_all(const H4file *f, uint64_t off, size_t len, void *buf)
{
    if (off > f->fsize || len > f->fsize - off)
        return NC_EHDFERR;
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = pread(f->fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return NC_EHDFERR;
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return NC_NOERR;
}

/* ---- the DD chain ------------------------------------------------------------ */

static int
ddcmp(const void *a, const void *b)
{
    const H4dd *x = a, *y = b;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return x->ref < y->ref ? -1 : x->ref > y->ref;
}

int
h4_open_file(const char *path, H4file *f)
{
    struct stat st;
    unsigned char hdr[6];
    uint64_t off = 4;
    size_t nblocks = 0, cap = 0;
    int stat;

    if ((f->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return errno == ENOENT ? ENOENT : NC_EHDFERR;
    if (fstat(f->fd, &st) != 0)
        return NC_EHDFERR;
    f->fsize = (uint64_t)st.st_size;
    if (pread_all(f, 0, 4, hdr) || memcmp(hdr, "\016\003\023\001", 4) != 0)
        return NC_ENOTNC;
    while (off != 0) {
        /* each block is at least 6 bytes: more blocks than that is a loop */
        if (++nblocks > f->fsize / 6)
            return NC_EHDFERR;
        if ((stat = pread_all(f, off, 6, hdr)))
            return stat;
        size_t n = be16(hdr);
        uint32_t next = be32(hdr + 2);
        if (n * 12 > f->fsize - off - 6)
            return NC_EHDFERR;
        unsigned char *b = malloc(n * 12 + 1);
        if (b == NULL)
            return NC_ENOMEM;
        if ((stat = pread_all(f, off + 6, n * 12, b))) {
            free(b);
            return stat;
        }
        for (size_t i = 0; i < n; i++) {
            const unsigned char *d = b + 12 * i;
            H4dd dd = {be16(d), be16(d + 2), be32(d + 4), be32(d + 8)};
            if (dd.tag == T_NULL || dd.tag == 0)
                continue;
            if (dd.off == UINT32_MAX || dd.len == UINT32_MAX)
                continue;  /* an element with no data */
            if ((uint64_t)dd.off + dd.len > f->fsize) {
                free(b);
                return NC_EHDFERR;
            }
            if (f->ndds == cap) {
                cap = cap ? cap * 2 : 64;
                H4dd *nd = realloc(f->dds, cap * sizeof *nd);
                if (nd == NULL) {
                    free(b);
                    return NC_ENOMEM;
                }
                f->dds = nd;
            }
            f->dds[f->ndds++] = dd;
        }
        free(b);
        off = next;
    }
    if (f->ndds > 1)
        qsort(f->dds, f->ndds, sizeof *f->dds, ddcmp);
    return NC_NOERR;
}

static const H4dd *
find_dd(const H4file *f, uint16_t tag, uint16_t ref)
{
    H4dd key = {tag, ref, 0, 0};
    return f->ndds ? bsearch(&key, f->dds, f->ndds, sizeof key, ddcmp) : NULL;
}

/* ---- elements ------------------------------------------------------------------ */

static int read_elem(const H4file *f, uint16_t tag, uint16_t ref, int depth,
                     unsigned char **bufp, size_t *lenp);

/* A linked-block element: its blocks in the order of its link tables. */
static int
read_linked(const H4file *f, const unsigned char *h, size_t hl, unsigned char **bufp,
            size_t *lenp)
{
    if (hl < 16)
        return NC_EHDFERR;
    size_t total = be32(h + 2), nblk = be32(h + 10), got = 0, tables = 0;
    uint16_t link = be16(h + 14);
    if (total > f->fsize || nblk == 0 || nblk > f->fsize / 2)
        return NC_EHDFERR;
    unsigned char *out = malloc(total + 1), *tab = NULL;
    if (out == NULL)
        return NC_ENOMEM;
    int stat = NC_NOERR;
    while (link != 0 && got < total) {
        const H4dd *dd = find_dd(f, T_LINKED, link);
        if (dd == NULL || ++tables > f->ndds || dd->len < 2 + 2 * nblk) {
            stat = NC_EHDFERR;
            break;
        }
        if ((tab = malloc(dd->len)) == NULL) {
            stat = NC_ENOMEM;
            break;
        }
        if ((stat = pread_all(f, dd->off, dd->len, tab)))
            break;
        link = be16(tab);
        for (size_t i = 0; i < nblk && got < total; i++) {
            uint16_t r = be16(tab + 2 + 2 * i);
            const H4dd *bd = r ? find_dd(f, T_LINKED, r) : NULL;
            if (bd == NULL)
                continue;
            size_t take = bd->len < total - got ? bd->len : total - got;
            if ((stat = pread_all(f, bd->off, take, out + got)))
                break;
            got += take;
        }
        free(tab);
        tab = NULL;
        if (stat)
            break;
    }
    free(tab);
    if (stat == NC_NOERR && got < total)
        memset(out + got, 0, total - got);
    if (stat) {
        free(out);
        return stat;
    }
    *bufp = out;
    *lenp = total;
    return NC_NOERR;
}

/* A compressed element: its header h, the stored bytes in the
 * DFTAG_COMPRESSED element it names, decoded by hdf4comp.c. */
static int
read_comp(const H4file *f, const unsigned char *h, size_t hl, int depth,
          unsigned char **bufp, size_t *lenp)
{
    if (hl < 14)
        return NC_EHDFERR;
    size_t total = be32(h + 4);
    uint16_t cref = be16(h + 8);
    unsigned char *src = NULL, *out = NULL;
    if (!h4_coder_known(h, hl))
        return NC_ENOFILTER;   /* JPEG and the like: before any size check */
    size_t slen = 0;
    int stat = read_elem(f, T_COMPRESSED, cref, depth + 1, &src, &slen);
    if (stat)
        return stat == NC_ENOTFOUND ? NC_EHDFERR : stat;
    /* a claim no stream of this size can give is corrupt */
    if (total > MAX_ELEM || total > h4_decompress_bound(h, hl, slen)) {
        free(src);
        return NC_EHDFERR;
    }
    if ((out = malloc(total + 1)) == NULL) {
        free(src);
        return NC_ENOMEM;
    }
    stat = h4_decompress(h, hl, src, slen, out, total);
    free(src);
    if (stat) {
        free(out);
        return stat;
    }
    *bufp = out;
    *lenp = total;
    return NC_NOERR;
}

/* The bytes of element (tag, ref), plain or special (linked or compressed);
 * NC_ENOTFOUND when the file has no such element. */
static int
read_elem(const H4file *f, uint16_t tag, uint16_t ref, int depth, unsigned char **bufp,
          size_t *lenp)
{
    const H4dd *dd = find_dd(f, tag, ref);
    unsigned char *b;
    int stat;
    *bufp = NULL;
    *lenp = 0;
    if (depth > 3)
        return NC_EHDFERR;
    if (dd != NULL) {
        if (dd->len > MAX_ELEM)
            return NC_EHDFERR;
        if ((b = malloc((size_t)dd->len + 1)) == NULL)
            return NC_ENOMEM;
        if ((stat = pread_all(f, dd->off, dd->len, b))) {
            free(b);
            return stat;
        }
        *bufp = b;
        *lenp = dd->len;
        return NC_NOERR;
    }
    if ((tag & T_SPECIAL) || (dd = find_dd(f, tag | T_SPECIAL, ref)) == NULL)
        return NC_ENOTFOUND;
    unsigned char h[64];
    size_t hl = dd->len < sizeof h ? dd->len : sizeof h;
    if (hl < 2 || (stat = pread_all(f, dd->off, hl, h)))
        return NC_EHDFERR;
    switch (be16(h)) {
    case SP_LINKED: return read_linked(f, h, hl, bufp, lenp);
    case SP_COMP: return read_comp(f, h, hl, depth, bufp, lenp);
    default: return NC_EHDFERR;  /* chunked elements are read by data set */
    }
}

/* ---- vgroups and vdata ----------------------------------------------------------- */

typedef struct Vgroup {
    size_t n;
    uint16_t *tags, *refs;
    char name[NC_MAX_NAME + 1], cls[NC_MAX_NAME + 1];
} Vgroup;

/* A length-prefixed string at *pp, bounded by end; copied (truncated) to out. */
static int
get_str(const unsigned char **pp, const unsigned char *end, char *out, size_t outsz)
{
    const unsigned char *p = *pp;
    if (end - p < 2)
        return NC_EHDFERR;
    size_t n = be16(p);
    p += 2;
    if ((size_t)(end - p) < n)
        return NC_EHDFERR;
    if (out != NULL) {
        size_t k = n < outsz - 1 ? n : outsz - 1;
        memcpy(out, p, k);
        out[k] = '\0';
    }
    *pp = p + n;
    return NC_NOERR;
}

static void
vg_free(Vgroup *g)
{
    free(g->tags);
    free(g->refs);
    memset(g, 0, sizeof *g);
}

static int
read_vg(const H4file *f, uint16_t ref, Vgroup *g)
{
    unsigned char *b;
    size_t len;
    int stat;
    memset(g, 0, sizeof *g);
    if ((stat = read_elem(f, T_VG, ref, 0, &b, &len)))
        return stat == NC_ENOTFOUND ? NC_EHDFERR : stat;
    const unsigned char *p = b, *end = b + len;
    if (len < 2 || (g->n = be16(b)) * 4 > len - 2) {
        free(b);
        return NC_EHDFERR;
    }
    g->tags = malloc(g->n * sizeof *g->tags + 1);
    g->refs = malloc(g->n * sizeof *g->refs + 1);
    if (g->tags == NULL || g->refs == NULL) {
        free(b);
        vg_free(g);
        return NC_ENOMEM;
    }
    for (size_t i = 0; i < g->n; i++) {
        g->tags[i] = be16(b + 2 + 2 * i);
        g->refs[i] = be16(b + 2 + 2 * g->n + 2 * i);
    }
    p = b + 2 + 4 * g->n;
    if ((stat = get_str(&p, end, g->name, sizeof g->name))
        || (stat = get_str(&p, end, g->cls, sizeof g->cls)))
        vg_free(g);
    free(b);
    return stat;
}

typedef struct Vdata {
    size_t nvert;
    uint16_t type;      /* the first field's number type */
    size_t order;       /* the first field's order */
    char name[NC_MAX_NAME + 1], cls[NC_MAX_NAME + 1];
} Vdata;

static int
read_vh(const H4file *f, uint16_t ref, Vdata *v)
{
    unsigned char *b;
    size_t len;
    int stat;
    memset(v, 0, sizeof *v);
    if ((stat = read_elem(f, T_VH, ref, 0, &b, &len)))
        return stat == NC_ENOTFOUND ? NC_EHDFERR : stat;
    const unsigned char *p, *end = b + len;
    size_t nf;
    if (len < 10 || (nf = be16(b + 8)) * 8 > len - 10) {
        free(b);
        return NC_EHDFERR;
    }
    v->nvert = be32(b + 2);
    if (nf > 0) {
        v->type = be16(b + 10);
        v->order = be16(b + 10 + 6 * nf);
    }
    p = b + 10 + 8 * nf;
    stat = NC_NOERR;
    for (size_t i = 0; i < nf && stat == NC_NOERR; i++)
        stat = get_str(&p, end, NULL, 0);
    if (stat == NC_NOERR)
        stat = get_str(&p, end, v->name, sizeof v->name);
    if (stat == NC_NOERR)
        stat = get_str(&p, end, v->cls, sizeof v->cls);
    free(b);
    return stat;
}

/* ---- number types ---------------------------------------------------------------- */

/* As upstream's HDF4 layer maps them; 0 for types it does not read. */
static nc_type
nc_type_of(unsigned nt)
{
    switch (nt & 0xff) {
    case NT_CHAR8: return NC_CHAR;
    case NT_UCHAR8:
    case NT_UINT8: return NC_UBYTE;
    case NT_INT8: return NC_BYTE;
    case NT_INT16: return NC_SHORT;
    case NT_UINT16: return NC_USHORT;
    case NT_INT32: return NC_INT;
    case NT_UINT32: return NC_UINT;
    case NT_FLOAT32: return NC_FLOAT;
    case NT_FLOAT64: return NC_DOUBLE;
    default: return NC_NAT;
    }
}

/* File-order values to native order, in place. */
static void
to_native(void *p, size_t esize, size_t n, int little)
{
    static const union { uint16_t u; unsigned char c[2]; } e = {1};
    int hostlittle = e.c[0] == 1;
    if (esize < 2 || little == hostlittle)
        return;
    if (esize == 2)
        ncx_swap2(p, n);
    else if (esize == 4)
        ncx_swap4(p, n);
    else
        ncx_swap8(p, n);
}

/* ---- the netCDF view ---------------------------------------------------------------- */

/* An attribute Vdata as an attribute of varid in the substrate. */
static int
put_attr(H4file *f, int varid, uint16_t ref)
{
    Vdata vd;
    unsigned char *b = NULL;
    size_t len;
    int stat;
    if ((stat = read_vh(f, ref, &vd)))
        return stat;
    if (strcmp(vd.cls, "Attr0.0") != 0)
        return NC_NOERR;
    nc_type t = nc_type_of(vd.type);
    if (t == NC_NAT)
        return NC_NOERR;  /* a type netCDF does not have: left out */
    size_t es = ncx_memlen(t);
    if (vd.order != 0 && vd.nvert > MAX_ELEM / vd.order / es)
        return NC_EHDFERR;
    /* as the SD library reads them: a char8 or uchar8 attribute has as
     * many values as its field's order, whatever the records */
    unsigned nt8 = vd.type & 0xff;
    size_t n = nt8 == NT_CHAR8 || nt8 == NT_UCHAR8 ? vd.order : vd.nvert * vd.order;
    stat = read_elem(f, T_VS, ref, 0, &b, &len);
    if (stat == NC_ENOTFOUND)
        len = 0;
    else if (stat)
        return stat;
    if (len < n * es) {
        free(b);
        return NC_EHDFERR;
    }
    to_native(b, es, n, (vd.type & NT_LITEND) != 0);
    stat = nc_put_att(f->subid, varid, vd.name, t, n, n ? (void *)b : (void *)"");
    free(b);
    /* names netCDF refuses are left out rather than failing the open */
    return stat == NC_EBADNAME || stat == NC_ENAMEINUSE ? NC_NOERR : stat;
}

/* The chunk table of a chunked data set (special header h). */
static int
setup_chunks(H4file *f, H4var *v, const unsigned char *h, size_t hl)
{
    /* header: sp(2) hlen(4) version(1) flag(4) total(4) chunksize(4) ntsize(4)
     * table tag(2) ref(2) sp tag(2) sp ref(2) ndims(4), then per dimension
     * flag(4) length(4) chunk length(4), then the fill value */
    if (hl < 35)
        return NC_EHDFERR;
    uint16_t tref = be16(h + 25);
    size_t nd = be32(h + 31);
    if (nd == 0 || (int)nd != v->ndims || hl < 35 + 12 * nd)
        return NC_EHDFERR;
    for (size_t i = 0; i < nd; i++) {
        size_t cl = be32(h + 35 + 12 * i + 8);
        if (cl == 0 || cl > v->shape[i] + (v->shape[i] == 0))
            return NC_EHDFERR;
        v->chunkshape[i] = cl;
    }
    Vdata vd;
    int stat;
    unsigned char *b = NULL;
    size_t len;
    if ((stat = read_vh(f, tref, &vd)))
        return stat;
    size_t rec = 4 * nd + 4;
    if (vd.nvert > f->fsize)
        return NC_EHDFERR;
    stat = read_elem(f, T_VS, tref, 0, &b, &len);
    if (stat == NC_ENOTFOUND) {
        b = NULL;
        len = 0;
        vd.nvert = 0;
    } else if (stat) {
        return stat;
    }
    if (len / rec < vd.nvert) {
        free(b);
        return NC_EHDFERR;
    }
    v->chunked = 1;
    if (vd.nvert > 0 && (v->chunks = calloc(vd.nvert, sizeof *v->chunks)) == NULL) {
        free(b);
        return NC_ENOMEM;
    }
    for (size_t c = 0; c < vd.nvert; c++) {
        const unsigned char *r = b + c * rec;
        H4chunk *ch = &v->chunks[v->nchunks];
        for (size_t i = 0; i < nd; i++)
            ch->origin[i] = be32(r + 4 * i);
        ch->tag = be16(r + 4 * nd);
        ch->ref = be16(r + 4 * nd + 2);
        v->nchunks++;
    }
    free(b);
    return NC_NOERR;
}

/* A dimension of the substrate by name: defined on first use. */
static int
dim_for(H4file *f, const char *name, size_t len, int unlim, int pos, int *dimidp)
{
    int id, stat;
    if (nc_inq_dimid(f->subid, name, &id) == NC_NOERR) {
        size_t have;
        if (id == f->recdimid) {
            if (pos != 0)
                return NC_EHDFERR;
            if (len > f->numrecs)
                f->numrecs = len;
        } else if ((stat = nc_inq_dimlen(f->subid, id, &have)) || have != len) {
            return NC_EHDFERR;  /* one name, two lengths */
        }
        *dimidp = id;
        return NC_NOERR;
    }
    if (unlim && pos == 0 && f->recdimid < 0) {
        if ((stat = nc_def_dim(f->subid, name, NC_UNLIMITED, &id)))
            return stat;
        f->recdimid = id;
        f->numrecs = len;
    } else if ((stat = nc_def_dim(f->subid, name, len, &id))) {
        return stat;
    }
    *dimidp = id;
    return NC_NOERR;
}

static int
add_var(H4file *f, const Vgroup *g, int *fakedim)
{
    H4var v;
    int stat, dimids[NC_MAX_VAR_DIMS];
    unsigned char *b = NULL;
    size_t len, nt = 0, ndimvg = 0;
    uint16_t sddref = 0, ntref = 0, dimrefs[NC_MAX_VAR_DIMS];
    int haveunlim[NC_MAX_VAR_DIMS];

    memset(&v, 0, sizeof v);
    for (size_t i = 0; i < g->n; i++) {
        if (g->tags[i] == T_SDD)
            sddref = g->refs[i];
        else if (g->tags[i] == T_NT)
            ntref = g->refs[i];
        else if (g->tags[i] == T_SD)
            v.sdref = g->refs[i];
    }
    if (sddref == 0 || (stat = read_elem(f, T_SDD, sddref, 0, &b, &len)))
        return NC_EHDFERR;
    if (len < 6 || (v.ndims = be16(b)) > NC_MAX_VAR_DIMS || len < 2 + 4 * (size_t)v.ndims + 4) {
        free(b);
        return NC_EHDFERR;
    }
    for (int i = 0; i < v.ndims; i++)
        v.shape[i] = be32(b + 2 + 4 * i);
    if (ntref == 0)
        ntref = be16(b + 2 + 4 * v.ndims + 2);
    free(b);
    if ((stat = read_elem(f, T_NT, ntref, 0, &b, &len)))
        return NC_EHDFERR;
    if (len < 4) {
        free(b);
        return NC_EHDFERR;
    }
    nt = b[1];
    v.little = b[3] == NT_PC;
    free(b);
    if ((v.type = nc_type_of((unsigned)nt)) == NC_NAT)
        return NC_EBADTYPID;
    v.esize = ncx_memlen(v.type);
    /* dimensions: the Dim0.0/UDim0.0 members, in order */
    for (size_t i = 0; i < g->n; i++) {
        if (g->tags[i] != T_VG)
            continue;
        Vgroup d;
        if ((stat = read_vg(f, g->refs[i], &d)))
            return stat;
        int isdim = strcmp(d.cls, "Dim0.0") == 0, isudim = strcmp(d.cls, "UDim0.0") == 0;
        vg_free(&d);
        if ((isdim || isudim) && ndimvg < NC_MAX_VAR_DIMS) {
            haveunlim[ndimvg] = isudim;
            dimrefs[ndimvg++] = g->refs[i];
        }
    }
    for (int i = 0; i < v.ndims; i++) {
        char name[NC_MAX_NAME + 1] = "";
        int unlim = 0;
        if ((size_t)i < ndimvg) {
            Vgroup d;
            if ((stat = read_vg(f, dimrefs[i], &d)))
                return stat;
            snprintf(name, sizeof name, "%s", d.name);
            unlim = haveunlim[i];
            vg_free(&d);
        }
        if (name[0] == '\0')  /* as the HDF4 library names unnamed dimensions */
            snprintf(name, sizeof name, "fakeDim%d", (*fakedim)++);
        if ((stat = dim_for(f, name, v.shape[i], unlim, i, &dimids[i])))
            return stat;
    }
    if ((stat = nc_def_var(f->subid, g->name, v.type, v.ndims, dimids, &v.varid)))
        return stat;
    v.isrec = v.ndims > 0 && dimids[0] == f->recdimid;
    for (size_t i = 0; i < g->n; i++)
        if (g->tags[i] == T_VH && (stat = put_attr(f, v.varid, g->refs[i])))
            return stat;
    /* the fill value: _FillValue when the data set has one */
    if (nc_get_att(f->subid, v.varid, "_FillValue", v.fill) != NC_NOERR)
        ncx_default_fill(v.type, v.fill);
    /* chunked values: a special SD element of kind SPECIAL_CHUNKED */
    const H4dd *sp = v.sdref ? find_dd(f, T_SD | T_SPECIAL, v.sdref) : NULL;
    if (sp != NULL && find_dd(f, T_SD, v.sdref) == NULL) {
        unsigned char h[512];
        size_t hl = sp->len < sizeof h ? sp->len : sizeof h;
        if ((stat = pread_all(f, sp->off, hl, h)))
            return stat;
        if (hl >= 2 && be16(h) == SP_CHUNKED && (stat = setup_chunks(f, &v, h, hl))) {
            free(v.chunks);
            return stat;
        }
    }
    H4var *nv = realloc(f->vars, (f->nvars + 1) * sizeof *nv);
    if (nv == NULL) {
        free(v.chunks);
        return NC_ENOMEM;
    }
    f->vars = nv;
    f->vars[f->nvars++] = v;
    return NC_NOERR;
}

int
h4_build(H4file *f)
{
    Vgroup cdf = {0};
    int stat = NC_NOERR, fakedim = 0;
    const H4dd *top = NULL;
    /* the SD interface's file Vgroup: the first of class CDF0.0 */
    for (size_t i = 0; i < f->ndds && top == NULL; i++) {
        if (f->dds[i].tag != T_VG)
            continue;
        if ((stat = read_vg(f, f->dds[i].ref, &cdf)))
            return stat;
        if (strcmp(cdf.cls, "CDF0.0") == 0)
            top = &f->dds[i];
        else
            vg_free(&cdf);
    }
    if (top == NULL)
        return NC_NOERR;  /* no SD data sets: an empty dataset */
    for (size_t i = 0; i < cdf.n && stat == NC_NOERR; i++) {
        if (cdf.tags[i] == T_VH) {
            stat = put_attr(f, NC_GLOBAL, cdf.refs[i]);
        } else if (cdf.tags[i] == T_VG) {
            Vgroup g;
            if ((stat = read_vg(f, cdf.refs[i], &g)))
                break;
            if (strcmp(g.cls, "Var0.0") == 0)
                stat = add_var(f, &g, &fakedim);
            vg_free(&g);
        }
    }
    vg_free(&cdf);
    return stat;
}

void
h4_file_free(H4file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    for (size_t i = 0; i < f->nvars; i++)
        free(f->vars[i].chunks);
    free(f->vars);
    free(f->dds);
}

/* ---- reads ---------------------------------------------------------------------------- */

/* Copies the part of a block of values (file order; shape bshape at origin
 * borig) that the selection (start, count, stride) takes into out (dense,
 * count's shape). */
static void
copy_block(const H4var *v, const unsigned char *blk, const size_t *borig, const size_t *bshape,
           const size_t *start, const size_t *count, const ptrdiff_t *stride, unsigned char *out)
{
    int nd = v->ndims;
    size_t es = v->esize, lo[NC_MAX_VAR_DIMS], hi[NC_MAX_VAR_DIMS], idx[NC_MAX_VAR_DIMS];
    /* per dimension, the selection indices k in [lo, hi) that fall in the block */
    for (int i = 0; i < nd; i++) {
        size_t s = start[i], st = (size_t)stride[i], b0 = borig[i], b1 = borig[i] + bshape[i];
        size_t first = b0 <= s ? 0 : (b0 - s + st - 1) / st;
        size_t last = b1 <= s ? 0 : (b1 - s + st - 1) / st;  /* one past */
        if (last > count[i])
            last = count[i];
        if (first >= last)
            return;
        lo[i] = first;
        hi[i] = last;
        idx[i] = first;
    }
    if (nd == 0) {
        memcpy(out, blk, es);
        return;
    }
    for (;;) {
        size_t boff = 0, ooff = 0;
        for (int i = 0; i < nd - 1; i++) {
            boff = boff * bshape[i] + (start[i] + idx[i] * (size_t)stride[i] - borig[i]);
            ooff = ooff * count[i] + idx[i];
        }
        int l = nd - 1;
        boff = boff * bshape[l] + (start[l] + lo[l] * (size_t)stride[l] - borig[l]);
        ooff = ooff * count[l] + lo[l];
        if (stride[l] == 1) {
            memcpy(out + ooff * es, blk + boff * es, (hi[l] - lo[l]) * es);
        } else {
            for (size_t k = lo[l]; k < hi[l]; k++, boff += (size_t)stride[l], ooff++)
                memcpy(out + ooff * es, blk + boff * es, es);
        }
        int i = nd - 2;
        for (; i >= 0; i--) {
            if (++idx[i] < hi[i])
                break;
            idx[i] = lo[i];
        }
        if (i < 0)
            return;
    }
}

/* Reads a selection of v's values in native order into out (count's shape,
 * values of v's type); values never written read as the fill value. */
int
h4_read_vars(H4file *f, const H4var *v, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, void *out)
{
    size_t total = 1, es = v->esize, zero[NC_MAX_VAR_DIMS] = {0};
    size_t shape[NC_MAX_VAR_DIMS];
    int stat = NC_NOERR;
    for (int i = 0; i < v->ndims; i++) {
        total *= count[i];
        shape[i] = v->shape[i];
    }
    /* records beyond the data set's own (a shorter record variable) read as
     * the fill value */
    int inside = 1;
    for (int i = 0; i < v->ndims; i++)
        if (count[i] > 0 && start[i] + (count[i] - 1) * (size_t)stride[i] >= shape[i])
            inside = 0;
    /* fill first: chunks and elements that are absent leave it (one value,
     * then the filled part copied onto the rest, doubling) */
    if (total > 0) {
        size_t done, all = total * es;
        memcpy(out, v->fill, es);
        for (done = es; done < all; done *= 2)
            memcpy((unsigned char *)out + done, out, done < all - done ? done : all - done);
    }
    if (v->sdref == 0)
        return NC_NOERR;
    unsigned char *tmp = malloc(total * es + 1);
    if (tmp == NULL)
        return NC_ENOMEM;
    /* tmp holds file-order values; positions left unset keep the fill */
    if (v->chunked) {
        memset(tmp, 0, total * es);
        unsigned char *mask = calloc(total + 1, 1);
        size_t cnt = 0;
        if (mask == NULL) {
            free(tmp);
            return NC_ENOMEM;
        }
        size_t csize = es;
        for (int i = 0; i < v->ndims; i++)
            csize *= v->chunkshape[i];
        for (size_t c = 0; c < v->nchunks && stat == NC_NOERR; c++) {
            const H4chunk *ch = &v->chunks[c];
            size_t borig[NC_MAX_VAR_DIMS];
            int hit = 1;
            for (int i = 0; i < v->ndims; i++) {
                borig[i] = ch->origin[i] * v->chunkshape[i];
                size_t lastsel = start[i] + (count[i] - 1) * (size_t)stride[i];
                if (borig[i] > lastsel || borig[i] + v->chunkshape[i] <= start[i]
                    || borig[i] >= shape[i])
                    hit = 0;
            }
            if (!hit)
                continue;
            unsigned char *cb = NULL;
            size_t clen;
            stat = read_elem(f, ch->tag, ch->ref, 0, &cb, &clen);
            if (stat == NC_ENOTFOUND) {
                stat = NC_NOERR;
                continue;
            }
            if (stat == NC_NOERR && clen < csize)
                stat = NC_EHDFERR;
            if (stat == NC_NOERR) {
                copy_block(v, cb, borig, v->chunkshape, start, count, stride, tmp);
                /* mark what this chunk set, with a byte block of 1s */
                unsigned char *ones = malloc(csize / es + 1);
                if (ones == NULL) {
                    stat = NC_ENOMEM;
                } else {
                    memset(ones, 1, csize / es + 1);
                    H4var bv = *v;
                    bv.esize = 1;
                    copy_block(&bv, ones, borig, v->chunkshape, start, count, stride, mask);
                    free(ones);
                    cnt++;
                }
            }
            free(cb);
        }
        if (stat == NC_NOERR) {
            to_native(tmp, es, total, v->little);
            for (size_t k = 0; k < total; k++)
                if (mask[k])
                    memcpy((unsigned char *)out + k * es, tmp + k * es, es);
        }
        free(mask);
        free(tmp);
        return stat;
    }
    /* contiguous: the plain SD element, or a linked or compressed one */
    const H4dd *dd = find_dd(f, T_SD, v->sdref);
    size_t need = es;
    for (int i = 0; i < v->ndims; i++)
        need *= shape[i];
    if (dd != NULL && dd->len >= need && inside) {
        /* one read per run along the last dimension */
        size_t nd = (size_t)v->ndims, idx[NC_MAX_VAR_DIMS] = {0};
        size_t l = nd ? nd - 1 : 0, run = nd ? ((count[l] - 1) * (size_t)stride[l] + 1) : 1;
        unsigned char *rb = malloc(run * es + 1);
        if (rb == NULL) {
            free(tmp);
            return NC_ENOMEM;
        }
        size_t rows = nd ? total / count[l] : 1, o = 0;
        for (size_t r = 0; r < rows && stat == NC_NOERR; r++) {
            size_t off = 0;
            for (size_t i = 0; i + 1 < nd; i++)
                off = off * shape[i] + start[i] + idx[i] * (size_t)stride[i];
            if (nd)
                off = off * shape[l] + start[l];
            stat = pread_all(f, dd->off + (uint64_t)off * es, run * es, rb);
            if (stat)
                break;
            size_t n = nd ? count[l] : 1, st = nd ? (size_t)stride[l] : 1;
            if (st == 1) {
                memcpy(tmp + o * es, rb, n * es);
            } else {
                for (size_t k = 0; k < n; k++)
                    memcpy(tmp + (o + k) * es, rb + k * st * es, es);
            }
            o += n;
            for (size_t i = nd > 1 ? nd - 1 : 0; i-- > 0;) {
                if (++idx[i] < count[i])
                    break;
                idx[i] = 0;
            }
        }
        free(rb);
        if (stat == NC_NOERR) {
            to_native(tmp, es, total, v->little);
            memcpy(out, tmp, total * es);
        }
        free(tmp);
        return stat;
    }
    unsigned char *all = NULL;
    size_t alen = 0;
    stat = read_elem(f, T_SD, v->sdref, 0, &all, &alen);
    if (stat == NC_ENOTFOUND) {
        free(tmp);
        return NC_NOERR;  /* never written: all fill */
    }
    if (stat == NC_NOERR && alen < need)
        stat = NC_EHDFERR;
    if (stat == NC_NOERR) {
        copy_block(v, all, zero, shape, start, count, stride, tmp);
        to_native(tmp, es, total, v->little);
        memcpy(out, tmp, total * es);
    }
    free(all);
    free(tmp);
    return stat;
}
