/* tst_groups4.c: groups of the enhanced model: nesting, names and full
 * names, ids by name and path, parents, dimensions visible from subgroups,
 * variables and attributes per group, group renames, and the same answers
 * after close and reopen.  Also built against the reference (ref_tst_groups4)
 * to check the expectations themselves. */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>

#define PATH "tst_groups4.nc"

static void
check_tree(int ncid, const char *when)
{
    int g = -1, h = -1, k = -1, n = -1, ids[8], p = -1;
    char name[NC_MAX_NAME + 1], full[256];
    size_t len = 0;
    OK(nc_inq_grps(ncid, &n, ids));
    CHECK(n == 2, "%s: root has %d groups", when, n);
    OK(nc_inq_grp_ncid(ncid, "g", &g));
    OK(nc_inq_grp_ncid(ncid, "k", &k));
    CHECK(n == 2 && ids[0] == g && ids[1] == k, "%s: group order", when);
    OK(nc_inq_grp_ncid(g, "h", &h));
    OK(nc_inq_grpname(h, name));
    CHECK(!strcmp(name, "h"), "%s: name %s", when, name);
    OK(nc_inq_grpname_full(h, &len, full));
    CHECK(len == 4 && !strcmp(full, "/g/h"), "%s: full name %s len %zu", when, full, len);
    OK(nc_inq_grpname_len(h, &len));
    CHECK(len == 4, "%s: grpname_len %zu", when, len);
    OK(nc_inq_grpname_full(ncid, &len, full));
    CHECK(len == 1 && !strcmp(full, "/"), "%s: root full name %s", when, full);
    OK(nc_inq_grpname(ncid, name));
    CHECK(!strcmp(name, "/"), "%s: root name %s", when, name);
    OK(nc_inq_grp_parent(h, &p));
    CHECK(p == g, "%s: parent of h", when);
    EXPECT(nc_inq_grp_parent(ncid, &p), NC_ENOGRP);
    int x = -1;
    OK(nc_inq_grp_full_ncid(ncid, "/g/h", &x));
    CHECK(x == h, "%s: full ncid /g/h", when);
    OK(nc_inq_grp_full_ncid(g, "h", &x));
    CHECK(x == h, "%s: relative full ncid", when);
    EXPECT(nc_inq_grp_full_ncid(ncid, "/g/nope", &x), NC_ENOGRP);
    EXPECT(nc_inq_grp_ncid(ncid, "h", &x), NC_ENOGRP); /* grandchild: not by plain name */
    OK(nc_inq_ncid(g, "h", &x));
    CHECK(x == h, "%s: inq_ncid", when);
    /* dimensions: root t (unlimited) and x; g y; h z */
    int d = -1;
    OK(nc_inq_dimid(h, "x", &d));
    CHECK(d == 1, "%s: x from h is dim %d", when, d);
    OK(nc_inq_dimid(h, "y", &d));
    CHECK(d == 2, "%s: y from h is dim %d", when, d);
    EXPECT(nc_inq_dimid(ncid, "y", &d), NC_EBADDIM);
    EXPECT(nc_inq_dimid(g, "z", &d), NC_EBADDIM);
    int nd = -1, dids[8];
    OK(nc_inq_dimids(h, &nd, dids, 0));
    CHECK(nd == 1 && dids[0] == 3, "%s: h's own dims %d", when, nd);
    OK(nc_inq_dimids(h, &nd, dids, 1));
    CHECK(nd == 4, "%s: h's dims with parents %d", when, nd);
    int nu = -1, uids[4];
    OK(nc_inq_unlimdims(g, &nu, uids));
    CHECK(nu == 0, "%s: g has %d own unlimited dims", when, nu);
    OK(nc_inq_unlimdims(ncid, &nu, uids));
    CHECK(nu == 1 && uids[0] == 0, "%s: root unlimited dims", when);
    int ndims = -1, nvars = -1, natts = -1, unl = -2;
    OK(nc_inq(h, &ndims, &nvars, &natts, &unl));
    CHECK(ndims == 1 && nvars == 2 && natts == 1, "%s: inq(h) %d %d %d", when, ndims, nvars, natts);
    /* a variable in h on dims of all levels, and one with the same name as a root var */
    int v = -1, vnd = -1, vd[4];
    OK(nc_inq_varid(h, "hv", &v));
    OK(nc_inq_var(h, v, NULL, NULL, &vnd, vd, NULL));
    CHECK(vnd == 4 && vd[0] == 0 && vd[1] == 1 && vd[2] == 2 && vd[3] == 3, "%s: hv dims", when);
    int hx = -1, rx = -1;
    OK(nc_inq_varid(h, "v", &hx));
    OK(nc_inq_varid(ncid, "v", &rx));
    nc_type t1 = NC_NAT, t2 = NC_NAT;
    OK(nc_inq_vartype(h, hx, &t1));
    OK(nc_inq_vartype(ncid, rx, &t2));
    CHECK(t1 == NC_SHORT && t2 == NC_DOUBLE, "%s: same var name, different groups", when);
    EXPECT(nc_inq_varid(g, "hv", &v), NC_ENOTVAR);
    /* data */
    size_t st[4] = {0, 0, 0, 0}, ct[4] = {2, 3, 2, 1};
    int buf[12];
    OK(nc_get_vara_int(h, 0, st, ct, buf));
    int good = 1;
    for (int i = 0; i < 12; i++) good &= buf[i] == i * 3;
    CHECK(good, "%s: hv values", when);
    char s[8] = "";
    OK(nc_get_att_text(h, NC_GLOBAL, "where", s));
    CHECK(!memcmp(s, "deep", 4), "%s: group attribute", when);
    /* an empty group */
    OK(nc_inq(k, &ndims, &nvars, &natts, &unl));
    CHECK(ndims == 0 && nvars == 0 && natts == 0 && unl == -1, "%s: empty group", when);
}

