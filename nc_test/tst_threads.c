/* tst_threads.c: one classic handle used by several threads at once
 * (docs/classic-safety.md).  NTHR threads share one writable
 * handle (no NC_SHARE, so the read-ahead and write-behind buffers are in
 * use) and interleave: record appends that grow the record count, puts and
 * gets of a disjoint slab of a fixed variable (strided and plain), puts and
 * gets of one slab all threads overwrite, and nc_sync.  Every value read is
 * checked against what must be there: a thread's own slab holds its last
 * write; the shared slab holds one thread's whole write, never a mix; a
 * record is all fill values or all its writer's values.  At the end the
 * file is reopened and checked in full. */
#include "nctst.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define PATH "tst_threads.nc"
#define NTHR 6
#define NIT 300
#define NX 50          /* record row: 200 bytes, not a multiple of anything */
#define SLAB 700       /* ints of a thread's own slab of f */
#define SHARED 900     /* ints of the slab of g every thread overwrites */

static int ncid, rv, fv, gv;
static atomic_long nerr;

static void
fail(const char *what, long a, long b)
{
    if (atomic_fetch_add(&nerr, 1) < 10)
        fprintf(stderr, "FAIL %s: %ld %ld\n", what, a, b);
}

static int
recval(size_t rec, int i)
{
    return (int)(rec * 1000 + (size_t)i + 1);
}

static void *
worker(void *arg)
{
    int t = (int)(intptr_t)arg, it, i, st;
    int buf[SHARED];
    for (it = 0; it < NIT; it++) {
        size_t rec = (size_t)it * NTHR + (size_t)t;
        size_t s2[2] = {rec, 0}, c2[2] = {1, NX};
        size_t s1[1], c1[1];
        ptrdiff_t two[1] = {2};
        size_t n = 0;
        /* append a record */
        for (i = 0; i < NX; i++) buf[i] = recval(rec, i);
        if ((st = nc_put_vara_int(ncid, rv, s2, c2, buf)))
            fail("put record", (long)rec, st);
        if ((st = nc_inq_dimlen(ncid, 0, &n)) || n <= rec)
            fail("numrecs after put", (long)n, (long)rec);
        /* read back own record and another thread's (all fill or all right) */
        memset(buf, 0, sizeof buf);
        if ((st = nc_get_vara_int(ncid, rv, s2, c2, buf)))
            fail("get record", (long)rec, st);
        for (i = 0; i < NX; i++)
            if (buf[i] != recval(rec, i)) { fail("own record", (long)rec, buf[i]); break; }
        s2[0] = (rec * 7 + 3) % (n ? n : 1);
        if ((st = nc_get_vara_int(ncid, rv, s2, c2, buf)))
            fail("get other record", (long)s2[0], st);
        if (buf[0] == NC_FILL_INT) {
            for (i = 0; i < NX; i++)
                if (buf[i] != NC_FILL_INT) { fail("torn fill record", (long)s2[0], buf[i]); break; }
        } else {
            for (i = 0; i < NX; i++)
                if (buf[i] != recval(s2[0], i)) { fail("torn record", (long)s2[0], buf[i]); break; }
        }
        /* own slab of f: plain put, then strided get of the even elements */
        s1[0] = (size_t)t * SLAB; c1[0] = SLAB;
        for (i = 0; i < SLAB; i++) buf[i] = t * 1000000 + it * 1000 + i % 1000;
        if ((st = nc_put_vara_int(ncid, fv, s1, c1, buf)))
            fail("put slab", t, st);
        c1[0] = SLAB / 2;
        memset(buf, 0, sizeof buf);
        if ((st = nc_get_vars_int(ncid, fv, s1, c1, two, buf)))
            fail("get slab", t, st);
        for (i = 0; i < SLAB / 2; i++)
            if (buf[i] != t * 1000000 + it * 1000 + (2 * i) % 1000) { fail("own slab", t, buf[i]); break; }
        /* shared slab of g: one thread's whole write, never a mix */
        s1[0] = 5; c1[0] = SHARED;
        for (i = 0; i < SHARED; i++) buf[i] = t * 1000 + it;
        if ((st = nc_put_vara_int(ncid, gv, s1, c1, buf)))
            fail("put shared", t, st);
        if ((st = nc_get_vara_int(ncid, gv, s1, c1, buf)))
            fail("get shared", t, st);
        for (i = 1; i < SHARED; i++)
            if (buf[i] != buf[0]) { fail("torn shared slab", buf[0], buf[i]); break; }
        if (it % 25 == t && (st = nc_sync(ncid)))
            fail("sync", t, st);
    }
    return NULL;
}

static void
setup(void)
{
    int d[3];
    MUST(nc_create(PATH, NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
    MUST(nc_def_dim(ncid, "x", NX, &d[1]));
    MUST(nc_def_dim(ncid, "y", NTHR * SLAB, &d[2]));
    MUST(nc_def_var(ncid, "f", NC_INT, 1, &d[2], &fv));
    MUST(nc_def_var(ncid, "g", NC_INT, 1, &d[2], &gv));
    MUST(nc_def_var(ncid, "r", NC_INT, 2, d, &rv));
    MUST(nc_enddef(ncid));
}

static void
check_file(void)
{
    int i, t;
    size_t n = 0;
    MUST(nc_open(PATH, NC_NOWRITE, &ncid));
    OK(nc_inq_dimlen(ncid, 0, &n));
    CHECK(n == (size_t)NIT * NTHR, "numrecs %zu", n);
    {
        static int all[NTHR * SLAB];
        int row[NX], bad = 0, g0;
        size_t s2[2] = {0, 0}, c2[2] = {1, NX}, s1[1] = {5}, c1[1] = {SHARED};
        for (s2[0] = 0; s2[0] < n && !bad; s2[0]++) {
            OK(nc_get_vara_int(ncid, rv, s2, c2, row));
            for (i = 0; i < NX; i++)
                if (row[i] != recval(s2[0], i)) { bad = 1; break; }
        }
        CHECK(!bad, "record %zu wrong on disk", s2[0] - 1);
        OK(nc_get_var_int(ncid, fv, all));
        for (t = 0, bad = 0; t < NTHR; t++)
            for (i = 0; i < SLAB; i++)
                if (all[t * SLAB + i] != t * 1000000 + (NIT - 1) * 1000 + i % 1000) bad = 1;
        CHECK(!bad, "final slabs of f wrong on disk");
        OK(nc_get_vara_int(ncid, gv, s1, c1, all));
        g0 = all[0];
        for (i = 1, bad = 0; i < SHARED; i++)
            if (all[i] != g0) bad = 1;
        CHECK(!bad && g0 % 1000 == NIT - 1, "shared slab on disk torn or stale (%d)", g0);
    }
    OK(nc_close(ncid));
}

int
main(void)
{
    pthread_t th[NTHR];
    int t;
    setup();
    for (t = 0; t < NTHR; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) != 0)
            return 1;
    for (t = 0; t < NTHR; t++)
        pthread_join(th[t], NULL);
    CHECK(atomic_load(&nerr) == 0, "%ld wrong values or errors in the threads", (long)atomic_load(&nerr));
    OK(nc_close(ncid));
    check_file();     /* everything on disk */
    return nct_summary("tst_threads");
}
