/* tst_api_regress.c: return codes of per-variable and group inquiries on
 * classic files, of open/create/def_var/inq_var_filter, of which error wins,
 * of dimension sizes at each format's limit and of the default format,
 * checked against fixed expectations so that they stay fixed even where the
 * reference library is not installed (tst_apicodes_cmp compares the whole
 * API with the reference).  Each expectation is what the 4.9.0 reference
 * does, except those marked "deliberate", where the reference is plainly
 * wrong (see docs/error-precedence.md). */
#include "nctst.h"

#include <stdint.h>
#include <string.h>
#include <netcdf_filter.h>
#include <netcdf_meta.h>

/* Public functions that netcdf.h does not declare. */
extern int nc_inq_var_chunking_ints(int ncid, int varid, int *contiguousp, int *chunksizesp);
extern int nc_def_var_chunking_ints(int ncid, int varid, int contiguous, int *chunksizesp);
extern int nc_get_var_chunk_cache_ints(int ncid, int varid, int *sizep, int *nelemsp, int *preemptionp);
extern int nc_set_var_chunk_cache_ints(int ncid, int varid, int size, int nelems, int preemption);
extern int nc_var_par_access(int ncid, int varid, int par_access);

#define SI (-7)
#define SZ ((size_t)77)

/* v(time,x) short with _FillValue, c(x) char; v:empty is a zero-length
 * char attribute, v:enums a zero-length int one.  Left in data mode. */
static int
make_file(const char *path, int cmode, int *ncidp)
{
    int ncid, d[2], v, c, stat;
    short fill = -99;
    int nums[1] = {1};
    if ((stat = nc_create(path, cmode | NC_CLOBBER, &ncid))) return stat;
    if ((stat = nc_def_dim(ncid, "time", NC_UNLIMITED, &d[0]))) return stat;
    if ((stat = nc_def_dim(ncid, "x", 3, &d[1]))) return stat;
    if ((stat = nc_def_var(ncid, "v", NC_SHORT, 2, d, &v))) return stat;
    if ((stat = nc_def_var(ncid, "c", NC_CHAR, 1, &d[1], &c))) return stat;
    if ((stat = nc_put_att_text(ncid, v, "empty", 0, ""))) return stat;
    if ((stat = nc_put_att_int(ncid, v, "enums", NC_INT, 0, nums))) return stat;
    if ((stat = nc_put_att_short(ncid, v, "_FillValue", NC_SHORT, 1, &fill))) return stat;
    if ((stat = nc_enddef(ncid))) return stat;
    *ncidp = ncid;
    return NC_NOERR;
}

