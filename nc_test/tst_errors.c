/* tst_errors.c: error codes of the classic formats through the public API:
 * bad ids, define/data mode misuse, read-only files, coordinates, edges,
 * strides, types, names, unlimited dimensions, _FillValue misuse, renames,
 * attributes, size limits per format. Expected codes are upstream's. */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>

static void
test_ids(const nct_format *f)
{
    int ncid, nd, dimid, varid;
    size_t len;
    EXPECT(nc_inq_ndims(-1, &nd), NC_EBADID);
    EXPECT(nc_inq_ndims(0x7fff0000, &nd), NC_EBADID);
    MUST(nc_create("tst_errors_ids.nc", f->cmode, &ncid));
    OK(nc_def_dim(ncid, "d", 3, &dimid));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    EXPECT(nc_inq_dimlen(ncid, 7, &len), NC_EBADDIM);
    EXPECT(nc_inq_dimlen(ncid, -1, &len), NC_EBADDIM);
    EXPECT(nc_inq_varndims(ncid, 5, &nd), NC_ENOTVAR);
    EXPECT(nc_inq_varndims(ncid, -2, &nd), NC_ENOTVAR);
    EXPECT(nc_inq_varid(ncid, "nope", &varid), NC_ENOTVAR);
    EXPECT(nc_inq_dimid(ncid, "nope", &dimid), NC_EBADDIM);
    OK(nc_close(ncid));
    EXPECT(nc_inq_ndims(ncid, &nd), NC_EBADID);
    EXPECT(nc_close(ncid), NC_EBADID);
    EXPECT(nc_redef(ncid), NC_EBADID);
    EXPECT(nc_put_var1_int(ncid, 0, (size_t[]){0}, (int[]){1}), NC_EBADID);
    OK(nc_delete("tst_errors_ids.nc"));
}

static void
test_modes(const nct_format *f)
{
    int ncid, dimid, varid, v = 5;
    size_t idx[1] = {0};
    const char *path = "tst_errors_modes.nc";
    int nc4 = nct_is_nc4(f->cmode);   /* NC_NETCDF4|NC_CLASSIC_MODEL */

    MUST(nc_create(path, f->cmode, &ncid));
    OK(nc_def_dim(ncid, "d", 3, &dimid));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    EXPECT(nc_put_var1_int(ncid, varid, idx, &v), NC_EINDEFINE);
    EXPECT(nc_get_var1_int(ncid, varid, idx, &v), NC_EINDEFINE);
    EXPECT(nc_redef(ncid), NC_EINDEFINE);
    OK(nc_enddef(ncid));
    EXPECT(nc_enddef(ncid), NC_ENOTINDEFINE);
    EXPECT(nc_def_dim(ncid, "e", 3, &dimid), NC_ENOTINDEFINE);
    EXPECT(nc_def_var(ncid, "w", NC_INT, 0, NULL, &varid), NC_ENOTINDEFINE);
    EXPECT(nc_rename_var(ncid, 0, "longer_name"), NC_ENOTINDEFINE);
    /* netCDF-4 renames dimensions in data mode whatever the length */
    EXPECT(nc_rename_dim(ncid, 0, "longer_name"), nc4 ? NC_NOERR : NC_ENOTINDEFINE);
    OK(nc_rename_var(ncid, 0, "w"));       /* same length or shorter is fine */
    OK(nc_rename_dim(ncid, 0, "e"));
    EXPECT(nc_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 1, &v), NC_ENOTINDEFINE);  /* would grow the header */
    OK(nc_put_var1_int(ncid, 0, idx, &v));
    OK(nc_set_fill(ncid, NC_NOFILL, &v));
    CHECK(v == NC_FILL, "%s: old fill mode %d", f->name, v);
    EXPECT(nc_set_fill(ncid, 17, &v), NC_EINVAL);
    OK(nc_close(ncid));

    MUST(nc_open(path, NC_NOWRITE, &ncid));
    v = 5;
    /* netCDF-4: upstream lets HDF5 refuse the write (NC_EHDFERR) */
    EXPECT(nc_put_var1_int(ncid, 0, idx, &v), nc4 ? NC_EHDFERR : NC_EPERM);
    EXPECT(nc_put_var_int(ncid, 0, (int[3]){1, 2, 3}), nc4 ? NC_EHDFERR : NC_EPERM);
    EXPECT(nc_redef(ncid), NC_EPERM);
    EXPECT(nc_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 1, &v), NC_EPERM);
    /* classic: upstream tests the mode first; netCDF-4 the permission */
    EXPECT(nc_del_att(ncid, NC_GLOBAL, "a"), nc4 ? NC_EPERM : NC_ENOTINDEFINE);
    EXPECT(nc_rename_var(ncid, 0, "x"), NC_EPERM);
    EXPECT(nc_set_fill(ncid, NC_NOFILL, &v), NC_EPERM);
    OK(nc_get_var1_int(ncid, 0, idx, &v));
    CHECK(v == 5, "%s: value %d", f->name, v);
    OK(nc_close(ncid));
    OK(nc_delete(path));
}

