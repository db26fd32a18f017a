/* tst_close_race.c: threads hammering one handle while another thread
 * closes it (docs/threads.md).  Every call racing nc_close must return
 * NC_NOERR (it ran before the close) or NC_EBADID (it started after), never
 * another error, a wrong value or a crash; the close itself succeeds, a
 * second closer racing it gets NC_EBADID, and after the close every call is
 * NC_EBADID.  Run for each format built: classic, netCDF-4 (HDF5), Zarr in a
 * directory and in a zip file.  TSan (test.sh) and ASan watch the record
 * and the format's state, which must not be freed under a running call. */
#include "nctst.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NHAM 4          /* hammering threads */
#define NX 2048
#define ROUNDS 24

static int ncid, varid;
static atomic_int started, calls, stop;
static atomic_long nbad;

static void
bad(const char *what, int st)
{
    if (atomic_fetch_add(&nbad, 1) < 10)
        fprintf(stderr, "FAIL %s: %d (%s)\n", what, st, nc_strerror(st));
}

/* 1 while the handle is open; 0 once NC_EBADID came back. */
static int
judge(const char *what, int st)
{
    if (st == NC_EBADID)
        return 0;
    if (st != NC_NOERR)
        bad(what, st);
    return 1;
}

static void *
hammer(void *arg)
{
    int t = (int)(intptr_t)arg, buf[NX], att = 0, vid = -1, it;
    size_t len = 0, start = 0, count = NX;
    ptrdiff_t two = 2;
    atomic_fetch_add(&started, 1);
    for (it = 0; !atomic_load(&stop); it++) {
        int st, op = (it + t) % 6;
        if (op == 0) {
            memset(buf, 0, sizeof buf);
            if (!judge("get_vara", st = nc_get_vara_int(ncid, varid, &start, &count, buf)))
                break;
            if (st == NC_NOERR)
                for (int i = 0; i < NX; i++)
                    if (buf[i] != i * 3) {
                        bad("value read", buf[i]);
                        break;
                    }
        } else if (op == 1) {
            size_t c2 = NX / 2;
            if (!judge("get_vars", st = nc_get_vars_int(ncid, varid, &start, &c2, &two, buf)))
                break;
            if (st == NC_NOERR && (buf[0] != 0 || buf[c2 - 1] != (int)(c2 - 1) * 6))
                bad("strided value", buf[c2 - 1]);
        } else if (op == 2) {
            if (!judge("inq_varid", st = nc_inq_varid(ncid, "v", &vid)))
                break;
            if (st == NC_NOERR && vid != varid)
                bad("varid", vid);
        } else if (op == 3) {
            if (!judge("get_att", st = nc_get_att_int(ncid, varid, "a", &att)))
                break;
            if (st == NC_NOERR && att != 42)
                bad("attribute", att);
        } else if (op == 4) {
            if (!judge("inq_dimlen", st = nc_inq_dimlen(ncid, 0, &len)))
                break;
            if (st == NC_NOERR && len != NX)
                bad("dimlen", (int)len);
        } else {
            int fmt;
            char path[256];
            if (!judge("inq_format", nc_inq_format(ncid, &fmt)))
                break;
            if (!judge("inq_path", nc_inq_path(ncid, NULL, path)))
                break;
        }
        atomic_fetch_add(&calls, 1);
    }
    /* The handle is closed (or closing): every call is NC_EBADID now. */
    while (!atomic_load(&stop))
        sched_yield();
    {
        int st = nc_inq_varid(ncid, "v", &vid);
        if (st != NC_EBADID)
            bad("call after close", st);
    }
    return NULL;
}

static void *
closer(void *arg)
{
    int *stp = arg;
    *stp = nc_close(ncid);
    return NULL;
}

static int
make(const char *path, int cmode)
{
    int dim, v, st, data[NX], att = 42;
    for (int i = 0; i < NX; i++)
        data[i] = i * 3;
    if ((st = nc_create(path, cmode | NC_CLOBBER, &ncid)))
        return st;
    if ((st = nc_def_dim(ncid, "x", NX, &dim)) || (st = nc_def_var(ncid, "v", NC_INT, 1, &dim, &v))
        || (st = nc_put_att_int(ncid, v, "a", NC_INT, 1, &att)) || (st = nc_enddef(ncid))
        || (st = nc_put_var_int(ncid, v, data)) || (st = nc_close(ncid)))
        return st;
    return NC_NOERR;
}

static void
one_format(const char *label, const char *path, int cmode)
{
    int st = make(path, cmode);
    if (st == NC_ENOTBUILT || st == NC_EINVAL) {
        printf("%s: not built here (%s), skipped\n", label, nc_strerror(st));
        return;
    }
    MUST(st);
    for (int r = 0; r < ROUNDS; r++) {
        pthread_t th[NHAM], c1, c2;
        int s1 = -1, s2 = -1, target = (r % 6) * 40;
        MUST(nc_open(path, r % 2 ? NC_WRITE : NC_NOWRITE, &ncid));
        MUST(nc_inq_varid(ncid, "v", &varid));
        atomic_store(&started, 0);
        atomic_store(&calls, 0);
        atomic_store(&stop, 0);
        for (int t = 0; t < NHAM; t++)
            pthread_create(&th[t], NULL, hammer, (void *)(intptr_t)t);
        /* Close after a varying number of calls, from two threads on odd
         * rounds: exactly one of them closes. */
        while (atomic_load(&started) < NHAM || atomic_load(&calls) < target)
            sched_yield();
        pthread_create(&c1, NULL, closer, &s1);
        if (r % 2)
            pthread_create(&c2, NULL, closer, &s2);
        pthread_join(c1, NULL);
        if (r % 2)
            pthread_join(c2, NULL);
        atomic_store(&stop, 1);
        for (int t = 0; t < NHAM; t++)
            pthread_join(th[t], NULL);
        if (r % 2)
            CHECK((s1 == NC_NOERR && s2 == NC_EBADID) || (s1 == NC_EBADID && s2 == NC_NOERR),
                  "%s round %d: two closers returned %d and %d", label, r, s1, s2);
        else
            CHECK(s1 == NC_NOERR, "%s round %d: close returned %d", label, r, s1);
        EXPECT(nc_close(ncid), NC_EBADID);
    }
    CHECK(atomic_load(&nbad) == 0, "%s: %ld calls returned a wrong status or value", label,
          (long)atomic_load(&nbad));
    printf("%s: %d rounds\n", label, ROUNDS);
}

int
main(void)
{
    char cwd[4096], url[4400];
    one_format("classic", "tst_close_race.nc", 0);
    one_format("cdf5", "tst_close_race5.nc", NC_64BIT_DATA);
    one_format("netcdf4", "tst_close_race4.nc", NC_NETCDF4);
    if (getcwd(cwd, sizeof cwd) != NULL) {
        snprintf(url, sizeof url, "file://%s/tst_close_race.zarr#mode=nczarr,file", cwd);
        one_format("zarr-dir", url, NC_NETCDF4);
        snprintf(url, sizeof url, "file://%s/tst_close_race.zip#mode=nczarr,zip", cwd);
        one_format("zarr-zip", url, NC_NETCDF4);
    }
    return nct_summary("tst_close_race");
}