/* Per-variable and group/type inquiries on a classic file. */
static void
item1(const nct_format *f)
{
    int ncid, e = SI, st = SI, sh = SI, de = SI, lv = SI, fl = SI, m = SI, p = SI;
    size_t cs[2] = {SZ, SZ}, n = SZ;
    char path[64];
    snprintf(path, sizeof path, "api_regress_1_%s.nc", f->name);
    MUST(make_file(path, f->cmode, &ncid));

    /* Classic data are big-endian on disk but have no endianness property:
     * upstream says NC_ENOTNC4 and leaves *endianp alone (Python's netCDF4
     * then reports native dtypes such as float32, not >f4). */
    EXPECT(nc_inq_var_endian(ncid, 0, &e), NC_ENOTNC4);
    CHECK(e == SI, "%s: nc_inq_var_endian wrote %d", f->name, e);
    EXPECT(nc_inq_var_endian(ncid, 0, NULL), NC_NOERR);
    EXPECT(nc_inq_var_endian(ncid, 99, &e), NC_ENOTVAR);

    EXPECT(nc_inq_var_chunking(ncid, 0, &st, cs), NC_NOERR);
    CHECK(st == NC_CONTIGUOUS && cs[0] == SZ, "%s: chunking %d %zu", f->name, st, cs[0]);
    EXPECT(nc_inq_var_deflate(ncid, 0, &sh, &de, &lv), NC_NOERR);
    CHECK(sh == 0 && de == 0 && lv == 0, "%s: deflate %d %d %d", f->name, sh, de, lv);
    EXPECT(nc_inq_var_fletcher32(ncid, 0, &fl), NC_NOERR);
    CHECK(fl == 0, "%s: fletcher32 %d", f->name, fl);
    EXPECT(nc_inq_var_szip(ncid, 0, &m, &p), NC_NOERR);
    CHECK(m == 0 && p == 0, "%s: szip %d %d", f->name, m, p);
    EXPECT(nc_inq_var_filter_ids(ncid, 0, &n, NULL), NC_NOERR);
    CHECK(n == 0, "%s: nfilters %zu", f->name, n);
    n = SZ;
    EXPECT(nc_inq_var_filter_info(ncid, 0, H5Z_FILTER_DEFLATE, &n, NULL), NC_ENOFILTER);
    CHECK(n == SZ, "%s: filter_info wrote %zu", f->name, n);
    m = SI; p = SI;
    EXPECT(nc_inq_var_quantize(ncid, 0, &m, &p), NC_ENOTNC4);
    EXPECT(nc_inq_var_quantize(ncid, NC_GLOBAL, &m, &p), NC_EGLOBAL);
    CHECK(m == SI && p == SI, "%s: quantize wrote %d %d", f->name, m, p);
    EXPECT(nc_var_par_access(ncid, 0, 1), NC_ENOPAR);
    m = SI; p = SI;
    EXPECT(nc_inq_var_bzip2(ncid, 0, &m, &p), NC_ENOFILTER);
    CHECK(m == 0 && p == 0, "%s: bzip2 wrote %d %d", f->name, m, p);

    /* The Fortran helpers (the reference crashes on these). */
    {
        int ci[2] = {SI, SI}, a = SI, b = SI, c = SI;
        st = SI;
        EXPECT(nc_inq_var_chunking_ints(ncid, 0, &st, ci), NC_NOERR);
        CHECK(st == NC_CONTIGUOUS, "%s: chunking_ints %d", f->name, st);
        EXPECT(nc_def_var_chunking_ints(ncid, 0, NC_CONTIGUOUS, NULL), NC_ENOTNC4);
        EXPECT(nc_get_var_chunk_cache_ints(ncid, 0, &a, &b, &c), NC_ENOTNC4);
        EXPECT(nc_set_var_chunk_cache_ints(ncid, 0, 1, 2, 3), NC_ENOTNC4);
    }

    /* Groups and types. */
    {
        int g = SI, nv = SI, eq = SI;
        nc_type t = SI;
        EXPECT(nc_inq_grp_full_ncid(ncid, "/", &g), NC_ENOGRP);
        EXPECT(nc_inq_nvars(ncid | 1, &nv), NC_EBADID);
        EXPECT(nc_inq_grps(ncid | 1, &nv, NULL), NC_EBADID);
        EXPECT(nc_inq_typeid(ncid, "int", &t), NC_NOERR);
        CHECK(t == NC_INT, "%s: typeid int %d", f->name, t);
        t = SI;
        EXPECT(nc_inq_typeid(ncid, "string", &t), NC_ENOTNC4);
        /* deliberate: CDF-5 knows its unsigned and 64-bit type names */
        EXPECT(nc_inq_typeid(ncid, "ubyte", &t), f->fmt == NC_FORMAT_64BIT_DATA ? NC_NOERR : NC_ENOTNC4);
        EXPECT(nc_inq_type_equal(123456789, NC_INT, ncid, NC_INT, &eq), NC_EBADID);
        EXPECT(nc_inq_type_equal(ncid, NC_NAT, ncid, NC_INT, &eq), NC_EINVAL);
        EXPECT(nc_inq_type_equal(ncid, NC_INT, ncid, 32, &eq), NC_NOERR);
        CHECK(eq == 0, "%s: int == 32", f->name);
        EXPECT(nc_inq_type_equal(ncid, 40, ncid, 40, &eq), NC_NOERR);
        CHECK(eq == 0, "%s: 40 == 40", f->name);
        /* deliberate: the reference says uint64 != uint64 */
        EXPECT(nc_inq_type_equal(ncid, NC_UINT64, ncid, NC_UINT64, &eq), NC_NOERR);
        CHECK(eq == 1, "%s: uint64 != uint64", f->name);
    }
    OK(nc_close(ncid));
}