static void
test_coords(const nct_format *f)
{
    int ncid, dims[2], fv, rv, buf[64] = {0};
    const char *path = "tst_errors_coords.nc";
    int nc4 = nct_is_nc4(f->cmode);
    MUST(nc_create(path, f->cmode, &ncid));
    OK(nc_def_dim(ncid, "r", NC_UNLIMITED, &dims[0]));
    OK(nc_def_dim(ncid, "x", 4, &dims[1]));
    OK(nc_def_var(ncid, "f", NC_INT, 1, &dims[1], &fv));
    OK(nc_def_var(ncid, "rv", NC_INT, 2, dims, &rv));
    OK(nc_enddef(ncid));
    size_t i4[1] = {4}, i3[1] = {3}, c1[1] = {1}, c2[1] = {2}, c0[1] = {0}, c5[1] = {5};
    EXPECT(nc_put_var1_int(ncid, fv, i4, buf), NC_EINVALCOORDS);
    EXPECT(nc_get_var1_int(ncid, fv, i4, buf), NC_EINVALCOORDS);
    OK(nc_put_var1_int(ncid, fv, i3, buf));
    EXPECT(nc_put_vara_int(ncid, fv, i3, c2, buf), NC_EEDGE);
    EXPECT(nc_get_vara_int(ncid, fv, i3, c2, buf), NC_EEDGE);
    EXPECT(nc_get_vara_int(ncid, fv, (size_t[]){0}, c5, buf), NC_EEDGE);
    OK(nc_get_vara_int(ncid, fv, i4, c0, buf));          /* empty at the end: allowed */
    EXPECT(nc_get_vara_int(ncid, fv, (size_t[]){5}, c0, buf), NC_EINVALCOORDS);
    EXPECT(nc_put_vars_int(ncid, fv, (size_t[]){0}, c2, (ptrdiff_t[]){0}, buf), NC_ESTRIDE);
    EXPECT(nc_get_vars_int(ncid, fv, (size_t[]){0}, c2, (ptrdiff_t[]){-1}, buf), NC_ESTRIDE);
    EXPECT(nc_get_vars_int(ncid, fv, (size_t[]){0}, c2, (ptrdiff_t[]){4}, buf), nc4 ? NC_EEDGE : NC_EINVALCOORDS);
    OK(nc_get_vars_int(ncid, fv, (size_t[]){0}, c2, (ptrdiff_t[]){3}, buf));
    EXPECT(nc_get_varm_int(ncid, fv, (size_t[]){0}, c2, (ptrdiff_t[]){0}, (ptrdiff_t[]){1}, buf), NC_ESTRIDE);
    /* record variable: reads stop at numrecs, writes extend it */
    size_t s2[2] = {0, 0}, cc[2] = {1, 4};
    /* upstream reports reads past numrecs as NC_EEDGE (classic) or
     * NC_EINVALCOORDS (netCDF-4) */
    int past = nc4 ? NC_EINVALCOORDS : NC_EEDGE;
    EXPECT(nc_get_var1_int(ncid, rv, s2, buf), past);
    OK(nc_get_vara_int(ncid, rv, s2, (size_t[]){0, 4}, buf));
    s2[0] = 2;
    OK(nc_put_vara_int(ncid, rv, s2, cc, buf));
    size_t len;
    OK(nc_inq_dimlen(ncid, dims[0], &len));
    CHECK(len == 3, "%s: numrecs %zu", f->name, len);
    s2[0] = 3;
    EXPECT(nc_get_vara_int(ncid, rv, s2, cc, buf), past);
    s2[0] = 4;
    EXPECT(nc_get_vara_int(ncid, rv, s2, cc, buf), past);
    s2[0] = 2;
    EXPECT(nc_get_vara_int(ncid, rv, s2, (size_t[]){2, 4}, buf), NC_EEDGE);
    s2[0] = 0; s2[1] = 4;
    EXPECT(nc_put_var1_int(ncid, rv, s2, buf), NC_EINVALCOORDS);
    EXPECT(nc_put_vara_int(ncid, rv, (size_t[]){0, 1}, cc, buf), NC_EEDGE);
    (void)c1;
    OK(nc_close(ncid));
    OK(nc_delete(path));
}

