/* tst_att_inplace4.c: the order of attributes that are written again.  An
 * attribute given a new value of the same type and length keeps its place,
 * in the same session and in the file; one whose type or length changes
 * keeps its place in the session but goes last in the file (HDF5 deletes
 * and creates it), as upstream.  Also passes against the reference. */
#include "nctst.h"

#include <string.h>

#define PATH "tst_att_inplace4.nc"

/* The attribute names of varid, joined by spaces, must be want. */
static void
order(int ncid, int varid, const char *want, const char *when)
{
    char got[256] = "", name[NC_MAX_NAME + 1];
    size_t used = 0;
    int n = 0;
    OK(nc_inq_varnatts(ncid, varid, &n));
    for (int i = 0; i < n && used < sizeof got; i++) {
        if (nc_inq_attname(ncid, varid, i, name))
            break;
        used += (size_t)snprintf(got + used, sizeof got - used, "%s%s", i ? " " : "", name);
    }
    CHECK(strcmp(got, want) == 0, "%s: attributes '%s', expected '%s'", when, got, want);
}

static void
rewrite(void)
{
    int ncid, d, v, x = 1, y[2] = {1, 2};
    short s = 3;

    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "d", 2, &d));
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    OK(nc_put_att_int(ncid, v, "a1", NC_INT, 1, &x));
    OK(nc_put_att_int(ncid, v, "a2", NC_INT, 1, &x));
    OK(nc_put_att_int(ncid, v, "a3", NC_INT, 1, &x));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "g1", 3, "abc"));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "g2", 3, "abc"));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "g3", 3, "abc"));
    OK(nc_enddef(ncid));
    /* Same size in data mode; another length in define mode. */
    OK(nc_put_att_int(ncid, v, "a1", NC_INT, 1, &y[1]));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "g1", 3, "xyz"));
    order(ncid, v, "a1 a2 a3", "same session, same size");
    OK(nc_redef(ncid));
    OK(nc_put_att_int(ncid, v, "a2", NC_INT, 2, y));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "g2", 4, "abcd"));
    order(ncid, v, "a1 a2 a3", "same session, another length");
    order(ncid, NC_GLOBAL, "g1 g2 g3", "same session, globals");
    OK(nc_close(ncid));

    MUST(nc_open(PATH, NC_WRITE, &ncid));
    order(ncid, v, "a1 a3 a2", "reopened");
    order(ncid, NC_GLOBAL, "g1 g3 g2", "reopened, globals");
    /* In a reopened file: same size, then another type. */
    OK(nc_put_att_int(ncid, v, "a3", NC_INT, 1, &x));
    OK(nc_put_att_text(ncid, NC_GLOBAL, "g3", 3, "def"));
    OK(nc_redef(ncid));
    OK(nc_put_att_short(ncid, v, "a1", NC_SHORT, 1, &s));
    order(ncid, v, "a1 a3 a2", "reopened, rewritten");
    OK(nc_close(ncid));

    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    order(ncid, v, "a3 a2 a1", "reopened again");
    order(ncid, NC_GLOBAL, "g1 g3 g2", "reopened again, globals");
    {
        char text[4] = "";
        OK(nc_get_att_text(ncid, NC_GLOBAL, "g1", text));
        CHECK(memcmp(text, "xyz", 3) == 0, "g1 = %.3s", text);
        OK(nc_get_att_text(ncid, NC_GLOBAL, "g3", text));
        CHECK(memcmp(text, "def", 3) == 0, "g3 = %.3s", text);
        OK(nc_get_att_int(ncid, v, "a3", &x));
        CHECK(x == 1, "a3 = %d", x);
    }
    OK(nc_close(ncid));
}

int
main(void)
{
    rewrite();
    return nct_summary("tst_att_inplace4");
}