/* Return codes of open/create/def_var/inq_var_filter. */
static void
item4(const nct_format *f)
{
    int ncid = SI, v = SI, d;
    char path[64];
    snprintf(path, sizeof path, "api_regress_4_%s.nc", f->name);
    EXPECT(nc_open("", NC_NOWRITE, &ncid), NC_EURL);
    EXPECT(nc_create("", f->cmode, &ncid), NC_EURL);
    MUST(make_file(path, f->cmode, &ncid));
    {
        unsigned id = 0xabcd;
        size_t n = SZ;
        EXPECT(nc_inq_var_filter(ncid, 0, &id, &n, NULL), NC_NOERR);
        CHECK(id == 0 && n == SZ, "%s: inq_var_filter id %u n %zu", f->name, id, n);
    }
    OK(nc_redef(ncid));
    OK(nc_def_dim(ncid, "y", 2, &d));
    /* deliberate: the reference accepts this and makes up the dimensions */
    EXPECT(nc_def_var(ncid, "a", NC_INT, 1, NULL, &v), NC_EINVAL);
    CHECK(v == SI, "%s: def_var wrote %d", f->name, v);
    EXPECT(nc_def_var(ncid, "a", NC_INT, -1, NULL, &v), NC_EINVAL);
    EXPECT(nc_def_var(ncid, "a", 99, 1, NULL, &v), NC_EBADTYPE);
    OK(nc_close(ncid));
    /* read-only before the fill mode's value */
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    EXPECT(nc_set_fill(ncid, 5, NULL), NC_EPERM);
    OK(nc_close(ncid));
    /* A NULL ncidp is allowed: the file is opened, its id not returned. */
    EXPECT(nc_open(path, NC_NOWRITE, NULL), NC_NOERR);
}