static void
test_defs(const nct_format *f)
{
    int ncid, d, u, v, dims[3];
    char longname[NC_MAX_NAME + 2];
    const char *path = "tst_errors_defs.nc";
    int cdf5 = (f->cmode & NC_64BIT_DATA) != 0;
    int nc4 = nct_is_nc4(f->cmode);
    /* a netCDF-4 type the classic model refuses: NC_ESTRICTNC3 */
    int badtype = nc4 ? NC_ESTRICTNC3 : NC_EBADTYPE;

    memset(longname, 'a', sizeof longname);
    longname[NC_MAX_NAME + 1] = 0;
    MUST(nc_create(path, f->cmode, &ncid));
    OK(nc_def_dim(ncid, "u", NC_UNLIMITED, &u));
    EXPECT(nc_def_dim(ncid, "u2", NC_UNLIMITED, &d), NC_EUNLIMIT);
    OK(nc_def_dim(ncid, "d", 2, &d));
    EXPECT(nc_def_dim(ncid, "d", 3, &v), NC_ENAMEINUSE);
    EXPECT(nc_def_dim(ncid, longname, 3, &v), NC_EMAXNAME);
    longname[NC_MAX_NAME] = 0;
    OK(nc_def_dim(ncid, longname, 3, &v));                /* exactly NC_MAX_NAME */
    EXPECT(nc_def_dim(ncid, "a/b", 3, &v), NC_EBADNAME);
    EXPECT(nc_def_dim(ncid, "", 3, &v), NC_EBADNAME);
    EXPECT(nc_def_dim(ncid, " lead", 3, &v), NC_EBADNAME);
    EXPECT(nc_def_dim(ncid, "trail ", 3, &v), NC_EBADNAME);
    EXPECT(nc_def_dim(ncid, "bad\x01", 3, &v), NC_EBADNAME);
    EXPECT(nc_def_dim(ncid, "\xff\xfe", 3, &v), NC_EBADNAME);
    OK(nc_def_dim(ncid, "1digit", 3, &v));
    OK(nc_def_dim(ncid, "_under", 3, &v));
    OK(nc_def_dim(ncid, "with space", 3, &v));
    OK(nc_def_dim(ncid, "caf\xc3\xa9", 3, &v));
    EXPECT(nc_def_dim(ncid, "neg", (size_t)-1, &v), NC_EDIMSIZE);

    dims[0] = d; dims[1] = u;
    /* netCDF-4 allows the unlimited dimension anywhere */
    EXPECT(nc_def_var(ncid, "up", NC_INT, 2, dims, &v), nc4 ? NC_NOERR : NC_EUNLIMPOS);
    dims[1] = 99;
    EXPECT(nc_def_var(ncid, "bd", NC_INT, 2, dims, &v), NC_EBADDIM);
    EXPECT(nc_def_var(ncid, "nd", NC_INT, -1, dims, &v), NC_EINVAL);
    EXPECT(nc_def_var(ncid, "bt", 0, 0, NULL, &v), NC_EBADTYPE);
    EXPECT(nc_def_var(ncid, "bt", 13, 0, NULL, &v), badtype);
    EXPECT(nc_def_var(ncid, "st", NC_STRING, 0, NULL, &v), badtype);
    EXPECT(nc_def_var(ncid, "ub", NC_UBYTE, 0, NULL, &v), cdf5 ? NC_NOERR : badtype);
    EXPECT(nc_def_var(ncid, "i8", NC_INT64, 0, NULL, &v), cdf5 ? NC_NOERR : badtype);
    OK(nc_def_var(ncid, "s", NC_INT, 0, NULL, &v));
    EXPECT(nc_def_var(ncid, "s", NC_INT, 0, NULL, &v), NC_ENAMEINUSE);
    EXPECT(nc_def_var(ncid, "s/x", NC_INT, 0, NULL, &v), NC_EBADNAME);
    /* netCDF-4: a variable named like a dimension it does not use; the
     * reference says NC_EMAXNAME here (its hidden HDF5 name for such a
     * variable is longer than NC_MAX_NAME) and its enddef then fails */
    EXPECT(nc_def_var(ncid, longname, NC_INT, 0, NULL, &dims[2]), NC_NOERR);
    /* attributes */
    int iv = 1;
    EXPECT(nc_put_att_int(ncid, 77, "a", NC_INT, 1, &iv), NC_ENOTVAR);
    EXPECT(nc_put_att_int(ncid, NC_GLOBAL, "a", 0, 1, &iv), NC_EBADTYPE);
    EXPECT(nc_put_att_int(ncid, NC_GLOBAL, "a", NC_UINT, 1, &iv), cdf5 ? NC_NOERR : badtype);
    EXPECT(nc_put_att_int(ncid, NC_GLOBAL, "a/b", NC_INT, 1, &iv), NC_EBADNAME);
    EXPECT(nc_put_att_int(ncid, NC_GLOBAL, "neg", NC_INT, (size_t)-1, &iv), NC_EINVAL);
    OK(nc_put_att_text(ncid, NC_GLOBAL, "t", 3, "abc"));
    EXPECT(nc_get_att_int(ncid, NC_GLOBAL, "t", &iv), NC_ECHAR);
    EXPECT(nc_put_att_text(ncid, NC_GLOBAL, "t2", 3, NULL), NC_EINVAL);
    EXPECT(nc_get_att_int(ncid, NC_GLOBAL, "nope", &iv), NC_ENOTATT);
    EXPECT(nc_del_att(ncid, NC_GLOBAL, "nope"), NC_ENOTATT);
    int big = 300;
    EXPECT(nc_put_att_int(ncid, NC_GLOBAL, "r", NC_BYTE, 1, &big), NC_ERANGE);
    signed char sc;
    OK(nc_put_att_int(ncid, NC_GLOBAL, "r2", NC_SHORT, 1, &big));
    EXPECT(nc_get_att_schar(ncid, NC_GLOBAL, "r2", &sc), NC_ERANGE);
    OK(nc_rename_att(ncid, NC_GLOBAL, "t", "t3"));
    EXPECT(nc_rename_att(ncid, NC_GLOBAL, "t3", "r2"), NC_ENAMEINUSE);
    EXPECT(nc_rename_att(ncid, NC_GLOBAL, "t3", "x/y"), NC_EBADNAME);
    EXPECT(nc_rename_var(ncid, v, "up"), nc4 ? NC_ENAMEINUSE : NC_NOERR);  /* nc4: "up" exists */
    EXPECT(nc_rename_var(ncid, v, longname), NC_ENAMEINUSE);
    EXPECT(nc_rename_dim(ncid, d, "u"), NC_ENAMEINUSE);
    EXPECT(nc_rename_dim(ncid, d, "b/d"), NC_EBADNAME);
    /* _FillValue misuse is accepted by nc_put_att and refused by nc_enddef
     * (see test_badfill); a correct one replaces it here */
    short sh = 3;
    /* netCDF-4 refuses them in nc_put_att already */
    EXPECT(nc_put_att_short(ncid, v, "_FillValue", NC_SHORT, 1, &sh), nc4 ? NC_EBADTYPE : NC_NOERR);
    EXPECT(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 2, (int[]){1, 2}), nc4 ? NC_EINVAL : NC_NOERR);
    OK(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 1, &iv));
    OK(nc_def_var_fill(ncid, v, 0, &iv));
    EXPECT(nc_def_var_fill(ncid, 99, 0, &iv), NC_ENOTVAR);
    EXPECT(nc_def_var_fill(ncid, NC_GLOBAL, 0, &iv), NC_EGLOBAL);
    /* not in the classic model */
    int grp;
    /* the netCDF-4 classic model: no groups or user types
     * (NC_ESTRICTNC3), but storage settings (deflate: not on a scalar) */
    EXPECT(nc_def_grp(ncid, "g", &grp), nc4 ? NC_ESTRICTNC3 : NC_ENOTNC4);
    EXPECT(nc_def_var_deflate(ncid, v, 0, 1, 1), nc4 ? NC_EINVAL : NC_ENOTNC4);
    EXPECT(nc_def_var_chunking(ncid, v, NC_CONTIGUOUS, NULL), nc4 ? NC_NOERR : NC_ENOTNC4);
    EXPECT(nc_def_vlen(ncid, "vl", NC_INT, &grp), nc4 ? NC_ESTRICTNC3 : NC_ENOTNC4);
    OK(nc_enddef(ncid));
    /* in data mode, an attribute of the same size may be rewritten, even
     * _FillValue (upstream does not refuse it) */
    /* netCDF-4: no fill value change once the variable exists on disk */
    EXPECT(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 1, &iv), nc4 ? NC_ELATEFILL : NC_NOERR);
    EXPECT(nc_def_var_fill(ncid, v, 0, &iv), nc4 ? NC_ELATEDEF : NC_ENOTINDEFINE);
    /* growing an attribute in data mode needs define mode */
    EXPECT(nc_put_att_text(ncid, NC_GLOBAL, "t3", 10, "0123456789"), NC_ENOTINDEFINE);
    OK(nc_put_att_text(ncid, NC_GLOBAL, "t3", 2, "ab"));
    OK(nc_close(ncid));
    OK(nc_delete(path));
}

