/* tst_threads4.c: threads that each create, write, read back and close
 * their own files at the same time: netCDF-4 files (groups, a chunked and
 * deflated variable, strings, a vlen, attributes) and classic files, with
 * every value checked, and concurrent opens of one shared read-only
 * netCDF-4 file.  The library serialises HDF5 internally; distinct handles
 * must not disturb each other.  No shared state here but the counters
 * (atomics), so it runs under TSan.  Not meaningful for the reference (not
 * thread-safe): its build only proves the test compiles there. */
#include "nctst.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NTHR 6
#define NIT 20
#define NX 40

static atomic_long nerr;

static void
fail(int t, int it, const char *what, int st)
{
    if (atomic_fetch_add(&nerr, 1) < 20)
        fprintf(stderr, "FAIL thread %d iteration %d: %s: %d (%s)\n", t, it, what, st, nc_strerror(st));
}

#define T(call, what)                                  \
    do {                                               \
        int st_ = (call);                              \
        if (st_) { fail(t, it, what, st_); goto out; } \
    } while (0)

static int
val(int t, int it, int i)
{
    return t * 100000 + it * 1000 + i;
}

static void
one_nc4(int t, int it)
{
    char path[64];
    int ncid = -1, g, d[2], v, vs, vv, ok = 1;
    nc_type vl;
    snprintf(path, sizeof path, "tst_threads4_%d.nc", t);
    T(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid), "create");
    T(nc_def_grp(ncid, "g", &g), "def_grp");
    T(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]), "def_dim t");
    T(nc_def_dim(ncid, "x", NX, &d[1]), "def_dim x");
    T(nc_def_var(g, "v", NC_INT, 2, d, &v), "def_var");
    size_t cs[2] = {1, NX / 2};
    T(nc_def_var_chunking(g, v, NC_CHUNKED, cs), "chunking");
    T(nc_def_var_deflate(g, v, 1, 1, 2), "deflate");
    T(nc_def_var(ncid, "s", NC_STRING, 1, &d[1], &vs), "def_var string");
    T(nc_def_vlen(ncid, "vl", NC_INT, &vl), "def_vlen");
    T(nc_def_var(ncid, "vv", vl, 0, NULL, &vv), "def_var vlen");
    T(nc_put_att_int(g, v, "iter", NC_INT, 1, &it), "put_att");
    T(nc_enddef(ncid), "enddef");
    int buf[3 * NX];
    for (int i = 0; i < 3 * NX; i++) buf[i] = val(t, it, i);
    size_t st[2] = {0, 0}, ct[2] = {3, NX};
    T(nc_put_vara_int(g, v, st, ct, buf), "put_vara");
    const char *strs[NX];
    char sb[NX][16];
    for (int i = 0; i < NX; i++) {
        snprintf(sb[i], sizeof sb[i], "t%d_%d", t, i);
        strs[i] = sb[i];
    }
    T(nc_put_var_string(ncid, vs, strs), "put strings");
    int vd[3] = {t, it, 7};
    nc_vlen_t vlv = {3, vd};
    T(nc_put_var(ncid, vv, &vlv), "put vlen");
    T(nc_close(ncid), "close");
    ncid = -1;
    /* read back */
    T(nc_open(path, NC_NOWRITE, &ncid), "open");
    T(nc_inq_grp_ncid(ncid, "g", &g), "inq_grp_ncid");
    int a = -1;
    T(nc_get_att_int(g, 0, "iter", &a), "get_att");
    ok &= a == it;
    memset(buf, 0, sizeof buf);
    T(nc_get_vara_int(g, 0, st, ct, buf), "get_vara");
    for (int i = 0; i < 3 * NX; i++) ok &= buf[i] == val(t, it, i);
    char *rs[NX];
    T(nc_get_var_string(ncid, 0, rs), "get strings");
    for (int i = 0; i < NX; i++) ok &= !strcmp(rs[i], sb[i]);
    nc_free_string(NX, rs);
    nc_vlen_t rv;
    T(nc_get_var(ncid, 1, &rv), "get vlen");
    ok &= rv.len == 3 && ((int *)rv.p)[0] == t && ((int *)rv.p)[1] == it;
    nc_free_vlen(&rv);
    if (!ok) fail(t, it, "netCDF-4 values", 0);
    T(nc_close(ncid), "close 2");
    ncid = -1;
out:
    if (ncid >= 0) nc_abort(ncid);
}

static void
one_classic(int t, int it)
{
    char path[64];
    int ncid = -1, d, v;
    snprintf(path, sizeof path, "tst_threads4_c%d.nc", t);
    T(nc_create(path, NC_64BIT_OFFSET | NC_CLOBBER, &ncid), "create classic");
    T(nc_def_dim(ncid, "r", NC_UNLIMITED, &d), "def_dim");
    T(nc_def_var(ncid, "v", NC_DOUBLE, 1, &d, &v), "def_var");
    T(nc_enddef(ncid), "enddef");
    double buf[NX];
    for (int i = 0; i < NX; i++) buf[i] = val(t, it, i) + 0.5;
    size_t s = 0, c = NX;
    T(nc_put_vara_double(ncid, v, &s, &c, buf), "put");
    T(nc_close(ncid), "close");
    ncid = -1;
    T(nc_open(path, NC_NOWRITE, &ncid), "open classic");
    memset(buf, 0, sizeof buf);
    T(nc_get_vara_double(ncid, 0, &s, &c, buf), "get");
    for (int i = 0; i < NX; i++)
        if (buf[i] != val(t, it, i) + 0.5) { fail(t, it, "classic values", 0); break; }
    T(nc_close(ncid), "close classic");
    ncid = -1;
out:
    if (ncid >= 0) nc_abort(ncid);
}

/* Everyone opens the same read-only netCDF-4 file and reads it. */
static void
one_shared(int t, int it)
{
    int ncid = -1, buf[NX];
    T(nc_open("tst_threads4_shared.nc", NC_NOWRITE, &ncid), "open shared");
    T(nc_get_var_int(ncid, 0, buf), "get shared");
    for (int i = 0; i < NX; i++)
        if (buf[i] != i * i) { fail(t, it, "shared values", 0); break; }
    T(nc_close(ncid), "close shared");
    ncid = -1;
out:
    if (ncid >= 0) nc_abort(ncid);
}

static void *
worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int it = 0; it < NIT; it++) {
        one_nc4(t, it);
        one_classic(t, it);
        one_shared(t, it);
    }
    return NULL;
}

int
main(void)
{
    int ncid, d, v, buf[NX];
#ifdef NCT_REFERENCE_BUILD
    if (!getenv("NCT_FORCE")) {
        printf("tst_threads4: the reference library is not thread-safe; skipped\n");
        return 77;
    }
#endif

    if (nc_create("tst_threads4_shared.nc", NC_NETCDF4 | NC_CLOBBER, &ncid) ||
        nc_def_dim(ncid, "x", NX, &d) || nc_def_var(ncid, "v", NC_INT, 1, &d, &v)) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    for (int i = 0; i < NX; i++) buf[i] = i * i;
    if (nc_put_var_int(ncid, v, buf) || nc_close(ncid)) {
        fprintf(stderr, "setup write failed\n");
        return 1;
    }
    pthread_t th[NTHR];
    for (int t = 0; t < NTHR; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t)) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    for (int t = 0; t < NTHR; t++) pthread_join(th[t], NULL);
    long n = atomic_load(&nerr);
    CHECK(n == 0, "%ld failures in threads", n);
    nct_pass += NTHR * NIT * 3;
    return nct_summary("tst_threads4");
}