/* Which error wins. */
static void
item6(const nct_format *f)
{
    int ncid, ib[4] = {SI, SI, SI, SI};
    char cb[8];
    double db[2];
    size_t st[2] = {0, 0}, cnt[2] = {1, 3}, big[2] = {9, 9};
    ptrdiff_t zs[2] = {0, 0}, im[2] = {3, 1};
    char path[64];
    snprintf(path, sizeof path, "api_regress_6_%s.nc", f->name);
    MUST(make_file(path, f->cmode, &ncid));
    /* attributes: the variable id before the name */
    EXPECT(nc_get_att_int(ncid, 99, NULL, ib), NC_ENOTVAR);
    EXPECT(nc_get_att_text(ncid, -2, NULL, cb), NC_ENOTVAR);
    EXPECT(nc_put_att_int(ncid, 99, NULL, NC_INT, 1, ib), NC_ENOTVAR);
    EXPECT(nc_inq_att(ncid, 99, NULL, NULL, NULL), NC_ENOTVAR);
    EXPECT(nc_get_att_int(ncid, 0, NULL, ib), NC_EBADNAME);
    EXPECT(nc_put_att_int(ncid, NC_GLOBAL, NULL, NC_INT, 1, ib), NC_EBADNAME);
    /* ...and define mode before both for nc_del_att */
    EXPECT(nc_del_att(ncid, 99, NULL), NC_ENOTINDEFINE);
    /* a new name is checked last, after define mode */
    EXPECT(nc_put_att_int(ncid, 0, "bad/name", NC_INT, 1, ib), NC_ENOTINDEFINE);
    EXPECT(nc_put_att_int(ncid, 0, "bad/name", 99, 1, ib), NC_EBADTYPE);
    /* nothing to convert: success before NC_ECHAR */
    EXPECT(nc_get_att_int(ncid, 0, "empty", ib), NC_NOERR);
    EXPECT(nc_get_att_double(ncid, 0, "empty", db), NC_NOERR);
    EXPECT(nc_get_att_text(ncid, 0, "enums", cb), NC_NOERR);
    CHECK(ib[0] == SI, "%s: get_att_int on an empty attribute wrote %d", f->name, ib[0]);
    /* copying an attribute onto itself is a no-op, even a missing one */
    EXPECT(nc_copy_att(ncid, 0, "nope", ncid, 0), NC_NOERR);
    EXPECT(nc_copy_att(ncid, 0, "nope", ncid, NC_GLOBAL), NC_ENOTATT);
    /* mapped access: text against numbers before the stride */
    EXPECT(nc_get_varm_int(ncid, 1, st, cnt + 1, zs, im + 1, ib), NC_ECHAR);
    EXPECT(nc_put_varm_int(ncid, 1, st, cnt + 1, zs, im + 1, ib), NC_ECHAR);
    EXPECT(nc_get_varm_text(ncid, 0, st, cnt, zs, im, cb), NC_ECHAR);
    EXPECT(nc_get_varm_int(ncid, 1, st, cnt + 1, zs, NULL, ib), NC_ECHAR);
    /* ...and the stride before the coordinates, with or without a map */
    EXPECT(nc_get_varm_int(ncid, 0, big, cnt, zs, NULL, ib), NC_ESTRIDE);
    EXPECT(nc_get_varm_int(ncid, 0, big, cnt, zs, im, ib), NC_ESTRIDE);
    /* strided access keeps upstream's asymmetry: reads check coordinates
     * first, writes the stride */
    EXPECT(nc_get_vars_int(ncid, 0, big, cnt, zs, ib), NC_EINVALCOORDS);
    EXPECT(nc_put_vars_int(ncid, 0, big, cnt, zs, ib), NC_ESTRIDE);
    /* NC_GLOBAL as a variable: the classic layer's vara (typed vara and
     * var1 reach it directly) says NC_EGLOBAL; whatever asks for the
     * variable's type or shape first (var, untyped vara, vars, varm) says
     * NC_ENOTVAR.  The mode is checked before the id. */
    EXPECT(nc_get_vara_int(ncid, NC_GLOBAL, st, cnt, ib), NC_EGLOBAL);
    EXPECT(nc_put_vara_int(ncid, NC_GLOBAL, st, cnt, ib), NC_EGLOBAL);
    EXPECT(nc_get_vara_text(ncid, NC_GLOBAL, st, cnt, cb), NC_EGLOBAL);
    EXPECT(nc_get_var1_int(ncid, NC_GLOBAL, st, ib), NC_EGLOBAL);
    EXPECT(nc_put_var1_double(ncid, NC_GLOBAL, st, db), NC_EGLOBAL);
    EXPECT(nc_get_var1(ncid, NC_GLOBAL, st, ib), NC_EGLOBAL);   /* untyped: NC_NAT reaches the format */
    EXPECT(nc_put_var1(ncid, NC_GLOBAL, st, ib), NC_EGLOBAL);
    EXPECT(nc_get_vara(ncid, NC_GLOBAL, st, cnt, ib), NC_ENOTVAR);
    EXPECT(nc_get_var_int(ncid, NC_GLOBAL, ib), NC_ENOTVAR);
    EXPECT(nc_put_var_int(ncid, NC_GLOBAL, ib), NC_ENOTVAR);
    EXPECT(nc_get_vara_int(ncid, NC_GLOBAL, NULL, NULL, ib), NC_ENOTVAR);
    EXPECT(nc_get_vars_int(ncid, NC_GLOBAL, st, cnt, NULL, ib), NC_ENOTVAR);
    EXPECT(nc_put_vars_int(ncid, NC_GLOBAL, st, cnt, zs, ib), NC_ENOTVAR);
    EXPECT(nc_get_varm_int(ncid, NC_GLOBAL, st, cnt, NULL, im, ib), NC_ENOTVAR);
    EXPECT(nc_get_vara_int(ncid, 99, st, cnt, ib), NC_ENOTVAR);
    EXPECT(nc_get_var1_int(ncid, -2, st, ib), NC_ENOTVAR);
    OK(nc_redef(ncid));
    EXPECT(nc_get_vara_int(ncid, NC_GLOBAL, st, cnt, ib), NC_EINDEFINE);
    EXPECT(nc_put_var1_int(ncid, NC_GLOBAL, st, ib), NC_EINDEFINE);
    EXPECT(nc_get_var_int(ncid, NC_GLOBAL, ib), NC_ENOTVAR);
    OK(nc_close(ncid));
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    EXPECT(nc_put_vara_int(ncid, NC_GLOBAL, st, cnt, ib), NC_EPERM);
    EXPECT(nc_get_vara_int(ncid, NC_GLOBAL, st, cnt, ib), NC_EGLOBAL);
    OK(nc_close(ncid));
}

