/* tst_copy4.c: copy a netCDF-4 file through the public API: every group,
 * user-defined type, dimension, attribute and variable with its storage
 * settings (chunk sizes, filters in order, endianness, no-fill) and all its
 * values.  Run with our library on a file the reference wrote, the copy must
 * dump (reference ncdump -s, ref_tst_dump4) the same as the original:
 * run_interop4.sh checks that.  It reads with our read path and writes with
 * our write path, so either side's bugs show.
 *
 * Usage: tst_copy4 IN OUT   (exit 1 with a message on any error) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter.h>

#define CK(call)                                                                 \
    do {                                                                         \
        int ck_ = (call);                                                        \
        if (ck_) {                                                               \
            fprintf(stderr, "tst_copy4: line %d: %s: %d (%s)\n", __LINE__, #call, ck_, \
                    nc_strerror(ck_));                                           \
            return ck_;                                                          \
        }                                                                        \
    } while (0)

/* Source type id -> destination type id (user types only). */
#define MAXT 4096
static nc_type tmap[MAXT];

static nc_type
map_type(nc_type t)
{
    if (t <= NC_STRING) return t;
    if (t < MAXT && tmap[t]) return tmap[t];
    return NC_NAT;
}

/* Source dimid -> destination dimid. */
#define MAXD 65536
static int dmap[MAXD];

static int
copy_type(int in, int out, nc_type t)
{
    char name[NC_MAX_NAME + 1];
    size_t size, nf;
    nc_type base, nt = NC_NAT;
    int cls;
    if (t >= MAXT) return NC_EMAXNAME;
    CK(nc_inq_user_type(in, t, name, &size, &base, &nf, &cls));
    switch (cls) {
    case NC_COMPOUND:
        CK(nc_def_compound(out, size, name, &nt));
        for (size_t f = 0; f < nf; f++) {
            char fname[NC_MAX_NAME + 1];
            size_t off;
            nc_type ft;
            int nd, dims[NC_MAX_VAR_DIMS];
            CK(nc_inq_compound_field(in, t, (int)f, fname, &off, &ft, &nd, dims));
            if (nd)
                CK(nc_insert_array_compound(out, nt, fname, off, map_type(ft), nd, dims));
            else
                CK(nc_insert_compound(out, nt, fname, off, map_type(ft)));
        }
        break;
    case NC_VLEN:
        CK(nc_def_vlen(out, name, map_type(base), &nt));
        break;
    case NC_OPAQUE:
        CK(nc_def_opaque(out, size, name, &nt));
        break;
    case NC_ENUM:
        CK(nc_def_enum(out, base, name, &nt));
        for (size_t m = 0; m < nf; m++) {
            char mname[NC_MAX_NAME + 1];
            unsigned char val[8];
            CK(nc_inq_enum_member(in, t, (int)m, mname, val));
            CK(nc_insert_enum(out, nt, mname, val));
        }
        break;
    default:
        return NC_EBADTYPE;
    }
    tmap[t] = nt;
    return 0;
}

static int
copy_atts(int in, int vin, int out, int vout)
{
    int na;
    CK(nc_inq_varnatts(in, vin, &na));
    for (int a = 0; a < na; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len, size;
        CK(nc_inq_attname(in, vin, a, name));
        CK(nc_inq_att(in, vin, name, &t, &len));
        CK(nc_inq_type(in, t, NULL, &size));
        void *buf = calloc(len ? len : 1, size);
        if (!buf) return NC_ENOMEM;
        int stat = nc_get_att(in, vin, name, buf);
        if (!stat) stat = nc_put_att(out, vout, name, map_type(t), len, buf);
        if (len) nc_reclaim_data(in, t, buf, len);
        free(buf);
        CK(stat);
    }
    return 0;
}

