/* tst_rename4.c: renames in netCDF-4 files - dimensions, variables,
 * coordinate variables (a dimension and its variable renamed together or
 * apart, so a variable becomes or stops being a coordinate variable),
 * attributes and groups - in define and data mode, with every value kept
 * and every name right after close and reopen.  Built against the
 * reference too; where the reference loses data the check is ours only
 * (the reference also crashes now and then in nc_rename_var after the
 * dimension rename of test_coords, in rec_reattach_scales). */
#include "nctst.h"

#include <string.h>

#define PATH "tst_rename4.nc"

static int
varid_of(int ncid, const char *name)
{
    int v = -1;
    nc_inq_varid(ncid, name, &v);
    return v;
}

static void
check_coord_values(int ncid, const char *var, int base, const char *when)
{
    int v = varid_of(ncid, var), vals[3] = {-1, -1, -1};
    CHECK(v >= 0, "%s: variable %s missing", when, var);
    if (v < 0) return;
    OK(nc_get_var_int(ncid, v, vals));
#ifndef NCT_REFERENCE_BUILD
    /* the reference reads fill values after some of these renames */
    CHECK(vals[0] == base && vals[2] == base + 2, "%s: %s values %d %d", when, var, vals[0], vals[2]);
#else
    (void)base;
#endif
}

static void
test_coords(int cmode)
{
    int ncid, dx, dy, vx, vy, va;
    MUST(nc_create(PATH, cmode | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "x", 3, &dx));
    MUST(nc_def_dim(ncid, "y", 3, &dy));
    MUST(nc_def_var(ncid, "x", NC_INT, 1, &dx, &vx));
    MUST(nc_def_var(ncid, "y", NC_INT, 1, &dy, &vy));
    int dd[2] = {dx, dy};
    MUST(nc_def_var(ncid, "a", NC_FLOAT, 2, dd, &va));
    MUST(nc_put_att_text(ncid, va, "units", 1, "m"));
    MUST(nc_enddef(ncid));
    OK(nc_put_var_int(ncid, vx, (int[]){10, 11, 12}));
    OK(nc_put_var_int(ncid, vy, (int[]){20, 21, 22}));
    float av[9];
    for (int i = 0; i < 9; i++) av[i] = (float)i;
    OK(nc_put_var_float(ncid, va, av));
    OK(nc_close(ncid));

    /* both renamed together: still a coordinate variable */
    MUST(nc_open(PATH, NC_WRITE, &ncid));
    MUST(nc_redef(ncid));
    OK(nc_rename_dim(ncid, dx, "lon"));
    OK(nc_rename_var(ncid, vx, "lon"));
    /* only the variable: y stops being a coordinate, yy is an ordinary var */
    OK(nc_rename_var(ncid, vy, "yy"));
    OK(nc_rename_att(ncid, va, "units", "Units"));
    EXPECT(nc_rename_var(ncid, va, "lon"), NC_ENAMEINUSE);
    EXPECT(nc_rename_dim(ncid, dy, "lon"), NC_ENAMEINUSE);
    EXPECT(nc_rename_att(ncid, va, "nope", "x"), NC_ENOTATT);
    OK(nc_enddef(ncid));
    check_coord_values(ncid, "lon", 10, "before close");
    check_coord_values(ncid, "yy", 20, "before close");
    OK(nc_close(ncid));

    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    char name[NC_MAX_NAME + 1];
    OK(nc_inq_dimname(ncid, dx, name));
    CHECK(!strcmp(name, "lon"), "dim 0 is %s", name);
    OK(nc_inq_dimname(ncid, dy, name));
    CHECK(!strcmp(name, "y"), "dim 1 is %s", name);
    CHECK(varid_of(ncid, "x") < 0 && varid_of(ncid, "y") < 0, "old names gone");
    check_coord_values(ncid, "lon", 10, "after reopen");
    check_coord_values(ncid, "yy", 20, "after reopen");
    int a = varid_of(ncid, "a"), nd = -1, dims[2] = {-1, -1};
    OK(nc_inq_var(ncid, a, NULL, NULL, &nd, dims, NULL));
    CHECK(nd == 2 && dims[0] == dx && dims[1] == dy, "a keeps its dimensions");
    float back[9];
    OK(nc_get_var_float(ncid, a, back));
    CHECK(back[8] == 8.0f, "a keeps its values");
    size_t len = 0;
    OK(nc_inq_attlen(ncid, a, "Units", &len));
    EXPECT(nc_inq_attlen(ncid, a, "units", &len), NC_ENOTATT);
    OK(nc_close(ncid));

    /* data mode: netCDF-4 renames without redef (the classic model too,
     * for dimensions; variables and attributes only to a name not longer) */
    MUST(nc_open(PATH, NC_WRITE, &ncid));
    OK(nc_rename_dim(ncid, dy, "y_renamed_in_data_mode"));
    int yy = varid_of(ncid, "yy");
    EXPECT(nc_rename_var(ncid, yy, "y2"), NC_NOERR);
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_dimname(ncid, dy, name));
    CHECK(!strcmp(name, "y_renamed_in_data_mode"), "dim renamed in data mode: %s", name);
    check_coord_values(ncid, "y2", 20, "after data-mode renames");
    OK(nc_close(ncid));
}

