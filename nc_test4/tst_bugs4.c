/* tst_bugs4.c: differences from the reference found by the netCDF-4 tests
 * and not fixed yet, one function each, so that `ctest -R tst_bugs4` (with
 * NCT_NC4_PENDING=ON) lists what is open.  Every check passes on the
 * reference (ref_tst_bugs4).  When one is fixed, move it to the test of its
 * topic. */
#include "nctst.h"

#include <string.h>

#define PATH "tst_bugs4.nc"

/* Default chunks of a variable defined on an unlimited dimension that
 * already has records: its current length does not count (reference:
 * 4 KiB / element size = 2048 shorts). */
static void
late_unlimited_chunks(void)
{
    int ncid, t, a, w, st = -1;
    size_t cs = 0, s0 = 0, c2 = 2;
    short data[2] = {1, 2};
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "time", NC_UNLIMITED, &t));
    MUST(nc_def_var(ncid, "a", NC_SHORT, 1, &t, &a));
    MUST(nc_enddef(ncid));
    OK(nc_put_vara_short(ncid, a, &s0, &c2, data));
    MUST(nc_redef(ncid));
    MUST(nc_def_var(ncid, "w", NC_SHORT, 1, &t, &w));
    OK(nc_inq_var_chunking(ncid, w, &st, &cs));
    CHECK(st == NC_CHUNKED && cs == 2048, "late var on unlimited dim: %d %zu", st, cs);
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_var_chunking(ncid, w, &st, &cs));
    CHECK(st == NC_CHUNKED && cs == 2048, "late var on unlimited dim after reopen: %d %zu", st, cs);
    OK(nc_close(ncid));
}

/* Variables of user-defined types keep fill on: the reference reads no
 * _NoFill for them (ours wrote HDF5 fill time "never"). */
static void
usertype_fill(void)
{
    int ncid, d, v, nf = -1;
    nc_type c, vl;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_compound(ncid, 8, "c", &c));
    MUST(nc_insert_compound(ncid, c, "a", 0, NC_INT));
    MUST(nc_insert_compound(ncid, c, "b", 4, NC_INT));
    MUST(nc_def_vlen(ncid, "vl", NC_INT, &vl));
    MUST(nc_def_dim(ncid, "n", 2, &d));
    MUST(nc_def_var(ncid, "vc", c, 1, &d, &v));
    MUST(nc_def_var(ncid, "vv", vl, 1, &d, &v));
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_var_fill(ncid, 0, &nf, NULL));
    CHECK(nf == 0, "compound variable no_fill %d", nf);
    OK(nc_inq_var_fill(ncid, 1, &nf, NULL));
    CHECK(nf == 0, "vlen variable no_fill %d", nf);
    OK(nc_close(ncid));
}

/* Quantize settings are read back after reopen. */
static void
quantize_reopen(void)
{
    int ncid, d, v, q = -1, nsd = -1;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "n", 4, &d));
    MUST(nc_def_var(ncid, "f", NC_FLOAT, 1, &d, &v));
    OK(nc_def_var_quantize(ncid, v, NC_QUANTIZE_GRANULARBR, 3));
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_var_quantize(ncid, 0, &q, &nsd));
    CHECK(q == NC_QUANTIZE_GRANULARBR && nsd == 3, "quantize after reopen: %d %d", q, nsd);
    OK(nc_close(ncid));
}

/* Renaming coordinate variables and their dimensions: the reference
 * relinks the renamed variables, so after reopen they come after the
 * others (varids change): a, lon, time. */
static void
rename_coord_order(void)
{
    int ncid, dx, dt, vx, vt, va;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "x", 3, &dx));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &dt));
    MUST(nc_def_var(ncid, "x", NC_INT, 1, &dx, &vx));
    MUST(nc_def_var(ncid, "t", NC_DOUBLE, 1, &dt, &vt));
    int dd[2] = {dt, dx};
    MUST(nc_def_var(ncid, "a", NC_FLOAT, 2, dd, &va));
    MUST(nc_enddef(ncid));
    OK(nc_rename_dim(ncid, dx, "lon"));
    OK(nc_rename_var(ncid, vx, "lon"));
    OK(nc_rename_var(ncid, vt, "time"));
    OK(nc_rename_dim(ncid, dt, "time"));
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    char n0[NC_MAX_NAME + 1] = "", n1[NC_MAX_NAME + 1] = "", n2[NC_MAX_NAME + 1] = "";
    OK(nc_inq_varname(ncid, 0, n0));
    OK(nc_inq_varname(ncid, 1, n1));
    OK(nc_inq_varname(ncid, 2, n2));
    CHECK(!strcmp(n0, "a") && !strcmp(n1, "lon") && !strcmp(n2, "time"), "order after renames: %s %s %s", n0,
          n1, n2);
    OK(nc_close(ncid));
}

int
main(void)
{
    late_unlimited_chunks();
    usertype_fill();
    quantize_reopen();
    rename_coord_order();
    return nct_summary("tst_bugs4");
}