/* Storage settings of variable v, before any data. */
static int
copy_specials(int in, int out, int v, int nv, int nd)
{
    int st, en, nofill;
    size_t cs[NC_MAX_VAR_DIMS], nfil = 0;
    unsigned ids[16];
    CK(nc_inq_var_chunking(in, v, &st, cs));
    if (st == NC_CHUNKED && nd > 0) CK(nc_def_var_chunking(out, nv, NC_CHUNKED, cs));
    else if (st == NC_CONTIGUOUS) CK(nc_def_var_chunking(out, nv, NC_CONTIGUOUS, NULL));
    else if (st == NC_COMPACT) CK(nc_def_var_chunking(out, nv, NC_COMPACT, NULL));
    CK(nc_inq_var_filter_ids(in, v, &nfil, NULL));
    if (nfil > 16) return NC_EFILTER;
    if (nfil) CK(nc_inq_var_filter_ids(in, v, &nfil, ids));
    for (size_t i = 0; i < nfil; i++) {
        size_t np = 0;
        unsigned params[32];
        CK(nc_inq_var_filter_info(in, v, ids[i], &np, NULL));
        if (np > 32) return NC_EFILTER;
        CK(nc_inq_var_filter_info(in, v, ids[i], &np, params));
        if (ids[i] == H5Z_FILTER_SHUFFLE) CK(nc_def_var_deflate(out, nv, 1, 0, 0));
        else if (ids[i] == H5Z_FILTER_FLETCHER32) CK(nc_def_var_fletcher32(out, nv, 1));
        else if (ids[i] == H5Z_FILTER_DEFLATE && np == 1)
            CK(nc_def_var_deflate(out, nv, 0, 1, (int)params[0]));
        else CK(nc_def_var_filter(out, nv, ids[i], np, params));
    }
    CK(nc_inq_var_endian(in, v, &en));
    if (en != NC_ENDIAN_NATIVE) CK(nc_def_var_endian(out, nv, en));
    CK(nc_inq_var_fill(in, v, &nofill, NULL));
    if (nofill) CK(nc_def_var_fill(out, nv, 1, NULL));
    return 0;
}

static int
copy_data(int in, int out, int v, int nv)
{
    nc_type t;
    int nd, dims[NC_MAX_VAR_DIMS];
    size_t size, n = 1, start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    CK(nc_inq_var(in, v, NULL, &t, &nd, dims, NULL));
    CK(nc_inq_type(in, t, NULL, &size));
    for (int d = 0; d < nd; d++) {
        CK(nc_inq_dimlen(in, dims[d], &count[d]));
        start[d] = 0;
        n *= count[d];
    }
    if (n == 0) return 0;
    void *buf = calloc(n, size);
    if (!buf) return NC_ENOMEM;
    int stat = nc_get_var(in, v, buf);
    if (!stat) {
        stat = nc_put_vara(out, nv, start, count, buf);
        nc_reclaim_data(in, t, buf, n);
    }
    free(buf);
    CK(stat);
    return 0;
}

