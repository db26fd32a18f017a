/* nckerchunk: write a kerchunk (version 1) reference file for a local
 * netCDF-4/HDF5 file, so that Zarr readers (zarr-python through fsspec's
 * ReferenceFileSystem, or this library with URL#mode=zarr,reference) read
 * the file's chunks in place.
 *
 *     nckerchunk [-u URL] [-i BYTES] infile [outfile]
 *
 * Names, dimensions, types and attributes come from the netCDF API; where
 * each variable's bytes lie (chunk addresses and sizes, the contiguous
 * block, the filter pipeline, byte order) comes from HDF5, which the public
 * netCDF API does not expose.  Variables a Zarr v2 array cannot describe
 * (strings, user-defined types, filters other than deflate and shuffle, a
 * chunk stored without its filters) are skipped with a warning on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>
#include <netcdf.h>

/* ---- a growing string ---------------------------------------------------------- */

typedef struct {
    char *s;
    size_t len, cap;
} Buf;

static void die_nomem(void)
{
    fprintf(stderr, "nckerchunk: out of memory\n");
    exit(1);
}

static void bput(Buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p)
            die_nomem();
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void bputs(Buf *b, const char *s) { bput(b, s, strlen(s)); }

static void bprintf(Buf *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        fprintf(stderr, "nckerchunk: internal formatting error\n");
        exit(1);
    }
    bput(b, tmp, (size_t)n);
}

/* s[0..n) as a JSON string literal (bytes >= 0x80 passed through). */
static void bjson(Buf *b, const char *s, size_t n)
{
    bputs(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            bput(b, e, 2);
        } else if (c == '\n') {
            bputs(b, "\\n");
        } else if (c == '\t') {
            bputs(b, "\\t");
        } else if (c == '\r') {
            bputs(b, "\\r");
        } else if (c < 0x20) {
            bprintf(b, "\\u%04x", c);
        } else {
            bput(b, (const char *)&c, 1);
        }
    }
    bputs(b, "\"");
}

static void bbase64(Buf *b, const unsigned char *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {tab[(v >> 18) & 63], tab[(v >> 12) & 63],
                     i + 1 < n ? tab[(v >> 6) & 63] : '=', i + 2 < n ? tab[v & 63] : '='};
        bput(b, q, 4);
    }
}

/* A floating-point value as Python's json writes it (NaN, Infinity). */
static void bdouble(Buf *b, double d, int isfloat)
{
    if (isnan(d))
        bputs(b, "NaN");
    else if (isinf(d))
        bputs(b, d > 0 ? "Infinity" : "-Infinity");
    else {
        char tmp[40];
        snprintf(tmp, sizeof tmp, isfloat ? "%.9g" : "%.17g", d);
        bputs(b, tmp);
        /* Keep it a float in JSON (1.0, not 1), as Python writes floats. */
        if (!strpbrk(tmp, ".eEn"))
            bputs(b, ".0");
    }
}

/* ---- the tool's state -------------------------------------------------------- */

typedef struct {
    const char *path; /* the input file */
    char *url;        /* target of every reference */
    long inline_max;  /* chunks of at most this many bytes are inlined */
    int fd;           /* the input, for inlined chunks */
    hid_t h5;         /* the input through HDF5 */
    Buf refs;         /* the "refs" members written so far */
    int nrefs;
    int nskipped;
    Buf skipped;      /* names of the skipped variables, for the summary */
} Tool;

/* Open a member "key": value of refs; the caller writes the value. */
static void ref_key(Tool *t, const char *prefix, const char *key)
{
    bputs(&t->refs, t->nrefs++ ? ",\n  " : "\n  ");
    Buf k = {0};
    bputs(&k, prefix);
    bputs(&k, key);
    bjson(&t->refs, k.s, k.len);
    free(k.s);
    bputs(&t->refs, ": ");
}

