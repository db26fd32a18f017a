/* tst_names4.c: the codes of NULL and invalid names of new objects in the
 * enhanced model, without the reference (tst_apicodes4e_cmp compares every
 * case with it): the layer checks a name in upstream's place, a NULL name
 * is NC_EINVAL, an invalid one NC_EBADNAME; renaming the root group is
 * NC_EBADGRPID; a classic file says NC_ENOTNC4 to group and type calls
 * before looking at the name.  Also passes against the reference. */
#include "nctst.h"

#define PATH "tst_names4.nc"
#define PATH3 "tst_names4_classic.nc"

static void
enhanced(void)
{
    int ncid, d, v, g, t;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    EXPECT(nc_def_dim(ncid, NULL, 2, &d), NC_EINVAL);
    EXPECT(nc_def_dim(ncid, "a/b", 2, &d), NC_EBADNAME);
    MUST(nc_def_dim(ncid, "d", 2, &d));
    EXPECT(nc_def_var(ncid, NULL, NC_INT, 1, &d, &v), NC_EINVAL);
    EXPECT(nc_def_var(ncid, NULL, NC_NAT, 1, &d, &v), NC_EINVAL);
    EXPECT(nc_def_var(ncid, "a/b", NC_NAT, 1, &d, &v), NC_EBADNAME);
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    EXPECT(nc_def_grp(ncid, NULL, &g), NC_EINVAL);
    EXPECT(nc_def_grp(ncid, "", &g), NC_EBADNAME);
    EXPECT(nc_rename_grp(ncid, NULL), NC_EBADGRPID);
    EXPECT(nc_rename_grp(ncid, "x"), NC_EBADGRPID);
    MUST(nc_def_grp(ncid, "g", &g));
    EXPECT(nc_rename_grp(g, NULL), NC_EINVAL);
    EXPECT(nc_rename_grp(g, "a/b"), NC_EBADNAME);
    EXPECT(nc_def_enum(ncid, NC_INT, NULL, &t), NC_EINVAL);
    EXPECT(nc_def_compound(ncid, 0, NULL, &t), NC_EINVAL);
    EXPECT(nc_def_opaque(ncid, 8, NULL, &t), NC_EINVAL);
    EXPECT(nc_def_vlen(ncid, NULL, NC_INT, &t), NC_EINVAL);
    EXPECT(nc_def_vlen(ncid, "a/b", NC_INT, &t), NC_EBADNAME);
    MUST(nc_def_compound(ncid, 4, "c", &t));
    EXPECT(nc_insert_compound(ncid, t, NULL, 0, NC_INT), NC_EINVAL);
    OK(nc_insert_compound(ncid, t, "f", 0, NC_INT));
    EXPECT(nc_rename_dim(ncid, 99, NULL), NC_EINVAL);
    EXPECT(nc_rename_dim(ncid, 99, "a/b"), NC_EBADNAME);
    EXPECT(nc_rename_var(ncid, 99, NULL), NC_EINVAL);
    EXPECT(nc_rename_var(ncid, v, "a/b"), NC_EBADNAME);
    OK(nc_close(ncid));
    /* Read-only first, then the name. */
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    EXPECT(nc_def_dim(ncid, "a/b", 2, &d), NC_EPERM);
    EXPECT(nc_def_var(ncid, "a/b", NC_INT, 0, NULL, &v), NC_EPERM);
    EXPECT(nc_rename_dim(ncid, 0, "a/b"), NC_EPERM);
    EXPECT(nc_rename_dim(ncid, 0, NULL), NC_EINVAL);
    EXPECT(nc_def_grp(ncid, NULL, &g), NC_EINVAL);
    OK(nc_close(ncid));
    /* The classic model: data mode first. */
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER, &ncid));
    MUST(nc_enddef(ncid));
    EXPECT(nc_def_dim(ncid, NULL, 2, &d), NC_ENOTINDEFINE);
    EXPECT(nc_def_var(ncid, "a/b", NC_INT, 0, NULL, &v), NC_ENOTINDEFINE);
    EXPECT(nc_def_grp(ncid, NULL, &g), NC_EINVAL);
    EXPECT(nc_def_grp(ncid, "g", &g), NC_ESTRICTNC3);
    OK(nc_close(ncid));
}

static void
classic(void)
{
    int ncid, g, t;
    MUST(nc_create(PATH3, NC_CLOBBER, &ncid));
    EXPECT(nc_def_grp(ncid, NULL, &g), NC_ENOTNC4);
    EXPECT(nc_def_grp(ncid, "a/b", &g), NC_ENOTNC4);
    EXPECT(nc_rename_grp(ncid, NULL), NC_ENOTNC4);
    EXPECT(nc_def_enum(ncid, NC_INT, NULL, &t), NC_ENOTNC4);
    EXPECT(nc_def_opaque(ncid, 8, "a/b", &t), NC_ENOTNC4);
    /* Classic dimensions and variables: the name first, as before. */
    EXPECT(nc_def_dim(ncid, "a/b", 2, NULL), NC_EBADNAME);
    OK(nc_close(ncid));
}

int
main(void)
{
    enhanced();
    classic();
    return nct_summary("tst_names4");
}
