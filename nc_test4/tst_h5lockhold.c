/* tst_h5lockhold: the filtered-chunk pipeline never takes away a hold of
 * the HDF5 lock that a caller above it has.
 *
 * One thread fills the write-back cache of a deflated variable of file A
 * with partly written chunks, then calls nc_sync, which encodes them on the
 * pool from inside its own locked sequence.  Another thread reads a value
 * of file B over and over (each read takes the HDF5 lock).  While the sync
 * runs none of those reads may finish: the sync holds the lock from start
 * to end.  While a large read of A decodes on the pool (the data call
 * releases its own hold for that), the reads of B must go on.  Then two
 * threads read the variable of A through one handle at once (single
 * values, kept in its cache, and whole rows), every value checked.
 *
 * usage: tst_h5lockhold   (files in the current directory) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netcdf.h>
#include "nctst.h"

#define NY 2048
#define NX 1024
#define CY 64
#define MAXT 2000000

static int ncid_b, varid_b;
static atomic_int stop;
static double *done_at;               /* completion times of B's reads */
static atomic_size_t ndone;

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *
reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        size_t idx[1] = {1};
        int v;
        if (nc_get_var1_int(ncid_b, varid_b, idx, &v) != NC_NOERR || v != 42)
            break;
        size_t k = atomic_fetch_add(&ndone, 1);
        if (k < MAXT)
            done_at[k] = now();
    }
    return NULL;
}

/* Two threads on one handle of A. */
typedef struct shared_read {
    int ncid, varid, seed;
    const float *data;
    atomic_int *bad;
} shared_read;

static void *
one_handle(void *arg)
{
    shared_read *r = arg;
    unsigned x = (unsigned)r->seed;
    float row[NX];
    for (int k = 0; k < 400; k++) {
        size_t idx[2];
        float v;
        x = x * 1103515245u + 12345u;
        idx[0] = (x >> 8) % NY;
        x = x * 1103515245u + 12345u;
        idx[1] = (x >> 8) % NX;
        if (nc_get_var1_float(r->ncid, r->varid, idx, &v) || v != r->data[idx[0] * NX + idx[1]])
            atomic_fetch_add(r->bad, 1);
        if (k % 50 == 0) {
            size_t st[2] = {idx[0], 0}, ct[2] = {1, NX};
            if (nc_get_vara_float(r->ncid, r->varid, st, ct, row) ||
                memcmp(row, r->data + idx[0] * NX, sizeof(row)) != 0)
                atomic_fetch_add(r->bad, 1);
        }
    }
    return NULL;
}

/* B's reads that finished inside the middle 80% of [t0, t1]. */
static size_t
inside(double t0, double t1)
{
    double lo = t0 + (t1 - t0) * 0.1, hi = t1 - (t1 - t0) * 0.1;
    size_t n = atomic_load(&ndone), c = 0;
    if (n > MAXT)
        n = MAXT;
    for (size_t i = 0; i < n; i++)
        if (done_at[i] > lo && done_at[i] < hi)
            c++;
    return c;
}

static void
run(float *data, float *back)
{
    int ncid, dims[2], varid, bdim;
    size_t chunks[2] = {CY, NX};
    uint64_t r = 0x9E3779B97F4A7C15ull;
    pthread_t th;
    double t0, t1, t2, t3;
    size_t during_sync, during_read;

    for (size_t i = 0; i < (size_t)NY * NX; i++) {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        data[i] = (float)(r >> 40) * 1e-3f;
    }
    /* File B: one small contiguous variable. */
    MUST(nc_create("tst_h5lockhold_b.nc", NC_NETCDF4 | NC_CLOBBER, &ncid_b));
    MUST(nc_def_dim(ncid_b, "n", 4, &bdim));
    MUST(nc_def_var(ncid_b, "v", NC_INT, 1, &bdim, &varid_b));
    MUST(nc_enddef(ncid_b));
    {
        int v[4] = {41, 42, 43, 44};
        MUST(nc_put_var_int(ncid_b, varid_b, v));
    }
    /* File A: 8 MiB of hard-to-compress floats in 32 chunks of 256 KiB (a read
     * long enough for the other thread to be scheduled during it),
     * written row by row so every chunk waits, dirty, in the cache. */
    MUST(nc_create("tst_h5lockhold_a.nc", NC_NETCDF4 | NC_CLOBBER, &ncid));
    MUST(nc_def_dim(ncid, "y", NY, &dims[0]));
    MUST(nc_def_dim(ncid, "x", NX, &dims[1]));
    MUST(nc_def_var(ncid, "z", NC_FLOAT, 2, dims, &varid));
    MUST(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
    MUST(nc_def_var_deflate(ncid, varid, 1, 1, 9));
    MUST(nc_set_var_chunk_cache(ncid, varid, (size_t)64 << 20, 1000, 0.75f));
    MUST(nc_enddef(ncid));
    for (size_t y = 0; y < NY; y++) {
        size_t st[2] = {y, 0}, ct[2] = {1, NX};
        MUST(nc_put_vara_float(ncid, varid, st, ct, data + y * NX));
    }

    if (pthread_create(&th, NULL, reader, NULL)) {
        CHECK(0, "pthread_create failed");
        return;
    }
    /* Let the reader get going. */
    while (atomic_load(&ndone) < 100)
        ;
    t0 = now();
    OK(nc_sync(ncid));
    t1 = now();
    t2 = now();
    OK(nc_get_var_float(ncid, varid, back));
    t3 = now();
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    during_sync = inside(t0, t1);
    during_read = inside(t2, t3);
    CHECK(memcmp(back, data, sizeof(float) * NY * NX) == 0, "values read back differ");
    CHECK(during_sync == 0, "%zu reads of another file finished while nc_sync held the HDF5 lock (%.3f s)",
          during_sync, t1 - t0);
    /* A read too short to measure proves nothing either way. */
    if (t3 - t2 > 0.005)
        CHECK(during_read > 0, "no read of another file finished during a pipelined read (%.3f s)", t3 - t2);
    {
        pthread_t t2[2];
        atomic_int bad = 0;
        shared_read r[2] = {{ncid, varid, 1, data, &bad}, {ncid, varid, 2, data, &bad}};
        int made = 0;
        for (int k = 0; k < 2; k++)
            made += pthread_create(&t2[k], NULL, one_handle, &r[k]) == 0;
        for (int k = 0; k < made; k++)
            pthread_join(t2[k], NULL);
        CHECK(made == 2 && atomic_load(&bad) == 0, "two threads on one handle: %d wrong reads",
              atomic_load(&bad));
    }
    OK(nc_close(ncid));
    OK(nc_close(ncid_b));
}

int
main(void)
{
    float *data = malloc(sizeof(float) * NY * NX), *back = malloc(sizeof(float) * NY * NX);
    done_at = malloc(sizeof(double) * MAXT);
    if (data == NULL || back == NULL || done_at == NULL)
        return 1;
    run(data, back);
    free(data);
    free(back);
    free(done_at);
    return nct_summary("tst_h5lockhold");
}
