/* tst_enum_close4.c: an enum type without members cannot be stored.  nc_close
 * (and nc_enddef) of a file that has one say NC_EINVAL and keep the file
 * open, as upstream: the program can then add members and close again, and
 * the type is in the file. */
#include "nctst.h"

#include <string.h>

#define PATH "tst_enum_close4.nc"

static void
check_file(const char *when)
{
    int ncid, ntypes = 0, t = 0, val = 0;
    size_t nmembers = 0;
    char name[NC_MAX_NAME + 1] = "";
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_typeids(ncid, &ntypes, NULL));
    CHECK(ntypes == 1, "%s: %d types", when, ntypes);
    if (ntypes == 1) {
        OK(nc_inq_typeids(ncid, NULL, &t));
        OK(nc_inq_enum(ncid, t, name, NULL, NULL, &nmembers));
        CHECK(strcmp(name, "e") == 0 && nmembers == 1, "%s: type %s, %zu members", when, name,
              nmembers);
        OK(nc_inq_enum_member(ncid, t, 0, name, &val));
        CHECK(strcmp(name, "a") == 0 && val == 1, "%s: member %s = %d", when, name, val);
    }
    OK(nc_close(ncid));
}

static void
close_refused(void)
{
    int ncid, t, fmt = 0, one = 1;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_enum(ncid, NC_INT, "e", &t));
    EXPECT(nc_close(ncid), NC_EINVAL);
    /* Still open, with the type. */
    OK(nc_inq_format(ncid, &fmt));
    CHECK(fmt == NC_FORMAT_NETCDF4, "format after the refused close: %d", fmt);
    OK(nc_insert_enum(ncid, t, "a", &one));
    OK(nc_close(ncid));
    check_file("closed after adding a member");
}

static void
enddef_refused(void)
{
    int ncid, t, d, v, one = 1;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_enum(ncid, NC_INT, "e", &t));
    EXPECT(nc_enddef(ncid), NC_EINVAL);
    OK(nc_insert_enum(ncid, t, "a", &one));
    OK(nc_def_dim(ncid, "d", 2, &d));
    OK(nc_def_var(ncid, "v", t, 1, &d, &v));
    OK(nc_close(ncid));
    check_file("enddef refused, then members");
}

int
main(void)
{
    close_refused();
    enddef_refused();
    return nct_summary("tst_enum_close4");
}