/* A metadata member: its value is the JSON text doc, as a string. */
static void ref_meta(Tool *t, const char *prefix, const char *key, const Buf *doc)
{
    ref_key(t, prefix, key);
    bjson(&t->refs, doc->s, doc->len);
}

static void skip_var(Tool *t, const char *full, const char *why)
{
    fprintf(stderr, "nckerchunk: warning: variable %s skipped: %s\n", full, why);
    if (t->nskipped++)
        bputs(&t->skipped, ", ");
    bputs(&t->skipped, full);
}

static void nc_fail(const char *what, int stat)
{
    fprintf(stderr, "nckerchunk: %s: %s\n", what, nc_strerror(stat));
    exit(1);
}

/* ---- types and values -------------------------------------------------------- */

static size_t type_size(nc_type xt)
{
    switch (xt) {
    case NC_BYTE: case NC_UBYTE: case NC_CHAR: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_INT64: case NC_UINT64: case NC_DOUBLE: return 8;
    default: return 0;
    }
}

/* Value i of an array of atomic type xt, as JSON. */
static void bvalue(Buf *b, nc_type xt, const void *p, size_t i)
{
    switch (xt) {
    case NC_BYTE: bprintf(b, "%d", ((const signed char *)p)[i]); break;
    case NC_UBYTE: bprintf(b, "%u", ((const unsigned char *)p)[i]); break;
    case NC_SHORT: bprintf(b, "%d", ((const short *)p)[i]); break;
    case NC_USHORT: bprintf(b, "%u", ((const unsigned short *)p)[i]); break;
    case NC_INT: bprintf(b, "%d", ((const int *)p)[i]); break;
    case NC_UINT: bprintf(b, "%u", ((const unsigned *)p)[i]); break;
    case NC_INT64: bprintf(b, "%lld", ((const long long *)p)[i]); break;
    case NC_UINT64: bprintf(b, "%llu", ((const unsigned long long *)p)[i]); break;
    case NC_FLOAT: bdouble(b, ((const float *)p)[i], 1); break;
    case NC_DOUBLE: bdouble(b, ((const double *)p)[i], 0); break;
    default: bputs(b, "null"); break;
    }
}

/* The attributes of (gid, varid) as the members of a JSON object, after
 * the members already in doc (first: none written yet).  _FillValue is
 * kept beside the array's fill_value, as the library's own Zarr writer
 * does (CF readers look for it there). */
static void write_atts(Tool *t, int gid, int varid, int natts, Buf *doc, int first)
{
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type xt;
        size_t len;
        int stat = nc_inq_attname(gid, varid, a, name);
        if (!stat)
            stat = nc_inq_att(gid, varid, name, &xt, &len);
        if (stat)
            nc_fail("reading an attribute", stat);
        if (xt == NC_STRING) {
            char **v = calloc(len ? len : 1, sizeof *v);
            if (!v)
                die_nomem();
            if ((stat = nc_get_att_string(gid, varid, name, v)))
                nc_fail(name, stat);
            bputs(doc, first ? "" : ", ");
            first = 0;
            bjson(doc, name, strlen(name));
            bputs(doc, ": ");
            if (len != 1)
                bputs(doc, "[");
            for (size_t i = 0; i < len; i++) {
                if (i)
                    bputs(doc, ", ");
                if (v[i])
                    bjson(doc, v[i], strlen(v[i]));
                else
                    bputs(doc, "null");
            }
            if (len != 1)
                bputs(doc, "]");
            nc_free_string(len, v);
            free(v);
            continue;
        }
        size_t sz = type_size(xt);
        if (!sz) {
            fprintf(stderr, "nckerchunk: warning: attribute %s of a user-defined type skipped\n", name);
            continue;
        }
        if (len > SIZE_MAX / sz)
            die_nomem();
        void *v = malloc(len * sz + 1);
        if (!v)
            die_nomem();
        if ((stat = nc_get_att(gid, varid, name, v)))
            nc_fail(name, stat);
        bputs(doc, first ? "" : ", ");
        first = 0;
        bjson(doc, name, strlen(name));
        bputs(doc, ": ");
        if (xt == NC_CHAR) {
            /* Text: trailing NULs are padding, not part of the string. */
            size_t n = len;
            while (n && ((char *)v)[n - 1] == '\0')
                n--;
            bjson(doc, v, n);
        } else if (len == 1) {
            bvalue(doc, xt, v, 0);
        } else {
            bputs(doc, "[");
            for (size_t i = 0; i < len; i++) {
                if (i)
                    bputs(doc, ", ");
                bvalue(doc, xt, v, i);
            }
            bputs(doc, "]");
        }
        free(v);
    }
    (void)t;
}

