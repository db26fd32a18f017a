/* tst_threads_read.c: threads reading one read-only classic handle at once
 * (docs/threads.md): such reads share the handle's lock and run in
 * parallel, each thread with its own read buffers.  NTHR threads read
 * through one handle: whole variables, hyperslabs, strided slabs, one
 * element at a time along a row (the per-thread read-ahead), the same and
 * different variables, with type conversion, attributes and inquiries;
 * a thread alternates between two handles of two files (a thread's buffer
 * must never serve one file's bytes for the other), and one thread opens
 * and closes other files the whole time.  Every value is checked. */
#include "nctst.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define NTHR 5
#define NVAR 3
#define NY 64
#define NX 1500
#define NIT 40

static int ncid[2];
static atomic_long nerr;
static atomic_int done;

static void
fail(const char *what, long a, long b)
{
    if (atomic_fetch_add(&nerr, 1) < 10)
        fprintf(stderr, "FAIL %s: %ld %ld\n", what, a, b);
}

/* Value of element (y, x) of variable v of file f. */
static int
val(int f, int v, size_t y, size_t x)
{
    return f * 1000000 + v * 100000 + (int)(y * NX + x) % 99991;
}

static void
make(const char *path, int f)
{
    int id, dims[2], v, vid;
    static int buf[NY * NX];
    MUST(nc_create(path, NC_CLOBBER | NC_64BIT_OFFSET, &id));
    MUST(nc_def_dim(id, "y", NY, &dims[0]));
    MUST(nc_def_dim(id, "x", NX, &dims[1]));
    for (v = 0; v < NVAR; v++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", v);
        MUST(nc_def_var(id, name, NC_INT, 2, dims, &vid));
        MUST(nc_put_att_int(id, vid, "k", NC_INT, 1, &v));
    }
    MUST(nc_enddef(id));
    for (v = 0; v < NVAR; v++) {
        for (size_t i = 0; i < (size_t)NY * NX; i++)
            buf[i] = val(f, v, i / NX, i % NX);
        MUST(nc_put_var_int(id, v, buf));
    }
    MUST(nc_close(id));
}

static void
check_whole(int f, int v)
{
    static _Thread_local int buf[NY * NX];
    int st = nc_get_var_int(ncid[f], v, buf);
    if (st)
        fail("get_var", v, st);
    for (size_t i = 0; i < (size_t)NY * NX; i++)
        if (buf[i] != val(f, v, i / NX, i % NX)) {
            fail("whole value", (long)i, buf[i]);
            break;
        }
}

static void *
reader(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int it = 0; it < NIT; it++) {
        int f = (t == 0) ? it % 2 : 0;   /* thread 0 switches files */
        int v = (t + it) % NVAR, st, k = -1;
        size_t y = (size_t)(t * 7 + it * 3) % NY;
        switch (it % 5) {
        case 0:
            check_whole(f, v);
            break;
        case 1: {
            size_t start[2] = {y, 10}, count[2] = {NY - y, NX - 20};
            static _Thread_local double d[NY * NX];
            if ((st = nc_get_vara_double(ncid[f], v, start, count, d)))
                fail("get_vara", v, st);
            for (size_t i = 0; i < count[0] * count[1]; i++)
                if (d[i] != (double)val(f, v, y + i / count[1], 10 + i % count[1])) {
                    fail("slab value", (long)i, (long)d[i]);
                    break;
                }
            break;
        }
        case 2: {
            size_t start[2] = {0, (size_t)t}, count[2] = {NY / 3, NX / 7};
            ptrdiff_t stride[2] = {3, 7};
            static _Thread_local short s[NY * NX];
            st = nc_get_vars_short(ncid[f], v, start, count, stride, s);
            /* values above 32767 are NC_ERANGE, the others are converted */
            if (st != NC_NOERR && st != NC_ERANGE)
                fail("get_vars", v, st);
            for (size_t i = 0; i < count[0] * count[1]; i++) {
                int want = val(f, v, 3 * (i / count[1]), (size_t)t + 7 * (i % count[1]));
                if (want <= 32767 && s[i] != want) {
                    fail("strided value", (long)i, s[i]);
                    break;
                }
            }
            break;
        }
        case 3:
            for (size_t x = 0; x < NX; x += 3) {
                size_t idx[2] = {y, x};
                int one;
                if ((st = nc_get_var1_int(ncid[f], v, idx, &one)) || one != val(f, v, y, x)) {
                    fail("var1", (long)x, st ? st : one);
                    break;
                }
            }
            break;
        default: {
            int vid, nd, natts;
            char name[16];
            size_t len;
            snprintf(name, sizeof name, "v%d", v);
            if ((st = nc_inq_varid(ncid[f], name, &vid)) || vid != v)
                fail("inq_varid", v, st);
            if ((st = nc_get_att_int(ncid[f], v, "k", &k)) || k != v)
                fail("get_att", v, st);
            if ((st = nc_inq_var(ncid[f], v, NULL, NULL, &nd, NULL, &natts)) || nd != 2 || natts != 1)
                fail("inq_var", v, st);
            if ((st = nc_inq_dimlen(ncid[f], 1, &len)) || len != NX)
                fail("inq_dimlen", (long)len, st);
        }
        }
    }
    return NULL;
}

/* Open, read and close the second file over and over on its own handles. */
static void *
churn(void *arg)
{
    (void)arg;
    while (!atomic_load(&done)) {
        int id, st, one;
        size_t idx[2] = {5, 9};
        if ((st = nc_open("tst_threads_read1.nc", NC_NOWRITE, &id))) {
            fail("churn open", st, 0);
            break;
        }
        if ((st = nc_get_var1_int(id, 2, idx, &one)) || one != val(1, 2, 5, 9))
            fail("churn value", st, one);
        if ((st = nc_close(id)))
            fail("churn close", st, 0);
    }
    return NULL;
}

int
main(void)
{
    pthread_t th[NTHR], ch;
    make("tst_threads_read0.nc", 0);
    make("tst_threads_read1.nc", 1);
    if (nct_fail)
        return nct_summary("tst_threads_read");
    if (nc_open("tst_threads_read0.nc", NC_NOWRITE, &ncid[0])
        || nc_open("tst_threads_read1.nc", NC_NOWRITE, &ncid[1])) {
        CHECK(0, "open");
        return nct_summary("tst_threads_read");
    }
    pthread_create(&ch, NULL, churn, NULL);
    for (int t = 0; t < NTHR; t++)
        pthread_create(&th[t], NULL, reader, (void *)(intptr_t)t);
    for (int t = 0; t < NTHR; t++)
        pthread_join(th[t], NULL);
    atomic_store(&done, 1);
    pthread_join(ch, NULL);
    OK(nc_close(ncid[0]));
    OK(nc_close(ncid[1]));
    CHECK(atomic_load(&nerr) == 0, "%ld reads returned a wrong status or value",
          (long)atomic_load(&nerr));
    printf("%d threads x %d reads, churn of a second file\n", NTHR, NIT);
    return nct_summary("tst_threads_read");
}