static void
test_groups(int cmode)
{
    int ncid, g, h, k, d[4], v;
    MUST(nc_create(PATH, cmode | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    MUST(nc_def_dim(ncid, "x", 3, &d[1]));
    MUST(nc_def_var(ncid, "v", NC_DOUBLE, 0, NULL, &v));
    MUST(nc_def_grp(ncid, "g", &g));
    MUST(nc_def_grp(g, "h", &h));
    MUST(nc_def_grp(ncid, "k", &k));
    EXPECT(nc_def_grp(ncid, "g", NULL), NC_ENAMEINUSE);
    EXPECT(nc_def_grp(ncid, "v", NULL), NC_ENAMEINUSE);
    EXPECT(nc_def_grp(ncid, "a/b", NULL), NC_EBADNAME);
    EXPECT(nc_def_grp(ncid, "", NULL), NC_EBADNAME);
    MUST(nc_def_dim(g, "y", 2, &d[2]));
    MUST(nc_def_dim(h, "z", 1, &d[3]));
    CHECK(d[2] == 2 && d[3] == 3, "dim ids are file-wide: %d %d", d[2], d[3]);
    MUST(nc_def_var(h, "hv", NC_INT, 4, d, &v));
    CHECK(v == 0, "first var in h has id %d", v);
    MUST(nc_def_var(h, "v", NC_SHORT, 0, NULL, &v));
    MUST(nc_put_att_text(h, NC_GLOBAL, "where", 4, "deep"));
    MUST(nc_enddef(ncid));
    {
        size_t st[4] = {0, 0, 0, 0}, ct[4] = {2, 3, 2, 1};
        int buf[12];
        for (int i = 0; i < 12; i++) buf[i] = i * 3;
        OK(nc_put_vara_int(h, 0, st, ct, buf));
    }
    check_tree(ncid, "before close");
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    check_tree(ncid, "after reopen");
    EXPECT(nc_def_grp(ncid, "ro", NULL), NC_EPERM);
    OK(nc_close(ncid));

    /* renames */
    MUST(nc_open(PATH, NC_WRITE, &ncid));
    MUST(nc_inq_grp_ncid(ncid, "g", &g));
    MUST(nc_inq_grp_ncid(g, "h", &h));
    EXPECT(nc_rename_grp(ncid, "root"), NC_EBADGRPID);
    EXPECT(nc_rename_grp(g, "k"), NC_ENAMEINUSE);
    EXPECT(nc_rename_grp(g, "v"), NC_ENAMEINUSE);
    EXPECT(nc_rename_grp(g, "a/b"), NC_EBADNAME);
    OK(nc_rename_grp(g, "g_renamed"));
    OK(nc_rename_grp(h, "h_renamed"));
    {
        char full[256];
        size_t len;
        OK(nc_inq_grpname_full(h, &len, full));
        CHECK(!strcmp(full, "/g_renamed/h_renamed"), "renamed full name %s", full);
        int x;
        EXPECT(nc_inq_grp_ncid(ncid, "g", &x), NC_ENOGRP);
    }
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    {
        int x = -1, nv = -1;
        OK(nc_inq_grp_full_ncid(ncid, "/g_renamed/h_renamed", &x));
        OK(nc_inq_nvars(x, &nv));
        CHECK(nv == 2, "renamed group keeps its variables: %d", nv);
        size_t st[4] = {1, 2, 1, 0}, one[4] = {1, 1, 1, 1};
        int val = -1;
        OK(nc_get_vara_int(x, 0, st, one, &val));
        CHECK(val == 33, "renamed group keeps its data: %d", val);
        int n = -1, ids[4];
        OK(nc_inq_grps(ncid, &n, ids));
        CHECK(n == 2, "groups after rename %d", n);
    }
    OK(nc_close(ncid));
}

/* Deep nesting and many siblings: ids, names and full-path look-ups. */
static void
test_deep(void)
{
    int ncid, g, ids[64];
    char path[4096] = "";
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    g = ncid;
    for (int i = 0; i < 20; i++) {
        char name[16];
        snprintf(name, sizeof name, "l%d", i);
        MUST(nc_def_grp(g, name, &g));
        strcat(path, "/");
        strcat(path, name);
    }
    for (int i = 0; i < 50; i++) {
        char name[16];
        snprintf(name, sizeof name, "s%02d", i);
        MUST(nc_def_grp(ncid, name, NULL));
    }
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    int x = -1, n = -1;
    OK(nc_inq_grp_full_ncid(ncid, path, &x));
    char full[4096];
    size_t len = 0;
    OK(nc_inq_grpname_full(x, &len, full));
    CHECK(!strcmp(full, path), "deep full name %s", full);
    OK(nc_inq_grps(ncid, &n, ids));
    CHECK(n == 51, "root has %d groups", n);
    if (n == 51) {
        char name[NC_MAX_NAME + 1];
        OK(nc_inq_grpname(ids[0], name));
        CHECK(!strcmp(name, "l0"), "first group %s", name);
        OK(nc_inq_grpname(ids[50], name));
        CHECK(!strcmp(name, "s49"), "last group %s (creation order)", name);
    }
    OK(nc_close(ncid));
}

int
main(void)
{
    test_groups(NC_NETCDF4);
    test_deep();
    /* no groups in the classic model */
    {
        int ncid;
        if (nc_create(PATH, NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER, &ncid) == NC_NOERR) {
            EXPECT(nc_def_grp(ncid, "g", NULL), NC_ESTRICTNC3);
            EXPECT(nc_rename_grp(ncid, "g"), NC_EBADGRPID); /* the root: never renamed */
            nc_close(ncid);
        } else
            CHECK(0, "create classic model");
    }
    return nct_summary("tst_groups4");
}
