/* tst_manyvars4.c: a group with many variables.
 *
 * tst_manyvars4            100,000 variables and 1,000 attributes defined
 *                          in one group, each found by name, then
 *                          nc_abort: the model's look-ups are hashed, so
 *                          this takes well under a second (bound 10 s).
 * tst_manyvars4 close N    N variables (and attributes) written: enddef +
 *                          close and reopen are timed for N/4 and N and
 *                          must grow about linearly (ratio < 8 for 4x the
 *                          variables; the HDF5 work itself is linear: the
 *                          reference takes ~0.5 ms a variable), then every
 *                          variable is found again after reopen.
 */
#include "nctst.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PATH "tst_manyvars4.nc"

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
phase(const char *what, int n, double t0, double bound)
{
    double dt = now() - t0;
    printf("%-24s %7d vars %8.3f s\n", what, n, dt);
    if (bound > 0) CHECK(dt < bound, "%s (%d vars) took %.2f s (bound %.0f s)", what, n, dt, bound);
    return dt;
}

static int
define(int n, int *gp)
{
    int ncid, g, d, v, bad = 0;
    char name[32];
    if (nc_create(PATH, NC_NETCDF4 | NC_CLOBBER, &ncid) || nc_def_grp(ncid, "many", &g) ||
        nc_def_dim(g, "x", 2, &d)) {
        CHECK(0, "setup failed");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "var_%06d", i);
        if (nc_def_var(g, name, NC_INT, i % 2, &d, &v) || v != i) bad++;
    }
    CHECK(bad == 0, "%d variables not defined with their id", bad);
    for (int i = 0; i < 1000 && i < n; i++) {
        snprintf(name, sizeof name, "att_%04d", i);
        if (nc_put_att_int(g, NC_GLOBAL, name, NC_INT, 1, &i)) bad++;
    }
    CHECK(bad == 0, "attributes not defined");
    *gp = g;
    return ncid;
}

static void
find_all(int g, int n, int step, const char *when)
{
    int bad = 0, v;
    char name[32];
    for (int i = n - 1; i >= 0; i -= step) {
        snprintf(name, sizeof name, "var_%06d", i);
        if (nc_inq_varid(g, name, &v) || v != i) bad++;
    }
    CHECK(bad == 0, "%s: %d variables not found by name", when, bad);
}

static void
test_define(int n)
{
    int g, v;
    double t0 = now();
    int ncid = define(n, &g);
    if (ncid < 0) return;
    phase("define", n, t0, 0);
    find_all(g, n, 1, "define mode");
    EXPECT(nc_def_var(g, "var_000007", NC_INT, 0, NULL, &v), NC_ENAMEINUSE);
    EXPECT(nc_inq_varid(g, "var_x", &v), NC_ENOTVAR);
    phase("define + inquire", n, t0, 10);
    nc_abort(ncid);
}

static double
close_reopen(int n)
{
    int g, ncid;
    double t0 = now(), dt;
    if ((ncid = define(n, &g)) < 0) return 0;
    t0 = now();
    OK(nc_close(ncid));
    dt = phase("enddef + close", n, t0, 0);
    t0 = now();
    if (nc_open(PATH, NC_NOWRITE, &ncid) || nc_inq_grp_ncid(ncid, "many", &g)) {
        CHECK(0, "reopen failed");
        return dt;
    }
    dt += phase("reopen", n, t0, 0);
    int nv = -1, a = -1;
    OK(nc_inq_nvars(g, &nv));
    CHECK(nv == n, "%d variables after reopen", nv);
    find_all(g, n, 1, "after reopen");
    OK(nc_inq_attid(g, NC_GLOBAL, "att_0999", &a));
    CHECK(a == 999, "attribute id %d", a);
    nc_close(ncid);
    remove(PATH);
    return dt;
}

int
main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "close")) {
        int n = argc > 2 ? atoi(argv[2]) : 20000;
        double small = close_reopen(n / 4), big = close_reopen(n);
        printf("ratio for 4x the variables: %.1f\n", big / (small > 0.01 ? small : 0.01));
        CHECK(big < 8 * (small > 0.05 ? small : 0.05), "close+reopen grows faster than linearly: %.2f s for %d, "
              "%.2f s for %d", small, n / 4, big, n);
    } else
        test_define(argc > 1 ? atoi(argv[1]) : 100000);
    return nct_summary("tst_manyvars4");
}