static void
test_groups(void)
{
    int ncid, g, h, v;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_grp(ncid, "g", &g));
    MUST(nc_def_grp(g, "h", &h));
    MUST(nc_def_var(h, "v", NC_INT, 0, NULL, &v));
    MUST(nc_put_att_int(h, NC_GLOBAL, "ga", NC_INT, 1, &v));
    MUST(nc_enddef(ncid));
    OK(nc_put_var_int(h, v, (int[]){42}));
    OK(nc_rename_grp(g, "g2"));
    OK(nc_rename_grp(h, "h2"));
    OK(nc_rename_var(h, v, "v2"));
    OK(nc_rename_att(h, NC_GLOBAL, "ga", "ga2"));
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    int x = -1, val = -1, ga = -1;
    OK(nc_inq_grp_full_ncid(ncid, "/g2/h2", &x));
    OK(nc_get_var_int(x, varid_of(x, "v2"), &val));
    CHECK(val == 42, "value in renamed group %d", val);
    OK(nc_get_att_int(x, NC_GLOBAL, "ga2", &ga));
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
    MUST(nc_put_att_text(ncid, va, "units", 1, "m"));
    MUST(nc_enddef(ncid));
    OK(nc_put_var_int(ncid, vx, (int[]){1, 2, 3}));
    OK(nc_rename_dim(ncid, dx, "lon"));
    OK(nc_rename_var(ncid, vx, "lon"));
    OK(nc_rename_var(ncid, vt, "time"));
    OK(nc_rename_dim(ncid, dt, "time"));
    OK(nc_rename_att(ncid, va, "units", "Units"));
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

/* A variable renamed to a name in decomposed form (e + combining acute) is
 * stored and found under its NFC form, as every other name is and as
 * classic files do; the reference keeps the decomposed bytes on netCDF-4
 * files, and then neither spelling finds the variable. */
static void
test_nfc_rename(int cmode)
{
    static const char nfd[] = "e\xcc\x81x", nfc[] = "\xc3\xa9x";
    int ncid, d, v, found = -1;
    char name[NC_MAX_NAME + 1] = "";
    (void)nfc, (void)found, (void)name;
    MUST(nc_create(PATH, cmode | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "d", 2, &d));
    MUST(nc_def_var(ncid, "a", NC_INT, 1, &d, &v));
    OK(nc_rename_var(ncid, v, nfd));
#ifndef NCT_REFERENCE_BUILD
    OK(nc_inq_varname(ncid, v, name));
    CHECK(strcmp(name, nfc) == 0, "renamed: name of %zu bytes, not the NFC form", strlen(name));
    OK(nc_inq_varid(ncid, nfd, &found));
    CHECK(found == v, "renamed: decomposed spelling finds %d", found);
    found = -1;
    OK(nc_inq_varid(ncid, nfc, &found));
    CHECK(found == v, "renamed: composed spelling finds %d", found);
#endif
    OK(nc_close(ncid));
#ifndef NCT_REFERENCE_BUILD
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_varname(ncid, 0, name));
    CHECK(strcmp(name, nfc) == 0, "reopened: name of %zu bytes, not the NFC form", strlen(name));
    OK(nc_close(ncid));
#endif
}

int
main(void)
{
    test_coords(NC_NETCDF4);
    test_nfc_rename(NC_NETCDF4);
    test_nfc_rename(NC_NETCDF4 | NC_CLASSIC_MODEL);
    test_nfc_rename(0);
    rename_coord_order();
    test_groups();
    return nct_summary("tst_rename4");
}
