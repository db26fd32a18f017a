/* tst_order4.c: creation order survives close and reopen: variables,
 * dimensions, attributes (after deletes and rewrites), groups and types,
 * names chosen so that alphabetical or hash order would differ.  Also
 * reopen-after-close consistency: a file closed and reopened many times
 * in write mode, with additions each time, stays the same file. */
#include "nctst.h"

#include <string.h>

#define PATH "tst_order4.nc"

static const char *names[] = {"zeta", "alpha", "Mid", "beta", "_x", "9nine", "omega", "a"};
#define NN 8

static void
check_order(int ncid, const char *when)
{
    char name[NC_MAX_NAME + 1];
    int nv = -1, na = -1, nd = -1, ng = -1, gids[NN], nt = -1, tids[NN];
    OK(nc_inq(ncid, &nd, &nv, &na, NULL));
    CHECK(nv == NN && nd == NN, "%s: %d vars %d dims", when, nv, nd);
    for (int i = 0; i < NN && i < nv; i++) {
        OK(nc_inq_varname(ncid, i, name));
        CHECK(!strcmp(name, names[i]), "%s: var %d is %s", when, i, name);
        OK(nc_inq_dimname(ncid, i, name));
        CHECK(!strcmp(name, names[NN - 1 - i]), "%s: dim %d is %s", when, i, name);
    }
    /* attributes of var 0: names in order, "alpha" deleted, "zeta" rewritten */
    int vna = -1;
    OK(nc_inq_varnatts(ncid, 0, &vna));
    CHECK(vna == NN - 1, "%s: %d attributes", when, vna);
    const char *want[] = {"zeta", "Mid", "beta", "_x", "9nine", "omega", "a"};
    for (int i = 0; i < vna && i < NN - 1; i++) {
        OK(nc_inq_attname(ncid, 0, i, name));
        CHECK(!strcmp(name, want[i]), "%s: attribute %d is %s", when, i, name);
    }
    double z = 0;
    OK(nc_get_att_double(ncid, 0, "zeta", &z));
    CHECK(z == 2.5, "%s: rewritten attribute %g", when, z);
    OK(nc_inq_grps(ncid, &ng, gids));
    CHECK(ng == NN, "%s: %d groups", when, ng);
    for (int i = 0; i < ng && i < NN; i++) {
        char gn[32];
        snprintf(gn, sizeof gn, "g_%s", names[i]);
        OK(nc_inq_grpname(gids[i], name));
        CHECK(!strcmp(name, gn), "%s: group %d is %s", when, i, name);
    }
    OK(nc_inq_typeids(ncid, &nt, tids));
    CHECK(nt == NN, "%s: %d types", when, nt);
    for (int i = 0; i < nt && i < NN; i++) {
        OK(nc_inq_type(ncid, tids[i], name, NULL));
        char tn[32];
        snprintf(tn, sizeof tn, "t_%s", names[NN - 1 - i]);
        CHECK(!strcmp(name, tn) && tids[i] == NC_FIRSTUSERTYPEID + i, "%s: type %d is %s (%d)", when, i, name,
              tids[i]);
    }
}

static void
test_order(void)
{
    int ncid, d[NN], v;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    for (int i = 0; i < NN; i++) {
        char tn[32];
        snprintf(tn, sizeof tn, "t_%s", names[NN - 1 - i]);
        MUST(nc_def_opaque(ncid, (size_t)(i + 1), tn, NULL));
    }
    for (int i = 0; i < NN; i++) MUST(nc_def_dim(ncid, names[NN - 1 - i], (size_t)(i + 1), &d[i]));
    for (int i = 0; i < NN; i++) MUST(nc_def_var(ncid, names[i], NC_INT, 1, &d[i], &v));
    for (int i = 0; i < NN; i++) MUST(nc_put_att_int(ncid, 0, names[i], NC_INT, 1, &i));
    for (int i = 0; i < NN; i++) {
        char gn[32];
        snprintf(gn, sizeof gn, "g_%s", names[i]);
        MUST(nc_def_grp(ncid, gn, NULL));
    }
    OK(nc_del_att(ncid, 0, "alpha"));
    OK(nc_put_att_double(ncid, 0, "zeta", NC_DOUBLE, 1, (double[]){2.5}));
    check_order(ncid, "define mode");
    OK(nc_close(ncid));
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    check_order(ncid, "after reopen");
    OK(nc_close(ncid));
}

/* Open for writing, add something, close: many times over. */
static void
test_reopen_cycles(void)
{
    int ncid, d, v;
    MUST(nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "t", NC_UNLIMITED, &d));
    MUST(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    OK(nc_close(ncid));
    for (int cycle = 0; cycle < 20; cycle++) {
        char name[32];
        MUST(nc_open(PATH, NC_WRITE, &ncid));
        OK(nc_put_var1_int(ncid, 0, (size_t[]){(size_t)cycle}, &cycle));
        snprintf(name, sizeof name, "a%02d", cycle);
        OK(nc_put_att_int(ncid, NC_GLOBAL, name, NC_INT, 1, &cycle));
        if (cycle % 5 == 0) {
            snprintf(name, sizeof name, "w%02d", cycle);
            OK(nc_redef(ncid));
            OK(nc_def_var(ncid, name, NC_DOUBLE, 1, &d, &v));
            OK(nc_enddef(ncid));
        }
        OK(nc_close(ncid));
    }
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    int nv = -1, na = -1, vals[20];
    size_t len = 0;
    OK(nc_inq(ncid, NULL, &nv, &na, NULL));
    CHECK(nv == 5 && na == 20, "after 20 cycles: %d vars %d atts", nv, na);
    OK(nc_inq_dimlen(ncid, 0, &len));
    CHECK(len == 20, "records %zu", len);
    OK(nc_get_var_int(ncid, 0, vals));
    int good = 1;
    for (int i = 0; i < 20; i++) good &= vals[i] == i;
    CHECK(good, "record values");
    char name[NC_MAX_NAME + 1];
    OK(nc_inq_attname(ncid, NC_GLOBAL, 19, name));
    CHECK(!strcmp(name, "a19"), "last attribute %s", name);
    OK(nc_inq_varname(ncid, 4, name));
    CHECK(!strcmp(name, "w15"), "last variable %s", name);
    double w[20];
    OK(nc_get_var_double(ncid, 4, w));
    CHECK(w[0] == NC_FILL_DOUBLE, "late variable filled");
    OK(nc_close(ncid));
}

int
main(void)
{
    test_order();
    test_reopen_cycles();
    return nct_summary("tst_order4");
}