static int
copy_group(int in, int out)
{
    int n, *ids;
    /* types in id order: a type only refers to earlier ones */
    CK(nc_inq_typeids(in, &n, NULL));
    ids = malloc(sizeof(int) * (size_t)(n + 1));
    if (!ids) return NC_ENOMEM;
    if (n) CK(nc_inq_typeids(in, &n, ids));
    for (int i = 0; i < n; i++) {
        int stat = copy_type(in, out, ids[i]);
        if (stat) { free(ids); return stat; }
    }
    free(ids);
    /* dimensions */
    CK(nc_inq_dimids(in, &n, NULL, 0));
    ids = malloc(sizeof(int) * (size_t)(n + 1));
    if (!ids) return NC_ENOMEM;
    if (n) CK(nc_inq_dimids(in, &n, ids, 0));
    int nu = 0, uids[NC_MAX_DIMS];
    CK(nc_inq_unlimdims(in, &nu, NULL));
    if (nu > NC_MAX_DIMS) nu = NC_MAX_DIMS;
    if (nu) CK(nc_inq_unlimdims(in, &nu, uids));
    for (int i = 0; i < n; i++) {
        char name[NC_MAX_NAME + 1];
        size_t len;
        int unl = 0;
        CK(nc_inq_dim(in, ids[i], name, &len));
        for (int u = 0; u < nu; u++) unl |= uids[u] == ids[i];
        if (ids[i] < 0 || ids[i] >= MAXD) { free(ids); return NC_EBADDIM; }
        CK(nc_def_dim(out, name, unl ? NC_UNLIMITED : len, &dmap[ids[i]]));
    }
    free(ids);
    CK(copy_atts(in, NC_GLOBAL, out, NC_GLOBAL));
    int nvars;
    CK(nc_inq_nvars(in, &nvars));
    for (int v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        int nd, dims[NC_MAX_VAR_DIMS], odims[NC_MAX_VAR_DIMS], nv;
        CK(nc_inq_var(in, v, name, &t, &nd, dims, NULL));
        for (int d = 0; d < nd; d++) odims[d] = dmap[dims[d]];
        CK(nc_def_var(out, name, map_type(t), nd, odims, &nv));
        CK(copy_specials(in, out, v, nv, nd));
        CK(copy_atts(in, v, out, nv));
    }
    CK(nc_inq_grps(in, &n, NULL));
    ids = malloc(sizeof(int) * (size_t)(n + 1));
    if (!ids) return NC_ENOMEM;
    if (n) CK(nc_inq_grps(in, &n, ids));
    for (int i = 0; i < n; i++) {
        char name[NC_MAX_NAME + 1];
        int g, stat;
        if ((stat = nc_inq_grpname(ids[i], name)) || (stat = nc_def_grp(out, name, &g)) ||
            (stat = copy_group(ids[i], g))) {
            free(ids);
            return stat;
        }
    }
    free(ids);
    return 0;
}

/* Second pass, after enddef (the classic model needs data mode): the values
 * of every variable; groups pair up by position. */
static int
copy_group_data(int in, int out)
{
    int nvars, n, m;
    CK(nc_inq_nvars(in, &nvars));
    for (int v = 0; v < nvars; v++) CK(copy_data(in, out, v, v));
    CK(nc_inq_grps(in, &n, NULL));
    CK(nc_inq_grps(out, &m, NULL));
    if (n != m) return NC_EINTERNAL;
    int *ids = malloc(sizeof(int) * (size_t)(2 * n + 1));
    if (!ids) return NC_ENOMEM;
    int stat = 0;
    if (n && !(stat = nc_inq_grps(in, &n, ids)))
        stat = nc_inq_grps(out, &m, ids + n);
    for (int i = 0; !stat && i < n; i++) stat = copy_group_data(ids[i], ids[n + i]);
    free(ids);
    CK(stat);
    return 0;
}

int
main(int argc, char **argv)
{
    int in, out, fmt, stat;
    if (argc != 3) {
        fprintf(stderr, "usage: tst_copy4 IN OUT\n");
        return 2;
    }
    if ((stat = nc_open(argv[1], NC_NOWRITE, &in)) || (stat = nc_inq_format(in, &fmt))) {
        fprintf(stderr, "tst_copy4: %s: %s\n", argv[1], nc_strerror(stat));
        return 1;
    }
    int cmode = NC_CLOBBER | NC_NETCDF4;
    if (fmt == NC_FORMAT_NETCDF4_CLASSIC) cmode |= NC_CLASSIC_MODEL;
    else if (fmt != NC_FORMAT_NETCDF4) {
        fprintf(stderr, "tst_copy4: %s: not a netCDF-4 file\n", argv[1]);
        return 1;
    }
    if ((stat = nc_create(argv[2], cmode, &out))) {
        fprintf(stderr, "tst_copy4: %s: %s\n", argv[2], nc_strerror(stat));
        return 1;
    }
    stat = copy_group(in, out);
    if (!stat && (stat = nc_enddef(out)))
        fprintf(stderr, "tst_copy4: enddef: %s\n", nc_strerror(stat));
    if (!stat) stat = copy_group_data(in, out);
    nc_close(in);
    if (stat) { nc_abort(out); return 1; }
    if ((stat = nc_close(out))) {
        fprintf(stderr, "tst_copy4: close %s: %s\n", argv[2], nc_strerror(stat));
        return 1;
    }
    return 0;
}