/* ---- variables ------------------------------------------------------------------ */

/* The Zarr dtype of xt stored in HDF5 type ftype ("<f4", "|u1"...). */
static int zarr_dtype(nc_type xt, hid_t ftype, char *out, size_t n)
{
    char kind;
    switch (xt) {
    case NC_BYTE: case NC_SHORT: case NC_INT: case NC_INT64: kind = 'i'; break;
    case NC_UBYTE: case NC_USHORT: case NC_UINT: case NC_UINT64: kind = 'u'; break;
    case NC_FLOAT: case NC_DOUBLE: kind = 'f'; break;
    case NC_CHAR: kind = 'S'; break;
    default: return 0;
    }
    size_t sz = type_size(xt);
    if (H5Tget_size(ftype) != sz)
        return 0;
    /* A text variable is ">S1": the library reads "|S1" as strings and
     * ">S1" as characters (NumPy takes both as the same type). */
    char order = xt == NC_CHAR ? '>' : '|';
    if (sz > 1) {
        H5T_order_t o = H5Tget_order(ftype);
        if (o == H5T_ORDER_LE)
            order = '<';
        else if (o == H5T_ORDER_BE)
            order = '>';
        else
            return 0;
    }
    snprintf(out, n, "%c%c%zu", order, kind, sz);
    return 1;
}

/* The chunk key of chunk index idx[0..ndims) ("0" for a scalar). */
static void chunk_key(Buf *k, const char *prefix, const char *name, int ndims, const unsigned long long *idx)
{
    k->len = 0;
    bputs(k, prefix);
    bputs(k, name);
    bputs(k, "/");
    if (ndims == 0)
        bputs(k, "0");
    for (int d = 0; d < ndims; d++)
        bprintf(k, d ? ".%llu" : "%llu", idx[d]);
}

/* A chunk: inline (base64) when small enough, else [url, offset, length]. */
static int ref_chunk(Tool *t, const char *key, unsigned long long addr, unsigned long long size)
{
    if (t->inline_max > 0 && size <= (unsigned long long)t->inline_max) {
        unsigned char *p = malloc(size ? size : 1);
        if (!p)
            die_nomem();
        ssize_t got = pread(t->fd, p, size, (off_t)addr);
        if (got < 0 || (unsigned long long)got != size) {
            free(p);
            return 0;
        }
        ref_key(t, "", key);
        bputs(&t->refs, "\"base64:");
        bbase64(&t->refs, p, size);
        bputs(&t->refs, "\"");
        free(p);
        return 1;
    }
    ref_key(t, "", key);
    bputs(&t->refs, "[");
    bjson(&t->refs, t->url, strlen(t->url));
    bprintf(&t->refs, ", %llu, %llu]", addr, size);
    return 1;
}

