/* tst_fill_late4.c: when _FillValue may still be set.  A data call in
 * define mode ends define mode implicitly; as upstream, only a real write
 * to a variable, an explicit nc_enddef on its group (that group only), or
 * the variable being read from the file forbid a new _FillValue
 * (NC_ELATEFILL).  A variable never written takes the new fill value, as
 * the reopened file shows.  Also passes against the reference. */
#include "nctst.h"

#include <string.h>

#define PATH "tst_fill_late4.nc"

static void
names_and_fills(const char *want_order, const int *want_fill)
{
    int ncid, nv = 0, g, x[2];
    char name[NC_MAX_NAME + 1], order[9] = "";
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_nvars(ncid, &nv));
    for (int i = 0; i < nv && i < 8; i++) {
        OK(nc_inq_varname(ncid, i, name));
        order[i] = name[0];
        OK(nc_get_var_int(ncid, i, x));
        CHECK(x[1] == want_fill[i], "%s[1] = %d, expected %d", name, x[1], want_fill[i]);
    }
    CHECK(strcmp(order, want_order) == 0, "variables %s, expected %s", order, want_order);
    OK(nc_inq_ncid(ncid, "g", &g));
    OK(nc_get_var_int(g, 0, x));
    CHECK(x[0] == NC_FILL_INT, "g/gv[0] = %d", x[0]);
    OK(nc_close(ncid));
}

static void
implicit_enddef(int fill_c)
{
    int ncid, d, a, b, c, g, gv, fv = -9, data[2] = {1, 2};
    size_t start = 0, count = 1;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "d", 2, &d));
    MUST(nc_def_var(ncid, "a", NC_INT, 1, &d, &a));
    MUST(nc_def_var(ncid, "b", NC_INT, 1, &d, &b));
    MUST(nc_def_var(ncid, "c", NC_INT, 1, &d, &c));
    MUST(nc_def_grp(ncid, "g", &g));
    MUST(nc_def_var(g, "gv", NC_INT, 1, &d, &gv));
    /* Leaves define mode (all variables are created), writes only a. */
    OK(nc_put_vara_int(ncid, a, &start, &count, data));
    OK(nc_put_att_int(ncid, b, "_FillValue", NC_INT, 1, &fv));
    EXPECT(nc_put_att_int(ncid, a, "_FillValue", NC_INT, 1, &fv), NC_ELATEFILL);
    /* nc_def_var_fill still goes by creation. */
    EXPECT(nc_def_var_fill(ncid, c, NC_FILL, &fv), NC_ELATEDEF);
    /* An explicit enddef on g fixes g's variables only. */
    OK(nc_enddef(g));
    OK(nc_redef(ncid));
    EXPECT(nc_put_att_int(g, gv, "_FillValue", NC_INT, 1, &fv), NC_ELATEFILL);
    if (fill_c)
        OK(nc_put_att_int(ncid, c, "_FillValue", NC_INT, 1, &fv));
    OK(nc_close(ncid));
    {
        /* HDF5 remakes a dataset whose fill value changed: it goes last. */
        static const int abc[3] = {NC_FILL_INT, -9, -9}, acb[3] = {NC_FILL_INT, NC_FILL_INT, -9};
        names_and_fills(fill_c ? "abc" : "acb", fill_c ? abc : acb);
    }
    /* In a reopened file every variable is fixed. */
    MUST(nc_open(PATH, NC_WRITE, &ncid));
    OK(nc_redef(ncid));
    EXPECT(nc_put_att_int(ncid, fill_c ? 2 : 1, "_FillValue", NC_INT, 1, &fv), NC_ELATEFILL);
    OK(nc_close(ncid));
}

/* An explicit nc_enddef on the root fixes the root's variables. */
static void
explicit_enddef(void)
{
    int ncid, d, a, fv = -9;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "d", 2, &d));
    MUST(nc_def_var(ncid, "a", NC_INT, 1, &d, &a));
    OK(nc_enddef(ncid));
    OK(nc_redef(ncid));
    EXPECT(nc_put_att_int(ncid, a, "_FillValue", NC_INT, 1, &fv), NC_ELATEFILL);
    OK(nc_close(ncid));
}

int
main(void)
{
    implicit_enddef(1);
    implicit_enddef(0);
    explicit_enddef();
    return nct_summary("tst_fill_late4");
}