/* A _FillValue of the wrong type or length is refused by nc_enddef, which
 * leaves the file in define mode. */
static void
test_badfill(const nct_format *f)
{
    int ncid, v, z;
    short sh = 3;
    MUST(nc_create("tst_errors_fill.nc", f->cmode, &ncid));
    OK(nc_def_var(ncid, "x", NC_INT, 0, NULL, &v));
    if (nct_is_nc4(f->cmode)) {
        /* netCDF-4 refuses them in nc_put_att */
        EXPECT(nc_put_att_short(ncid, v, "_FillValue", NC_SHORT, 1, &sh), NC_EBADTYPE);
        EXPECT(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 2, (int[]){1, 2}), NC_EINVAL);
        OK(nc_enddef(ncid));
        OK(nc_get_var_int(ncid, v, &z));
        CHECK(z == NC_FILL_INT, "%s: default fill %d", f->name, z);
        OK(nc_abort(ncid));
        remove("tst_errors_fill.nc");
        return;
    }
    OK(nc_put_att_short(ncid, v, "_FillValue", NC_SHORT, 1, &sh));
    EXPECT(nc_enddef(ncid), NC_EBADTYPE);
    EXPECT(nc_get_var_int(ncid, v, &z), NC_EINDEFINE);
    OK(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 2, (int[]){1, 2}));
    EXPECT(nc_enddef(ncid), NC_EBADTYPE);
    OK(nc_del_att(ncid, v, "_FillValue"));
    OK(nc_enddef(ncid));
    OK(nc_abort(ncid));
    remove("tst_errors_fill.nc");
}