/* The fill value of a variable as the .zarray's fill_value. */
static void fill_value(Buf *doc, int gid, int varid, nc_type xt)
{
    int nofill = 0;
    unsigned char v[8] = {0};
    if (nc_inq_var_fill(gid, varid, &nofill, v) != NC_NOERR || nofill) {
        bputs(doc, "null");
        return;
    }
    if (xt == NC_CHAR) {
        /* Zarr v2 writes a bytes fill value as base64. */
        bputs(doc, "\"");
        bbase64(doc, v, 1);
        bputs(doc, "\"");
    } else if (xt == NC_FLOAT || xt == NC_DOUBLE) {
        /* Non-finite fill values are strings in Zarr v2 metadata. */
        double d = xt == NC_FLOAT ? *(float *)v : *(double *)v;
        if (isnan(d))
            bputs(doc, "\"NaN\"");
        else if (isinf(d))
            bputs(doc, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        else
            bdouble(doc, d, xt == NC_FLOAT);
    } else {
        bvalue(doc, xt, v, 0);
    }
}

/* One variable: .zarray, .zattrs and its chunks, or a warning. */
static void do_var(Tool *t, int gid, const char *gpath, const char *prefix, int varid)
{
    char name[NC_MAX_NAME + 1];
    nc_type xt;
    int ndims, natts, dimids[NC_MAX_VAR_DIMS];
    int stat = nc_inq_var(gid, varid, name, &xt, &ndims, dimids, &natts);
    if (stat)
        nc_fail("reading a variable", stat);
    char full[2 * NC_MAX_NAME + 4096];
    snprintf(full, sizeof full, "%s%s", prefix, name);

    if (xt == NC_STRING) {
        skip_var(t, full, "strings have no fixed-size Zarr v2 form");
        return;
    }
    if (!type_size(xt)) {
        skip_var(t, full, "user-defined types (compound, vlen, enum, opaque) are not described");
        return;
    }

    /* The dataset: a variable that shares a dimension's name without being
     * its coordinate is stored under another name (the dimension's scale
     * has the plain one); any other, under its own name. */
    char dpath[2 * NC_MAX_NAME + 4096 + 32];
    snprintf(dpath, sizeof dpath, "%s/_nc4_non_coord_%s", strcmp(gpath, "/") ? gpath : "", name);
    if (H5Lexists(t->h5, dpath, H5P_DEFAULT) <= 0)
        snprintf(dpath, sizeof dpath, "%s/%s", strcmp(gpath, "/") ? gpath : "", name);
    hid_t ds = H5Dopen2(t->h5, dpath, H5P_DEFAULT);
    if (ds < 0) {
        skip_var(t, full, "its HDF5 dataset was not found");
        return;
    }
    hid_t ftype = H5Dget_type(ds), dcpl = H5Dget_create_plist(ds), space = H5Dget_space(ds);
    Buf doc = {0}, filt = {0}, comp = {0}, key = {0};
    const char *why = NULL;
    char dtype[16];
    unsigned long long shape[NC_MAX_VAR_DIMS], chunks[NC_MAX_VAR_DIMS];
    hsize_t hchunk[H5S_MAX_RANK];
    H5D_layout_t layout = H5Pget_layout(dcpl);
    int rank = H5Sget_simple_extent_ndims(space);

    if (ftype < 0 || dcpl < 0 || space < 0 || !zarr_dtype(xt, ftype, dtype, sizeof dtype)) {
        why = "its HDF5 type is not a fixed-size atomic type of the variable's size";
        goto done;
    }
    if (rank != ndims) {
        why = "its HDF5 dataset's rank differs from the variable's";
        goto done;
    }
    for (int d = 0; d < ndims; d++) {
        size_t len;
        if ((stat = nc_inq_dimlen(gid, dimids[d], &len)))
            nc_fail("reading a dimension", stat);
        shape[d] = len;
        chunks[d] = len ? len : 1;
    }
    if (layout == H5D_CHUNKED) {
        if (H5Pget_chunk(dcpl, ndims, hchunk) != ndims) {
            why = "its chunk shape could not be read";
            goto done;
        }
        for (int d = 0; d < ndims; d++)
            chunks[d] = hchunk[d];
    } else if (layout != H5D_CONTIGUOUS && layout != H5D_COMPACT) {
        why = "its storage layout is neither chunked, contiguous nor compact";
        goto done;
    }

    /* The filter pipeline as Zarr codecs, in HDF5's order; a trailing
     * deflate is the compressor. */
    int nf = H5Pget_nfilters(dcpl);
    int ncodec = 0;
    for (int i = 0; i < nf && !why; i++) {
        unsigned flags, cd[8] = {0}, fcfg;
        size_t ncd = 8;
        char fname[64];
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, &fcfg);
        Buf *into = &filt;
        if (id == H5Z_FILTER_DEFLATE && i == nf - 1)
            into = &comp;
        else if (ncodec++)
            bputs(&filt, ", ");
        if (id == H5Z_FILTER_DEFLATE) {
            bprintf(into, "{\"id\": \"zlib\", \"level\": %u}", ncd ? cd[0] : 6u);
        } else if (id == H5Z_FILTER_SHUFFLE) {
            bprintf(into, "{\"id\": \"shuffle\", \"elementsize\": %zu}", type_size(xt));
        } else if (id == H5Z_FILTER_FLETCHER32) {
            why = "the Fletcher32 checksum has no codec here";
        } else {
            static char msg[128];
            snprintf(msg, sizeof msg, "filter %d (%s) has no Zarr codec here", (int)id, fname);
            why = msg;
        }
    }
    if (why)
        goto done;

    /* .zarray, in kerchunk's member order. */
    bputs(&doc, "{\"chunks\": [");
    for (int d = 0; d < ndims; d++)
        bprintf(&doc, d ? ", %llu" : "%llu", chunks[d]);
    bputs(&doc, "], \"compressor\": ");
    bputs(&doc, comp.len ? comp.s : "null");
    bputs(&doc, ", \"dtype\": ");
    bjson(&doc, dtype, strlen(dtype));
    bputs(&doc, ", \"fill_value\": ");
    fill_value(&doc, gid, varid, xt);
    bputs(&doc, ", \"filters\": ");
    if (filt.len) {
        bputs(&doc, "[");
        bputs(&doc, filt.s);
        bputs(&doc, "]");
    } else {
        bputs(&doc, "null");
    }
    bputs(&doc, ", \"order\": \"C\", \"shape\": [");
    for (int d = 0; d < ndims; d++)
        bprintf(&doc, d ? ", %llu" : "%llu", shape[d]);
    bputs(&doc, "], \"zarr_format\": 2}");

    /* Where this variable's members start: a variable skipped half-way
     * (a chunk that cannot be described) takes them back. */
    size_t refs_len = t->refs.len;
    int nrefs = t->nrefs;

    char base[2 * NC_MAX_NAME + 4096];
    snprintf(base, sizeof base, "%s%s/", prefix, name);
    ref_meta(t, base, ".zarray", &doc);
    doc.len = 0;
    bputs(&doc, "{\"_ARRAY_DIMENSIONS\": [");
    for (int d = 0; d < ndims; d++) {
        char dn[NC_MAX_NAME + 1];
        if ((stat = nc_inq_dimname(gid, dimids[d], dn)))
            nc_fail("reading a dimension", stat);
        if (d)
            bputs(&doc, ", ");
        bjson(&doc, dn, strlen(dn));
    }
    bputs(&doc, "]");
    write_atts(t, gid, varid, natts, &doc, 0);
    bputs(&doc, "}");
    ref_meta(t, base, ".zattrs", &doc);

    unsigned long long idx[NC_MAX_VAR_DIMS] = {0};
    if (layout == H5D_CONTIGUOUS) {
        haddr_t addr = H5Dget_offset(ds);
        hsize_t size = H5Dget_storage_size(ds);
        if (addr != HADDR_UNDEF && size > 0) {
            chunk_key(&key, prefix, name, ndims, idx);
            if (!ref_chunk(t, key.s, addr, size))
                why = "its data could not be read";
        }
    } else if (layout == H5D_COMPACT) {
        /* Compact data lies in the object header: inlined, as read with
         * the file's own type (its bytes as stored). */
        hssize_t n = H5Sget_simple_extent_npoints(space);
        size_t sz = type_size(xt);
        if (n > 0 && (size_t)n <= SIZE_MAX / sz) {
            unsigned char *p = malloc((size_t)n * sz);
            if (!p)
                die_nomem();
            if (H5Dread(ds, ftype, H5S_ALL, H5S_ALL, H5P_DEFAULT, p) < 0) {
                why = "its compact data could not be read";
            } else {
                chunk_key(&key, prefix, name, ndims, idx);
                ref_key(t, "", key.s);
                bputs(&t->refs, "\"base64:");
                bbase64(&t->refs, p, (size_t)n * sz);
                bputs(&t->refs, "\"");
            }
            free(p);
        }
    } else {
        hsize_t nchunks = 0;
        if (H5Dget_num_chunks(ds, space, &nchunks) < 0)
            why = "its chunks could not be listed";
        for (hsize_t c = 0; c < nchunks && !why; c++) {
            hsize_t off[H5S_MAX_RANK];
            unsigned mask = 0;
            haddr_t addr;
            hsize_t size;
            if (H5Dget_chunk_info(ds, space, c, off, &mask, &addr, &size) < 0) {
                why = "a chunk could not be located";
                break;
            }
            if (mask) {
                why = "a chunk is stored without one of its filters";
                break;
            }
            int outside = 0;
            for (int d = 0; d < ndims; d++) {
                idx[d] = off[d] / chunks[d];
                if (off[d] >= shape[d])
                    outside = 1; /* past the current extent: never read */
            }
            if (outside)
                continue;
            chunk_key(&key, prefix, name, ndims, idx);
            if (!ref_chunk(t, key.s, addr, size))
                why = "a chunk could not be read";
        }
    }
    if (why) {
        /* Take back the members written for this variable. */
        t->refs.len = refs_len;
        if (t->refs.s)
            t->refs.s[refs_len] = '\0';
        t->nrefs = nrefs;
    }

done:
    if (why)
        skip_var(t, full, why);
    free(doc.s);
    free(filt.s);
    free(comp.s);
    free(key.s);
    if (space >= 0)
        H5Sclose(space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (ftype >= 0)
        H5Tclose(ftype);
    H5Dclose(ds);
}

/* A group: .zgroup, .zattrs, its variables, then its subgroups. */
static void do_group(Tool *t, int gid, const char *prefix)
{
    size_t plen;
    int stat = nc_inq_grpname_full(gid, &plen, NULL);
    if (stat)
        nc_fail("reading a group", stat);
    char *gpath = malloc(plen + 1);
    if (!gpath)
        die_nomem();
    if ((stat = nc_inq_grpname_full(gid, &plen, gpath)))
        nc_fail("reading a group", stat);

    Buf doc = {0};
    bputs(&doc, "{\"zarr_format\": 2}");
    ref_meta(t, prefix, ".zgroup", &doc);
    doc.len = 0;
    int natts, nvars;
    if ((stat = nc_inq_natts(gid, &natts)) || (stat = nc_inq_nvars(gid, &nvars)))
        nc_fail("reading a group", stat);
    bputs(&doc, "{");
    write_atts(t, gid, NC_GLOBAL, natts, &doc, 1);
    bputs(&doc, "}");
    ref_meta(t, prefix, ".zattrs", &doc);
    free(doc.s);

    for (int v = 0; v < nvars; v++)
        do_var(t, gid, gpath, prefix, v);

    int ngrps;
    if ((stat = nc_inq_grps(gid, &ngrps, NULL)))
        nc_fail("reading groups", stat);
    int *grps = malloc(sizeof(int) * (ngrps ? (size_t)ngrps : 1));
    if (!grps)
        die_nomem();
    if ((stat = nc_inq_grps(gid, &ngrps, grps)))
        nc_fail("reading groups", stat);
    for (int g = 0; g < ngrps; g++) {
        char name[NC_MAX_NAME + 1];
        if ((stat = nc_inq_grpname(grps[g], name)))
            nc_fail("reading a group", stat);
        Buf sub = {0};
        bputs(&sub, prefix);
        bputs(&sub, name);
        bputs(&sub, "/");
        do_group(t, grps[g], sub.s);
        free(sub.s);
    }
    free(grps);
    free(gpath);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: nckerchunk [-u URL] [-i BYTES] infile [outfile]\n"
            "  writes a kerchunk (version 1) reference file for the netCDF-4/HDF5 file\n"
            "  infile to outfile (standard output without it)\n"
            "  -u URL    target of every reference (default: infile's absolute path)\n"
            "  -i BYTES  chunks of at most BYTES bytes are written inline (default 0: none)\n");
}