/* Dimension sizes up to each format's limit. */
static void
item7(const nct_format *f)
{
    size_t limit = f->fmt == NC_FORMAT_64BIT_DATA ? (size_t)NC_MAX_UINT64 - 3
                 : f->fmt == NC_FORMAT_64BIT_OFFSET ? (size_t)NC_MAX_UINT - 3
                 : (size_t)NC_MAX_INT - 3;
    int ncid, d = SI, v, u, stat;
    size_t len = 0;
    char path[64];
    snprintf(path, sizeof path, "api_regress_7_%s.nc", f->name);
    MUST(nc_create(path, f->cmode | NC_CLOBBER, &ncid));
    OK(nc_set_fill(ncid, NC_NOFILL, NULL));
    EXPECT(nc_def_dim(ncid, "over", limit + 1, &d), NC_EDIMSIZE);
    EXPECT(nc_def_dim(ncid, "max", limit, &d), NC_NOERR);
    OK(nc_inq_dimlen(ncid, d, &len));
    CHECK(len == limit, "%s: dimlen %zu", f->name, len);
    EXPECT(nc_def_dim(ncid, "u", NC_UNLIMITED, &u), NC_NOERR);
    EXPECT(nc_def_dim(ncid, "u2", NC_UNLIMITED, &u), NC_EUNLIMIT);
    OK(nc_enddef(ncid));
    OK(nc_close(ncid));
    /* The header reader takes every length the format can hold (CDF-5:
     * all 64 bits, as the reference). */
    MUST(nc_open(path, NC_NOWRITE, &ncid));
    len = 0;
    OK(nc_inq_dimlen(ncid, 0, &len));
    CHECK(len == limit, "%s: dimlen after reopen %zu", f->name, len);
    OK(nc_inq_dimlen(ncid, 1, &len));
    CHECK(len == 0, "%s: unlimited dimlen after reopen %zu", f->name, len);
    OK(nc_close(ncid));
    if (f->fmt == NC_FORMAT_64BIT_DATA) {
        snprintf(path, sizeof path, "api_regress_7v_%s.nc", f->name);
        /* A variable on it does not fit 64-bit offsets: NC_EVARSIZE, from
         * nc_def_var or at the latest nc_enddef (deliberate: the reference
         * lays it out with wrapped sizes). */
        MUST(nc_create(path, f->cmode | NC_CLOBBER, &ncid));
        OK(nc_set_fill(ncid, NC_NOFILL, NULL));
        OK(nc_def_dim(ncid, "max", limit, &d));
        stat = nc_def_var(ncid, "b", NC_BYTE, 1, &d, &v);
        if (stat == NC_NOERR)
            stat = nc_enddef(ncid);
        EXPECT(stat, NC_EVARSIZE);
        nc_abort(ncid);
    }
}

/* A format that is not built cannot be the default. */
static void
item8(void)
{
    int old = SI, ncid, fmt = SI;
    EXPECT(nc_set_default_format(NC_FORMAT_CLASSIC, NULL), NC_NOERR);
#if NC_HAS_HDF5
    EXPECT(nc_set_default_format(NC_FORMAT_NETCDF4, &old), NC_NOERR);
    EXPECT(nc_set_default_format(NC_FORMAT_CLASSIC, NULL), NC_NOERR);
#else
    EXPECT(nc_set_default_format(NC_FORMAT_NETCDF4, &old), NC_ENOTBUILT);
    CHECK(old == NC_FORMAT_CLASSIC, "old format %d", old);
    EXPECT(nc_set_default_format(NC_FORMAT_NETCDF4_CLASSIC, NULL), NC_ENOTBUILT);
#endif
#if NC_HAS_CDF5
    EXPECT(nc_set_default_format(NC_FORMAT_64BIT_DATA, &old), NC_NOERR);
#else
    EXPECT(nc_set_default_format(NC_FORMAT_64BIT_DATA, &old), NC_ENOTBUILT);
#endif
    EXPECT(nc_set_default_format(NC_FORMAT_64BIT_OFFSET, &old), NC_NOERR);
    EXPECT(nc_set_default_format(99, &old), NC_EINVAL);
    CHECK(old == NC_FORMAT_64BIT_OFFSET, "old format %d", old);
    /* the refused formats left the default alone */
    MUST(nc_create("api_regress_8.nc", NC_CLOBBER, &ncid));
    OK(nc_inq_format(ncid, &fmt));
    CHECK(fmt == NC_FORMAT_64BIT_OFFSET, "default format made %d", fmt);
    OK(nc_close(ncid));
    EXPECT(nc_set_default_format(NC_FORMAT_CLASSIC, NULL), NC_NOERR);
}

int
main(void)
{
    /* classic formats only: these are the classic layer's regressions;
     * the same calls on netCDF-4 files are compared with the reference by
     * tst_apicodes nc4 */
    for (int i = 0; i < 3; i++) {
        item1(&nct_formats[i]);
        item4(&nct_formats[i]);
        item6(&nct_formats[i]);
        item7(&nct_formats[i]);
    }
    item8();
    return nct_summary("tst_api_regress");
}