/* Size limits, checked by nc_def_dim and nc_enddef. NC_NOFILL and nc_abort
 * keep anything big from being written. */
static int
big_enddef(const nct_format *f, int nrec, size_t len, nc_type t, int nfixed, int trailing)
{
    int ncid, d[2], v, old, stat;
    if ((stat = nc_create("tst_errors_limits.nc", f->cmode, &ncid))) return stat;
    nc_set_fill(ncid, NC_NOFILL, &old);
    nc_def_dim(ncid, "u", NC_UNLIMITED, &d[0]);
    nc_def_dim(ncid, "a", len, &d[1]);
    for (int i = 0; i < nrec; i++) {
        char nm[8] = {'r', (char)('0' + i), 0};
        nc_def_var(ncid, nm, t, 2, d, &v);
    }
    for (int i = 0; i < nfixed; i++) {
        char nm[8] = {'f', (char)('0' + i), 0};
        nc_def_var(ncid, nm, t, 1, &d[1], &v);
    }
    if (trailing) nc_def_var(ncid, "small", NC_INT, 0, NULL, &v);
    stat = nc_enddef(ncid);
    nc_abort(ncid);
    remove("tst_errors_limits.nc");
    return stat;
}

static void
test_limits(const nct_format *f)
{
    int ncid, d;
    int cdf1 = !(f->cmode & (NC_64BIT_OFFSET | NC_64BIT_DATA));
    int cdf5 = (f->cmode & NC_64BIT_DATA) != 0;
    int nc4 = nct_is_nc4(f->cmode);
    const char *path = "tst_errors_limits.nc";
    /* netCDF-4 classic model: dimensions up to NC_MAX_UINT, no size
     * limits on variables */
    if (nc4) cdf1 = 0;

    MUST(nc_create(path, f->cmode, &ncid));
    EXPECT(nc_def_dim(ncid, "d1", 2147483644UL, &d), NC_NOERR);
    EXPECT(nc_def_dim(ncid, "d2", 2147483645UL, &d), cdf1 ? NC_EDIMSIZE : NC_NOERR);
    EXPECT(nc_def_dim(ncid, "d3", 4294967292UL, &d), cdf1 ? NC_EDIMSIZE : NC_NOERR);
    EXPECT(nc_def_dim(ncid, "d4", 4294967293UL, &d), cdf5 || nc4 ? NC_NOERR : NC_EDIMSIZE);
    EXPECT(nc_def_dim(ncid, "d5", (size_t)1 << 32, &d), cdf5 ? NC_NOERR : NC_EDIMSIZE);
    OK(nc_abort(ncid));
    remove(path);

    /* the only record variable may exceed the limit */
    EXPECT(big_enddef(f, 1, ((size_t)1 << 29) + 1, NC_DOUBLE, 0, 0), NC_NOERR);
    /* two record variables of 8 GiB per record */
    EXPECT(big_enddef(f, 2, (size_t)1 << 30, NC_DOUBLE, 0, 0), cdf5 || nc4 ? NC_NOERR : NC_EVARSIZE);
    /* a fixed variable of 2 GiB + 4 followed by another variable */
    EXPECT(big_enddef(f, 0, ((size_t)1 << 29) + 1, NC_INT, 1, 1), cdf1 ? NC_EVARSIZE : NC_NOERR);
    /* the last fixed variable (no record variables) may be larger */
    EXPECT(big_enddef(f, 0, ((size_t)1 << 29) + 1, NC_INT, 1, 0), NC_NOERR);
    /* three fixed variables of 2 GiB: CDF-1 offsets overflow */
    EXPECT(big_enddef(f, 0, (size_t)1 << 30, NC_SHORT, 3, 0), cdf1 ? NC_EVARSIZE : NC_NOERR);
    /* a fixed variable of 4 GiB + 4 followed by another: only CDF-5 */
    EXPECT(big_enddef(f, 0, ((size_t)1 << 30) + 1, NC_INT, 1, 1), cdf5 || nc4 ? NC_NOERR : NC_EVARSIZE);
}

int
main(void)
{
    for (int i = 0; i < NCT_NFORMATS4; i++) {
        const nct_format *f = &nct_formats4[i];
        test_ids(f);
        test_modes(f);
        test_coords(f);
        test_defs(f);
        test_limits(f);
        test_badfill(f);
    }
    return nct_summary("tst_errors");
}