int main(int argc, char **argv)
{
    Tool t = {0};
    const char *url = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "u:i:h")) != -1) {
        switch (opt) {
        case 'u':
            url = optarg;
            break;
        case 'i': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || *end || v < 0 || v > (1L << 30)) {
                fprintf(stderr, "nckerchunk: -i %s: not a size from 0 to 1 GiB\n", optarg);
                return 1;
            }
            t.inline_max = v;
            break;
        }
        case 'h':
            usage();
            return 0;
        default:
            usage();
            return 1;
        }
    }
    if (optind >= argc || argc - optind > 2) {
        usage();
        return 1;
    }
    t.path = argv[optind];
    const char *out = optind + 1 < argc ? argv[optind + 1] : NULL;

    t.fd = open(t.path, O_RDONLY);
    if (t.fd < 0) {
        fprintf(stderr, "nckerchunk: %s: %s\n", t.path, strerror(errno));
        return 1;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
#if H5_VERSION_GE(1, 12, 0)
    htri_t ish5 = H5Fis_accessible(t.path, H5P_DEFAULT);
#else
    htri_t ish5 = H5Fis_hdf5(t.path);
#endif
    if (ish5 <= 0) {
        fprintf(stderr, "nckerchunk: %s: not a netCDF-4/HDF5 file\n", t.path);
        close(t.fd);
        return 1;
    }
    int ncid;
    int stat = nc_open(t.path, NC_NOWRITE, &ncid);
    if (stat) {
        fprintf(stderr, "nckerchunk: %s: %s\n", t.path, nc_strerror(stat));
        close(t.fd);
        return 1;
    }
    t.h5 = H5Fopen(t.path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (t.h5 < 0) {
        fprintf(stderr, "nckerchunk: %s: HDF5 cannot open it\n", t.path);
        nc_close(ncid);
        close(t.fd);
        return 1;
    }
    if (url) {
        t.url = strdup(url);
    } else {
        char *abs = realpath(t.path, NULL);
        t.url = abs ? abs : strdup(t.path);
    }
    if (!t.url)
        die_nomem();

    do_group(&t, ncid, "");

    int rc = 0;
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "nckerchunk: %s: %s\n", out, strerror(errno));
        rc = 1;
    } else {
        fprintf(f, "{\"version\": 1, \"refs\": {%s\n}}\n", t.refs.s ? t.refs.s : "");
        int werr = ferror(f);
        if ((out ? fclose(f) : fflush(f)) != 0 || werr) {
            fprintf(stderr, "nckerchunk: %s: write failed\n", out ? out : "standard output");
            rc = 1;
        }
    }
    if (!rc && t.nskipped)
        fprintf(stderr, "nckerchunk: %d variable(s) skipped: %s\n", t.nskipped, t.skipped.s);

    H5Fclose(t.h5);
    nc_close(ncid);
    close(t.fd);
    free(t.url);
    free(t.refs.s);
    free(t.skipped.s);
    return rc;
}
